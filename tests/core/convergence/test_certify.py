"""Certifying each sampler (isdp.convergence.certify, certify_mis, certify_searching_lag): the bound's coverage
against the exact total-variation distance of the chain started from the same law, the start law, the MIS, and
the lag search.

Exact TV: the sweep transition matrix on a box of lattice coordinates (the paper layer's
isdp_papers.lattice_study.exact_tv.exact_tv_curve), which drops the mass of moves leaving the box; its tv_upper adds
that dropped mass and π's mass outside the box, so it is an upper bound on the true TV (here the two differ by < 1e-5).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof, rows_to_categories
from isdp_papers.lattice_study.exact_tv import exact_tv_curve
from scipy import stats

from isdp.convergence import certify, certify_mis
from isdp.convergence._certificate import pairs_needed
from isdp.convergence._certify import certify_searching_lag
from isdp.errors import CertificationError
from isdp.exact import sample_sum_constraint_l1
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, table_margins, with_mixing_basis
from isdp.mcmc import mis_exact_sample, mis_meeting_times, mis_sample

TARGET = generalized_laplace(1.0, "l1")
PROPOSAL_EPS = 0.5
# the chains' starting law in the validation: uniform on three far states
SUM3 = (sum_constraint(3), 10, [[5, -5, 0], [-4, 0, 4], [0, 3, -3]])
CASES = {
    "sum3": SUM3,
    "sum4": (sum_constraint(4), 9, [[4, -4, 0, 0], [0, 0, 3, -3], [-3, 1, 1, 1]]),
    "table2x3": (table_margins(2, 3), 10, [[3, -3, 0, -3, 3, 0], [0, 2, -2, 0, -2, 2], [-2, 0, 2, 2, 0, -2]]),
}
TS = [0, 1, 2, 3, 5, 8, 12, 16, 24]
N_PAIRS = 4000
REPS = 200  # repeated certifications in the coverage tests
LEVEL = 0.95


def _starts(points, n, seed):
    return np.asarray(points)[np.random.default_rng(seed).integers(0, len(points), n)]


def _exact_draws(n_cells, seed):
    return lambda n: sample_sum_constraint_l1(n_cells, TARGET.param, n, seed=seed)


def _most_misses(reps: int, alpha: float) -> int:
    """The most repetitions a valid (1 − alpha) bound may miss in ``reps`` without rejecting at ALPHA."""
    return int(stats.binom.ppf(1 - ALPHA, reps, alpha))


def _repeat(lattice, points, *, n_pairs, exact=None, lag=None, max_iter=10_000):
    """REPS independent certifications from the same start law (fresh seeds)."""
    return [
        certify(
            lattice,
            TARGET,
            proposal_eps=PROPOSAL_EPS,
            start=lambda n, r=r: _starts(points, n, 1000 + r),
            exact=None if exact is None else _exact_draws(lattice.n, 2000 + r),
            lag=lag,
            n_pairs=n_pairs,
            seed=3000 + r,
            max_iter=max_iter,
        )
        for r in range(REPS)
    ]


def _sum3_lattice():
    """SUM3's lattice on its default mixing basis, the one the coverage tests certify."""
    return with_mixing_basis(IntegerLattice.from_constraints(SUM3[0]))


@functools.cache
def _sum3_repeats(n_pairs: int, route: str) -> tuple:
    """:func:`_repeat` on SUM3 by ``route`` ("exact start", or "lag 100" with ``max_iter`` 200), computed once per
    session: the coverage of the bound at t_cert and of the coupling bound read the same certifications (same
    seeds, so the same certificates either way)."""
    kwargs = {"exact": True} if route == "exact start" else {"lag": 100, "max_iter": 200}
    return tuple(_repeat(_sum3_lattice(), SUM3[2], n_pairs=n_pairs, **kwargs))


_EXACT_TV: dict = {}


def _exact_tv_upper(case: str, lattice) -> np.ndarray:
    """The exact TV's upper end at TS of the sampler on ``lattice`` (a basis of CASES[case]'s lattice) from the case's
    start law, computed once per basis matrix: it does not depend on the lag, and on these lattices the LLL basis is
    the Smith basis (the same matrix, so the same kernel)."""
    key = (case, lattice.basis.shape, lattice.basis.tobytes())
    if key not in _EXACT_TV:
        _, radius, points = CASES[case]
        _EXACT_TV[key] = exact_tv_curve(lattice, TARGET, PROPOSAL_EPS, radius, points, [1 / 3] * 3, TS)[1]
    return _EXACT_TV[key]


