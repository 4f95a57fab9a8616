"""Exact Rényi divergences of discrete Gaussian noise and of a toy TopDown.

Swapping slides, 'The TopDown Algorithm (TDA)' and 'Theorem: TDA satisfies DP, subject to its Invariants'.

The slides add discrete Gaussian noise to the cells, T(x) = q(x) + W, W ~ N_Z(0, σ²) per cell, and then
post-process T to a dataset z with the invariants c(x). Laws are exact pmfs on a box of ±``radius`` around each
mean; the mass left out, below e^(−radius²/2σ²), is far under the precision the measures need.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
from scipy import special


def discrete_gaussian_pmf(sigma2: float, radius: int, mean: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return the support −radius, …, radius and probabilities of N_Z(mean, σ²), normalised on that box.

    N_Z(mean, σ²) ∝ exp(−(t − mean)²/2σ²).
    """
    t = np.arange(-radius, radius + 1)
    logw = -((t - mean).astype(float) ** 2) / (2 * sigma2)
    return t, np.exp(logw - special.logsumexp(logw))


def discrete_gaussian_law(sigma2: float, radius: int, mean: int = 0) -> dict[int, float]:
    """:func:`discrete_gaussian_pmf` as {outcome: probability}."""
    t, pmf = discrete_gaussian_pmf(sigma2, radius, mean)
    return dict(zip(t.tolist(), pmf.tolist(), strict=True))


def renyi_divergence(p: dict, q: dict, alpha: float) -> float:
    """D_α(P‖Q) = ln Σ p^α q^(1−α) / (α − 1) of two laws given as {outcome.

    Probability}; infinite when P puts mass where Q has none.
    """
    if any(q.get(w, 0.0) == 0.0 for w, pw in p.items() if pw > 0):
        return np.inf
    terms = np.array([alpha * np.log(pw) + (1 - alpha) * np.log(q[w]) for w, pw in p.items() if pw > 0])
    return float(special.logsumexp(terms) / (alpha - 1))


def noisy_cells_law(x: Sequence[int], sigma2: float, radius: int) -> dict[tuple, float]:
    """Law of T = x + W, W i.i.d. N_Z(0, σ²) per cell, as {tuple of cells: probability}."""
    t, pmf = discrete_gaussian_pmf(sigma2, radius)
    grids = np.meshgrid(*(xi + t for xi in x), indexing="ij")
    probs = np.prod(np.meshgrid(*(pmf for _ in x), indexing="ij"), axis=0)
    points = np.stack([g.ravel() for g in grids], axis=1).tolist()
    return dict(zip(map(tuple, points), probs.ravel().tolist(), strict=True))


def closest_dataset(t: Sequence[int], x: Sequence[int], kept: Sequence[int]) -> tuple[int, ...]:
    """TDA's post-processing on a toy of cells.

    The nonnegative integer table z closest to ``t`` in ℓ2 with c(z) = c(x), c = (the total, the cells ``kept``). It
    reads x only through c(x).
    """
    free = [i for i in range(len(x)) if i not in kept]
    rest = sum(x) - sum(x[i] for i in kept)
    best = min(
        (z for z in itertools.product(range(rest + 1), repeat=len(free) - 1) if sum(z) <= rest),
        key=lambda z: sum((zi - t[i]) ** 2 for zi, i in zip((*z, rest - sum(z)), free, strict=True)),
    )
    out = list(x)
    for i, zi in zip(free, (*best, rest - sum(best)), strict=True):
        out[i] = zi
    return tuple(out)


def release_law(
    x: Sequence[int], sigma2: float, radius: int, kept: Sequence[int], post: Callable | None = None
) -> dict[tuple, float]:
    """Law of the toy TDA's released dataset z = ``post``(T, x, kept) (default :func:`closest_dataset`)."""
    post = post or closest_dataset
    law: dict[tuple, float] = defaultdict(float)
    for t, pt in noisy_cells_law(x, sigma2, radius).items():
        law[post(t, x, kept)] += pt
    return dict(law)


__all__ = [
    "closest_dataset",
    "discrete_gaussian_law",
    "discrete_gaussian_pmf",
    "noisy_cells_law",
    "release_law",
    "renyi_divergence",
]
