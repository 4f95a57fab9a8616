"""The Metropolized independence sampler (Congenial DP Algorithm 1) and the E5 data."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ALPHA, REGISTRY, chisquare_gof, chisquare_two_sample, rows_to_categories
from isdp_papers.claims import paper_value
from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints

from isdp.errors import InvariantError
from isdp.lattice import IntegerLattice, generalized_laplace
from isdp.mcmc import mis_sample, sample

REPO = Path(__file__).resolve().parents[3]

# A small instance: total and the first two cells' sum invariant, cells >= 0.
# I^c = {0, 2}: A[:, I^c] = [[1, 1], [1, 0]] has determinant -1 (unimodular).
A5 = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
S5 = np.array([2, 1, 0, 3, 1])
I5 = [1, 3, 4]


def _e5_problem():
    table = pd.read_csv(REPO / "data" / "e5" / "sex_by_age.csv", index_col=0)
    x = table.to_numpy(dtype=np.int64).ravel()
    A = np.zeros((3, 46), dtype=np.int64)
    A[0] = 1  # (1) total population
    A[1, :23] = 1  # (2) female total
    A[2, 4:23] = A[2, 27:46] = 1  # (3) voting age: from 18-19 on
    index_set = [i for i in range(46) if i not in (0, 22, 45)]  # the paper's {2..22, 24..45}, 0-based
    return table, x, A, index_set


def _enumerate(A, a, center, eps, box):
    """Every s >= 0 with s_i <= box and A s = a, and its target probability ∝ exp(-eps |s - s*|_1)."""
    pts = np.array([p for p in itertools.product(range(box + 1), repeat=A.shape[1]) if np.all(A @ np.array(p) == a)])
    w = np.exp(-eps * np.abs(pts - center).sum(axis=1))
    return pts, w / w.sum()


# --------------------------------------------------------------------------- E5 data


def test_e5_table_totals_as_printed():
    table, x, A, _ = _e5_problem()
    assert table.shape == (2, 23) and list(table.index) == ["Female", "Male"]
    assert table.columns[0] == "<=5" and table.columns[4] == "18-19" and table.columns[-1] == "85+"
    printed = paper_value("CDP-E5-table-totals", REGISTRY)  # the paper's totals, from the claims registry
    assert table.loc["Female"].sum() == printed["female"] and table.loc["Male"].sum() == printed["male"]
    assert table.iloc[:, :4].to_numpy().sum() == printed["under_18"]
    assert table.iloc[:, 4:].to_numpy().sum() == printed["voting_age"]
    assert (A @ x).tolist() == [printed["total"], printed["female"], printed["voting_age"]]
    built, _ = sex_by_age_constraints(table.index, table.columns, "18-19")
    assert np.array_equal(built, A)  # the workflow's builder agrees with the hand-made matrix
    seed_release = pd.read_csv(REPO / "data" / "e5" / "paper_table1_release.csv", index_col=0)
    assert np.array_equal(A @ seed_release.to_numpy().ravel(), A @ x)  # the paper's release keeps them


def test_e5_draws_meet_equalities_and_inequalities():
    _, x, A, index_set = _e5_problem()
    res = mis_sample(
        A,
        A @ x,
        x,
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=index_set,
        n_chains=2,
        n_draws=2000,
        thin=50,
        seed=5,
        B=np.eye(46),
        b=np.zeros(46),
    )
    flat = res.draws.reshape(-1, 46)
    assert res.draws.dtype == np.int64 and res.determinant in (1, -1)
    assert np.all(flat @ A.T == A @ x) and flat.min() >= 0
    assert len(np.unique(flat, axis=0)) > 100  # the chains move
    # the paper: about 1.68 % acceptance at ε̃ = 0.6 (binomial-ish error over 100k proposals per chain)
    assert 0.008 < res.acceptance.mean() < 0.03, res.acceptance


def test_the_infeasible_share_is_the_proposal_s_exact_probability():
    """Proposals are i.i.d. whatever the chain does, and one that breaks s ≥ 0 is rejected at its first negative
    free cell: the share rejected so is binomial around P(some cell < 0) under the proposal, summed exactly here.

    In A5 the free cells 1, 3, 4 are S5's plus DG(ε̃) and the solved ones s0 = 3 − s1, s2 = 4 − s3 − s4.
    """
    eps_q = 0.6
    z = np.arange(-60, 61)
    pmf = np.tanh(eps_q / 2) * np.exp(-eps_q * np.abs(z))  # DG(ε̃): (1 − e^{−ε̃})/(1 + e^{−ε̃}) e^{−ε̃|z|}
    s1, s3, s4 = (np.asarray(S5)[i] + z for i in I5)
    ok1 = (s1 >= 0) & (3 - s1 >= 0)
    ok34 = (s3[:, None] >= 0) & (s4[None, :] >= 0) & (4 - s3[:, None] - s4[None, :] >= 0)
    feasible = pmf[ok1].sum() * (pmf[:, None] * pmf[None, :])[ok34].sum()
    res = mis_sample(
        A5,
        A5 @ S5,
        S5,
        epsilon=0.5,
        proposal_eps=eps_q,
        index_set=I5,
        n_chains=4,
        n_draws=1,
        burn_in=49_999,
        seed=21,
        B=np.eye(5),
        b=np.zeros(5),
    )
    n = 4 * res.n_iterations
    share = res.infeasible.mean()
    se = np.sqrt(feasible * (1 - feasible) / n)
    assert abs(share - (1 - feasible)) < 4 * se, (share, 1 - feasible, se)
    assert res.nonintegral.max() == 0  # |det| = 1: never counted as non-integral


# --------------------------------------------------------------------------- the law


@pytest.mark.slow
def test_mis_matches_enumerated_conditional_law():
    a = A5 @ S5
    pts, probs = _enumerate(A5, a, S5, 0.5, int(a[0]))
    assert len(pts) == 4 * 15  # s0 + s1 = 3, s2 + s3 + s4 = 4
    res = mis_sample(
        A5,
        a,
        S5,
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=I5,
        n_chains=4000,
        n_draws=1,
        burn_in=300,
        seed=11,
        B=np.eye(5),
        b=np.zeros(5),
    )
    cats = rows_to_categories(res.draws[:, 0], pts)  # independent chains: i.i.d. draws
    assert (cats >= 0).all()
    assert chisquare_gof(cats, probs) > ALPHA
    # one long chain, thinned, agrees too (the ergodic average)
    res = mis_sample(
        A5,
        a,
        S5,
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=I5,
        n_draws=4000,
        thin=20,
        seed=12,
        B=np.eye(5),
        b=np.zeros(5),
    )
    assert chisquare_gof(rows_to_categories(res.draws[0], pts), probs) > ALPHA


@pytest.mark.slow
def test_a_drawn_cell_s_second_bound_and_the_solved_cells_bounds_hold_in_law():
    """A drawn cell's first one-cell row of B is checked as the cell is drawn and left out of the end of the
    proposal; its second (here s1 ≤ 2) and the solved cells' (s0, s2 ≥ 0) are checked at the end."""
    a = A5 @ S5
    B = np.vstack([np.eye(5), -np.eye(5)[1]])
    b = np.r_[np.zeros(5), -2.0]
    pts, probs = _enumerate(A5, a, S5, 0.5, int(a[0]))
    probs = np.where(pts[:, 1] <= 2, probs, 0.0)
    probs /= probs.sum()
    res = mis_sample(
        A5, a, S5, epsilon=0.5, proposal_eps=0.6, index_set=I5, n_chains=4000, n_draws=1, burn_in=300, seed=13, B=B, b=b
    )
    draws = res.draws[:, 0]
    assert draws[:, 1].max() == 2 and draws.min() == 0  # the bounds are reached, never crossed
    kept = probs > 0
    cats = rows_to_categories(draws, pts[kept])
    assert (cats >= 0).all()
    assert chisquare_gof(cats, probs[kept]) > ALPHA


