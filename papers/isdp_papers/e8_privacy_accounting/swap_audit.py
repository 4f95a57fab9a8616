"""An exact privacy audit of permutation swapping on small strata.

Swapping slides, 'Swapping satisfies DP, subject to its invariants'.

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
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np


@functools.cache
def _derangements(r: int) -> tuple[tuple[int, ...], ...]:
    """Return the derangements of 0, …, r − 1."""
    return tuple(perm for perm in itertools.permutations(range(r)) if all(a != c for a, c in enumerate(perm)))


@functools.cache
def _selection_weights(h: tuple, k: tuple) -> dict[tuple, tuple[float, ...]]:
    """Per output of the dataset ``zip(h, k)``.

    For each number r of selected records, the number of selections of r records that give it, each weighted by the
    share of its derangements that do.
    """
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
    """Return the exact law of the swapped stratum under permutation swapping at rate ``p``.

    The stratum is a sorted tuple of (h, k) records, of the dataset with records ``zip(h, k)``.
    """
    n = len(h)
    z = 1 - n * p * (1 - p) ** (n - 1)  # the selection is not a single record
    selection = [p**r * (1 - p) ** (n - r) / z for r in range(n + 1)]
    return {
        w: sum(c * s for c, s in zip(counts, selection, strict=True))
        for w, counts in _selection_weights(tuple(h), tuple(k)).items()
    }


def _records(x) -> tuple[list, list]:
    return [r[0] for r in x], [r[1] for r in x]


def invariants(x) -> tuple[tuple, tuple]:
    """Return the invariants of permutation swapping on a stratum ``x`` of (h, k) records.

    The multisets of h and of k.
    """
    h, k = _records(x)
    return tuple(sorted(h)), tuple(sorted(k))


def universe(h: Sequence, k: Sequence) -> set[tuple]:
    """Every dataset (sorted tuple of (h, k) records) with the invariants of ``zip(h, k)``."""
    return {tuple(sorted(zip(h, perm, strict=True))) for perm in itertools.permutations(k)}


def universe_log_laws(
    h: Sequence, k: Sequence, p: float, release: Callable | None = None, persons: Callable | None = None
):
    """For the datasets of the universe of ``zip(h, k)`` (sorted).

    The log-probabilities of their releases (rows) on the releases' union of outputs (columns; −inf where a dataset
    cannot give one) and the distances between them.

    ``release(x, law)``: the law of what is released from dataset x whose swapped stratum has law ``law`` (default:
    the swapped stratum itself). The distance counts the records of x not in x' (unordered Hamming), each weighted by
    ``persons(h)`` when given (the person-level distance when records are households of that many persons).
    """
    data = sorted(universe(h, k))
    laws = [output_law(*_records(x), p) for x in data]
    if release is not None:
        laws = [release(x, law) for x, law in zip(data, laws, strict=True)]
    outputs = sorted({w for law in laws for w in law})
    with np.errstate(divide="ignore"):  # an output one dataset cannot give: log 0
        log_p = np.log(np.array([[law.get(w, 0.0) for w in outputs] for law in laws]))
    records = sorted({r for x in data for r in x})
    weight = np.array([persons(r[0]) if persons else 1 for r in records], dtype=float)
    counts = np.array([[x.count(r) for r in records] for x in data])
    # records of x not in x' (as multisets), weighted: the Hamming distance of unordered datasets
    excess = counts[:, None, :] - np.minimum(counts[:, None, :], counts[None, :, :])
    distance = (excess * weight).sum(axis=2).astype(float)
    np.fill_diagonal(distance, np.inf)  # x = x' is no pair
    return log_p, distance


def worst_loss_per_unit(
    h: Sequence, k: Sequence, p: float, release: Callable | None = None, persons: Callable | None = None
) -> float:
    """Return the worst privacy loss per unit distance over datasets with the invariants of ``zip(h, k)``.

    Max over datasets x ≠ x' with those invariants and outputs w of ln(P(w | x)/P(w | x')) / d(x, x') (``release`` and
    ``persons`` as in :func:`universe_log_laws`).
    """
    log_p, distance = universe_log_laws(h, k, p, release, persons)
    return loss_per_unit(log_p, distance)


def loss_per_unit(log_p: np.ndarray, distance: np.ndarray) -> float:
    """Max over pairs (i, j) and outputs w of (log_p[i, w] − log_p[j, w]) / distance[i, j] (at least 0)."""
    with np.errstate(invalid="ignore"):  # −inf − (−inf) where neither dataset gives the output
        loss = np.nanmax(log_p[:, None, :] - log_p[None, :, :], axis=2)
    return float(max(0.0, np.max(loss / distance)))


def approximate_loss_per_unit(h: Sequence, k: Sequence, p: float, delta: float) -> float:
    """Return the (ε, δ) analogue of :func:`worst_loss_per_unit`.

    Max over datasets x ≠ x' of the universe of ``zip(h, k)`` of d_δ(P_x, P_x') / d(x, x'), d_δ(P, Q) the smallest ε ≥ 0
    with P(S) ≤ e^ε Q(S) + δ for every set S of outputs (at δ = 0, ln max P/Q).

    Exact: P(S) − e^ε Q(S) is largest on a set of the outputs of highest ratio P/Q, so d_δ is the largest
    ln((P(S) − δ)/Q(S)) over those sets (each prefix of the outputs sorted by decreasing ratio).
    """
    log_p, distance = universe_log_laws(h, k, p)
    prob = np.exp(log_p)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.nan_to_num(log_p[:, None, :] - log_p[None, :, :], nan=-np.inf)  # neither gives it: never in S
        order = np.argsort(-ratio, axis=2)
        top_p = np.cumsum(np.take_along_axis(np.broadcast_to(prob[:, None, :], ratio.shape), order, axis=2), axis=2)
        top_q = np.cumsum(np.take_along_axis(np.broadcast_to(prob[None, :, :], ratio.shape), order, axis=2), axis=2)
        eps = np.max(np.where(top_p > delta, np.log(np.maximum(top_p - delta, 0.0)) - np.log(top_q), 0.0), axis=2)
    return float(max(0.0, np.max(np.maximum(eps, 0.0) / distance)))


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
                other = tuple(sorted(x[:i] + ((hi, v),) + x[i + 1 :]))
                pairs += 1
                shared += bool(laws[x].keys() & output_law(*_records(other), p).keys())
    return {
        "datasets": len(data),
        "outputs_breaking_invariants": breaking,
        "support_mismatches_within": mismatches,
        "pairs_across": pairs,
        "shared_support_across": shared,
    }


def hamming(x, x2) -> int:
    """Return the records of the unordered dataset ``x`` not in ``x2``: d_HAM^u of two datasets of one size."""
    return len(x) - sum((Counter(x) & Counter(x2)).values())


def permutation_law(n: int, p: float) -> dict[tuple[int, ...], float]:
    """Return the law of the permutation π that permutation swapping applies to a stratum of ``n`` records.

    Record i receives the swapping variable of record π(i): each record selected with probability ``p``, a lone
    selection redrawn, a uniform derangement of the selected records. :func:`output_law` is its image on a dataset.
    """
    z = 1 - n * p * (1 - p) ** (n - 1)
    law: dict[tuple[int, ...], float] = defaultdict(float)
    for r in (0, *range(2, n + 1)):
        ders = _derangements(r)
        for sel in itertools.combinations(range(n), r):
            for sigma in ders:
                pi = list(range(n))
                for i, j in zip(sel, sigma, strict=True):
                    pi[i] = sel[j]
                law[tuple(pi)] += p**r * (1 - p) ** (n - r) / z / len(ders)
    return dict(law)


def proof_sketch_audit(h: Sequence, k: Sequence, rates: Sequence[float]) -> dict[str, float]:
    """Check the steps of the slides' proof sketch that permutation swapping is DP, by enumeration.

    On the universe of ``zip(h, k)`` with the law of :func:`permutation_law`.

    Step 2: for every ordered pair x' ≠ x of the universe, the fewest records a permutation must move to turn x'
    into x (moved records: a derangement of them), against m = :func:`hamming` (x, x'); ``unreachable``: datasets
    of the universe no permutation of x' gives. With ρ such a permutation, every permutation σ of the records and
    σ' = σ ∘ ρ (ρ applied first: record i receives the value of record ρ(σ(i)) of x'), so that σ(x) = σ'(x'):
    step 4, ``support_violations`` of m_σ − m ≤ m_σ' ≤ m_σ + m (m_· the records a permutation moves); step 5,
    ``identity_deviation``, the largest relative gap between Pr(σ)/Pr(σ') and o^(m_σ − m_σ') D(m_σ')/D(m_σ)
    (D(r) the derangements of r records, o = p/(1 − p)); step 6, ``bound_ratio``, the largest
    Pr(σ)/Pr(σ') / (o^−m (b + 1)^m) over ``rates`` (b the stratum size). ``law_deviation``: the largest gap between
    the image of the permutation law on a dataset and :func:`output_law`.
    """
    n = len(h)
    perms = np.array(list(itertools.permutations(range(n))))
    index = {pi: i for i, pi in enumerate(map(tuple, perms.tolist()))}
    moved = (perms != np.arange(n)).sum(axis=1)
    data = sorted(universe(h, k))
    mismatches = unreachable = 0
    steps = set()  # (ρ, m) of the pairs: steps 4 to 6 depend on nothing else
    for x2 in data:
        h2, k2 = _records(x2)
        fewest: dict[tuple, tuple[int, tuple]] = {}
        for pi, m in zip(map(tuple, perms.tolist()), moved.tolist(), strict=True):
            x = tuple(sorted(zip(h2, [k2[j] for j in pi], strict=True)))
            if x not in fewest or m < fewest[x][0]:
                fewest[x] = (m, pi)
        unreachable += len(set(data) - fewest.keys())
        for x, (m, rho) in fewest.items():
            if x != x2:
                d = hamming(x, x2)
                mismatches += m != d
                steps.add((rho, d))
    laws = {p: permutation_law(n, p) for p in rates}
    prob = {p: np.array([law.get(pi, 0.0) for pi in map(tuple, perms.tolist())]) for p, law in laws.items()}
    derangements = np.array([len(_derangements(r)) for r in range(n + 1)], dtype=float)
    violations, identity_dev, bound_ratio = 0, 0.0, 0.0
    for rho, m in steps:
        composed = np.asarray(rho)[perms]  # σ'(i) = ρ(σ(i)) for every σ (a row of perms)
        moved2 = (composed != np.arange(n)).sum(axis=1)
        violations += int(np.sum((moved2 < moved - m) | (moved2 > moved + m)))
        partner = [index[pi] for pi in map(tuple, composed.tolist())]
        for p in rates:
            o = p / (1 - p)
            with np.errstate(divide="ignore", invalid="ignore"):  # a permutation the law never applies
                ratio = prob[p] / prob[p][partner]
                identity = o ** (moved - moved2) * derangements[moved2] / derangements[moved]
                identity_dev = max(identity_dev, float(np.nanmax(np.abs(ratio / identity - 1))))
            bound_ratio = max(bound_ratio, float(np.max(ratio)) / (o**-m * (n + 1) ** m))
    law_dev = 0.0
    for p, law in laws.items():
        image: dict[tuple, float] = defaultdict(float)
        h0, k0 = _records(data[0])
        for pi, q in law.items():
            image[tuple(sorted(zip(h0, [k0[j] for j in pi], strict=True)))] += q
        exact = output_law(h0, k0, p)
        law_dev = max(law_dev, max(abs(image[w] - exact.get(w, 0.0)) for w in image.keys() | exact.keys()))
    return {
        "datasets": len(data),
        "pairs": len(data) * (len(data) - 1),
        "distance_mismatches": mismatches,
        "unreachable": unreachable,
        "rhos": len(steps),
        "permutations": len(perms),
        "support_violations": violations,
        "identity_deviation": identity_dev,
        "bound_ratio": bound_ratio,
        "law_deviation": law_dev,
    }


__all__ = [
    "approximate_loss_per_unit",
    "hamming",
    "invariants",
    "loss_per_unit",
    "output_law",
    "permutation_law",
    "proof_sketch_audit",
    "support_audit",
    "universe",
    "worst_loss_per_unit",
]
