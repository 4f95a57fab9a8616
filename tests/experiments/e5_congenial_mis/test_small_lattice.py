"""Tests of :mod:`isdp_papers.e5_congenial_mis.small_lattice`: on the 2 × 3 tables with E5's invariants, Algorithm
1's transition matrix against one built proposal by proposal (and its stationary law), and the rejection sampler's
law against simulated rejection sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from census_support import A6
from isdp_papers.e5_congenial_mis import small_lattice as sl

from isdp.mcmc import DoubleGeometric


def _transition_by_proposals(tables, center, eps, eps_q, index_set, complement):
    """Algorithm 1's transition matrix built proposal by proposal: every s̃_I in a box that holds S*'s coordinates,
    the rest solved from A s̃ = a, kept if in S* (B = I) and accepted with step 2's printed ratio."""
    a = A6 @ tables[0]
    M = A6[:, complement].astype(float)
    n = int(a[0])
    log_p = {tuple(t): float(np.log(DoubleGeometric(eps).pmf(t - center)).sum()) for t in tables}
    index = {tuple(t): k for k, t in enumerate(tables)}
    P = np.zeros((len(tables), len(tables)))
    for s_i in itertools.product(range(-1, n + 2), repeat=len(index_set)):
        prop = np.zeros(6, dtype=np.int64)
        prop[index_set] = s_i
        prop[complement] = np.rint(np.linalg.solve(M, a - A6[:, index_set] @ np.array(s_i))).astype(np.int64)
        q_prop = float(DoubleGeometric(eps_q).pmf(np.array(s_i) - center[index_set]).prod())
        if tuple(prop) not in index or prop.min() < 0:
            continue
        for k, s in enumerate(tables):
            q_cur = float(DoubleGeometric(eps_q).pmf(s[index_set] - center[index_set]).prod())
            ratio = np.exp(log_p[tuple(prop)] - log_p[tuple(s)]) * q_cur / q_prop
            P[k, index[tuple(prop)]] += q_prop * min(1.0, ratio)
    P[np.diag_indices_from(P)] += 1.0 - P.sum(axis=1)
    return P


def test_transition_matrix_against_proposal_enumeration():
    complement = [0, 2, 5]
    index_set = [1, 3, 4]
    tables = sl.invariant_tables(4, 2, 3)
    center = tables[3]
    P, target = sl.mis_transition_matrix(tables, center, 0.5, 0.6, index_set)
    assert np.allclose(P, _transition_by_proposals(tables, center, 0.5, 0.6, index_set, complement), atol=1e-14)
    assert np.all(P >= 0) and np.allclose(P.sum(axis=1), 1.0)
    assert target @ P == pytest.approx(target, abs=1e-15)


def test_rejection_law_is_what_simulated_rejection_sampling_accepts():
    """Independent of the law's algebra: propose from q on S*, accept with p/(Rq), and compare the accepted draws'
    frequencies with p* (chi-square, fixed seed)."""
    from isdp_papers.e5_congenial_mis import small_lattice as sl
    from scipy import stats

    tables = sl.invariant_tables(5, 2, 3)
    center, index_set = tables[3], [1, 3, 4]
    law, target, rate = sl.rejection_law(tables, center, 0.5, 0.6, index_set)
    log_p = DoubleGeometric(0.5).logpmf(tables - center).sum(axis=1)
    log_q = DoubleGeometric(0.6).logpmf(tables[:, index_set] - center[index_set]).sum(axis=1)
    q = np.exp(log_q - np.logaddexp.reduce(log_q))
    ratio = np.exp(log_p) / q
    rng = np.random.default_rng(7)
    proposals = rng.choice(len(tables), size=40_000, p=q)
    accepted = proposals[rng.uniform(size=proposals.size) < ratio[proposals] / ratio.max()]
    counts = np.bincount(accepted, minlength=len(tables))
    assert stats.chisquare(counts, target * counts.sum()).pvalue > 1e-3
    assert accepted.size / proposals.size == pytest.approx(rate, abs=4 * np.sqrt(rate * (1 - rate) / proposals.size))