def test_stored_states_are_the_chain_s_states_at_burn_in_plus_multiples_of_thin():
    """The states a thinned run stores are those an unthinned run of the same stream visits at iterations
    burn_in + k·thin (k ≥ 1), also across the run's chunks (the first ends at iteration 1,000)."""
    kw = dict(epsilon=0.5, proposal_eps=0.6, index_set=I5, n_chains=2, B=np.eye(5), b=np.zeros(5), seed=3)
    every = mis_sample(A5, A5 @ S5, S5, n_draws=5233, burn_in=0, thin=1, **kw)
    thinned = mis_sample(A5, A5 @ S5, S5, n_draws=700, burn_in=333, thin=7, **kw)
    assert thinned.n_iterations == every.n_iterations
    assert np.array_equal(thinned.draws, every.draws[:, 333 + 7 * np.arange(1, 701) - 1])
    assert np.array_equal(thinned.final_state, every.final_state)
    assert np.array_equal(thinned.acceptance, every.acceptance)
    assert np.array_equal(thinned.infeasible, every.infeasible)


@pytest.mark.slow
def test_mis_without_inequalities_matches_gibbs_sampler():
    """docs/method.md §2: ℓ1 generalized Laplace on Λ(A) = i.i.d. DG conditioned on A u = 0 = the MIS target."""
    eps, n = 0.7, 3000
    mis = mis_sample(
        A5, A5 @ S5, S5, epsilon=eps, proposal_eps=eps, index_set=I5, n_chains=n, n_draws=1, burn_in=400, seed=21
    )
    u_mis = mis.draws[:, 0] - S5
    assert (u_mis < -S5).any()  # no inequalities: cells may go negative
    gibbs = sample(
        IntegerLattice.from_constraints(A5),
        generalized_laplace(eps, "l1"),
        n_chains=n,
        n_draws=1,
        burn_in=300,
        proposal_eps=eps,
        seed=22,
        progress=False,
    )
    u_gibbs = gibbs.draws[:, 0]
    assert np.all(u_mis @ A5.T == 0) and np.all(u_gibbs @ A5.T == 0)
    for f in (lambda u: u[:, 0], lambda u: u[:, 2], lambda u: u[:, 0] + u[:, 3], lambda u: np.abs(u).sum(1)):
        assert chisquare_two_sample(f(u_mis), f(u_gibbs)) > ALPHA