@pytest.mark.parametrize("route", ["exact start", "lag 100"])
def test_the_bound_at_t_cert_covers_the_exact_tv_and_the_old_rule_does_not(route):
    """Coverage: over REPS certifications (299 pairs each), the 95 % upper bound at t_cert falls
    below the exact TV in at most α of them (binomial tolerance at ALPHA). The old rule — t* where
    the point estimate from 100 pairs first drops below 0.01 — states a bound (its estimate, 0 at t*)
    that falls below the exact TV almost every time, so this test can fail."""
    _, radius, points = SUM3
    lattice = _sum3_lattice()
    certs = _sum3_repeats(pairs_needed(), route)
    assert all(c.certified for c in certs)
    t_cert = np.array([c.t_cert for c in certs])
    _, tv = exact_tv_curve(lattice, TARGET, PROPOSAL_EPS, radius, points, [1 / 3] * 3, np.arange(t_cert.max() + 1))
    bound = np.array([c.bound(c.t_cert)[0] for c in certs])
    assert np.all(bound <= 0.01)
    misses = int((tv[t_cert] > bound).sum())
    assert misses <= _most_misses(REPS, 1 - LEVEL), (misses, REPS)
    old = _sum3_repeats(100, route)
    old_t = np.array([int(np.flatnonzero(c.estimate(np.arange(c.max_iter)) < 0.01)[0]) for c in old])
    old_misses = int((tv[old_t] > np.array([c.estimate(t)[0] for c, t in zip(old, old_t, strict=True)])).sum())
    assert old_misses > _most_misses(REPS, 1 - LEVEL), (old_misses, REPS)


def test_the_certified_iteration_holds_the_coupling_bound_and_the_old_rule_does_not():
    """The certified quantity itself: P(τ > t) from 100,000 exact-start pairs is the reference. In at
    most α of REPS certifications does it exceed 0.01 at t_cert; at the old rule's t* (100 pairs,
    point estimate below 0.01) it does in about 0.99^100 ≈ 37 % of them."""
    points = SUM3[2]
    lattice = _sum3_lattice()
    ref = certify(
        lattice,
        TARGET,
        proposal_eps=PROPOSAL_EPS,
        start=lambda n: _starts(points, n, 7),
        exact=_exact_draws(3, 8),
        n_pairs=100_000,
        seed=9,
        max_iter=10_000,
    )
    q = ref.estimate(np.arange(200))
    se = np.sqrt(q * (1 - q) / ref.n_pairs)
    new = np.array([c.t_cert for c in _sum3_repeats(pairs_needed(), "exact start")])
    assert int((q[new] - Z_TOL * se[new] > 0.01).sum()) <= _most_misses(REPS, 1 - LEVEL)
    old = _sum3_repeats(100, "exact start")
    old_t = np.array([int(c.tau.max()) for c in old])  # the point estimate first drops below 0.01 there
    assert int((q[old_t] - Z_TOL * se[old_t] > 0.01).sum()) > _most_misses(REPS, 1 - LEVEL)


@pytest.mark.parametrize("lag", [1, 4])  # varies fastest: the tests that share an exact TV curve run one after another
@pytest.mark.parametrize("basis", ["smith", "lll", "auto"])
@pytest.mark.parametrize("case", CASES)
def test_the_estimated_curve_is_above_the_exact_tv_from_the_same_start_law(case, basis, lag):
    """The papers' estimated L-lag curve (4,000 pairs) against the exact TV at every t: estimate +
    Z_TOL·SE ≥ the exact TV's upper end. SE is the sample SE of the mean of the pair terms, floored
    at sqrt(TV/n) (where the terms are rarely non-zero the sample SE can be 0 by chance)."""
    A, _, points = CASES[case]
    lattice = with_mixing_basis(IntegerLattice.from_constraints(A), basis)
    tv_upper = _exact_tv_upper(case, lattice)
    assert tv_upper[0] > 0.99 and tv_upper[-1] < 0.2  # the curve spans the interesting range
    cert = certify(
        lattice,
        TARGET,
        proposal_eps=PROPOSAL_EPS,
        start=lambda n: _starts(points, n, 1),
        lag=lag,
        n_pairs=N_PAIRS,
        seed=2,
        max_iter=10_000,
    )
    assert cert.certified and cert.basis == lattice.basis_name
    terms = np.maximum(0, -((-(cert.tau[:, None] - lag - np.array(TS)[None, :])) // lag))
    assert np.allclose(terms.mean(axis=0), cert.estimate(TS))
    se = np.maximum(terms.std(axis=0, ddof=1) / np.sqrt(N_PAIRS), np.sqrt(tv_upper / N_PAIRS))
    short = cert.estimate(TS) + Z_TOL * se - tv_upper
    assert np.all(short >= 0), f"estimate below the exact TV at t = {np.array(TS)[short < 0]}"


def test_pairs_started_elsewhere_do_not_bound_the_chains_tv():
    """Why the start law matters: pairs started at 0 give a curve far below the exact TV of chains
    started from the far states."""
    lattice = with_mixing_basis(IntegerLattice.from_constraints(CASES["table2x3"][0]))
    tv_upper = _exact_tv_upper("table2x3", lattice)
    at_zero = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=1, n_pairs=N_PAIRS, seed=2)
    assert np.any(at_zero.estimate(TS) < tv_upper - 0.3)


def test_pairs_start_from_the_given_law():
    """A start outside the lattice is refused; n_pairs states are requested from a callable."""
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(3)))
    asked = []

    def law(n):
        asked.append(n)
        return np.tile([1, 0, -1], (n, 1))

    certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=law, lag=1, n_pairs=7, seed=0)
    assert asked == [7]
    with pytest.raises(ValueError, match="init|lattice"):
        certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=np.ones((7, 3), int), lag=1, n_pairs=7, seed=0)
    with pytest.raises(ValueError, match="returned None"):
        certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=lambda n: None, lag=1, n_pairs=7, seed=0)
    with pytest.raises(ValueError, match="either exact"):
        certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, n_pairs=7, seed=0)
    for bad in ({"threshold": 0}, {"threshold": 1}, {"threshold": 5}, {"level": 1.0}, {"level": 0.2}):
        with pytest.raises(ValueError, match="threshold|level"):
            certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=1, n_pairs=7, seed=0, **bad)


