"""An exact privacy audit of permutation swapping on small strata (swapping slides, 'Swapping satisfies
DP, subject to its invariants').

Within a stratum each record is selected with probability p and the swapping variable of the selected
records is permuted by a uniform derangement; a selection of exactly one record cannot be deranged
and is redrawn (the law is conditioned on it not happening). Datasets are unordered, records are
(h, k) pairs — h the stratum's other variables, k the swapping variable — and two datasets with the
same invariants (the multisets of h and of k) are at Hamming distance d = the records of one not in
the other. :func:`worst_loss_per_unit` enumerates every dataset and output of a stratum exactly.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Sequence


def _derangements(idx: Sequence[int]) -> list[tuple[int, ...]]:
    return [perm for perm in itertools.permutations(idx) if all(a != c for a, c in zip(idx, perm, strict=True))]


def output_law(h: Sequence, k: Sequence, p: float) -> dict[tuple, float]:
    """Exact law of the swapped stratum (as a sorted tuple of (h, k) records) of the dataset with records
    ``zip(h, k)`` under permutation swapping at rate ``p``."""
    n = len(h)
    z = 1 - n * p * (1 - p) ** (n - 1)  # the selection is not a single record
    law: dict[tuple, float] = defaultdict(float)
    for r in (0, *range(2, n + 1)):
        for sel in itertools.combinations(range(n), r):
            ders = _derangements(sel) if r else [()]
            for sigma in ders:
                new_k = list(k)
                for i, j in zip(sel, sigma, strict=True):
                    new_k[i] = k[j]
                law[tuple(sorted(zip(h, new_k, strict=True)))] += p**r * (1 - p) ** (n - r) / z / len(ders)
    return law


def worst_loss_per_unit(h: Sequence, k: Sequence, p: float) -> float:
    """max over datasets x ≠ x' with the invariants of ``zip(h, k)`` and outputs w of
    ln(P(w | x)/P(w | x')) / d(x, x')."""
    universe = {tuple(sorted(zip(h, perm, strict=True))) for perm in itertools.permutations(k)}
    laws = {x: output_law([r[0] for r in x], [r[1] for r in x], p) for x in universe}
    worst = 0.0
    for x, y in itertools.permutations(universe, 2):
        d = sum((Counter(x) - Counter(y)).values())
        for w, pw in laws[x].items():
            worst = max(worst, math.log(pw / laws[y][w]) / d)
    return worst


__all__ = ["output_law", "worst_loss_per_unit"]
