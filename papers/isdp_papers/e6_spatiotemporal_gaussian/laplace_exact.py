"""Exact privacy levels of Subspace DP's Laplace mechanisms (Lemma 3.7, Cor 3.8, Cor 3.9).

On a histogram of ``n`` values whose total is kept (C = 1ᵀ, Example 2.3), under Def 2.1's bounded neighbours.

A bounded neighbour moves one row from value i to value j, so hist changes by Δ = e_j − e_i and
Δ₁(hist) = 2. Every release here is real-valued with a density, and its privacy level (the largest
log density ratio between neighbours) is computed in closed form:

* Lemma 3.7, y = h + e, e ~ Lap(b)ⁿ: the log ratio is Σ (|t_i + Δ_i| − |t_i|)/b, largest ‖Δ‖₁/b.
* Cor 3.8, y = h + Π_N e: the density of v = Π_N e on N is √n ∫ Π_i Lap_b(v_i + s) ds, a piecewise
  exponential integral summed exactly (:func:`projected_logpdf`). It is log-concave (Prékopa), so
  along every line v + tΔ the log ratio log g(v) − log g(v + Δ) is non-decreasing in t and its supremum
  is the limit t → ∞, the recession slope of −log g along Δ: min_σ ‖Δ + σ1‖₁ / b, attained at σ =
  −median(Δ) (:func:`projected_level`). A grid reaching 10⁶ scales checks that no point exceeds it.
* Cor 3.9, y = h + Q_N w, w ~ Lap(b_N)^(n−1): in Q_N's coordinates a product Laplace shifted by Q_Nᵀ Δ,
  largest log ratio max ‖Q_Nᵀ Δ‖₁ / b_N.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import logsumexp

from isdp_papers.e7_congenial_histogram.privacy_levels import privacy_grid, worst_log_ratio


def histogram_shifts(n: int) -> np.ndarray:
    """hist(x') − hist(x) over bounded neighbours (one row moves from value i to value j ≠ i): e_j − e_i."""
    eye = np.eye(n)
    return np.array([eye[j] - eye[i] for i in range(n) for j in range(n) if i != j])


def helmert_basis(n: int) -> np.ndarray:
    """Return an orthonormal basis (n × (n−1)) of N(1ᵀ): column k ∝ (1, …, 1, −k, 0, …) with k ones."""
    Q = np.zeros((n, n - 1))
    for k in range(1, n):
        Q[:k, k - 1] = 1.0
        Q[k, k - 1] = -k
        Q[:, k - 1] /= np.sqrt(k * (k + 1))
    return Q


def product_level(shifts: np.ndarray, b: float) -> float:
    """Lemma 3.7: the largest log ratio of h + Lap(b)ⁿ between neighbours, max ‖Δ‖₁ / b (attained at t = 0)."""
    return float(np.abs(shifts).sum(axis=1).max() / b)


def product_grid_level(shifts: np.ndarray, b: float, t: np.ndarray) -> float:
    """Lemma 3.7's largest log ratio with the density evaluated on the points ``t`` of every coordinate.

    The ratio is a product over coordinates, so its largest value on the product grid is the sum of each coordinate's
    largest (E7's :func:`worst_log_ratio`).
    """

    def logpdf(u):
        return -np.abs(u) / b - np.log(2 * b)

    return float(max(sum(worst_log_ratio(logpdf, t, -float(di))[0] for di in d if di) for d in shifts))


def projected_logpdf(v: np.ndarray, b: float) -> np.ndarray:
    """Log density of Π_N e on N = N(1ᵀ) at ``v`` (rows in N), e ~ Lap(b)ⁿ, with respect to Lebesgue measure on N.

    √n ∫ exp(−φ(s)) ds / (2b)ⁿ with φ(s) = Σ|s − p_i|/b, p_i = −v_i: on each interval between sorted
    breakpoints φ is linear with slope (2k − n)/b, so the integral is a sum of closed-form pieces.
    """
    v = np.atleast_2d(np.asarray(v, dtype=float))
    n = v.shape[1]
    p = np.sort(-v, axis=1)
    phi = np.abs(p[:, :, None] - p[:, None, :]).sum(axis=2) / b  # φ at each breakpoint
    pieces = [phi[:, 0] * -1 + np.log(b / n), -phi[:, -1] + np.log(b / n)]  # the two exponential tails
    for k in range(1, n):
        slope = (2 * k - n) / b  # φ' on (p_k, p_{k+1})
        length = p[:, k] - p[:, k - 1]
        with np.errstate(divide="ignore"):
            if slope == 0:
                inner = np.log(length)
            elif slope > 0:  # ∫₀ᴸ e^{−m s} ds = −expm1(−mL)/m
                inner = np.log(-np.expm1(-slope * length)) - np.log(slope)
            else:  # = e^{|m|L}(−expm1(−|m|L))/|m|
                inner = -slope * length + np.log(-np.expm1(slope * length)) - np.log(-slope)
        pieces.append(-phi[:, k - 1] + inner)
    return logsumexp(np.stack(pieces), axis=0) + 0.5 * np.log(n) - n * np.log(2 * b)


def projected_level(shifts: np.ndarray, b: float) -> float:
    """Cor 3.8: the largest log ratio of h + Π_N Lap(b)ⁿ between neighbours, C = 1ᵀ.

    Max_Δ min_σ ‖Π_NΔ + σ1‖₁/b (the recession slope of −log g along Π_N Δ; see the module docstring), σ = −median.
    """
    v = shifts - shifts.mean(axis=1, keepdims=True)
    return float(np.abs(v - np.median(v, axis=1, keepdims=True)).sum(axis=1).max() / b)


def projected_grid_level(shifts: np.ndarray, b: float, t: np.ndarray) -> tuple[float, np.ndarray]:
    """Return Cor 3.8's largest log ratio log g(v) − log g(v + Π_N Δ) over a grid, and the point attaining it.

    The grid is a product grid of ``t`` in the coordinates of :func:`helmert_basis` (n = 3: a 2-D grid of N).
    """
    Q = helmert_basis(shifts.shape[1])
    a = np.stack(np.meshgrid(*([t] * Q.shape[1]), indexing="ij"), axis=-1).reshape(-1, Q.shape[1])
    v = a @ Q.T
    here = projected_logpdf(v, b)
    best, where = -np.inf, v[0]
    for d in shifts:
        r = here - projected_logpdf(v + (d - d.mean()), b)
        i = int(np.argmax(r))
        if r[i] > best:
            best, where = float(r[i]), v[i]
    return best, where


def extended_scale(shifts: np.ndarray, Q: np.ndarray, eps: float) -> float:
    """Cor 3.9's Laplace scale Δ₁(Q_Nᵀ A)/ε, Δ₁(Q_Nᵀ A) = max over neighbours ‖Q_Nᵀ Δ‖₁."""
    return float(np.abs(shifts @ Q).sum(axis=1).max() / eps)


def extended_level(shifts: np.ndarray, Q: np.ndarray, b: float) -> float:
    """Return the largest log ratio on N of h + Q w, w ~ Lap(b)^(n−1).

    In Q's coordinates a product Laplace shifted by Qᵀ Δ, so max ‖Qᵀ Δ‖₁ / b (the N-component of the release is Q Qᵀ y,
    a bijection of Qᵀ y).
    """
    return float(np.abs(shifts @ Q).sum(axis=1).max() / b)


def histogram_pairs(n: int, records: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every ordered pair (h, h') of histograms of ``records`` rows over ``n`` values that are bounded neighbours."""
    hists = [np.array(h) for h in itertools.product(range(records + 1), repeat=n) if sum(h) == records]
    return [(h, h + d) for h in hists for d in histogram_shifts(n).astype(int) if (h + d).min() >= 0]


def extended_release(h, Q: np.ndarray, w: np.ndarray, as_printed: bool = False) -> np.ndarray:
    """Cor 3.9's release h + e for the rows of ``w``.

    E = Q w, or with ``as_printed`` e = h + Q w, the noise as the corollary prints it (the release is then 2h + Q w).
    """
    h = np.asarray(h, dtype=float)
    noise = np.atleast_2d(w) @ Q.T
    return h + (h + noise if as_printed else noise)


def grid(b: float, t_max: float = 1e6, n_grid: int = 81) -> np.ndarray:
    """E7's evaluation points (fine to ±50 scales, geometric to ±``t_max`` scales) at scale ``b``."""
    return privacy_grid(b, t_max, n_grid)
