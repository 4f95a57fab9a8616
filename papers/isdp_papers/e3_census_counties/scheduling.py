"""How the workflow spreads E3's (and E4's) states over jobs.

:func:`balanced_batches`, called by ``workflow/rules/e3.smk`` with ``e3.state_jobs`` batches weighted by squared county
counts.
"""

from __future__ import annotations

from collections.abc import Mapping


def balanced_batches(items, weights: Mapping[str, float], n_batches: int | None) -> list[list[str]]:
    """Split ``items`` into ``n_batches`` batches of about equal total weight (each its own batch when None).

    The heaviest first, each to the batch with the smallest total so far (longest-processing-time scheduling); ties keep
    the order of ``items``.
    """
    items = list(items)
    if not items:
        raise ValueError("no items to batch")
    n = len(items) if n_batches is None else int(n_batches)
    if n < 1:
        raise ValueError(f"the number of batches must be at least 1, not {n_batches}")
    batches, loads = [[] for _ in range(min(n, len(items)))], [0.0] * min(n, len(items))
    for item in sorted(items, key=lambda it: -weights[it]):
        k = loads.index(min(loads))
        batches[k].append(item)
        loads[k] += weights[item]
    return batches
