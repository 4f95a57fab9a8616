"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.transparency`: §4's transparency rows: the
invariants kept (extended release), unbiasedness of the extension mechanisms, the noise's independence of the data
(fails when the error depends on the table or the release is clipped) and distributed privatization with a common seed
(fails with agents' own seeds or a release that loses the invariant)."""

from __future__ import annotations

import json

import numpy as np
from closed_form_support import row_status
from conftest import REGISTRY, row_verdict
from criteria_support import judge
from isdp_papers.claims import claim, resolve_measure
from isdp_papers.evidence import Run

from isdp.baselines import nonnegative_total_projection


def test_extended_invariants_row_fails_on_a_violated_invariant(tmp_path):
    (tmp_path / "results" / "e6").mkdir(parents=True)
    info = {"n_studies": 2, "n_reps": 5, "max_abs_invariant": 100.0}
    for residual, status in ((1e-13, "match"), (0.3, "differs")):
        (tmp_path / "results" / "e6" / "info.json").write_text(json.dumps({**info, "extended_max_residual": residual}))
        assert row_status("SDP-E6-extended-invariants", run=Run(tmp_path)) == status


def test_extended_unbiased_row_matches_and_a_biased_release_fails():
    status, m = row_verdict("SDP-E6-extended-unbiased", Run("."))
    assert status == "match" and m.value.size == 2 * 24
    status, m = row_verdict("SDP-E6-extended-unbiased", Run("."), clip_at=0.0)  # counts made non-negative
    assert status == "differs" and np.abs(m.value).max() > 10


# --------------------------------------------------------------------------- §4: noise independent of the data


def test_data_independence_row_fails_when_the_error_depends_on_the_table(tmp_path):
    from isdp.baselines import projected_gaussian, row_space_basis

    A = np.ones((1, 6), dtype=int)
    x1, x2 = np.array([0, 1, 2, 3, 40, 50]), np.array([9, 0, 30, 1, 2, 14])
    draws = [projected_gaussian(x, A, 3.0, 50, np.random.default_rng(5), basis=row_space_basis(A)) for x in (x1, x2)]
    additive = float(np.abs((draws[0] - x1) - (draws[1] - x2)).max())
    floored = [nonnegative_total_projection(d, float(x.sum())) - x for d, x in zip(draws, (x1, x2), strict=True)]
    clipped = float(np.abs(floored[0] - floored[1]).max())  # a post-processing that reads the data
    assert additive < 1e-12 < 0.1 < clipped
    (tmp_path / "results" / "e6").mkdir(parents=True)
    for gap, expected in ((additive, "match"), (clipped, "differs")):
        (tmp_path / "results" / "e6" / "info.json").write_text(json.dumps({"data_independence_gap": gap}))
        row = claim("SDP-E6-data-independence", REGISTRY)
        m = resolve_measure(row["measure"])(Run(tmp_path), row["paper_value"])
        assert judge(row["criterion"], row["paper_value"], m) == expected


def test_noise_is_data_independent_unless_clipped(run):
    status, m = row_verdict("SDP-E6-data-independence-all", run)
    assert status == "match" and m.value < 1e-12
    status, m = row_verdict("SDP-E6-data-independence-all", run, clip_at=0.0)  # non-negativity post-processing
    assert status == "differs" and m.value > 1


# --------------------------------------------------------------------------- distributed privatization


def test_distributed_row_matches_with_a_common_seed(run):
    status, m = row_verdict("SDP-E6-distributed-privatization", run)
    assert status == "match" and m.value < 1e-12
    assert "projected Laplace 0.0e+00" in m.text  # the assembled releases equal the central ones bit for bit


def test_distributed_row_fails_when_agents_seed_their_own_generators(run):
    status, m = row_verdict("SDP-E6-distributed-privatization", run, shared_seed=False)
    assert status == "differs" and m.value > 1.0


def test_distributed_row_fails_when_the_release_loses_the_invariant(run):
    # clipping at 0 is local (the agents still agree with the central release) but breaks C x
    status, m = row_verdict("SDP-E6-distributed-privatization", run, clip_at=0.0)
    assert status == "differs" and m.value > 1.0
    assert "projected Gaussian 0.0e+00" in m.text
