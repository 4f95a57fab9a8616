"""ISDP rows on what post-processing and i.i.d. noise do to invariants and to the error law (E3–E4): the discrete
Gaussian's broken totals, non-negative projection bias and data dependence. Each criterion matches on the right law
and differs on a plausibly wrong one. (The E1/E2 rows of this file moved to tests/experiments/lattice_study/.)"""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.experiments import claims

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="module")
def run() -> claims.Run:
    """The rows read only the config and committed inputs."""
    return claims.Run(ROOT, CONFIG, repo=ROOT)


# --------------------------------------------------------------------------- E3: the discrete Gaussian's totals


def test_discrete_gaussian_total_row_fails_for_noise_too_small_to_move_a_count(run):
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", run)
    assert status == "match" and 0 < m.value < 0.5, m.text
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", run, sigma=0.3)
    assert status == "differs", m.text


# --------------------------------------------------------------------------- E4: non-negative projection


def test_nonnegative_projection_bias_row_fails_without_the_nonnegativity(run):
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run, nonnegative=False)
    assert status == "differs", m.text


def test_projection_data_dependence_row_fails_for_a_projection_whose_error_ignores_the_counts(run):
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run, nonnegative=False)
    assert status == "differs", m.text
