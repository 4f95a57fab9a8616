"""The pair heat-bath kernel (isdp.mcmc) and its certificate (isdp.convergence.certify_heat_bath).

Ground truth: the conditional law by enumeration, and the exact law of the chain after t sweeps on
three cells from the update's transition matrix on a box of states (moves leaving the box are
dropped; at ε = 0.5 and radius 30 the lost mass is below 1e-10).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, rows_to_categories
from numba import njit
from scipy import stats

from isdp.convergence import certify_heat_bath
from isdp.convergence._certificate import pairs_needed
from isdp.errors import CertificationError, InvariantError
from isdp.exact import sample_sum_constraint_l1
from isdp.mcmc import heat_bath_meeting_times, heat_bath_sweeps
from isdp.mcmc._heat_bath import NAME, conditional_inverse

EPS = 0.5
RADIUS = 30
START = np.array([[9, -9, 0], [-6, 0, 6], [0, 7, -7]])  # the chains' law: uniform on three far states


@njit
def _inverse(u, s, r, log_r):
    return conditional_inverse(u, s, r, log_r)


def _conditional_pmf(s: int, eps: float, support: np.ndarray) -> np.ndarray:
    w = np.exp(-eps * (np.abs(support) + np.abs(s - support)))
    return w / (np.exp(-eps * abs(s)) * (abs(s) + 1 + 2 * np.exp(-2 * eps) / (1 - np.exp(-2 * eps))))


def _box_states(radius: int) -> np.ndarray:
    a, b = np.meshgrid(np.arange(-radius, radius + 1), np.arange(-radius, radius + 1), indexing="ij")
    states = np.column_stack([a.ravel(), b.ravel(), -(a + b).ravel()])
    return states[np.abs(states[:, 2]) <= radius]


def _sweep_matrix(states: np.ndarray, eps: float):
    """The transition matrix of one sweep (3 updates, each an ordered pair uniform of the 6)."""
    from scipy import sparse

    grid = np.full((2 * RADIUS + 1, 2 * RADIUS + 1), -1)
    grid[states[:, 0] + RADIUS, states[:, 1] + RADIUS] = np.arange(len(states))
    a = np.arange(-RADIUS, RADIUS + 1)[None, :]
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
    update = sparse.csr_matrix((len(states), len(states)))
    for i, j in pairs:
        s = (states[:, i] + states[:, j])[:, None]
        new = np.repeat(states[:, None, :], a.shape[1], axis=1)
        new[:, :, i], new[:, :, j] = a, s - a
        inside = np.all(np.abs(new) <= RADIUS, axis=2)
        target = np.where(
            inside,
            grid[np.clip(new[:, :, 0], -RADIUS, RADIUS) + RADIUS, np.clip(new[:, :, 1], -RADIUS, RADIUS) + RADIUS],
            -1,
        )
        prob = np.exp(-eps * (np.abs(a) + np.abs(s - a))) / (
            np.exp(-eps * np.abs(s)) * (np.abs(s) + 1 + 2 * np.exp(-2 * eps) / (1 - np.exp(-2 * eps)))
        )
        rows = np.broadcast_to(np.arange(len(states))[:, None], target.shape)
        keep = target >= 0
        update = update + sparse.csr_matrix((prob[keep] / len(pairs), (rows[keep], target[keep])), shape=update.shape)
    return update @ update @ update


@pytest.fixture(scope="module")
def exact_laws():
    """(states, π on the box, law after t sweeps for t = 0..40) from the start law START."""
    states = _box_states(RADIUS)
    pi = np.exp(-EPS * np.abs(states).sum(axis=1))
    pi /= pi.sum()
    sweep = _sweep_matrix(states, EPS)
    law = np.zeros(len(states))
    law[rows_to_categories(START, states)] = 1 / len(START)
    laws = [law]
    for _ in range(40):
        laws.append(sweep.T @ laws[-1])
    return states, pi, np.array(laws)


@pytest.mark.parametrize("s", [-7, -1, 0, 1, 4, 25])
def test_conditional_inverse_is_the_exact_inverse_cdf(s):
    """F⁻¹(u) = a exactly for u just above F(a − 1), at F(a) and in between, over a window holding
    all but ~1e-6 of the mass (the perturbations are a millionth of each value's mass)."""
    r = np.exp(-2 * EPS)
    support = np.arange(min(0, s) - 12, max(0, s) + 13)
    cdf = np.cumsum(_conditional_pmf(s, EPS, support)) + _conditional_pmf(s, EPS, support[:1] - 1)[0] / (1 - r)
    below = np.concatenate([[cdf[0] - _conditional_pmf(s, EPS, support[:1])[0]], cdf[:-1]])
    for a, lo, hi in zip(support, below, cdf, strict=True):
        for u in (lo + 1e-6 * (hi - lo), (lo + hi) / 2, hi - 1e-6 * (hi - lo)):
            assert _inverse(u, s, r, np.log(r)) == a, (s, a, u)


def test_the_conditional_law_is_monotone_in_the_sum():
    """The coupling's premise: with a common uniform, raising s by 1 raises a by 0 or 1 (so both
    new differences keep the sign of d_i + d_j)."""
    r = np.exp(-2 * EPS)
    u = np.random.default_rng(1).random(5000) + 1e-17
    for s in range(-40, 40):
        step = np.array([_inverse(x, s + 1, r, np.log(r)) - _inverse(x, s, r, np.log(r)) for x in u])
        assert np.isin(step, [0, 1]).all(), s


@pytest.mark.parametrize("t", [1, 3, 12])
def test_the_chain_after_t_sweeps_has_the_exact_law(exact_laws, t):
    states, _, laws = exact_laws
    starts = START[np.random.default_rng(t).integers(0, 3, 20_000)]
    out = heat_bath_sweeps(starts, epsilon=EPS, n_sweeps=t, seed=100 + t)
    assert np.all(out.sum(axis=1) == 0) and out.dtype == np.int64
    assert chisquare_gof(rows_to_categories(out, states), laws[t]) > ALPHA


def test_the_chain_leaves_pi_invariant():
    exact = sample_sum_constraint_l1(5, EPS, 20_000, seed=3)
    moved = heat_bath_sweeps(exact, epsilon=EPS, n_sweeps=2, seed=4)
    for cell in range(5):
        assert stats.ks_2samp(exact[:, cell], moved[:, cell]).pvalue > ALPHA


def test_coupled_pairs_bound_the_exact_tv(exact_laws):
    """The coupling inequality, measured: P(τ > t) from 20,000 pairs (X from START, Y exact) is at
    least the exact TV at every t, within Monte Carlo error; the pairs do meet."""
    states, pi, laws = exact_laws
    x = START[np.random.default_rng(5).integers(0, 3, 20_000)]
    y = sample_sum_constraint_l1(3, EPS, 20_000, seed=6)
    mt = heat_bath_meeting_times(x, y, epsilon=EPS, seed=7)
    assert mt.met.all() and mt.lag == 0
    ts = np.arange(12)
    tail = (mt.tau[:, None] > ts[None, :]).mean(axis=0)
    tv = 0.5 * np.abs(laws[ts] - pi[None, :]).sum(axis=1)
    se = np.sqrt(np.maximum(tail * (1 - tail), 1e-4) / len(mt.tau))
    assert np.all(tail + 4 * se >= tv), (tail, tv)
    assert tv[1] > 0.05  # the start is far: the inequality is not checked only where both are 0


def test_monotone_coupling_never_increases_the_distance():
    """‖X − Y‖₁ never grows: a pair started at distance d meets at once when d is one move apart."""
    x = np.array([[1, -1, 0, 0]] * 200)
    y = np.array([[0, 0, 0, 0]] * 200)
    mt = heat_bath_meeting_times(x, y, epsilon=EPS, seed=1, max_iter=50)
    assert mt.met.all()
    same = heat_bath_meeting_times(y, y, epsilon=EPS, seed=1)
    assert np.all(same.tau == 0) and same.met.all()


def test_same_seed_same_states_and_bad_input_is_refused():
    start = np.array([[3, -3, 0, 0], [0, 2, -2, 0]])
    a = heat_bath_sweeps(start, epsilon=0.2, n_sweeps=50, seed=9)
    assert np.array_equal(a, heat_bath_sweeps(start, epsilon=0.2, n_sweeps=50, seed=9))
    assert np.array_equal(start, [[3, -3, 0, 0], [0, 2, -2, 0]])  # the input is not moved
    with pytest.raises(InvariantError, match="sum to 0"):
        heat_bath_sweeps(np.array([[1, 0, 0]]), epsilon=0.2, n_sweeps=1, seed=1)
    with pytest.raises(InvariantError, match="integer"):
        heat_bath_sweeps(np.array([[0.5, -0.5]]), epsilon=0.2, n_sweeps=1, seed=1)
    with pytest.raises(InvariantError, match="n >= 2"):
        heat_bath_sweeps(np.array([[0]]), epsilon=0.2, n_sweeps=1, seed=1)
    with pytest.raises(ValueError, match="eps"):
        heat_bath_sweeps(start, epsilon=0.0, n_sweeps=1, seed=1)
    with pytest.raises(ValueError, match="n_sweeps"):
        heat_bath_sweeps(start, epsilon=0.2, n_sweeps=-1, seed=1)
    with pytest.raises(InvariantError, match="same shape"):
        heat_bath_meeting_times(start, start[:1], epsilon=0.2, seed=1)


def test_certify_heat_bath_covers_the_exact_tv(exact_laws):
    """Coverage: over 100 certifications (299 pairs each) the exact TV at t_cert exceeds the 95 %
    bound there in at most a binomial share of them; the bound is exact-start, in sweeps."""
    states, pi, laws = exact_laws
    tv = 0.5 * np.abs(laws - pi[None, :]).sum(axis=1)
    misses = 0
    for r in range(100):
        cert = certify_heat_bath(
            EPS,
            start=lambda n, r=r: START[np.random.default_rng(r).integers(0, 3, n)],
            n_pairs=pairs_needed(),
            seed=500 + r,
        )
        assert cert.certified and cert.lag is None and cert.basis == NAME
        misses += tv[cert.t_cert] > cert.bound(cert.t_cert)[0]
    assert misses <= stats.binom.ppf(1 - ALPHA, 100, 0.05)


def test_certify_heat_bath_bookkeeping():
    start = np.zeros((50, 6), dtype=np.int64)
    cert = certify_heat_bath(0.3, start=start, n_pairs=50, seed=2)
    assert not cert.certified and "299 pairs" in cert.status and cert.n_pairs == 50
    with pytest.raises(CertificationError):
        cert.burn_in()
    with pytest.raises(ValueError, match="50 states"):
        certify_heat_bath(0.3, start=start[:10], n_pairs=50, seed=2)
    censored = certify_heat_bath(0.3, start=np.tile([40, -40, 0, 0, 0, 0], (300, 1)), n_pairs=300, seed=3, max_iter=1)
    assert censored.n_censored > 0 and not censored.certified
