"""Congenial DP §2.2 exactly on a small E5-like lattice.

N records in a sex × age table of 2 × 3 cells (child, two voting-age groups), E5's invariants (1)–(3) (total, female
total, voting-age total; (4) holds for any table of records), and DG(ε₀) noise per cell conditioned on S* = s(X*)
(2.1)-(2.3).

Every law depends on a database only through its histogram h, so the record-level quantities are sums over
the histograms of S* weighted by their number of orderings n!/Π h_j! (the uniform prior on databases).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from isdp.mcmc import DoubleGeometric
from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints

COLS = ("child", "adult1", "adult2")


def invariant_tables(n: int, female: int, voting: int) -> np.ndarray:
    """S*: the non-negative integer 2 × 3 tables (female row first, row-vectorised) with E5's totals."""
    A, _ = sex_by_age_constraints(("F", "M"), COLS, "adult1")

    def rows(total):
        return [c for c in itertools.product(range(total + 1), repeat=len(COLS)) if sum(c) == total]

    tables = np.array([f + m for f in rows(female) for m in rows(n - female)], dtype=np.int64)
    tables = tables.reshape(-1, 2 * len(COLS))
    return tables[np.all(tables @ A.T == (n, female, voting), axis=1)]


def _log_orderings(h: np.ndarray) -> np.ndarray:
    """Log of n!/Π h_j!, the number of record-level databases with histogram h."""
    lg = np.vectorize(math.lgamma)
    return lg(h.sum(axis=1) + 1.0) - lg(h + 1.0).sum(axis=1)


def constrained_posterior(n: int, female: int, voting: int, eps0: float) -> dict:
    """Return the §2.2 posterior bound under the uniform prior on the databases of X*, exactly.

    ``eps``: M's level under §1.3's neighbours (one record changed moves one count between two cells: 2 ε₀);
    ``gamma_star``: (2.5) at k = 1 over the d = 1 pairs of X* (one record moved between two cells, both tables
    in S*); ``shift``: the largest |log π(x_i = ω | X*, M* = m) − log π(x_i = ω | X*)| over m ∈ S* and ω (for
    a discrete release the largest ratio over sets B is attained at a point); ``ratio`` = shift / ((1 + γ*) ε).
    Also ``m_star_level``, M*'s attained level over the d = 1 pairs, and the counts of tables and pairs.
    """
    h = invariant_tables(n, female, voting)
    if len(h) < 2:
        raise ValueError(f"S* has {len(h)} table(s) at n = {n}, female = {female}, voting = {voting}")
    logp = DoubleGeometric(eps0).logpmf(h[None, :, :] - h[:, None, :]).sum(axis=2)  # [true h, release m]
    log_in = np.logaddexp.reduce(logp, axis=1)  # log P(M(x) ∈ S*)
    cond = logp - log_in[:, None]  # log P(M*(x) = m)
    diff = np.abs(h[:, None, :] - h[None, :, :]).sum(axis=2)
    a, b = np.nonzero(diff == 2)  # histograms one moved record apart
    if a.size == 0:
        raise ValueError("X* has no pair of databases one record apart: (2.5) at k = 1 is undefined")
    eps = 2.0 * eps0
    gamma_star = float((log_in[b] - log_in[a]).max()) / eps
    weight = _log_orderings(h)
    share = h / n  # P(x_i = ω | histogram h), the same for every record i
    log_prior = np.log(np.exp(weight - weight.max()) @ share) - np.log(np.exp(weight - weight.max()).sum())
    joint = np.exp(weight[:, None] + cond - (weight[:, None] + cond).max(axis=0))  # [h, m], scaled per m
    post = (joint.T @ share) / joint.sum(axis=0)[:, None]  # [m, ω]
    seen = log_prior > -np.inf
    shift = float(np.abs(np.log(post[:, seen]) - log_prior[seen]).max())
    return {
        "eps": eps,
        "gamma_star": gamma_star,
        "shift": shift,
        "ratio": shift / ((1.0 + gamma_star) * eps),
        "m_star_level": float(np.abs(cond[a] - cond[b]).max()),
        "tables": len(h),
        "pairs": int(a.size // 2),
    }


def mis_transition_matrix(
    tables: np.ndarray, center: np.ndarray, eps: float, proposal_eps: float, index_set, rule: str = "printed"
) -> tuple[np.ndarray, np.ndarray]:
    """Return Algorithm 1's one-step transition matrix on S* = ``tables``, exactly, and its target p*.

    The target is DG(ε) per cell centred on ``center``, conditioned on S*.

    A proposal draws s̃_I ~ q = Π_{i∈I} DG(ε̃) around ``center`` and solves the rest from A s̃ = a; the s̃_I of a
    point of S* is its own (I determines the point), and every other draw lands outside S* (rejected by
    1(B s̃ ≥ b), or non-integral). ``rule``: ``"printed"`` accepts with step 2's min{1, p(s̃) q(s_I) / (p(s) q(s̃_I))};
    ``"metropolis"`` with min{1, p(s̃)/p(s)}, the random-walk rule that drops q (a plausible slip; its chain
    targets p·q). Returns (P, p*), P[s, s'] the probability of moving from s to s'.
    """
    idx = np.asarray(index_set)
    log_p = DoubleGeometric(eps).logpmf(tables - center).sum(axis=1)
    log_q = DoubleGeometric(proposal_eps).logpmf(tables[:, idx] - center[idx]).sum(axis=1)
    if rule == "printed":
        log_ratio = (log_p - log_q)[None, :] - (log_p - log_q)[:, None]
    elif rule == "metropolis":
        log_ratio = log_p[None, :] - log_p[:, None]
    else:
        raise ValueError(f"rule must be 'printed' or 'metropolis', got {rule!r}")
    P = np.exp(log_q)[None, :] * np.exp(np.minimum(log_ratio, 0.0))  # [s, s']: propose s', accept
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices_from(P)] = 1.0 - P.sum(axis=1)  # rejections (and proposals off S*) stay
    target = np.exp(log_p - np.logaddexp.reduce(log_p))
    return P, target


