"""Rows that test a statement of Subspace DP or Congenial DP directly: the extension mechanisms' unbiasedness
(SDP-E6-extended-unbiased), the noise variance in ε (CDP-E7-noise-variance-eps), the printed f_L2 formula
(CDP-E7-l2-printed-formula) and the printed NegativeBinomial parameters (CDP-E7-negbin-printed). Each matches
under its own law or setting and differs under a plausibly wrong one."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REGISTRY, row_verdict
from scipy import stats

from isdp.baselines import null_space_blocks
from isdp.double_geometric import dg_pmf
from isdp.experiments.claims import Run, claim
from isdp.experiments.e6_spatiotemporal_gaussian import measures as e6
from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints
from isdp.experiments.e7_congenial_histogram import measures as e7


def _e7_run(tmp_path, x=(30, 70)) -> Run:
    return Run(tmp_path, config={"e7": {"x": list(x), "eps_grid": [0.5, 2.0]}})


# --------------------------------------------------------------------------- Subspace DP: extension mechanisms


def test_extended_laplace_keeps_the_invariants_with_the_stated_per_cell_variance():
    A, _ = group_hour_building_constraints(2, 3, 2)
    basis = null_space_blocks(A)
    x = np.arange(A.shape[1], dtype=float)
    y, b = e6._extended_laplace(x, 0.7, 40_000, np.random.default_rng(3), basis)
    np.testing.assert_allclose(y @ A.T - x @ A.T, 0.0, atol=1e-9)
    pi = np.zeros(x.size)
    for cells, Q in basis:
        pi[cells] = (Q**2).sum(axis=1)
    ratio = (y - x).var(axis=0) / (2 * b**2 * pi)
    assert np.abs(ratio - 1).max() < 0.05  # SE of a Laplace-mixture variance at 40,000 draws is about 1 %


def test_extended_unbiased_row_matches_and_a_biased_release_fails():
    status, m = row_verdict("SDP-E6-extended-unbiased", Run("."))
    assert status == "match" and m.value.size == 2 * 24
    status, m = row_verdict("SDP-E6-extended-unbiased", Run("."), clip_at=0.0)  # counts made non-negative
    assert status == "differs" and np.abs(m.value).max() > 10


# --------------------------------------------------------------------------- Congenial DP §1.3-1.4: variance in ε


def _truncated_dg_variance(eps, sensitivity, reach=20):
    """Var of (1.3) restricted to |u| ≤ reach: bounded by reach², whatever ε."""
    u = np.arange(-reach, reach + 1)
    p = dg_pmf(u, eps / sensitivity)
    return float((u**2 * p).sum() / p.sum())


def test_noise_variance_row_matches_and_fails_for_a_misread_scale_or_bounded_noise(tmp_path, monkeypatch):
    run = _e7_run(tmp_path)
    status, m = row_verdict("CDP-E7-noise-variance-eps", run)
    assert status == "match"
    for e in (0.01, 1.0, 3.0):  # the closed forms the row uses are the laws' variances
        assert e7.NOISE_VARIANCE["Laplace"](e, 2) == pytest.approx(stats.laplace(scale=2 / e).var())
        u = np.arange(-4000, 4001)
        assert e7.NOISE_VARIANCE["Double Geometric"](e, 1) == pytest.approx((u**2 * dg_pmf(u, e)).sum(), rel=1e-6)
    with monkeypatch.context() as mp:  # ε read as the Laplace scale: Var grows with ε
        mp.setitem(e7.NOISE_VARIANCE, "Laplace", lambda eps, sensitivity: 2 * (eps / sensitivity) ** 2)
        status, m = row_verdict("CDP-E7-noise-variance-eps", run)
        assert status == "differs" and not m.value["decreasing in ε"]
    monkeypatch.setitem(e7.NOISE_VARIANCE, "Double Geometric", _truncated_dg_variance)
    status, m = row_verdict("CDP-E7-noise-variance-eps", run)
    assert status == "differs" and m.value == {"decreasing in ε": True, "unbounded as ε → 0": False}


# --------------------------------------------------------------------------- Congenial DP §4: the printed f_L2


def test_printed_l2_formula_is_off_by_half_the_bin_difference(tmp_path):
    x = (30, 70)
    status, m = row_verdict("CDP-E7-l2-printed-formula", _e7_run(tmp_path / "a", x))
    assert status == "differs" and m.value == pytest.approx(abs(x[0] - x[1]) / 2, abs=1e-9)
    assert float(m.note.rsplit(": ", 1)[1]) < 1e-9  # with (s1 − s2)/2 restored the formula is the projection
    status, m = row_verdict("CDP-E7-l2-printed-formula", _e7_run(tmp_path / "b", (x[0] + 1, x[0] + 1)))
    assert status == "match"  # equal bins: the dropped term vanishes, so the row can match
    assert claim("CDP-E7-l2-printed-formula", REGISTRY)["same_fact_as"] == "CDP-E7-table2-mean-l2"


# --------------------------------------------------------------------------- Congenial DP §3: NegativeBinomial


def test_negbin_printed_parameters_in_the_scipy_convention_differ_and_the_other_convention_matches(tmp_path):
    args = claim("CDP-E7-negbin-printed", REGISTRY)["args"]
    size, prob = args["size"], args["prob"]
    status, m = row_verdict("CDP-E7-negbin-printed", _e7_run(tmp_path))
    assert status == "differs"
    assert m.value["mean"] == pytest.approx(size * (1 - prob) / prob)  # failures before the size-th success
    assert m.value["variance"] == pytest.approx(size * (1 - prob) / prob**2)
    # the same numbers with the probability read as the failure probability: the moments the paper prints
    assert row_verdict("CDP-E7-negbin-printed", _e7_run(tmp_path), prob=1 - prob)[0] == "match"
