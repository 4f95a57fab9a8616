"""Tests of :mod:`isdp_papers.e7_congenial_histogram.measures.sections1_3`: §1.3–1.4's rows (the Double Geometric's
level, printed pmf and CDF, its improper limit, the noise variance in ε, the posterior bound and its limit, the binary
sensitivity) and §3's negative binomial moments: each row matches on the real measure and differs under a plausibly
wrong law, scale or parametrisation."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import eps_grid_run, privacy_table_run, table2_run
from conftest import REGISTRY, row_verdict
from isdp_papers.claims import claim
from isdp_papers.e7_congenial_histogram import neighbours as nbr
from isdp_papers.e7_congenial_histogram import printed_dg as pdg
from isdp_papers.e7_congenial_histogram import privacy_levels as pl
from isdp_papers.e7_congenial_histogram.measures import sections1_3
from scipy import stats

from isdp.mcmc import DoubleGeometric


def test_e7_negbin_measure_uses_the_e5_parametrisation(tmp_path):
    m = sections1_3.negbin_moments(table2_run(tmp_path, (3, 9)), None)
    assert m.value == pytest.approx({"mean": 10.0, "variance": 20.0})  # r (1 − p) / p and r (1 − p) / p²


# --------------------------------------------------------------------------- the Double Geometric (1.3), App. B


def test_dg_level_is_eps_and_a_scale_that_ignores_the_sensitivity_is_not(tmp_path, monkeypatch):
    run = privacy_table_run(tmp_path)
    status, m = row_verdict("CDP-E7-dg-level", run)
    assert status == "match" and m.value == pytest.approx(1.0, abs=1e-12)  # attained, not only bounded
    orig = pdg.dg_logpmf_printed
    monkeypatch.setattr(pdg, "dg_logpmf_printed", lambda u, eps, sensitivity=1.0: orig(u, eps))  # a = exp(−ε)
    assert row_verdict("CDP-E7-dg-level", run)[0] == "differs"


def test_printed_dg_cdf_is_the_cdf_and_an_off_by_one_is_caught(tmp_path, monkeypatch):
    run = privacy_table_run(tmp_path)
    u = np.arange(-30, 31)
    np.testing.assert_allclose(
        pdg.dg_cdf_printed(u, 0.8),
        np.cumsum(np.exp(pdg.dg_logpmf_printed(np.arange(-400, 31), 0.8)))[-len(u) :],
        atol=1e-12,
    )
    assert row_verdict("CDP-E7-dg-cdf", run)[0] == "match"
    orig = pdg.dg_cdf_printed
    monkeypatch.setattr(
        pdg,
        "dg_cdf_printed",
        lambda u, eps: np.where(  # a^u in place of a^(u+1)
            np.asarray(u) > 0, 1 - np.exp(-eps) ** np.asarray(u, float) / (1 + np.exp(-eps)), orig(u, eps)
        ),
    )
    status, m = row_verdict("CDP-E7-dg-cdf", run)
    assert status == "differs" and m.value > 1e-3


def test_dg_pmf_row_matches_and_a_wrong_constant_fails(run, monkeypatch):
    assert row_verdict("CDP-E7-dg-pmf-printed", run)[0] == "match"
    original = pdg.dg_logpmf_printed

    def half_constant(u, eps, sensitivity=1.0):  # (1 − a)/2 in place of (1 − a)/(1 + a)
        a = np.exp(-eps / sensitivity)
        return original(u, eps, sensitivity) + np.log((1 + a) / 2)

    monkeypatch.setattr(pdg, "dg_logpmf_printed", half_constant)
    status, m = row_verdict("CDP-E7-dg-pmf-printed", run)
    assert status == "differs" and m.value["total mass"] < 0.95


def test_noise_improper_row_matches_and_a_law_with_a_proper_limit_fails(run, monkeypatch):
    assert row_verdict("CDP-E7-noise-improper-limit", run)[0] == "match"
    original = pdg.dg_logpmf_printed  # a DG whose spread stops growing below ε = 1: its limit is a proper law
    monkeypatch.setattr(pdg, "dg_logpmf_printed", lambda u, eps, sensitivity=1.0: original(u, 1.0, sensitivity))
    status, m = row_verdict("CDP-E7-noise-improper-limit", run)
    assert status == "differs" and m.value > 1e3


def _truncated_dg_variance(eps, sensitivity, reach=20):
    """Var of (1.3) restricted to |u| ≤ reach: bounded by reach², whatever ε."""
    u = np.arange(-reach, reach + 1)
    p = DoubleGeometric(eps / sensitivity).pmf(u)
    return float((u**2 * p).sum() / p.sum())


def test_noise_variance_row_matches_and_fails_for_a_misread_scale_or_bounded_noise(tmp_path, monkeypatch):
    run = eps_grid_run(tmp_path)
    status, m = row_verdict("CDP-E7-noise-variance-eps", run)
    assert status == "match"
    for e in (0.01, 1.0, 3.0):  # the closed forms the row uses are the laws' variances
        assert sections1_3.NOISE_VARIANCE["Laplace"](e, 2) == pytest.approx(stats.laplace(scale=2 / e).var())
        u = np.arange(-4000, 4001)
        assert sections1_3.NOISE_VARIANCE["Double Geometric"](e, 1) == pytest.approx(
            (u**2 * DoubleGeometric(e).pmf(u)).sum(), rel=1e-6
        )
    with monkeypatch.context() as mp:  # ε read as the Laplace scale: Var grows with ε
        mp.setitem(sections1_3.NOISE_VARIANCE, "Laplace", lambda eps, sensitivity: 2 * (eps / sensitivity) ** 2)
        status, m = row_verdict("CDP-E7-noise-variance-eps", run)
        assert status == "differs" and not m.value["decreasing in ε"]
    monkeypatch.setitem(sections1_3.NOISE_VARIANCE, "Double Geometric", _truncated_dg_variance)
    status, m = row_verdict("CDP-E7-noise-variance-eps", run)
    assert status == "differs" and m.value == {"decreasing in ε": True, "unbounded as ε → 0": False}


# --------------------------------------------------------------------------- posterior, sensitivity, negative binomial


def test_posterior_bound_holds_with_the_other_records_fixed_and_not_for_a_linked_record(tmp_path):
    run = privacy_table_run(tmp_path)
    status, m = row_verdict("CDP-E7-posterior-bound", run)
    assert status == "match" and 0.99 < m.value <= 1, m.text  # approached at the extreme priors
    status, m = row_verdict("CDP-E7-posterior-bound", run, linked=2)
    assert status == "differs" and m.value > 1.9, m.text


def test_posterior_limit_row_matches_and_fails_with_epsilon_as_the_scale(run, monkeypatch):
    status, m = row_verdict("CDP-E7-posterior-limit", run)
    assert status == "match" and 0 < m.value <= 1e-4
    monkeypatch.setattr(pl, "base_scale", lambda eps: 2.0 * eps)  # noise shrinking with ε: the release pins x_i
    status, m = row_verdict("CDP-E7-posterior-limit", run)
    assert status == "differs" and m.value > 0.1


def test_binary_sensitivity_depends_on_the_neighbours_and_the_norm(tmp_path, monkeypatch):
    run = privacy_table_run(tmp_path)
    status, m = row_verdict("CDP-E7-sensitivity-binary", run)
    assert m.value == {"count": 1.0, "histogram": 2.0} and status == "differs"
    assert nbr.sensitivity("histogram", 4, norm=np.inf) == nbr.sensitivity("histogram", 4, neighbours="add/remove") == 1
    orig = nbr.sensitivity
    monkeypatch.setattr(
        nbr, "sensitivity", lambda q, n, norm=1, neighbours="bounded": orig(q, n, norm=norm, neighbours="add/remove")
    )
    assert row_verdict("CDP-E7-sensitivity-binary", run)[0] == "match"


def test_negbin_printed_parameters_in_the_scipy_convention_differ_and_the_other_convention_matches(tmp_path):
    args = claim("CDP-E7-negbin-printed", REGISTRY)["args"]
    size, prob = args["size"], args["prob"]
    status, m = row_verdict("CDP-E7-negbin-printed", eps_grid_run(tmp_path))
    assert status == "differs"
    assert m.value["mean"] == pytest.approx(size * (1 - prob) / prob)  # failures before the size-th success
    assert m.value["variance"] == pytest.approx(size * (1 - prob) / prob**2)
    # the same numbers with the probability read as the failure probability: the moments the paper prints
    assert row_verdict("CDP-E7-negbin-printed", eps_grid_run(tmp_path), prob=1 - prob)[0] == "match"
