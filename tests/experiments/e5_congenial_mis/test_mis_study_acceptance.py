"""Tests of Fig 2's chains (:func:`isdp_papers.e5_congenial_mis.mis_study.acceptance_chains`): they start at
exact draws of the target p*, so their acceptance rate is Algorithm 1's stationary one. On a 2 × 3 table with E5's
invariants (the note's small lattice) both are known exactly: p* by enumeration, the stationary rate
Σ_s p*(s) a(s) and the rate of a chain from s* over its first n proposals, Σ_t e_{s*} P^t a / n, from the
transition matrix P (:func:`.small_lattice.mis_transition_matrix`). A start at s* fails both tests."""

from __future__ import annotations

import numpy as np
import pytest
from census_support import A6, CONFIG
from conftest import ROOT
from isdp_papers.e5_congenial_mis import mis_study as ms
from isdp_papers.e5_congenial_mis import small_lattice as sl
from scipy import stats

from isdp.mcmc import DoubleGeometric
from isdp.mcmc._mis import mis_log_weight
from isdp.tables import read_table_csv

LATTICE, INDEX_SET, EPS = (6, 3, 4), [1, 3, 4], 0.5  # 25 tables; I^c = {0, 2, 5}, A[:, I^c] unimodular
TABLES = sl.invariant_tables(*LATTICE)
CENTER = TABLES[0]  # s*: the mode of p*, and (ε̃ < ε) the point of largest importance weight p/q


def _exact(proposal_eps: float, n_iter: int) -> tuple[np.ndarray, float, float]:
    """p*, the stationary acceptance rate and the expected rate of a chain from s* over ``n_iter`` proposals.

    a(s) is the chance that a proposal from s is accepted, a proposal of the current point counting as accepted
    (as :func:`isdp.mcmc.mis_sample` counts it)."""
    P, target = sl.mis_transition_matrix(TABLES, CENTER, EPS, proposal_eps, INDEX_SET)
    q_self = np.exp(DoubleGeometric(proposal_eps).logpmf(TABLES[:, INDEX_SET] - CENTER[INDEX_SET]).sum(axis=1))
    a = 1.0 - np.diag(P) + q_self
    law, from_s_star = (TABLES == CENTER).all(axis=1).astype(float), 0.0
    for _ in range(n_iter):
        from_s_star += law @ a / n_iter
        law = law @ P
    return target, float(target @ a), from_s_star


def _index(states: np.ndarray) -> np.ndarray:
    """The row of TABLES each state is."""
    hit = (states[:, None, :] == TABLES[None, :, :]).all(axis=2)
    assert hit.sum(axis=1).tolist() == [1] * len(states)
    return hit.argmax(axis=1)


def _chi2_pvalue(states: np.ndarray, target: np.ndarray) -> float:
    """Chi-square goodness of fit of ``states`` to ``target`` on TABLES (cells expecting fewer than 5 pooled)."""
    observed = np.bincount(_index(states), minlength=len(TABLES)).astype(float)
    expected = target * len(states)
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    return float(stats.chisquare(observed, expected).pvalue)


def test_acceptance_chains_start_at_exact_draws_of_the_target():
    """The starts of Fig 2's chains follow p* (the exact law, by enumeration); a start at s* is far from it."""
    target, _, _ = _exact(0.3, 1)
    starts = ms.exact_starts(A6, A6 @ CENTER, CENTER, INDEX_SET, eps=EPS, n_chains=20_000, seed=3)
    assert _chi2_pvalue(starts, target) > 1e-3
    tv = 0.5 * np.abs(np.bincount(_index(starts), minlength=len(TABLES)) / len(starts) - target).sum()
    assert tv < 0.02
    assert _chi2_pvalue(np.broadcast_to(CENTER, starts.shape), target) < 1e-12  # Algorithm 1's start, s*
    assert target[0] == pytest.approx(0.372, abs=1e-3)  # s* has 37 % of p*'s mass: the test has power


