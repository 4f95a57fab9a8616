"""ISDP-E3-block-truncation-bias (App. E.4's block-level statement, exact on small lattices): the criterion matches
on the right law and differs on a plausibly wrong one. (The other rows of this file moved to
tests/experiments/lattice_study/.)"""

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


# a row and the plausibly wrong law under which it must differ (its `why` says why each is plausible)
FLIPS = {
    "ISDP-E3-block-truncation-bias": {"counts": [1000]},  # county-sized counts: truncation is vacuous
}


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    status, m = row_verdict(row, run, **FLIPS[row])
    assert status == "differs", m.text
