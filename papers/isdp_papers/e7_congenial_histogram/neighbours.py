"""Congenial DP §1.3's neighbours, by enumeration.

Def 1.1's sensitivity of the count and the histogram of binary databases (bounded or add/remove neighbours, any norm),
and the smallest distance between two databases of Example 4.1's X* (Theorem 2.1's k).
"""

from __future__ import annotations

import itertools

import numpy as np


def binary_databases(n: int) -> np.ndarray:
    """All ``2^n`` databases of ``n`` binary records, one per row."""
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64).reshape(-1, n)


QUERIES = {
    "count": lambda x: x.sum(axis=1, keepdims=True),
    "histogram": lambda x: np.column_stack([(x == 0).sum(axis=1), (x == 1).sum(axis=1)]),
}


def sensitivity(query: str, n_max: int, *, norm: float = 1, neighbours: str = "bounded") -> float:
    """Return Def 1.1's ∇(s) = max ‖s(x) − s(x′)‖ over neighbouring binary databases, by enumeration.

    The databases have up to ``n_max`` records; ``bounded`` neighbours (§1.3: one record changed) or ``add/remove`` (one
    record deleted).
    """
    q = QUERIES[query]
    worst = 0.0
    for n in range(1, n_max + 1):
        x = binary_databases(n)
        for j in range(n):
            if neighbours == "bounded":
                y = x.copy()
                y[:, j] ^= 1
            elif neighbours == "add/remove":
                y = np.delete(x, j, axis=1)
            else:
                raise ValueError(f"unknown neighbours {neighbours!r} (bounded or add/remove)")
            worst = max(worst, float(np.linalg.norm(q(x) - q(y), ord=norm, axis=1).max()))
    return worst


def example41_nearest(n: int, neighbours: str = "bounded") -> int:
    """Return the smallest distance between two distinct databases of Example 4.1's ``X*``, by enumeration.

    ``X``: each of ``n`` individuals absent, 0 or 1 (``3^n`` databases); ``X*``: those whose histogram
    total is ``n`` (4.5). ``bounded`` (§1.3): the number of individuals whose records differ (defined
    between databases of the same individuals); ``add/remove``: the number of records added or deleted,
    the size of the symmetric difference of the sets of records ``(j, x_j)``.
    """
    x = np.array(list(itertools.product((-1, 0, 1), repeat=n)), dtype=np.int64).reshape(-1, n)
    star = x[(x >= 0).sum(axis=1) == n]  # s1 + s2 = n
    if neighbours == "bounded":
        dist = (star[:, None, :] != star[None, :, :]).sum(axis=2)
    elif neighbours == "add/remove":
        records = np.concatenate([star == 0, star == 1], axis=1).astype(np.int64)  # indicator of each (j, v)
        dist = np.abs(records[:, None, :] - records[None, :, :]).sum(axis=2)
    else:
        raise ValueError(f"unknown neighbours {neighbours!r} (bounded or add/remove)")
    return int(dist[~np.eye(len(star), dtype=bool)].min())