@pytest.mark.parametrize("proposal_eps", [0.3, 0.6])
def test_acceptance_from_exact_starts_is_the_stationary_rate_and_from_s_star_is_not(proposal_eps):
    """Short chains (10 proposals), many of them: from exact starts the mean rate is the stationary rate within
    4 SE, at ε̃ < ε and at ε̃ > ε; from s* (``run_mis``'s default start, Algorithm 1's) it is the exact transient
    rate, here far below the stationary one (s*, the mode of p*, is hard to leave), so a start at s* fails."""
    n_chains, n_iter = 20_000, 10
    _, stationary, from_s_star = _exact(proposal_eps, n_iter)
    res, starts = ms.acceptance_chains(
        A6,
        A6 @ CENTER,
        CENTER,
        INDEX_SET,
        eps=EPS,
        proposal_eps=proposal_eps,
        n_chains=n_chains,
        n_iter=n_iter,
        seed=5,
        start_seed=6,
    )
    assert starts.shape == (n_chains, 6) and res.n_iterations == n_iter
    row = ms.acceptance_row(proposal_eps, res)
    assert row["start"] == ms.ACCEPTANCE_START == "exact draws of p*" and row["n_chains"] == n_chains
    assert abs(row["acceptance"] - stationary) < 4 * row["se"]

    s_star = ms.run_mis(
        A6,
        A6 @ CENTER,
        CENTER,
        INDEX_SET,
        eps=EPS,
        proposal_eps=proposal_eps,
        n_chains=n_chains,
        n_draws=0,
        burn_in=n_iter,
        seed=5,
    )
    se = s_star.acceptance.std(ddof=1) / np.sqrt(n_chains)
    assert abs(s_star.acceptance.mean() - from_s_star) < 4 * se  # the exact transient rate: the runs are right
    assert stationary - from_s_star > 20 * row["se"]  # 0.0162 against 0.0092 (ε̃ = 0.3), 0.090 against 0.072 (0.6)
    assert stationary - s_star.acceptance.mean() > 4 * row["se"]  # a start at s* fails the test above


@pytest.mark.slow
def test_fig2_acceptance_on_e5s_table_is_the_stationary_rate_at_a_small_proposal_eps():
    """Fig 2's acceptance on E5's own table at ε̃ = 0.4 < ε: Fig 2's chains (exact starts) against the stationary rate
    E_{s ~ p*, s̃ ~ q}[min{1, w(s̃)/w(s)} 1(s̃ ∈ S*)], w = p/q, estimated without chains (exact draws of p*, each
    paired with fresh proposals), within 4 SE; the same chains from s* accept almost never and fail it."""
    e5 = CONFIG["e5"]
    values, rows, cols = read_table_csv(ROOT / e5["table"])
    prob = ms.sex_by_age_problem(values, rows, cols, e5["voting_age_from"], e5["index_complement"])
    A, a, x, index_set, eps, eps_q = prob.A, prob.invariants, prob.x, prob.meta["index_set"], e5["eps"], 0.4
    idx_i = np.asarray(index_set)
    idx_c = np.setdiff1d(np.arange(x.size), idx_i)
    solve = np.linalg.inv(A[:, idx_c].astype(float))  # det 1: the solve is integral

    states = ms.exact_starts(A, a, x, index_set, eps=eps, n_chains=400, seed=21)
    rng = np.random.default_rng(22)
    alpha = np.empty(len(states))
    for k, s in enumerate(states):
        prop = np.empty((2000, x.size), dtype=np.int64)
        prop[:, idx_i] = x[idx_i] + DoubleGeometric(eps_q).rvs((2000, idx_i.size), rng)
        prop[:, idx_c] = np.rint((a - prop[:, idx_i] @ A[:, idx_i].T) @ solve.T).astype(np.int64)
        assert (prop @ A.T == a).all()
        log_ratio = mis_log_weight(prop, x, idx_i, eps, eps_q) - mis_log_weight(s, x, idx_i, eps, eps_q)
        alpha[k] = np.where((prop >= 0).all(axis=1), np.exp(np.minimum(log_ratio, 0.0)), 0.0).mean()
    stationary, stationary_se = alpha.mean(), alpha.std(ddof=1) / np.sqrt(len(alpha))

    sizes = dict(n_chains=16, n_iter=100_000, seed=23)
    res, _ = ms.acceptance_chains(A, a, x, index_set, eps=eps, proposal_eps=eps_q, start_seed=24, **sizes)
    row = ms.acceptance_row(eps_q, res)
    band = 4 * np.hypot(row["se"], stationary_se)
    assert abs(row["acceptance"] - stationary) < band
    s_star = ms.run_mis(
        A,
        a,
        x,
        index_set,
        eps=eps,
        proposal_eps=eps_q,
        n_chains=sizes["n_chains"],
        n_draws=0,
        burn_in=sizes["n_iter"],
        seed=sizes["seed"],
    )
    assert stationary - s_star.acceptance.mean() > band  # Algorithm 1's start, s*: the rate the issue reports