def rejection_law(
    tables: np.ndarray, center: np.ndarray, eps: float, proposal_eps: float, index_set, rule: str = "printed"
) -> tuple[np.ndarray, np.ndarray, float]:
    """§2.3's rejection sampler on S* = ``tables``, exactly.

    A proposal s ~ q, q = Π_{i∈I} DG(ε̃) around ``center`` normalised on S* (I determines the point), accepted with
    probability p(s)/(R q(s)), p = Π DG(ε) the unconstrained law and R = max_{S*} p/q. ``rule`` "no-R" accepts with
    min{1, p*(s)/q(s)} instead (the normalised target, no envelope constant: a plausible slip). Returns the law of an
    accepted draw, p* and the acceptance probability.
    """
    idx = np.asarray(index_set)
    log_p = DoubleGeometric(eps).logpmf(tables - center).sum(axis=1)
    log_q = DoubleGeometric(proposal_eps).logpmf(tables[:, idx] - center[idx]).sum(axis=1)
    log_q -= np.logaddexp.reduce(log_q)
    if rule == "printed":
        accept = np.exp(log_p - log_q - (log_p - log_q).max())
    elif rule == "no-R":
        accept = np.exp(np.minimum(log_p - np.logaddexp.reduce(log_p) - log_q, 0.0))
    else:
        raise ValueError(f"rule must be 'printed' or 'no-R', got {rule!r}")
    joint = np.exp(log_q) * accept
    return joint / joint.sum(), np.exp(log_p - np.logaddexp.reduce(log_p)), float(joint.sum())


__all__ = ["COLS", "constrained_posterior", "invariant_tables", "mis_transition_matrix", "rejection_law"]