# --------------------------------------------------------------------------- the MIS (independence sampler)

MIS_X = np.array([3, 5, 2, 4, 1, 6])  # a 2 × 3 table; margins fixed, cells non-negative
MIS_A = table_margins(2, 3)[:-1]  # the last margin is implied by the others
MIS_ARGS = {"epsilon": 0.5, "proposal_eps": 0.6, "index_set": [0, 1], "B": np.eye(6), "b": np.zeros(6)}


def _mis_exact_law():
    """(S*, π on it, the MIS kernel K): S* is finite (non-negativity), so all are enumerated exactly."""
    from itertools import product

    from isdp.mcmc import DoubleGeometric

    a = MIS_A @ MIS_X
    states = []
    for s0, s1 in product(range(0, 8), range(0, 7)):
        rest = np.linalg.solve(MIS_A[:, 2:].astype(float), a - MIS_A[:, :2] @ [s0, s1])
        s = np.concatenate([[s0, s1], np.rint(rest)]).astype(int)
        if np.all(MIS_A @ s == a) and np.all(s >= 0):
            states.append(s)
    S = np.array(states)
    dev = np.abs(S - MIS_X)
    log_p = -MIS_ARGS["epsilon"] * dev.sum(axis=1)
    proposal = DoubleGeometric(MIS_ARGS["proposal_eps"])
    q = proposal.pmf(dev[:, 0]) * proposal.pmf(dev[:, 1])
    log_w = log_p - np.log(q)
    K = q[None, :] * np.minimum(1.0, np.exp(log_w[None, :] - log_w[:, None]))
    np.fill_diagonal(K, 0.0)
    K[np.diag_indices_from(K)] = 1.0 - K.sum(axis=1)
    pi = np.exp(log_p - log_p.max())
    return S, pi / pi.sum(), K


def _mis_exact_tv(ts):
    """Exact TV(δ_{s*} K^t, π) of the MIS at the iterations ``ts``."""
    S, pi, K = _mis_exact_law()
    mu = np.all(S == MIS_X, axis=1).astype(float)
    out = []
    for t in range(max(ts) + 1):
        if t in ts:
            out.append(0.5 * np.abs(mu - pi).sum())
        mu = mu @ K
    return np.array(out)