@pytest.mark.slow
def test_nonunimodular_complement_rejected_or_handled():
    # s0 = s1 and the total: I^c = {0, 1} gives det [[1, 1], [1, -1]] = -2
    A = np.array([[1, 1, 1, 1], [1, -1, 0, 0]])
    center = np.array([2, 2, 1, 1])
    a = A @ center
    with pytest.raises(InvariantError, match="determinant -2"):
        mis_sample(A, a, center, epsilon=0.5, proposal_eps=0.6, index_set=[2, 3], n_draws=10, seed=1)
    res = mis_sample(
        A,
        a,
        center,
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=[2, 3],
        n_chains=3000,
        n_draws=1,
        burn_in=200,
        seed=2,
        B=np.eye(4),
        b=np.zeros(4),
        allow_nonunimodular=True,
    )
    assert res.nonintegral.mean() > 0.2  # odd s2 + s3: rejected, not rounded
    pts, probs = _enumerate(A, a, center, 0.5, 6)
    assert len(pts) == 16
    assert chisquare_gof(rows_to_categories(res.draws[:, 0], pts), probs) > ALPHA


# --------------------------------------------------------------------------- errors and reproducibility


def test_singular_complement_is_an_error():
    A = np.array([[1, 1, 0], [0, 0, 1]])
    with pytest.raises(InvariantError, match="singular"):
        mis_sample(A, [2, 1], [1, 1, 1], epsilon=1, proposal_eps=1, index_set=[2], n_draws=5, seed=0)
    with pytest.raises(InvariantError, match="d - m"):
        mis_sample(A, [2, 1], [1, 1, 1], epsilon=1, proposal_eps=1, index_set=[0, 2], n_draws=5, seed=0)


def test_start_outside_feasible_set_is_an_error():
    a = A5 @ S5
    with pytest.raises(InvariantError, match="outside S"):
        mis_sample(A5, a + 1, S5, epsilon=0.5, proposal_eps=0.6, index_set=I5, n_draws=5, seed=0)
    with pytest.raises(InvariantError, match="outside S"):
        mis_sample(
            A5, a, S5, epsilon=0.5, proposal_eps=0.6, index_set=I5, n_draws=5, seed=0, B=np.eye(5), b=np.ones(5)
        )  # s* has a zero cell
    with pytest.raises(InvariantError, match="outside S"):
        mis_sample(
            A5,
            a,
            S5,
            epsilon=0.5,
            proposal_eps=0.6,
            index_set=I5,
            n_draws=5,
            seed=0,
            init=S5 + np.array([1, -1, 1, 0, 0]),
        )


def test_seeded_and_thread_independent():
    import numba

    kw = dict(
        epsilon=0.5, proposal_eps=0.6, index_set=I5, n_chains=3, n_draws=50, thin=3, B=np.eye(5), b=np.zeros(5), seed=7
    )
    first = mis_sample(A5, A5 @ S5, S5, **kw)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        again = mis_sample(A5, A5 @ S5, S5, **kw)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(first.draws, again.draws)
    assert np.array_equal(first.acceptance, again.acceptance)
    other = mis_sample(A5, A5 @ S5, S5, **{**kw, "seed": 8})
    assert not np.array_equal(first.draws, other.draws)
