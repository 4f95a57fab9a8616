"""Privacy levels of Congenial DP Example 4.1's releases (:mod:`.releases`), from their noise laws.

The noise laws are :mod:`.noise_laws`'s. The module computes the largest log density ratio of an additive noise on a
grid, each release's level (numerically, and in closed form: ε for M*, App. A's ε/(2 max(β, 1 − β)) for f_L1 and f_L2),
the level of the unconstrained two-bin release, Theorem 1.3's posterior shift of one record, and the slack δ of a noise
law at a nominal ε.

:func:`privacy_grid`, :func:`worst_log_ratio` and :func:`continuous_slack` take any additive noise density: E6's
exact Laplace levels use the first two.
"""

from __future__ import annotations

import numpy as np

from isdp_papers.e7_congenial_histogram.noise_laws import _weight, noise_logpdf
from isdp_papers.e7_congenial_histogram.releases import _check, base_scale


def privacy_grid(scale: float, t_max: float, n_grid: int) -> np.ndarray:
    """Symmetric evaluation points: fine near 0 (±50 scales), geometric out to ±``t_max`` scales."""
    inner = np.linspace(-50.0, 50.0, n_grid)
    outer = np.geomspace(50.0, t_max, n_grid)
    return scale * np.unique(np.concatenate([-outer, inner, outer]))


def worst_log_ratio(logpdf, t: np.ndarray, shift: float = 1.0) -> tuple[float, float]:
    """``max_t log p(t) − log p(t + shift)`` over the points ``t`` and the ``t`` attaining it.

    For additive noise with density ``p`` and a query of sensitivity ``shift`` this is the attained
    privacy level when the supremum lies inside the range of ``t`` (or is approached at its ends).
    """
    t = np.asarray(t, dtype=float)
    r = logpdf(t) - logpdf(t + shift)
    i = int(np.argmax(r))
    return float(r[i]), float(t[i])


def privacy_level(
    mechanism: str, eps: float, beta: float | None = None, *, t_max: float = 1e6, n_grid: int = 4001
) -> tuple[float, float]:
    """Numerical privacy level of one release (sensitivity 1 in ``s1``) and where it is attained.

    ``t_max`` is in units of ``1/ε``; the supremum is approached as ``|t| → ∞`` for all three laws
    (for f_L2 the shortfall is ``ε / (1 + ε t)``). Within ``|2β − 1| < 1e-4`` the β = 1/2 law is
    used, so the level found there is off by at most that relative amount.
    """
    _check(mechanism, eps, beta)
    t = privacy_grid(1.0 / eps, t_max, n_grid)
    return worst_log_ratio(lambda v: noise_logpdf(v, mechanism, eps, beta), t, 1.0)


def unconstrained_level(eps: float, *, bins_moved: int = 2, t_max: float = 1e6, n_grid: int = 4001) -> float:
    """Numerical privacy level of the unconstrained two-bin release M (Example 4.1 without the invariant).

    A bounded neighbour (§1.3) moves one record between the bins, shifting (s1, s2) by (1, −1), and the two independent
    Lap(2/ε) coordinates each contribute their worst log ratio; ``bins_moved = 1`` is an add/remove neighbour (one bin
    changes by one).
    """
    b = base_scale(eps)
    t = privacy_grid(b, t_max, n_grid)

    def logpdf(v):
        return -np.abs(v) / b - np.log(2.0 * b)

    return bins_moved * worst_log_ratio(logpdf, t, 1.0)[0]


def posterior_shift(eps: float, priors, *, n_grid: int = 801, linked: int = 1) -> float:
    """Theorem 1.3 on the unconstrained two-bin release.

    The largest |log(posterior/prior)| of one record's value x_i ∈ {0, 1} over releases (m1, m2) on a grid and the given
    prior probabilities of 1.

    Moving the record from bin 1 to bin 2 shifts (s1, s2) by (−1, +1); the likelihood ratio of a
    release is the product of the two coordinates' Laplace ratios. ``linked`` records move with x_i: 1 when the
    other records are fixed (or independent of x_i), more under a prior in which others always equal x_i.
    """
    b = base_scale(eps)
    t = np.linspace(-20.0 * b, 20.0 * b, n_grid)
    one = (np.abs(t) - np.abs(t - linked)) / b  # log p(m1 | x_i = 1) − log p(m1 | x_i = 0), per coordinate
    log_r = (one[:, None] + one[None, ::-1]).ravel()  # the second coordinate shifts the other way
    pi = np.asarray(priors, dtype=float)[:, None]
    log_post1 = log_r - np.log(pi * np.exp(log_r) + (1.0 - pi))  # posterior/prior of x_i = 1
    log_post0 = -np.log(pi * np.exp(log_r) + (1.0 - pi))  # posterior/prior of x_i = 0
    return float(max(np.abs(log_post1).max(), np.abs(log_post0).max()))


def l1_privacy_level(eps: float, beta: float) -> float:
    """Return the attained level of f_L1 derived in Congenial DP App. A: ``ε / (2 max(β, 1 − β))``."""
    return eps / (2.0 * _weight(beta))


def closed_form_level(mechanism: str, eps: float, beta: float | None = None) -> float:
    """Return the level each release attains in closed form.

    ε for M* (a Laplace(1/ε) mechanism on ``s1``), :func:`l1_privacy_level` for f_L1 and for f_L2 (β = 1/2).
    """
    beta = _check(mechanism, eps, beta)
    return eps if mechanism == "conditional" else l1_privacy_level(eps, beta)


def continuous_slack(logpdf, eps: float, scale: float, shift: float = 1.0, n_grid: int = 40_001) -> float:
    """Return ``δ = ∫ max(0, p(t) − e^ε p(t + shift)) dt`` of an additive noise density on a grid.

    The grid spans ±200 scales (the mass beyond is below e^{−100} of the laws here).
    """
    t = np.linspace(-200.0 * scale, 200.0 * scale, n_grid)
    excess = np.maximum(np.exp(logpdf(t)) - np.exp(eps + logpdf(t + shift)), 0.0)
    return float(np.trapezoid(excess, t))