@pytest.mark.parametrize("lag", [1, 5])
def test_mis_certified_bound_is_above_the_exact_tv(lag):
    """As for the Gibbs sampler, the estimated curve from the chains' start s*; S* is finite, so no truncation."""
    ts = [0, 1, 2, 4, 8, 16, 32]
    tv = _mis_exact_tv(ts)
    assert tv[0] > 0.5 and tv[-1] < 0.1
    cert = certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, lag=lag, n_pairs=N_PAIRS, seed=4, max_iter=100_000)
    assert cert.t_estimate is not None and cert.basis == "independence proposal (MIS)"
    terms = np.maximum(0, -((-(cert.tau[:, None] - lag - np.array(ts)[None, :])) // lag))
    se = np.maximum(terms.std(axis=0, ddof=1) / np.sqrt(N_PAIRS), np.sqrt(tv / N_PAIRS))
    assert np.all(cert.estimate(ts) + Z_TOL * se >= tv), (cert.estimate(ts), tv)


def test_mis_exact_sample_has_the_enumerated_law():
    S, pi, _ = _mis_exact_law()
    draws = mis_exact_sample(
        MIS_A,
        MIS_A @ MIS_X,
        MIS_X,
        epsilon=MIS_ARGS["epsilon"],
        index_set=MIS_ARGS["index_set"],
        size=20_000,
        seed=3,
        B=MIS_ARGS["B"],
        b=MIS_ARGS["b"],
    )
    assert chisquare_gof(rows_to_categories(draws, S), pi) > ALPHA
    with pytest.raises(ValueError, match="not accepted within max_tries = 1"):
        mis_exact_sample(
            MIS_A,
            MIS_A @ MIS_X,
            MIS_X,
            epsilon=MIS_ARGS["epsilon"],
            index_set=MIS_ARGS["index_set"],
            size=200,
            seed=3,
            B=MIS_ARGS["B"],
            b=MIS_ARGS["b"],
            max_tries=1,
        )


def test_mis_exact_start_covers_the_exact_tv():
    """The exact-start route (lag None): P(τ > t) from N_PAIRS pairs is at least the exact TV (within
    Monte Carlo error), and over REPS certifications (299 pairs) the 95 % bound at t_cert falls below
    the exact TV in at most a binomial share; the point estimate at its own crossing misses far more."""
    ts = list(range(200))
    tv = _mis_exact_tv(ts)
    big = certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, n_pairs=N_PAIRS, seed=4)
    assert big.lag is None and big.n_censored == 0
    tail = big.estimate(ts)
    assert np.all(tail + Z_TOL * np.sqrt(np.maximum(tail * (1 - tail), 1 / N_PAIRS) / N_PAIRS) >= tv)
    certs = [
        certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, n_pairs=pairs_needed(), seed=100 + r) for r in range(REPS)
    ]
    assert all(c.certified and c.t_cert < len(ts) for c in certs)
    misses = sum(tv[c.t_cert] > c.bound(c.t_cert)[0] for c in certs)
    assert misses <= _most_misses(REPS, 1 - LEVEL)
    old = [certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, n_pairs=100, seed=900 + r) for r in range(REPS)]
    old_misses = sum(tv[c.t_estimate] > c.estimate(c.t_estimate)[0] for c in old)
    assert old_misses > _most_misses(REPS, 1 - LEVEL), old_misses


def test_mis_lag_steps_are_the_mis_kernel():
    """X's lag steps are the MIS's own: with ``max_iter`` = lag no coupled step runs, and a pair
    counts as met exactly when X stayed at s*, which must happen at the MIS's rate."""
    mt = mis_meeting_times(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, lag=1, n_pairs=20_000, seed=9, max_iter=1)
    res = mis_sample(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, n_draws=1, n_chains=20_000, seed=10, progress=False)
    stayed_mis = np.all(res.draws[:, 0] == MIS_X, axis=1)
    p1, p2 = mt.met.mean(), stayed_mis.mean()
    se = np.sqrt(p1 * (1 - p1) / 20_000 + p2 * (1 - p2) / 20_000)
    assert abs(p1 - p2) < Z_TOL * se


def test_mis_censored_pairs_give_no_certificate():
    cert = certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, lag=1, n_pairs=50, seed=4, max_iter=2)
    assert not cert.certified and cert.n_censored > 0
    with pytest.raises(CertificationError, match="did not meet within 1 coupled iterations"):
        cert.require()


def test_the_lag_search_fixes_one_lag_from_the_pilot_and_certifies_with_one_term():
    """certify_searching_lag: horizon = lag (one term), the lag fixed by the pilot and capped at
    max_iter / 2; a pilot pair that cannot meet within max_iter is an error."""
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(3)))
    points = CASES["sum3"][2]
    cert = certify_searching_lag(
        lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=lambda n: _starts(points, n, 3), n_pairs=400, seed=7
    )
    assert cert.certified and cert.max_iter == 2 * cert.lag and cert.horizon == cert.lag
    assert len(cert._terms(cert.t_cert)) == 1 and cert.bound(cert.t_cert)[0] <= 0.01
    capped = certify_searching_lag(
        lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=_starts(points, 400, 3), n_pairs=400, seed=7, max_iter=120
    )
    assert capped.lag == 60 and capped.max_iter == 120
    with pytest.raises(CertificationError, match="pilot pairs did not meet within 1 iterations"):
        certify_searching_lag(
            IntegerLattice.from_constraints(sum_constraint(40)),
            TARGET,
            proposal_eps=PROPOSAL_EPS,
            start=None,
            n_pairs=400,
            seed=7,
            max_iter=1,
        )
