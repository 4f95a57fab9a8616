"""Congenial DP Example 5.2, exactly.

The rounded count ``s = ⌈Σx / group⌉`` with DG(ε) noise and the invariant ``Σx ∈ [lo, hi]`` on binary databases. Theorem
2.1's γ and (2.5)'s γ* of the conditional mechanism, the query's sensitivity, the pairs of databases in X*, and the
slack δ (4.4) of the post-processing that projects onto S*(x).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from isdp.mcmc import DoubleGeometric
from isdp.privacy import TruncatedLaw


def _ceil_div(sums: np.ndarray, group: int) -> np.ndarray:
    return -(-sums // group)


def rounding_secrecy(lo: int, hi: int, group: int, eps: float, k: int = 1) -> dict:
    """Return example 5.2 and Theorem 2.1, exactly.

    ``s = ⌈Σx / group⌉`` with DG(ε) noise (∇(s) = 1), invariant ``Σx ∈ [lo, hi]`` on binary databases of ``n = hi + k``
    records.

    The conditional mechanism draws ``M | M ∈ S*`` with ``S* = {s(x) : Σx ∈ [lo, hi]}`` (2.1). A
    k-neighbour (k records changed, §1.3) moves ``Σx`` by ``j ∈ {−k, −k + 2, …, k}``, which needs
    ``(k − j)/2`` ones and ``(k + j)/2`` zeros to flip; both laws depend on ``x`` through ``Σx`` only, so the
    pairs of sums in range that such moves join are all the pairs there are. Over them: ``level``, the
    largest ``|log P(M*(x) = m) − log P(M*(x′) = m)|`` (for a discrete law the supremum over sets is attained
    at a point), ``gamma = level / (kε) − 1``, ``gamma_star`` of (2.5) from ``log P(M(x) ∈ S*)``, and
    ``m_level``, the level of M itself. Returns those with ``s_star`` (sorted list) and ``n_pairs``.
    """
    n = hi + k
    sums = np.arange(lo, hi + 1)
    s_star = np.unique(_ceil_div(sums, group))
    logp = DoubleGeometric(eps).logpmf(s_star[None, :] - _ceil_div(sums, group)[:, None])
    log_in = np.logaddexp.reduce(logp, axis=1)  # log P(M(x) ∈ S*)
    cond = logp - log_in[:, None]  # log P(M*(x) = m)
    pairs = [
        (i, i + j)
        for i, total in enumerate(sums)
        for j in range(-k, k + 1, 2)
        if 0 <= i + j < len(sums) and total >= (k - j) // 2 and n - total >= (k + j) // 2
    ]
    a, b = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    s = _ceil_div(sums, group)

    def worst(v):
        return float(np.abs(v[a] - v[b]).max(initial=0.0))

    level = worst(cond)
    return {
        "s_star": [int(v) for v in s_star],
        "level": level,
        "gamma": level / (k * eps) - 1.0,
        "gamma_star": worst(log_in) / (k * eps),
        "m_level": eps * worst(s.astype(float)),
        "n_pairs": len(pairs),
    }


def invariant_block(total: int, block: Sequence[int]) -> tuple[int, int]:
    """Return the invariant's level set of Σx that contains ``total``.

    Blocks of Σx of the width of ``block`` = [lo, hi], aligned with it (Example 5.2's [41, 50] gives the decades [10j +
    1, 10j + 10]).
    """
    lo, hi = int(block[0]), int(block[1])
    width = hi - lo + 1
    start = lo + width * math.floor((total - lo) / width)
    return start, start + width - 1


def projected_rounding_pmf(
    total: int, eps: float, group: int, s_star: Sequence[int], outputs: np.ndarray
) -> np.ndarray:
    """Law on ``outputs`` of ``f(M(x); S*)``.

    ``M = ⌈total / group⌉ + DG(ε)`` projected onto the L1/L2-nearest point of the consecutive integers ``S*`` (a clamp
    to [min S*, max S*]): the optimization post-processing of (4.1) on Example 5.2's query.
    """
    s = int(_ceil_div(np.int64(total), group))
    lo, hi = int(min(s_star)), int(max(s_star))
    pmf = np.where((outputs > lo) & (outputs < hi), DoubleGeometric(eps).pmf(outputs - s), 0.0)
    low_mass = 1.0 if lo == hi else float(DoubleGeometric(eps).cdf(lo - s))
    pmf = pmf + np.where(outputs == lo, low_mass, 0.0)
    return pmf + np.where((outputs == hi) & (lo < hi), 1.0 - float(DoubleGeometric(eps).cdf(hi - 1 - s)), 0.0)


def rounding_postprocessing_slack(
    n: int, group: int, block: Sequence[int], eps: float, *, confidential_total: int | None = None
) -> dict:
    """(4.4) on Example 5.2's query, exactly.

    The largest δ (:meth:`isdp.privacy.TruncatedLaw.hockey_stick_divergence`) of ``f(M(x); S*(x))`` over §1.3
    neighbours (one record changed: Σx and Σx ± 1, both in [0, n]), split into pairs in the same invariant level set
    (:func:`invariant_block`; S*(x) = S*(x′)) and pairs across two; M*'s δ across as well. ``confidential_total``:
    project every x onto S* of that one database instead (a fixed public function, the g of the post-processing
    theorem).
    """

    def s_star(total):
        lo, hi = invariant_block(confidential_total if confidential_total is not None else total, block)
        return tuple(np.unique(_ceil_div(np.arange(lo, hi + 1), group)).tolist())

    outputs = np.arange(-1, _ceil_div(np.int64(n), group) + 2)
    laws = {}  # both laws depend on x only through (s(x), S*(x)): compute each once

    def law(t):
        key = (int(_ceil_div(np.int64(t), group)), s_star(t))
        if key not in laws:
            m = np.where(np.isin(outputs, key[1]), DoubleGeometric(eps).pmf(outputs - key[0]), 0.0)  # M* on S*(x)
            laws[key] = projected_rounding_pmf(t, eps, group, key[1], outputs), m / m.sum()
        return laws[key]

    f = {t: law(t)[0] for t in range(n + 1)}

    def m_star(t):
        return law(t)[1]

    out = {"within": 0.0, "across": 0.0, "m_star_across": 0.0, "pairs_within": 0, "pairs_across": 0}
    for t in range(n):
        same = invariant_block(t, block) == invariant_block(t + 1, block)
        key = "within" if same else "across"
        out[f"pairs_{key}"] += 1
        out[key] = max(
            out[key],
            TruncatedLaw.hockey_stick_divergence(f[t], f[t + 1], eps),
            TruncatedLaw.hockey_stick_divergence(f[t + 1], f[t], eps),
        )
        if not same:
            out["m_star_across"] = max(
                out["m_star_across"], TruncatedLaw.hockey_stick_divergence(m_star(t), m_star(t + 1), eps)
            )
    return out


def rounding_sensitivity(group: int, n: int) -> int:
    """∇(⌈Σx / group⌉) over binary databases of ``n`` records.

    A bounded neighbour (one record changed) moves ``Σx`` by one, so the largest change of the query over consecutive
    sums in ``[0, n]``.
    """
    return int(np.abs(np.diff(_ceil_div(np.arange(n + 1), group))).max())


def invariant_pairs(lo: int, hi: int, n: int) -> dict:
    """Pairs of distinct databases in ``X* = {x ∈ {0, 1}^n : Σx ∈ [lo, hi]}``, counted exactly.

    ``distinct`` (unordered, ``d ≥ 1``) and ``d1`` (unordered pairs one record apart: a 0 of a database with ``Σx < hi``
    turned into a 1).
    """
    size = sum(math.comb(n, t) for t in range(lo, hi + 1))
    d1 = sum(math.comb(n, t) * (n - t) for t in range(lo, hi))
    return {"size": size, "distinct": math.comb(size, 2), "d1": d1}
