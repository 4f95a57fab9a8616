"""Congenial DP Example 4.1: a two-bin histogram whose total is kept, released three ways.

The confidential histogram is ``s = (s1, s2)`` with total ``n = s1 + s2``. The base (unconstrained)
mechanism adds i.i.d. Laplace noise of scale ``2/ε`` to each bin: with bounded neighbours one
record moves one count between the bins (L1 sensitivity 2), so the pair spends ``ε`` in total.
Three releases keep the total exactly:

``conditional`` (M*)
    the base law conditioned on ``u1 + u2 = 0``: ``m1 = s1 + u`` with ``u ~ Lap(1/ε)``, ``m2 = n − m1``
    (the joint density ``exp(−ε/2 (|v| + |−v|))`` of ``(u1, u2) = (v, −v)`` is ``exp(−ε|v|)``);
``l2`` (f_L2)
    the orthogonal projection of the base release onto ``m1 + m2 = n``: ``m1 = s1 + (u1 − u2)/2``;
``l1`` (f_L1 with weight β)
    the point ``β m1 + (1 − β)(n − m2)`` of the segment of L1-nearest points: ``m1 = s1 + β u1 − (1 − β) u2``.

All three are real-valued and untruncated, as in the paper, so each is unbiased for ``s``. Here: the
releases (by draws, and as maps of the base noise) and their exact moments, Table 2's columns. The noise
laws are in :mod:`.noise_laws`, the privacy levels in :mod:`.privacy_levels`.
"""

from __future__ import annotations

import numpy as np

MECHANISMS = ("conditional", "l2", "l1")


def _check(mechanism: str, eps: float, beta: float | None = None) -> float | None:
    if mechanism not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mechanism!r} (one of {MECHANISMS})")
    if not (np.isfinite(eps) and eps > 0):
        raise ValueError(f"ε must be a positive finite number, got {eps}")
    if mechanism == "l1":
        if beta is None or not 0.0 <= beta <= 1.0:
            raise ValueError(f"f_L1 needs a weight β in [0, 1], got {beta}")
        return float(beta)
    return 0.5 if mechanism == "l2" else None


def base_scale(eps: float) -> float:
    """Laplace scale of each bin of the base mechanism (sensitivity 2 split over two bins)."""
    return 2.0 / eps


def laplace_variance_of_scale(scale: float) -> float:
    """Variance 2 b² of Lap(b)."""
    return 2.0 * scale**2


