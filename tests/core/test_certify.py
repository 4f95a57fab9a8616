"""Coupling certificates (isdp.certify): bookkeeping, censoring, and the certified bound against
the exact total-variation distance of the chain started from the same law, on every basis.

Exact TV: the sweep transition matrix on a box of lattice coordinates (isdp.exact_tv_curve), which
drops the mass of moves leaving the box; its tv_upper adds that dropped mass and π's mass outside
the box, so it is an upper bound on the true TV (here the two differ by < 1e-5).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Z_TOL

from isdp import (
    CertificationError,
    IntegerLattice,
    certify,
    certify_mis,
    exact_tv_curve,
    generalized_laplace,
    mis_sample,
    sum_constraint,
    table_margins,
    with_mixing_basis,
)
from isdp.mis import mis_meeting_times

TARGET = generalized_laplace(1.0, "l1")
PROPOSAL_EPS = 0.5
# the chains' starting law in the validation: uniform on three far states
CASES = {
    "sum3": (sum_constraint(3), 10, [[5, -5, 0], [-4, 0, 4], [0, 3, -3]]),
    "sum4": (sum_constraint(4), 9, [[4, -4, 0, 0], [0, 0, 3, -3], [-3, 1, 1, 1]]),
    "table2x3": (table_margins(2, 3), 10, [[3, -3, 0, -3, 3, 0], [0, 2, -2, 0, -2, 2], [-2, 0, 2, 2, 0, -2]]),
}
TS = [0, 1, 2, 3, 5, 8, 12, 16, 24]
N_PAIRS = 4000


def _starts(points, n, seed):
    return np.asarray(points)[np.random.default_rng(seed).integers(0, len(points), n)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("basis", ["smith", "auto", "lll"])
@pytest.mark.parametrize("lag", [1, 4])
def test_certified_bound_is_above_the_exact_tv_from_the_same_start_law(case, basis, lag):
    """At every t, bound(t) + Z_TOL·SE ≥ the exact TV's upper end. SE is the sample SE of the mean
    of the pair terms, floored at sqrt(TV/n) (a Poisson floor: where the bound's terms are rarely
    non-zero the sample SE can be 0 by chance)."""
    A, radius, points = CASES[case]
    lattice = with_mixing_basis(IntegerLattice.from_constraints(A), basis)
    _, tv_upper = exact_tv_curve(lattice, TARGET, PROPOSAL_EPS, radius, points, [1 / 3] * 3, TS)
    assert tv_upper[0] > 0.99 and tv_upper[-1] < 0.2  # the curve spans the interesting range
    cert = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=lambda n: _starts(points, n, 1), lag=lag,
                   n_pairs=N_PAIRS, seed=2, max_iter=10_000)
    assert cert.certified and cert.basis == lattice.basis_name
    terms = np.maximum(0, -((-(cert.tau[:, None] - lag - np.array(TS)[None, :])) // lag))
    assert np.allclose(terms.mean(axis=0), cert.tv_bound(TS))
    se = np.maximum(terms.std(axis=0, ddof=1) / np.sqrt(N_PAIRS), np.sqrt(tv_upper / N_PAIRS))
    short = cert.tv_bound(TS) + Z_TOL * se - tv_upper
    assert np.all(short >= 0), f"bound below the exact TV at t = {np.array(TS)[short < 0]}"


def test_pairs_started_elsewhere_do_not_bound_the_chains_tv():
    """Why the start law matters (and the test above can fail): pairs started at 0 give a bound far
    below the exact TV of chains started from the far states."""
    A, radius, points = CASES["table2x3"]
    lattice = with_mixing_basis(IntegerLattice.from_constraints(A))
    _, tv_upper = exact_tv_curve(lattice, TARGET, PROPOSAL_EPS, radius, points, [1 / 3] * 3, TS)
    at_zero = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=1, n_pairs=N_PAIRS, seed=2)
    assert np.any(at_zero.tv_bound(TS) < tv_upper - 0.3)


def test_certificate_bookkeeping():
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(20)))
    cert = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=10, n_pairs=100, seed=5)
    assert cert.certified and cert.basis == "path" and cert.n_pairs == 100 and cert.n_censored == 0
    assert cert.tv_bound(cert.t_star)[0] < 0.01 <= cert.tv_bound(cert.t_star - 1)[0]
    q = cert.quantiles()
    assert q["tau_minus_lag_q50"] <= q["tau_minus_lag_q90"] <= q["tau_minus_lag_q99"] <= q["tau_minus_lag_max"]
    assert cert.t_star == q["tau_minus_lag_max"]  # 100 pairs, threshold 0.01: every term must be 0
    t, bound = cert.curve()
    assert t[0] == 0 and t[-1] >= cert.t_star and bound[-1] == 0 and np.all(np.diff(bound) <= 0)
    assert cert.burn_in(floor=10, margin=0.25) == int(np.ceil(cert.t_star * 1.25))
    assert cert.burn_in(floor=10**6, margin=0.25) == 10**6
    summary = cert.summary()
    assert summary["t_star"] == cert.t_star and summary["censored"] == 0 and "certified" in summary["status"]


def test_censored_pairs_give_no_certificate_and_say_so():
    lattice = IntegerLattice.from_constraints(sum_constraint(40))  # the Smith star: pairs rarely meet
    cert = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=5, n_pairs=20, seed=1, max_iter=50)
    assert not cert.certified and cert.t_star is None and cert.n_censored > 0
    assert cert.summary()["t_star"] == -1 and "not certified" in cert.status
    assert np.isinf(cert.quantiles()["tau_minus_lag_max"])
    for call in (lambda: cert.burn_in(0, 0.1), lambda: cert.tv_bound([0]), cert.require):
        with pytest.raises(CertificationError, match=f"{cert.n_censored} of 20 pairs did not meet within 50"):
            call()


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
    with pytest.raises(ValueError, match="threshold"):
        certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=1, n_pairs=7, seed=0, threshold=0)


# --------------------------------------------------------------------------- the MIS (independence sampler)

MIS_X = np.array([3, 5, 2, 4, 1, 6])  # a 2 × 3 table; margins fixed, cells non-negative
MIS_A = table_margins(2, 3)[:-1]  # the last margin is implied by the others
MIS_ARGS = {"eps": 0.5, "proposal_eps": 0.6, "index_set": [0, 1], "B": np.eye(6), "b": np.zeros(6)}


def _mis_exact_tv(ts):
    """Exact TV(δ_{s*} K^t, π) of the MIS: S* is finite (non-negativity), so K is enumerated exactly."""
    from itertools import product

    from isdp.distributions import dg_pmf

    a = MIS_A @ MIS_X
    states = []
    for s0, s1 in product(range(0, 8), range(0, 7)):
        rest = np.linalg.solve(MIS_A[:, 2:].astype(float), a - MIS_A[:, :2] @ [s0, s1])
        s = np.concatenate([[s0, s1], np.rint(rest)]).astype(int)
        if np.all(MIS_A @ s == a) and np.all(s >= 0):
            states.append(s)
    S = np.array(states)
    dev = np.abs(S - MIS_X)
    log_p = -MIS_ARGS["eps"] * dev.sum(axis=1)
    q = dg_pmf(dev[:, 0], MIS_ARGS["proposal_eps"]) * dg_pmf(dev[:, 1], MIS_ARGS["proposal_eps"])
    log_w = log_p - np.log(q)
    K = q[None, :] * np.minimum(1.0, np.exp(log_w[None, :] - log_w[:, None]))
    np.fill_diagonal(K, 0.0)
    K[np.diag_indices_from(K)] = 1.0 - K.sum(axis=1)
    pi = np.exp(log_p - log_p.max())
    pi /= pi.sum()
    mu = np.all(S == MIS_X, axis=1).astype(float)
    out = []
    for t in range(max(ts) + 1):
        if t in ts:
            out.append(0.5 * np.abs(mu - pi).sum())
        mu = mu @ K
    return np.array(out)


@pytest.mark.parametrize("lag", [1, 5])
def test_mis_certified_bound_is_above_the_exact_tv(lag):
    """As for the Gibbs sampler, from the chains' start s*; S* is finite, so no truncation."""
    ts = [0, 1, 2, 4, 8, 16, 32]
    tv = _mis_exact_tv(ts)
    assert tv[0] > 0.5 and tv[-1] < 0.1
    cert = certify_mis(MIS_A, MIS_A @ MIS_X, MIS_X, **MIS_ARGS, lag=lag, n_pairs=N_PAIRS, seed=4, max_iter=100_000)
    assert cert.certified and cert.basis == "independence proposal (MIS)"
    terms = np.maximum(0, -((-(cert.tau[:, None] - lag - np.array(ts)[None, :])) // lag))
    se = np.maximum(terms.std(axis=0, ddof=1) / np.sqrt(N_PAIRS), np.sqrt(tv / N_PAIRS))
    assert np.all(cert.tv_bound(ts) + Z_TOL * se >= tv), (cert.tv_bound(ts), tv)


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
    with pytest.raises(CertificationError, match="did not meet within 2"):
        cert.require()
