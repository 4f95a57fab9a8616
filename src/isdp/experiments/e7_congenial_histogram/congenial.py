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

All three are real-valued and untruncated, as in the paper, so each is unbiased for ``s``. The
noise ``m1 − s1`` of f_L1 is a convex combination of two i.i.d. Laplace variables; its law is the
signed two-scale Laplace "mixture" of Congenial DP App. A (A.1), and at ``β = 1/2`` (f_L2) the sum
of two i.i.d. ``Lap(1/ε)`` (A.2). Also here: the worst-case likelihood ratio of a noise law
(the attained privacy level), the double geometric quantile function of App. B and the
rounding example 5.2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from isdp.double_geometric import dg_cdf, dg_logpmf, dg_pmf
from isdp.privacy_audit import hockey_stick_divergence

MECHANISMS = ("conditional", "l2", "l1")
_NEAR_HALF = 1e-4  # |2β − 1| below this: the β = 1/2 limit (error O((2β − 1)²), no cancellation)


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


# --------------------------------------------------------------------------- releases


def unconstrained(x, eps: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` base releases ``s + (u1, u2)``, ``u_i ~ Lap(2/ε)`` i.i.d., shape (size, 2)."""
    x = np.asarray(x, dtype=float)
    return x + rng.laplace(0.0, base_scale(eps), size=(size, 2))


def laplace_quantile_grid(eps: float, n: int) -> np.ndarray:
    """Base noise ``(u1, u2)`` on a product of ``n`` quantiles of Lap(2/ε) each, shape (n², 2): a deterministic
    stand-in for draws, each pair carrying probability ``1/n²``. The quantile levels are ``(i + 1/2)/n`` for
    ``u1`` and ``(i + 1/4)/n`` for ``u2``: not mirror images, so no pair has ``u1 + u2 = 0`` (an event of
    probability 0 that a symmetric grid would hit ``n`` times)."""
    i = np.arange(n)
    u1, u2 = np.meshgrid(stats.laplace.ppf((i + 0.5) / n, scale=base_scale(eps)),
                         stats.laplace.ppf((i + 0.25) / n, scale=base_scale(eps)), indexing="ij")
    return np.column_stack([u1.ravel(), u2.ravel()])


def project_l2(m: np.ndarray, n: float) -> np.ndarray:
    """The L2-nearest point of the line ``a1 + a2 = n`` to each row of ``m``."""
    m = np.asarray(m, dtype=float)
    excess = (m.sum(axis=1, keepdims=True) - n) / 2.0
    return m - excess


def project_l1(m: np.ndarray, n: float, beta: float) -> np.ndarray:
    """The point ``β m1 + (1 − β)(n − m2)`` (first coordinate) of the L1-nearest segment of each row.

    Every point between ``m1`` and ``n − m2`` is at L1 distance ``|m1 + m2 − n|`` from ``m``, the minimum.
    """
    m = np.asarray(m, dtype=float)
    first = beta * m[:, 0] + (1.0 - beta) * (n - m[:, 1])
    return np.column_stack([first, n - first])


def release(mechanism: str, x, eps: float, size: int, rng: np.random.Generator,
            beta: float | None = None) -> np.ndarray:
    """``size`` releases (shape (size, 2), rows summing to ``n``) of one of :data:`MECHANISMS`."""
    beta = _check(mechanism, eps, beta)
    x = np.asarray(x, dtype=float)
    n = float(x.sum())
    if mechanism == "conditional":
        u = rng.laplace(0.0, 1.0 / eps, size=size)
        return np.column_stack([x[0] + u, x[1] - u])
    m = unconstrained(x, eps, size, rng)
    return project_l2(m, n) if mechanism == "l2" else project_l1(m, n, beta)


def condition_on_zero_sum(eps: float, window: float, n_accepted: int, rng: np.random.Generator,
                          chunk: int = 1_000_000) -> np.ndarray:
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


# --------------------------------------------------------------------------- exact moments


def _release_map(mechanism: str, x: np.ndarray, u: np.ndarray, beta: float | None) -> np.ndarray:
    """The release at base noise ``u`` (rows (u1, u2)): M* keeps ``(s1 + u1, s2 − u1)`` on ``u1 + u2 = 0``."""
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


# --------------------------------------------------------------------------- noise laws of m1 − s1


def _weight(beta: float) -> float:
    """The law of β u1 ± (1 − β) u2 is symmetric in β ↔ 1 − β: use the larger weight."""
    return max(beta, 1.0 - beta)


def noise_logpdf(t, mechanism: str, eps: float, beta: float | None = None) -> np.ndarray:
    """log density of the noise ``m1 − s1``, stable far in the tails.

    M*: Lap(1/ε). f_L1 (β ≠ 1/2; b = max(β, 1 − β)), App. A (A.1):
    ``ε / (4(2b − 1)) [b exp(−ε|t| / (2b)) − (1 − b) exp(−ε|t| / (2(1 − b)))]``;
    f_L2 = f_L1 at β = 1/2, (A.2): ``ε/4 (1 + ε|t|) exp(−ε|t|)``; β ∈ {0, 1}: Lap(2/ε).
    """
    beta = _check(mechanism, eps, beta)
    t = np.abs(np.asarray(t, dtype=float))
    if mechanism == "conditional":
        return np.log(eps / 2.0) - eps * t
    b = _weight(beta)
    if b == 1.0:
        return np.log(eps / 4.0) - eps * t / 2.0
    if 2.0 * b - 1.0 < _NEAR_HALF:
        return np.log(eps / 4.0) + np.log1p(eps * t) - eps * t
    slow, fast = eps / (2.0 * b), eps / (2.0 * (1.0 - b))
    return (np.log(eps * b / (4.0 * (2.0 * b - 1.0))) - slow * t
            + np.log1p(-((1.0 - b) / b) * np.exp(-(fast - slow) * t)))


def noise_pdf(t, mechanism: str, eps: float, beta: float | None = None) -> np.ndarray:
    """Density of the noise ``m1 − s1`` (see :func:`noise_logpdf`)."""
    return np.exp(noise_logpdf(t, mechanism, eps, beta))


def noise_cdf(t, mechanism: str, eps: float, beta: float | None = None) -> np.ndarray:
    """CDF of the noise ``m1 − s1``, from the two-sided tail ``P(|T| > |t|)`` of each law."""
    beta = _check(mechanism, eps, beta)
    t = np.asarray(t, dtype=float)
    a = np.abs(t)
    if mechanism == "conditional":
        tail = np.exp(-eps * a)
    else:
        b = _weight(beta)
        if b == 1.0:
            tail = np.exp(-eps * a / 2.0)
        elif 2.0 * b - 1.0 < _NEAR_HALF:
            tail = (1.0 + eps * a / 2.0) * np.exp(-eps * a)
        else:  # the two signed weights of (A.1) applied to each Laplace tail exp(−|t|/scale)
            w_slow, w_fast = b**2 / (2.0 * b - 1.0), -((1.0 - b) ** 2) / (2.0 * b - 1.0)
            tail = w_slow * np.exp(-eps * a / (2.0 * b)) + w_fast * np.exp(-eps * a / (2.0 * (1.0 - b)))
    return np.where(t < 0, tail / 2.0, 1.0 - tail / 2.0)


def a1_weights(beta: float) -> tuple[float, float]:
    """The two weights of (A.1) as printed, at β itself: ``β²/(2β − 1)`` and ``−(1 − β)²/(2β − 1)`` (β ≠ 1/2)."""
    return beta**2 / (2.0 * beta - 1.0), -((1.0 - beta) ** 2) / (2.0 * beta - 1.0)


def a1_g_log_ratio(x, a: float, b: float, beta: float, eps: float) -> np.ndarray:
    """``log g_α(|x − a|) − log g_α(|x − b|)`` of App. A, ``g_α(t) = e^{α|t|} p_ε(t)`` with the (A.1)
    density and ``α = ε/(2β)`` (β > 1/2), evaluated from the density itself."""
    x = np.asarray(x, dtype=float)
    alpha = eps / (2.0 * beta)
    def log_g(t):
        return alpha * np.abs(t) + noise_logpdf(t, "l1", eps, beta)
    return log_g(x - a) - log_g(x - b)


def a1_tau(beta: float) -> float:
    """App. A's ``τ = (2β − 1)/(2β(1 − β))`` (β > 1/2)."""
    return (2.0 * beta - 1.0) / (2.0 * beta * (1.0 - beta))


def a1_g_log_ratio_closed(x, a: float, b: float, beta: float, rate: float) -> np.ndarray:
    """The closed form App. A gives the ratio, ``log (β − (1 − β) e^{−rate|x − a|})`` minus the same at ``b``;
    the paper prints ``rate = τ``."""
    x = np.asarray(x, dtype=float)
    def log_num(t):
        return np.log(beta - (1.0 - beta) * np.exp(-rate * np.abs(t)))
    return log_num(x - a) - log_num(x - b)


def a1_printed_dp(x, eps: float, beta: float) -> np.ndarray:
    """App. A's printed ``dp_ε/dx`` for ``x > 0``: ``ε²/(8(2β − 1)) [e^{−εx/(2(1−β))} − e^{−εx/(2β)}]`` (β ≠ 1/2),
    and from (A.2) ``−ε³/4 x e^{−εx}`` at β = 1/2."""
    x = np.asarray(x, dtype=float)
    if abs(2.0 * beta - 1.0) < _NEAR_HALF:
        return -(eps**3) / 4.0 * x * np.exp(-eps * x)
    fast, slow = np.exp(-eps * x / (2.0 * (1.0 - beta))), np.exp(-eps * x / (2.0 * beta))
    return eps**2 / (8.0 * (2.0 * beta - 1.0)) * (fast - slow)


def a1_printed_dg(x, eps: float, beta: float, c: float) -> np.ndarray:
    """App. A's printed ``dg_α/dx`` of ``g_α(x) = e^{cεx} p_ε(x)`` for ``x > 0``, β > 1/2:
    ``ε²/(8(2β − 1)) [w e^{w εx/(2β)} + (w + c′) e^{−(w + c′) εx/(2(1 − β))}]``, ``w = 2cβ − 1``, ``c′ = 2(1 − c)``."""
    x = np.asarray(x, dtype=float)
    w, c_prime = 2.0 * c * beta - 1.0, 2.0 * (1.0 - c)
    return eps**2 / (8.0 * (2.0 * beta - 1.0)) * (w * np.exp(w / (2.0 * beta) * eps * x) + (w + c_prime) * np.exp(
        -(w + c_prime) / (2.0 * (1.0 - beta)) * eps * x))


def a1_joint_density(u, u2, eps: float, beta: float) -> np.ndarray:
    """App. A's printed joint density of ``(ũ, u2)``: ``ε²/(16β) exp{−ε/(2β) [|ũ − (1 − β)u2| + β|u2|]}``."""
    return eps**2 / (16.0 * beta) * np.exp(-eps / (2.0 * beta) * (np.abs(u - (1.0 - beta) * u2) + beta * np.abs(u2)))


def a1_region_integrals(u: float, eps: float, beta: float) -> tuple[float, float, float]:
    """App. A's printed closed forms of I₁, I₂, I₃ (β ≠ 1/2, ``u = ũ ≥ 0``)."""
    slow, fast = np.exp(-eps * u / (2.0 * beta)), np.exp(-eps * u / (2.0 * (1.0 - beta)))
    return eps / 8.0 * slow, eps / (8.0 * (2.0 * beta - 1.0)) * (slow - fast), eps / 8.0 * fast


def signed_weights(beta: float) -> tuple[float, float]:
    """The weights of Lap(2b/ε) and Lap(2(1 − b)/ε) in (A.1) (b = max(β, 1 − β) > 1/2): sum 1, opposite signs."""
    b = _weight(beta)
    if 2.0 * b - 1.0 < _NEAR_HALF:
        raise ValueError("(A.1) is 0/0 at β = 1/2: use the limit (A.2)")
    return b**2 / (2.0 * b - 1.0), -((1.0 - b) ** 2) / (2.0 * b - 1.0)


# --------------------------------------------------------------------------- Laplace / signed-Gamma mixtures


def _component(law: str, t: np.ndarray, c: Mapping, cdf: bool) -> np.ndarray:
    scale = float(c["scale"])
    if law == "laplace":
        return stats.laplace.cdf(t, scale=scale) if cdf else stats.laplace.pdf(t, scale=scale)
    if law == "signed_gamma":  # a Gamma(shape, scale) variable times an independent fair sign
        g = stats.gamma(float(c["shape"]), scale=scale)
        return 0.5 + 0.5 * np.sign(t) * g.cdf(np.abs(t)) if cdf else 0.5 * g.pdf(np.abs(t))
    raise ValueError(f"unknown mixture component {law!r} (laplace or signed_gamma)")


def mixture(t, components: Sequence[Mapping], cdf: bool = False) -> np.ndarray:
    """Density (or CDF) of a weighted sum of Laplace and signed-Gamma laws.

    ``components``: mappings with ``law`` (``laplace`` or ``signed_gamma``), ``weight``, ``scale``
    and, for ``signed_gamma``, ``shape``.
    """
    t = np.asarray(t, dtype=float)
    return sum(float(c["weight"]) * _component(c["law"], t, c, cdf) for c in components)


def mixture_variance(components: Sequence[Mapping]) -> float:
    """Variance of the mixture: Σ w · E X² (2 b² for Lap(b), k(k + 1) θ² for a signed Gamma(k, θ))."""
    def second_moment(c):
        s = float(c["scale"])
        if c["law"] == "laplace":
            return laplace_variance_of_scale(s)
        return float(c["shape"]) * (float(c["shape"]) + 1) * s**2
    return sum(float(c["weight"]) * second_moment(c) for c in components)


def laplace_sum_pdf(t, scale: float) -> np.ndarray:
    """Density of the sum of two i.i.d. Lap(b): ``(1 + |t|/b) exp(−|t|/b) / (4b)`` (the convolution)."""
    a = np.abs(np.asarray(t, dtype=float)) / scale
    return (1.0 + a) * np.exp(-a) / (4.0 * scale)


# --------------------------------------------------------------------------- privacy


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


def privacy_level(mechanism: str, eps: float, beta: float | None = None, *, t_max: float = 1e6,
                  n_grid: int = 4001) -> tuple[float, float]:
    """Numerical privacy level of one release (sensitivity 1 in ``s1``) and where it is attained.

    ``t_max`` is in units of ``1/ε``; the supremum is approached as ``|t| → ∞`` for all three laws
    (for f_L2 the shortfall is ``ε / (1 + ε t)``). Within ``|2β − 1| < 1e-4`` the β = 1/2 law is
    used, so the level found there is off by at most that relative amount.
    """
    _check(mechanism, eps, beta)
    t = privacy_grid(1.0 / eps, t_max, n_grid)
    return worst_log_ratio(lambda v: noise_logpdf(v, mechanism, eps, beta), t, 1.0)


def unconstrained_level(eps: float, *, bins_moved: int = 2, t_max: float = 1e6, n_grid: int = 4001) -> float:
    """Numerical privacy level of the unconstrained two-bin release M (Example 4.1 without the
    invariant): a bounded neighbour (§1.3) moves one record between the bins, shifting (s1, s2) by
    (1, −1), and the two independent Lap(2/ε) coordinates each contribute their worst log ratio;
    ``bins_moved = 1`` is an add/remove neighbour (one bin changes by one)."""
    b = base_scale(eps)
    t = privacy_grid(b, t_max, n_grid)
    def logpdf(v):
        return -np.abs(v) / b - np.log(2.0 * b)
    return bins_moved * worst_log_ratio(logpdf, t, 1.0)[0]


def posterior_shift(eps: float, priors, *, n_grid: int = 801, linked: int = 1) -> float:
    """Theorem 1.3 on the unconstrained two-bin release: the largest |log(posterior/prior)| of one
    record's value x_i ∈ {0, 1} over releases (m1, m2) on a grid and the given prior probabilities of 1.

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
    log_post0 = -np.log(pi * np.exp(log_r) + (1.0 - pi))         # posterior/prior of x_i = 0
    return float(max(np.abs(log_post1).max(), np.abs(log_post0).max()))


def l1_privacy_level(eps: float, beta: float) -> float:
    """The attained level of f_L1 derived in Congenial DP App. A: ``ε / (2 max(β, 1 − β))``."""
    return eps / (2.0 * _weight(beta))


def closed_form_level(mechanism: str, eps: float, beta: float | None = None) -> float:
    """The level each release attains in closed form: ε for M* (a Laplace(1/ε) mechanism on ``s1``),
    :func:`l1_privacy_level` for f_L1 and for f_L2 (β = 1/2)."""
    beta = _check(mechanism, eps, beta)
    return eps if mechanism == "conditional" else l1_privacy_level(eps, beta)


# --------------------------------------------------------------------------- App. B, Example 5.2


def dg_logpmf_printed(u, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """log of (1.3) as printed: ``(1 − a)/(1 + a) · a^|u|`` with ``a = exp(−ε/∇(s))``."""
    a = np.exp(-eps / sensitivity)
    return np.log((1.0 - a) / (1.0 + a)) + np.abs(np.asarray(u, dtype=float)) * np.log(a)


def dg_level(eps: float, sensitivity: int, reach: int = 50) -> float:
    """The attained level of the Double Geometric mechanism (1.3) on an integer query of sensitivity ``∇``:
    ``max log p(u) − log p(u + δ)`` over shifts ``δ = 1..∇`` and ``|u| ≤ reach`` (for a discrete additive law
    the supremum over sets is attained at a point; the ratio is constant for ``u ≥ 0``, so any reach ≥ ∇ is
    exact)."""
    u = np.arange(-reach, reach + 1)
    return float(max((dg_logpmf_printed(u, eps, sensitivity) - dg_logpmf_printed(u + d, eps, sensitivity)).max()
                     for d in range(1, sensitivity + 1)))


def dg_cdf_printed(u, eps: float) -> np.ndarray:
    """The DG CDF as printed in Congenial DP App. B: ``a^{−u}/(1 + a)`` for ``u ≤ 0``, ``1 − a^{u+1}/(1 + a)`` for
    ``u > 0``, ``a = exp(−ε)``."""
    u = np.asarray(u, dtype=float)
    a = float(np.exp(-eps))
    with np.errstate(over="ignore"):
        return np.where(u <= 0, a ** (-u) / (1.0 + a), 1.0 - a ** (u + 1.0) / (1.0 + a))


def dg_quantile(v, eps: float) -> np.ndarray:
    """The quantile function of DG(ε) as printed in Congenial DP App. B, with ``a = exp(−ε)``:

    ``⌈(−log v − log(1 + a)) / log a⌉`` for ``v ≤ 1/(1 + a)``, else ``⌊(log(1 − v) + log(1 + a)) / log a⌋``.
    """
    v = np.asarray(v, dtype=float)
    a = float(np.exp(-eps))
    la, l1a = np.log(a), np.log1p(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.ceil((-np.log(v) - l1a) / la)
        right = np.floor((np.log1p(-v) + l1a) / la)
    return np.where(v <= 1.0 / (1.0 + a), left, right).astype(np.int64)


def dg_inverse_check(v, eps: float) -> np.ndarray:
    """True where ``q = dg_quantile(v)`` is the generalized inverse: ``F(q − 1) < v ≤ F(q)``."""
    v = np.asarray(v, dtype=float)
    q = dg_quantile(v, eps)
    return (dg_cdf(q - 1, eps) < v) & (v <= dg_cdf(q, eps))


def dg_chisquare(draws, eps: float, min_expected: float = 5.0) -> tuple[float, int, float]:
    """Chi-square goodness of fit of integer draws to DG(ε): ``(statistic, degrees of freedom, p)``.

    Cells ``k`` for ``|k| ≤ m`` and the two tails beyond, ``m`` the largest value for which the cell
    ``k = m`` and the tail ``k > m`` each expect at least ``min_expected`` draws.
    """
    draws = np.asarray(draws)
    n = draws.size
    a = float(np.exp(-eps))

    def enough(m):  # P(K = m) = (1 − a)/(1 + a) a^m, P(K > m) = a^(m+1) / (1 + a)
        return n * min((1 - a) * a**m, a ** (m + 1)) / (1 + a) >= min_expected

    m = 0
    while enough(m + 1):
        m += 1
    ks = np.arange(-m, m + 1)
    expected = n * np.diff(np.concatenate([[0.0], dg_cdf(np.concatenate([[-m - 1], ks]), eps), [1.0]]))
    observed = np.array([(draws < -m).sum(), *[(draws == k).sum() for k in ks], (draws > m).sum()])
    res = stats.chisquare(observed, expected)
    return float(res.statistic), len(observed) - 1, float(res.pvalue)


def _ceil_div(sums: np.ndarray, group: int) -> np.ndarray:
    return -(-sums // group)


def rounding_secrecy(lo: int, hi: int, group: int, eps: float, k: int = 1) -> dict:
    """Example 5.2 and Theorem 2.1, exactly: ``s = ⌈Σx / group⌉`` with DG(ε) noise (∇(s) = 1), invariant
    ``Σx ∈ [lo, hi]`` on binary databases of ``n = hi + k`` records.

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
    logp = dg_logpmf(s_star[None, :] - _ceil_div(sums, group)[:, None], eps)
    log_in = np.logaddexp.reduce(logp, axis=1)  # log P(M(x) ∈ S*)
    cond = logp - log_in[:, None]  # log P(M*(x) = m)
    pairs = [(i, i + j) for i, total in enumerate(sums) for j in range(-k, k + 1, 2)
             if 0 <= i + j < len(sums) and total >= (k - j) // 2 and n - total >= (k + j) // 2]
    a, b = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    s = _ceil_div(sums, group)
    def worst(v):
        return float(np.abs(v[a] - v[b]).max(initial=0.0))
    level = worst(cond)
    return {"s_star": [int(v) for v in s_star], "level": level, "gamma": level / (k * eps) - 1.0,
            "gamma_star": worst(log_in) / (k * eps), "m_level": eps * worst(s.astype(float)), "n_pairs": len(pairs)}



def invariant_block(total: int, block: Sequence[int]) -> tuple[int, int]:
    """The invariant's level set of Σx that contains ``total``: blocks of Σx of the width of ``block`` = [lo, hi],
    aligned with it (Example 5.2's [41, 50] gives the decades [10j + 1, 10j + 10])."""
    lo, hi = int(block[0]), int(block[1])
    width = hi - lo + 1
    start = lo + width * math.floor((total - lo) / width)
    return start, start + width - 1


def projected_rounding_pmf(total: int, eps: float, group: int, s_star: Sequence[int],
                           outputs: np.ndarray) -> np.ndarray:
    """Law on ``outputs`` of ``f(M(x); S*)``: ``M = ⌈total / group⌉ + DG(ε)`` projected onto the L1/L2-nearest point of
    the consecutive integers ``S*`` (a clamp to [min S*, max S*]): the optimization post-processing of (4.1) on
    Example 5.2's query."""
    s = int(_ceil_div(np.int64(total), group))
    lo, hi = int(min(s_star)), int(max(s_star))
    pmf = np.where((outputs > lo) & (outputs < hi), dg_pmf(outputs - s, eps), 0.0)
    low_mass = 1.0 if lo == hi else float(dg_cdf(lo - s, eps))
    pmf = pmf + np.where(outputs == lo, low_mass, 0.0)
    return pmf + np.where((outputs == hi) & (lo < hi), 1.0 - float(dg_cdf(hi - 1 - s, eps)), 0.0)


def rounding_postprocessing_slack(n: int, group: int, block: Sequence[int], eps: float, *,
                                  confidential_total: int | None = None) -> dict:
    """(4.4) on Example 5.2's query, exactly: the largest δ (:func:`isdp.privacy_audit.hockey_stick_divergence`)
    of ``f(M(x); S*(x))`` over §1.3 neighbours (one record changed: Σx and Σx ± 1, both in [0, n]), split into
    pairs in the same invariant level set (:func:`invariant_block`; S*(x) = S*(x′)) and pairs across two; M*'s δ
    across as well.
    ``confidential_total``: project every x onto S* of that one database instead (a fixed public function, the
    g of the post-processing theorem)."""
    def s_star(total):
        lo, hi = invariant_block(confidential_total if confidential_total is not None else total, block)
        return tuple(np.unique(_ceil_div(np.arange(lo, hi + 1), group)).tolist())
    outputs = np.arange(-1, _ceil_div(np.int64(n), group) + 2)
    laws = {}  # both laws depend on x only through (s(x), S*(x)): compute each once
    def law(t):
        key = (int(_ceil_div(np.int64(t), group)), s_star(t))
        if key not in laws:
            m = np.where(np.isin(outputs, key[1]), dg_pmf(outputs - key[0], eps), 0.0)  # M* on S*(x)
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
        out[key] = max(out[key], hockey_stick_divergence(f[t], f[t + 1], eps),
                       hockey_stick_divergence(f[t + 1], f[t], eps))
        if not same:
            out["m_star_across"] = max(out["m_star_across"], hockey_stick_divergence(m_star(t), m_star(t + 1), eps))
    return out


def continuous_slack(logpdf, eps: float, scale: float, shift: float = 1.0, n_grid: int = 40_001) -> float:
    """``δ = ∫ max(0, p(t) − e^ε p(t + shift)) dt`` of an additive noise density on a grid of ±200 scales (the
    mass beyond is below e^{−100} of the laws here)."""
    t = np.linspace(-200.0 * scale, 200.0 * scale, n_grid)
    excess = np.maximum(np.exp(logpdf(t)) - np.exp(eps + logpdf(t + shift)), 0.0)
    return float(np.trapezoid(excess, t))


def rounding_sensitivity(group: int, n: int) -> int:
    """∇(⌈Σx / group⌉) over binary databases of ``n`` records: a bounded neighbour (one record changed)
    moves ``Σx`` by one, so the largest change of the query over consecutive sums in ``[0, n]``."""
    return int(np.abs(np.diff(_ceil_div(np.arange(n + 1), group))).max())


def invariant_pairs(lo: int, hi: int, n: int) -> dict:
    """Pairs of distinct databases in ``X* = {x ∈ {0, 1}^n : Σx ∈ [lo, hi]}``, counted exactly: ``distinct``
    (unordered, ``d ≥ 1``) and ``d1`` (unordered pairs one record apart: a 0 of a database with ``Σx < hi``
    turned into a 1)."""
    size = sum(math.comb(n, t) for t in range(lo, hi + 1))
    d1 = sum(math.comb(n, t) * (n - t) for t in range(lo, hi))
    return {"size": size, "distinct": math.comb(size, 2), "d1": d1}


# --------------------------------------------------------------------------- §1.3 neighbours, Def 1.1 sensitivity


def binary_databases(n: int) -> np.ndarray:
    """All ``2^n`` databases of ``n`` binary records, one per row."""
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64).reshape(-1, n)


QUERIES = {"count": lambda x: x.sum(axis=1, keepdims=True),
           "histogram": lambda x: np.column_stack([(x == 0).sum(axis=1), (x == 1).sum(axis=1)])}


def sensitivity(query: str, n_max: int, *, norm: float = 1, neighbours: str = "bounded") -> float:
    """Def 1.1's ∇(s) = max ‖s(x) − s(x′)‖ over neighbouring binary databases of up to ``n_max`` records, by
    enumeration: ``bounded`` neighbours (§1.3: one record changed) or ``add/remove`` (one record deleted)."""
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
    """The smallest distance between two distinct databases of Example 4.1's ``X*``, by enumeration.

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


__all__ = ["MECHANISMS", "QUERIES", "a1_g_log_ratio", "a1_g_log_ratio_closed", "a1_joint_density",
           "a1_printed_dg", "a1_printed_dp", "a1_region_integrals", "a1_tau", "a1_weights", "base_scale",
           "binary_databases", "closed_form_level", "condition_on_zero_sum", "continuous_slack", "dg_cdf_printed",
           "dg_chisquare", "dg_inverse_check", "dg_level", "dg_logpmf_printed", "dg_quantile", "example41_nearest",
           "exact_mean", "exact_variance", "invariant_block", "invariant_pairs", "l1_privacy_level",
           "l1_variance_range", "laplace_quantile_grid", "laplace_sum_pdf", "laplace_variance_of_scale", "mixture",
           "mixture_variance", "noise_cdf", "noise_logpdf", "noise_pdf", "privacy_grid", "privacy_level", "project_l1",
           "project_l2", "projected_rounding_pmf", "release", "rounding_postprocessing_slack", "rounding_secrecy",
           "rounding_sensitivity", "sensitivity", "signed_weights", "unconstrained", "worst_log_ratio"]