def unconstrained(x, eps: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` base releases ``s + (u1, u2)``, ``u_i ~ Lap(2/ε)`` i.i.d., shape (size, 2)."""
    x = np.asarray(x, dtype=float)
    return x + rng.laplace(0.0, base_scale(eps), size=(size, 2))


def laplace_quantile_grid(eps: float, n: int) -> np.ndarray:
    """Return base noise ``(u1, u2)`` on a product of ``n`` quantiles of Lap(2/ε) each, shape (n², 2).

    A deterministic stand-in for draws, each pair carrying probability ``1/n²``. The quantile levels are ``(i + 1/2)/n``
    for ``u1`` and ``(i + 1/4)/n`` for ``u2``: not mirror images, so no pair has ``u1 + u2 = 0`` (an event of
    probability 0 that a symmetric grid would hit ``n`` times).
    """
    from scipy import stats

    i = np.arange(n)
    u1, u2 = np.meshgrid(
        stats.laplace.ppf((i + 0.5) / n, scale=base_scale(eps)),
        stats.laplace.ppf((i + 0.25) / n, scale=base_scale(eps)),
        indexing="ij",
    )
    return np.column_stack([u1.ravel(), u2.ravel()])


def project_l2(m: np.ndarray, n: float) -> np.ndarray:
    """Return the L2-nearest point of the line ``a1 + a2 = n`` to each row of ``m``."""
    m = np.asarray(m, dtype=float)
    excess = (m.sum(axis=1, keepdims=True) - n) / 2.0
    return m - excess


def project_l1(m: np.ndarray, n: float, beta: float) -> np.ndarray:
    """Return the point ``β m1 + (1 − β)(n − m2)`` (first coordinate) of the L1-nearest segment of each row.

    Every point between ``m1`` and ``n − m2`` is at L1 distance ``|m1 + m2 − n|`` from ``m``, the minimum.
    """
    m = np.asarray(m, dtype=float)
    first = beta * m[:, 0] + (1.0 - beta) * (n - m[:, 1])
    return np.column_stack([first, n - first])


def release(
    mechanism: str, x, eps: float, size: int, rng: np.random.Generator, beta: float | None = None
) -> np.ndarray:
    """``size`` releases (shape (size, 2), rows summing to ``n``) of one of :data:`MECHANISMS`."""
    beta = _check(mechanism, eps, beta)
    x = np.asarray(x, dtype=float)
    n = float(x.sum())
    if mechanism == "conditional":
        u = rng.laplace(0.0, 1.0 / eps, size=size)
        return np.column_stack([x[0] + u, x[1] - u])
    m = unconstrained(x, eps, size, rng)
    return project_l2(m, n) if mechanism == "l2" else project_l1(m, n, beta)


def condition_on_zero_sum(
    eps: float, window: float, n_accepted: int, rng: np.random.Generator, chunk: int = 1_000_000
) -> np.ndarray:
    """``u1`` of base noise pairs kept when ``|u1 + u2| < window / ε``: M*'s noise, by brute force.

    An independent check of the conditional law: rejection on a thin slab around ``u1 + u2 = 0``
    instead of the closed form. Given ``u1 + u2 = w`` the law of ``u1`` is centred at ``w/2``; over the
    symmetric slab these shifts cancel to first order, so the kept ``u1`` has a CDF within about
    ``window² / 25`` of the conditional law (1e-4 at ``window = 0.05``, by numerical integration).
    """
    if not window > 0:
        raise ValueError(f"window must be positive, got {window}")
    kept, total = [], 0
    while total < n_accepted:
        u = rng.laplace(0.0, base_scale(eps), size=(chunk, 2))
        u1 = u[np.abs(u.sum(axis=1)) < window / eps, 0]
        kept.append(u1)
        total += len(u1)
    return np.concatenate(kept)[:n_accepted]


def _release_map(mechanism: str, x: np.ndarray, u: np.ndarray, beta: float | None) -> np.ndarray:
    """Return the release at base noise ``u`` (rows (u1, u2)): M* keeps ``(s1 + u1, s2 − u1)`` on ``u1 + u2 = 0``."""
    if mechanism == "conditional":
        return np.column_stack([x[0] + u[:, 0], x[1] - u[:, 0]])
    m, n = x + u, float(x.sum())
    return project_l2(m, n) if mechanism == "l2" else project_l1(m, n, beta)


def exact_mean(mechanism: str, x, eps: float, beta: float | None = None, nodes: int = 8) -> np.ndarray:
    """E(m1, m2), computed (not assumed) by Gauss–Laguerre quadrature of the release map over the base noise.

    f_L1 and f_L2 apply the projection to ``x + (u1, u2)``, ``u_i ~ Lap(2/ε)`` i.i.d.; M* applies
    ``(s1 + v, s2 − v)`` under the base density restricted to ``u1 + u2 = 0``, ``∝ p(v) p(−v)``.
    Each half-line of each Laplace variable is a Laguerre rule in ``|u| / scale``, exact for maps of
    degree below ``2 · nodes``: the releases are linear in ``u``, so the result is exact up to rounding.
    """
    beta = _check(mechanism, eps, beta)
    x = np.asarray(x, dtype=float)
    t, w = np.polynomial.laguerre.laggauss(nodes)
    if mechanism == "conditional":  # p(v) p(−v) ∝ exp(−ε|v|): a Laplace weight of scale 1/ε, both halves
        v = np.concatenate([t, -t]) / eps
        weights = np.concatenate([w, w]) / (2.0 * w.sum())
        return weights @ _release_map(mechanism, x, np.column_stack([v, -v]), beta)
    one = np.concatenate([t, -t]) * base_scale(eps)  # the nodes of one Lap(2/ε), each half-line weighted ½
    w_one = np.concatenate([w, w]) / 2.0
    u1, u2 = np.meshgrid(one, one, indexing="ij")
    weights = np.outer(w_one, w_one).ravel()
    return weights @ _release_map(mechanism, x, np.column_stack([u1.ravel(), u2.ravel()]), beta)


def exact_variance(mechanism: str, eps: float, beta: float | None = None) -> float:
    """Var(m1): ``Var Lap(1/ε)`` for M*; ``(β² + (1 − β)²) Var Lap(2/ε)`` for f_L1 (f_L2: β = 1/2)."""
    beta = _check(mechanism, eps, beta)
    if mechanism == "conditional":
        return laplace_variance_of_scale(1.0 / eps)
    return (beta**2 + (1.0 - beta) ** 2) * laplace_variance_of_scale(base_scale(eps))


def l1_variance_range(eps: float) -> tuple[float, float]:
    """Smallest and largest Var(m1) of f_L1 over β ∈ [0, 1].

    ``β² + (1 − β)²`` is a parabola with its minimum at β = 1/2 and its maximum at the ends.
    """
    return exact_variance("l1", eps, 0.5), max(exact_variance("l1", eps, 0.0), exact_variance("l1", eps, 1.0))
