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

import functools
import itertools
from collections import defaultdict
from collections.abc import Sequence

import numpy as np


@functools.cache
def _derangements(r: int) -> tuple[tuple[int, ...], ...]:
    """The derangements of 0, …, r − 1."""
    return tuple(perm for perm in itertools.permutations(range(r)) if all(a != c for a, c in enumerate(perm)))


@functools.cache
def _selection_weights(h: tuple, k: tuple) -> dict[tuple, tuple[float, ...]]:
    """Per output of the dataset ``zip(h, k)``: for each number r of selected records, the number of
    selections of r records that give it, each weighted by the share of its derangements that do."""
    n = len(h)
    weights: dict[tuple, list[float]] = defaultdict(lambda: [0.0] * (n + 1))
    for r in (0, *range(2, n + 1)):
        ders = _derangements(r)
        for sel in itertools.combinations(range(n), r):
            for sigma in ders:
                new_k = list(k)
                for i, j in zip(sel, sigma, strict=True):
                    new_k[i] = k[sel[j]]
                weights[tuple(sorted(zip(h, new_k, strict=True)))][r] += 1 / len(ders)
    return {w: tuple(v) for w, v in weights.items()}


def output_law(h: Sequence, k: Sequence, p: float) -> dict[tuple, float]:
    """Exact law of the swapped stratum (as a sorted tuple of (h, k) records) of the dataset with records
    ``zip(h, k)`` under permutation swapping at rate ``p``."""
    n = len(h)
    z = 1 - n * p * (1 - p) ** (n - 1)  # the selection is not a single record
    selection = [p**r * (1 - p) ** (n - r) / z for r in range(n + 1)]
    return {w: sum(c * s for c, s in zip(counts, selection, strict=True))
            for w, counts in _selection_weights(tuple(h), tuple(k)).items()}


def _records(x) -> tuple[list, list]:
    return [r[0] for r in x], [r[1] for r in x]


def invariants(x) -> tuple[tuple, tuple]:
    """The invariants of permutation swapping on a stratum ``x`` of (h, k) records: the multisets of h and of k."""
    h, k = _records(x)
    return tuple(sorted(h)), tuple(sorted(k))


def universe(h: Sequence, k: Sequence) -> set[tuple]:
    """Every dataset (sorted tuple of (h, k) records) with the invariants of ``zip(h, k)``."""
    return {tuple(sorted(zip(h, perm, strict=True))) for perm in itertools.permutations(k)}


def worst_loss_per_unit(h: Sequence, k: Sequence, p: float) -> float:
    """max over datasets x ≠ x' with the invariants of ``zip(h, k)`` and outputs w of
    ln(P(w | x)/P(w | x')) / d(x, x')."""
    data = sorted(universe(h, k))
    laws = [output_law(*_records(x), p) for x in data]
    outputs = sorted({w for law in laws for w in law})
    with np.errstate(divide="ignore"):  # an output one dataset cannot give: log 0, an infinite loss
        log_p = np.log(np.array([[law.get(w, 0.0) for w in outputs] for law in laws]))
    records = sorted({r for x in data for r in x})
    counts = np.array([[x.count(r) for r in records] for x in data])
    # records of x not in x' (as multisets): the Hamming distance of unordered datasets
    distance = len(h) - np.minimum(counts[:, None, :], counts[None, :, :]).sum(axis=2).astype(float)
    np.fill_diagonal(distance, np.inf)  # x = x' is no pair
    with np.errstate(invalid="ignore"):  # −inf − (−inf) where neither dataset gives the output
        loss = np.nanmax(log_p[:, None, :] - log_p[None, :, :], axis=2)
    return float(max(0.0, np.max(loss / distance)))


def support_audit(h: Sequence, k: Sequence, p: float, k_values: Sequence) -> dict[str, int]:
    """Whether permutation swapping keeps its invariants, counted on the universe of ``zip(h, k)``.

    ``outputs_breaking_invariants``: outputs (over the universe's datasets) whose invariants differ from their
    input's; ``support_mismatches_within``: ordered pairs of the universe with different supports (an infinite
    loss inside a universe); ``shared_support_across``: pairs (x, x'), x' one record away from x with that record's
    k replaced by another value of ``k_values`` (so a different multiset of k), whose laws share an output.
    """
    data = sorted(universe(h, k))
    laws = {x: output_law(*_records(x), p) for x in data}
    breaking = sum(invariants(w) != invariants(x) for x, law in laws.items() for w in law)
    mismatches = sum(laws[x].keys() != laws[y].keys() for x, y in itertools.permutations(data, 2))
    shared = pairs = 0
    for x in data:
        for i, (hi, ki) in enumerate(x):
            for v in k_values:
                if v == ki:
                    continue
                other = tuple(sorted(x[:i] + ((hi, v),) + x[i + 1:]))
                pairs += 1
                shared += bool(laws[x].keys() & output_law(*_records(other), p).keys())
    return {"datasets": len(data), "outputs_breaking_invariants": breaking, "support_mismatches_within": mismatches,
            "pairs_across": pairs, "shared_support_across": shared}


__all__ = ["invariants", "output_law", "support_audit", "universe", "worst_loss_per_unit"]
