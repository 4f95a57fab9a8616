"""L-lag coupling: the coupled kernel's margins, and the TV bound against the exact TV."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof, rows_to_categories

from isdp.exact import enumerate_target, sweep_transition_matrix
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
from isdp.mcmc import meeting_times
from isdp.mcmc._coupling import coupled_kernel_draws
from isdp.mcmc._meeting_times import tv_upper_bound

# --------------------------------------------------------------------------- coupled kernel margins


@pytest.mark.parametrize("target", [generalized_laplace(0.5, "l1"), generalized_laplace(0.4, "l2")], ids=["l1", "l2"])
def test_each_margin_of_the_coupled_kernel_is_the_single_chain_kernel(sum3, target):
    eps_prop, radius, n_rep = 0.5, 12, 40_000
    P, w, u = sweep_transition_matrix(sum3, target, eps_prop, radius)
    x = np.zeros(3, dtype=np.int64)
    y = sum3.basis @ np.array([3, -2])  # a different lattice point: the chains are apart
    out_x, out_y = coupled_kernel_draws(sum3, target, x, y, proposal_eps=eps_prop, n_rep=n_rep, seed=21)
    assert out_x.shape == out_y.shape == (n_rep, 3)
    assert np.all(out_x.sum(axis=1) == 0) and np.all(out_y.sum(axis=1) == 0)
    for name, start, out in (("X", x, out_x), ("Y", y, out_y)):
        row = P[int(rows_to_categories(start[None, :], u)[0])].toarray().ravel()
        assert row.sum() > 1 - 1e-3  # the box holds (nearly) all of the one-step law
        pval = chisquare_gof(rows_to_categories(out, u), row)
        assert pval > ALPHA, f"margin {name}: chi-square p = {pval:.2e}"
    # the coupling does make the chains meet sometimes, even from 5 basis steps apart
    assert 0 < np.mean(np.all(out_x == out_y, axis=1)) < 1


def test_coupled_kernel_from_equal_states_keeps_them_equal(sum3):
    target = generalized_laplace(0.5)
    x = sum3.basis @ np.array([2, -1])
    out_x, out_y = coupled_kernel_draws(sum3, target, x, x, proposal_eps=0.5, n_rep=5000, seed=22)
    np.testing.assert_array_equal(out_x, out_y)
    assert np.mean(np.any(out_x != x, axis=1)) > 0.2  # and they do move


# --------------------------------------------------------------------------- TV bound vs exact TV

TV_CASES = [
    # (lattice cells, target, ε_prop, radius, lags)
    (2, generalized_laplace(0.1, "l1"), 0.4, 130, (10, 50)),
    (2, generalized_laplace(0.1, "l2"), 0.4, 170, (10, 50)),
    (3, generalized_laplace(0.5, "l1"), 0.5, 24, (5, 20)),
]


def _exact_tv_curve(lattice, target, eps_prop, radius, ts):
    """d_TV(δ_0 P^t, π) at the iterations ``ts``, with the truncation losses it had."""
    P, w, _ = sweep_transition_matrix(lattice, target, eps_prop, radius)
    _, pi, w2 = enumerate_target(lattice, target, radius)
    np.testing.assert_array_equal(w, w2)
    mu = np.zeros(len(w))
    mu[int(np.flatnonzero(np.all(w == 0, axis=1))[0])] = 1.0
    tv, lost = {}, 0.0
    for t in range(max(ts) + 1):
        if t in ts:
            tv[t] = 0.5 * np.abs(mu - pi).sum()
            lost = max(lost, 1.0 - mu.sum())
        mu = mu @ P
    edge = np.abs(w).max(axis=1) == radius
    return np.array([tv[t] for t in ts]), lost, pi[edge].sum()


@pytest.mark.parametrize(("n", "target", "eps_prop", "radius", "lags"), TV_CASES, ids=["1d-l1", "1d-l2", "2d-l1"])
def test_tv_estimate_bounds_the_exact_tv(n, target, eps_prop, radius, lags):
    lattice = IntegerLattice.from_constraints(sum_constraint(n))
    ts = [0, 2, 4, 8, 16, 32, 48]
    exact, lost, edge_mass = _exact_tv_curve(lattice, target, eps_prop, radius, ts)
    # the box is large enough: truncation changes the exact figures by < 1e-8
    assert lost < 1e-8, f"mass lost through the box boundary: {lost:.1e}"
    assert edge_mass < 1e-8, f"target mass on the box edge: {edge_mass:.1e}"
    a_prop = np.exp(-eps_prop)
    assert 2 * a_prop ** (2 * radius + 1) / (1 + a_prop) < 1e-8  # jumps beyond the box width
    assert exact[0] > 0.5  # starting at 0 is far from π: the bound has something to bound
    assert np.all(np.diff(exact) <= 1e-12)  # TV to stationarity never increases
    n_pairs = 2000
    for lag in lags:
        mt = meeting_times(lattice, target, lag=lag, n_pairs=n_pairs, proposal_eps=eps_prop, seed=31 + lag)
        assert mt.met.all() and np.all(mt.tau > lag)
        tt = np.asarray(ts)
        terms = np.maximum(0, np.ceil((mt.tau[:, None] - lag - tt[None, :]) / lag))
        est = mt.tv_bound(ts)
        np.testing.assert_allclose(est, terms.mean(axis=0))
        se = terms.std(axis=0, ddof=1) / np.sqrt(n_pairs)
        assert est[0] >= exact[0]
        # where the exact TV is resolvable with n_pairs pairs (≥ 1 %), the estimate bounds it
        check = exact >= 0.01
        assert check.sum() >= 4
        short = exact[check] - (est[check] + Z_TOL * se[check])
        assert np.all(short <= 0), f"lag {lag}: estimate below exact TV at t = {tt[check][short > 0]}"
        # and the bound is informative, not vacuous, once the chain has mixed a little
        assert est[ts.index(16)] < 0.5, f"lag {lag}: bound {est} is uninformative"


# --------------------------------------------------------------------------- bookkeeping


def test_meeting_times_bookkeeping(sum3):
    target = generalized_laplace(0.5)
    mt = meeting_times(sum3, target, lag=4, n_pairs=300, proposal_eps=0.5, seed=41)
    again = meeting_times(sum3, target, lag=4, n_pairs=300, proposal_eps=0.5, seed=41)
    np.testing.assert_array_equal(mt.tau, again.tau)
    other = meeting_times(sum3, target, lag=4, n_pairs=300, proposal_eps=0.5, seed=42)
    assert not np.array_equal(mt.tau, other.tau)
    assert mt.met.all() and mt.tau.dtype == np.int64 and np.all(mt.tau > 4) and mt.lag == 4
    ts = np.arange(0, mt.tau.max())
    bound = mt.tv_bound(ts)
    np.testing.assert_allclose(bound, tv_upper_bound(mt.tau, 4, ts))
    assert np.all(np.diff(bound) <= 0) and bound[-1] == 0
    for threshold in (0.5, 0.1, 0.01):
        t_star = mt.convergence_iteration(threshold)
        assert bound[t_star] < threshold
        assert t_star == 0 or bound[t_star - 1] >= threshold
    # a far-off start: pairs still meet, later than from the centre
    far = sum3.basis @ np.array([30, -30])
    mt_far = meeting_times(sum3, target, lag=4, n_pairs=300, proposal_eps=0.5, seed=41, init=far)
    assert mt_far.met.all() and np.median(mt_far.tau) > np.median(mt.tau)
    # censoring is reported, not hidden
    cut = meeting_times(sum3, target, lag=4, n_pairs=300, proposal_eps=0.5, seed=43, init=far, max_iter=6)
    assert not cut.met.all() and np.all(cut.tau[~cut.met] == 6)


def test_meeting_times_invalid_arguments(sum3):
    target = generalized_laplace(0.5)
    for kw in ({"lag": 0}, {"lag": 1.5}, {"n_pairs": 0}):
        args = {"lag": 2, "n_pairs": 3, **kw}
        with pytest.raises(ValueError):
            meeting_times(sum3, target, proposal_eps=0.5, seed=0, **args)
    with pytest.raises(ValueError):  # InvariantError is a ValueError
        meeting_times(sum3, target, lag=2, n_pairs=3, proposal_eps=0.5, seed=0, init=[1, 0, 0])
