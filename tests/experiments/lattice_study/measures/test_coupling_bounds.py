"""Tests of :mod:`isdp_papers.lattice_study.measures.coupling_bounds`: Alg. 2's L-lag coupling and its TV bound
(ISDP §4, App. D.2). Each row matches on the right law and differs on a plausibly wrong one:
ISDP-E1-coupling-finite (fails for met chains that part again), ISDP-E1-maximal-coupling-kernel (differs on the
configured targets, matches where the sweep is maximal), ISDP-E1-tv-bound-valid (fails for meeting times recorded a
lag early), ISDP-E1-lag-tradeoff (fails for an unchanged lag), ISDP-E1-tv-bound-not-sharp (fails for a sharp
estimator) and ISDP-E1-maximal-coupling (fails for independent proposals)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import row_verdict
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.exact_tv import exact_tv_curve
from isdp_papers.lattice_study.measures import coupling_bounds
from isdp_papers.lattice_study.measures.sampler_kernel import _small_lattice
from lattice_support import assert_row_flips, registry_row, row_status

import isdp.lattice
import isdp.mcmc

FINITE_ROW = "ISDP-E1-coupling-finite"
KERNEL_ROW = "ISDP-E1-maximal-coupling-kernel"


@pytest.mark.parametrize("a", [0.2, 0.6, 0.92])
@pytest.mark.parametrize("d", [0, 1, 2, 5, -3])
def test_the_tv_of_a_shift_is_its_closed_form(a, d):
    """TV(DG(a), d + DG(a)) = P(K < d/2) − P(K < −d/2): 1 − a^m (d = 2m), 1 − 2a^{m+1}/(1 + a) (d = 2m + 1)."""
    m = abs(d) // 2
    closed = 1 - a**m if d % 2 == 0 else 1 - 2 * a ** (m + 1) / (1 + a)
    assert coupling_bounds.dg_tv_shift(d, float(-np.log(a))) == pytest.approx(closed, abs=1e-12)


# --------------------------------------------------------------------------- ISDP-E1-coupling-finite


def test_the_row_matches_for_algorithm_2(run):
    status, m = row_verdict(FINITE_ROW, run)
    assert status == "match" and m.value < 1e-9


def test_met_chains_that_part_again_fail_the_row(run):
    status, m = row_verdict(FINITE_ROW, run, uniforms="independent", horizon=60)
    assert status == "differs" and m.value > 0.25


# --------------------------------------------------------------------------- ISDP-E1-maximal-coupling-kernel


def test_the_row_differs_on_the_configured_targets(run):
    status, m = row_verdict(KERNEL_ROW, run)
    assert status == "differs" and m.value < 0.1 and m.n == 15
    assert registry_row(KERNEL_ROW)["cause"] == "reading"


def test_the_row_matches_where_the_sweep_is_maximal(run):
    # a flat target accepts every proposal: one coordinate apart the sweep is the maximal proposal coupling
    status, m = row_verdict(KERNEL_ROW, run, target_eps=1e-12, pairs=[[[0, 0], [1, 0]], [[0, 0], [0, 3]]])
    assert status == "match" and abs(m.value - 1) < 1e-9
    status, m = row_verdict(KERNEL_ROW, run, pairs=[[[0, 0], [0, 0]], [[7, -3], [7, -3]]])  # equal chains
    assert status == "match"
    # two coordinates apart even the flat target's sweep is not maximal: a product of maximal couplings is not
    status, m = row_verdict(KERNEL_ROW, run, target_eps=1e-12, pairs=[[[0, 0], [1, 1]]])
    assert status == "differs" and m.value < 0.99


# --------------------------------------------------------------------------- the TV bound and the lag


def test_the_lag_estimate_bounds_the_exact_tv_and_meeting_times_recorded_a_lag_early_do_not(monkeypatch):
    c = registry_row("ISDP-E1-tv-bound-valid")
    m = coupling_bounds.tv_bound_valid(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match" and m.value.size >= 4 * len(c["args"]["lags"])
    real = isdp.mcmc.meeting_times

    def early(*args, **kwargs):  # τ − L taken as the meeting time: the bound loses a lag of iterations
        mt = real(*args, **kwargs)
        return isdp.mcmc.MeetingTimes(tau=mt.tau - mt.lag, met=mt.met, lag=mt.lag, seconds=mt.seconds)

    monkeypatch.setattr(isdp.mcmc, "meeting_times", early)
    # such meeting times (some at or below their lag) are no coupling's: refused, never judged
    with pytest.raises(ValueError, match="is impossible at lag"):
        coupling_bounds.tv_bound_valid(Run(".", {}), c["paper_value"], **c["args"])


def test_a_larger_lag_tightens_the_bound_and_costs_more_and_an_unchanged_lag_does_not():
    c = registry_row("ISDP-E1-lag-tradeoff")
    m = coupling_bounds.lag_tradeoff(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    m = coupling_bounds.lag_tradeoff(Run(".", {}), c["paper_value"], **{**c["args"], "lags": [10, 10, 10]})
    assert row_status(c, m) == "differs" and abs(m.value) < 3.43


def test_the_lag_bound_stays_above_the_exact_tv_and_a_sharp_estimator_does_not(monkeypatch):
    c = registry_row("ISDP-E1-tv-bound-not-sharp")
    m = coupling_bounds.tv_bound_not_sharp(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    case = c["args"]["case"]
    lattice = _small_lattice(case["lattice"])
    ts = np.asarray(c["args"]["iterations"])
    _, tv = exact_tv_curve(
        lattice,
        isdp.lattice.generalized_laplace(case["eps"], case["norm"]),
        case["proposal_eps"],
        case["radius"],
        [np.zeros(lattice.n, dtype=np.int64)],
        [1.0],
        ts,
    )
    rng = np.random.default_rng(11)

    def sharp(pairs, t):  # one Bernoulli(TV(t)) term per pair: an unbiased estimate of the exact TV itself
        return (rng.random((len(pairs.tau), len(t))) < tv[None, :]).astype(float)

    monkeypatch.setattr(isdp.mcmc.MeetingTimes, "tv_bound_terms", sharp)
    m = coupling_bounds.tv_bound_not_sharp(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "differs" and abs(m.value) < 3.43


# --------------------------------------------------------------------------- ISDP-E1-maximal-coupling

FLIPS = {"ISDP-E1-maximal-coupling": {"coupling": "independent"}}  # independent proposals meet rarely


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    """ISDP-E1-maximal-coupling matches for Alg. 2's maximal proposal coupling and differs for independent proposals."""
    assert_row_flips(row, run, FLIPS[row])
