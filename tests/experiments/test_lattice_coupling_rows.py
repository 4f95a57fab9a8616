"""E1/E2 rows on the sampler and its coupling (ISDP §3.2 Thm 12 (7), §4, App. D): each matches on the right law
and differs on a plausibly wrong one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REGISTRY

import isdp.coupling
import isdp.exact_laws
import isdp.targets
from isdp.experiments.claims import Measurement, Run, judge, load_registry
from isdp.experiments.lattice_study import measures


def _row(claim_id):
    return next(c for c in load_registry(REGISTRY) if c["id"] == claim_id)


def _status(c, m):
    return judge(c["criterion"], c["paper_value"], m)


def test_the_lag_estimate_bounds_the_exact_tv_and_meeting_times_recorded_a_lag_early_do_not(monkeypatch):
    c = _row("ISDP-E1-tv-bound-valid")
    m = measures.tv_bound_valid(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "match" and m.value.size >= 4 * len(c["args"]["lags"])
    real = isdp.coupling.meeting_times

    def early(*args, **kwargs):  # τ − L taken as the meeting time: the bound loses a lag of iterations
        mt = real(*args, **kwargs)
        return isdp.coupling.MeetingTimes(tau=mt.tau - mt.lag, met=mt.met, lag=mt.lag, seconds=mt.seconds)

    monkeypatch.setattr(isdp.coupling, "meeting_times", early)
    short = measures.tv_bound_valid(Run(".", {}), c["paper_value"], **c["args"])
    assert short.value.min() < 1e-6 and _status(c, short) == "differs"


def test_the_sweep_leaves_the_target_invariant_and_an_asymmetric_proposal_does_not(monkeypatch):
    c = _row("ISDP-E1-kernel-stationary")
    m = measures.kernel_stationary(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "match"
    real, tilt = isdp.exact_laws.dg_logpmf, 0.1

    def tilted(z, eps):  # DG jumps tilted towards +: a proper pmf, but Metropolis without Hastings is then wrong
        a = np.exp(-eps)
        log_mgf = 2 * np.log1p(-a) - np.log1p(-a * np.exp(tilt)) - np.log1p(-a * np.exp(-tilt))
        return real(z, eps) + tilt * np.asarray(z) - log_mgf

    monkeypatch.setattr(isdp.exact_laws, "dg_logpmf", tilted)
    args = {**c["args"], "cases": c["args"]["cases"][:1]}  # the 2 × 3 case suffices and keeps the test short
    skew = measures.kernel_stationary(Run(".", {}), c["paper_value"], **args)
    assert skew.value > 1e-3 and _status(c, skew) == "differs"


def _lag_study(tmp_path, lags):
    """A run directory holding E1's lag-study file for one target, from pairs started far from the mode on a total
    of 3 cells (their chains mix in about 50 iterations)."""
    lattice = isdp.IntegerLattice.from_constraints(isdp.sum_constraint(3))
    target, far = isdp.generalized_laplace(0.5), lattice.basis @ np.array([30, -30])
    frames = []
    for lag in lags:
        mt = isdp.coupling.meeting_times(lattice, target, lag=lag, n_pairs=300, proposal_eps=0.5, seed=7 + lag,
                                         init=far)
        frames.append(pd.DataFrame({"target": "l1", "lag": lag, "pair": np.arange(300), "tau": mt.tau}))
    (tmp_path / "results" / "e1").mkdir(parents=True, exist_ok=True)
    pd.concat(frames).to_csv(tmp_path / "results" / "e1" / "meeting_times_l1.csv", index=False)
    return Run(tmp_path, {"e1": {"targets": {"l1": {}}}})


def test_tau_minus_lag_is_stable_across_lags_beyond_mixing_and_differs_below_it(tmp_path):
    c = _row("ISDP-E1-lag-tau-stable")
    assert _status(c, measures.lag_tau_ks(_lag_study(tmp_path / "mixed", [100, 200]), None, exp="e1")) == "match"
    # at lag 1 the two chains start a step apart, far from the mode, and meet at once; at 100, X has mixed
    m = measures.lag_tau_ks(_lag_study(tmp_path / "short", [1, 100]), None, exp="e1")
    assert m.value.min() < 1e-10 and _status(c, m) == "differs"


def test_the_tail_bound_is_one_sided_where_the_sampler_check_is_two_sided(monkeypatch):
    bound, check = _row("ISDP-E1-l1-tail-bound"), _row("ISDP-E1-l1-tail-rate")
    assert bound["kind"] == "claim" and check["kind"] == "check"
    run = Run(".", {})
    for rate, bound_status, check_status in ((1.0, "match", "match"), (1.3, "match", "differs"),
                                             (0.5, "differs", "differs")):  # exact, lighter and heavier tails
        fit = Measurement(rate, "", se=0.03)
        monkeypatch.setattr(measures, "l1_tail_rate", lambda *a, fit=fit, **k: fit)
        m = measures.l1_tail_rate_floor(run, bound["paper_value"], **bound["args"])
        assert _status(bound, m) == bound_status and _status(check, fit) == check_status


def test_a_larger_lag_tightens_the_bound_and_costs_more_and_an_unchanged_lag_does_not():
    c = _row("ISDP-E1-lag-tradeoff")
    m = measures.lag_tradeoff(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "match"
    m = measures.lag_tradeoff(Run(".", {}), c["paper_value"], **{**c["args"], "lags": [10, 10, 10]})
    assert _status(c, m) == "differs" and abs(m.value) < 3.43


def test_the_lag_bound_stays_above_the_exact_tv_and_a_sharp_estimator_does_not(monkeypatch):
    c = _row("ISDP-E1-tv-bound-not-sharp")
    m = measures.tv_bound_not_sharp(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "match"
    case = c["args"]["case"]
    lattice = measures._small_lattice(case["lattice"])
    ts = np.asarray(c["args"]["iterations"])
    _, tv = isdp.exact_laws.exact_tv_curve(lattice, isdp.targets.generalized_laplace(case["eps"], case["norm"]),
                                      case["proposal_eps"], case["radius"], [np.zeros(lattice.n, dtype=np.int64)],
                                      [1.0], ts)
    rng = np.random.default_rng(11)

    def sharp(tau, lag, t):  # one Bernoulli(TV(t)) term per pair: an unbiased estimate of the exact TV itself
        return (rng.random((len(tau), len(t))) < tv[None, :]).astype(float)

    monkeypatch.setattr(isdp.coupling, "tv_bound_terms", sharp)
    m = measures.tv_bound_not_sharp(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "differs" and abs(m.value) < 3.43


def test_the_jump_is_symmetric_and_unbiased_and_a_skewed_mean_zero_z_is_not():
    c = _row("ISDP-E1-jump-symmetric")
    m = measures.jump_symmetric(Run(".", {}), c["paper_value"], **c["args"])
    assert _status(c, m) == "match", m.text
    skewed = {"skewed, mean 0": {-2: 0.25, 0: 0.25, 1: 0.5}}
    m = measures.jump_symmetric(Run(".", {}), c["paper_value"], **{**c["args"], "laws": skewed})
    assert _status(c, m) == "differs" and m.value > 0.1, m.text


def test_jump_law_is_the_law_of_basis_times_z():
    """Against simulation: B z for i.i.d. z from the three-point law, frequencies within binomial error."""
    lattice = measures._small_lattice("margins2x3")
    law = measures.jump_law(lattice, {-1: 0.25, 0: 0.5, 1: 0.25})
    rng = np.random.default_rng(5)
    z = rng.choice([-1, 0, 1], p=[0.25, 0.5, 0.25], size=(20_000, lattice.dim))
    jumps, counts = np.unique(z @ lattice.basis.T, axis=0, return_counts=True)
    for v, k in zip(jumps, counts, strict=True):
        p = law[tuple(int(c) for c in v)]
        assert abs(k / 20_000 - p) <= 5 * np.sqrt(p * (1 - p) / 20_000)
    assert sum(law.values()) == pytest.approx(1.0)
