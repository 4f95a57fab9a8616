"""The noise ``m1 − s1`` of Congenial DP Example 4.1's three releases (:mod:`.releases`).

Its exact laws and the laws as the paper prints them.

M*'s noise is Lap(1/ε) (4.6). The noise of f_L1 is a convex combination of two i.i.d. Laplace variables; its law
is the signed two-scale Laplace "mixture" of App. A (A.1), and at ``β = 1/2`` (f_L2) the sum of two i.i.d.
``Lap(1/ε)`` (A.2). Beside the exact densities and CDFs: App. A's printed formulas (the weights of (A.1), the
g_α ratio and the derivatives of Theorem A.1's proof, the joint density p_ε(ũ, u2) and its integrals I₁–I₃) and
§4's (4.7), a weighted sum of Laplace and signed-Gamma laws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from isdp_papers.e7_congenial_histogram.releases import _check, laplace_variance_of_scale

_NEAR_HALF = 1e-4  # |2β − 1| below this: the β = 1/2 limit (error O((2β − 1)²), no cancellation)


def _weight(beta: float) -> float:
    """Return the law of β u1 ± (1 − β) u2 is symmetric in β ↔ 1 − β: use the larger weight."""
    return max(beta, 1.0 - beta)


def noise_logpdf(t, mechanism: str, eps: float, beta: float | None = None) -> np.ndarray:
    """Log density of the noise ``m1 − s1``, stable far in the tails.

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
    return (
        np.log(eps * b / (4.0 * (2.0 * b - 1.0))) - slow * t + np.log1p(-((1.0 - b) / b) * np.exp(-(fast - slow) * t))
    )


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
    """Return the two weights of (A.1) as printed, at β itself: ``β²/(2β − 1)`` and ``−(1 − β)²/(2β − 1)`` (β ≠ 1/2)."""
    return beta**2 / (2.0 * beta - 1.0), -((1.0 - beta) ** 2) / (2.0 * beta - 1.0)


def a1_g_log_ratio(x, a: float, b: float, beta: float, eps: float) -> np.ndarray:
    """Return ``log g_α(|x − a|) − log g_α(|x − b|)`` of App. A, evaluated from the density itself.

    Here ``g_α(t) = e^{α|t|} p_ε(t)`` with the (A.1) density and ``α = ε/(2β)`` (β > 1/2).
    """
    x = np.asarray(x, dtype=float)
    alpha = eps / (2.0 * beta)

    def log_g(t):
        return alpha * np.abs(t) + noise_logpdf(t, "l1", eps, beta)

    return log_g(x - a) - log_g(x - b)


def a1_tau(beta: float) -> float:
    """App. A's ``τ = (2β − 1)/(2β(1 − β))`` (β > 1/2)."""
    return (2.0 * beta - 1.0) / (2.0 * beta * (1.0 - beta))


def a1_g_log_ratio_closed(x, a: float, b: float, beta: float, rate: float) -> np.ndarray:
    """Return the closed form App. A gives the ratio, ``log (β − (1 − β) e^{−rate|x − a|})`` minus the same at ``b``.

    The paper prints ``rate = τ``.
    """
    x = np.asarray(x, dtype=float)

    def log_num(t):
        return np.log(beta - (1.0 - beta) * np.exp(-rate * np.abs(t)))

    return log_num(x - a) - log_num(x - b)


def a1_printed_dp(x, eps: float, beta: float) -> np.ndarray:
    """App. A's printed ``dp_ε/dx`` for ``x > 0``.

    ``ε²/(8(2β − 1)) [e^{−εx/(2(1−β))} − e^{−εx/(2β)}]`` (β ≠ 1/2), and from (A.2) ``−ε³/4 x e^{−εx}`` at β = 1/2.
    """
    x = np.asarray(x, dtype=float)
    if abs(2.0 * beta - 1.0) < _NEAR_HALF:
        return -(eps**3) / 4.0 * x * np.exp(-eps * x)
    fast, slow = np.exp(-eps * x / (2.0 * (1.0 - beta))), np.exp(-eps * x / (2.0 * beta))
    return eps**2 / (8.0 * (2.0 * beta - 1.0)) * (fast - slow)


def a1_printed_dg(x, eps: float, beta: float, c: float) -> np.ndarray:
    """App. A's printed ``dg_α/dx`` of ``g_α(x) = e^{cεx} p_ε(x)`` for ``x > 0``, β > 1/2.

    ``ε²/(8(2β − 1)) [w e^{w εx/(2β)} + (w + c′) e^{−(w + c′) εx/(2(1 − β))}]``, ``w = 2cβ − 1``, ``c′ = 2(1 − c)``.
    """
    x = np.asarray(x, dtype=float)
    w, c_prime = 2.0 * c * beta - 1.0, 2.0 * (1.0 - c)
    return (
        eps**2
        / (8.0 * (2.0 * beta - 1.0))
        * (
            w * np.exp(w / (2.0 * beta) * eps * x)
            + (w + c_prime) * np.exp(-(w + c_prime) / (2.0 * (1.0 - beta)) * eps * x)
        )
    )


def a1_joint_density(u, u2, eps: float, beta: float) -> np.ndarray:
    """App. A's printed joint density of ``(ũ, u2)``: ``ε²/(16β) exp{−ε/(2β) [|ũ − (1 − β)u2| + β|u2|]}``."""
    return eps**2 / (16.0 * beta) * np.exp(-eps / (2.0 * beta) * (np.abs(u - (1.0 - beta) * u2) + beta * np.abs(u2)))


def a1_region_integrals(u: float, eps: float, beta: float) -> tuple[float, float, float]:
    """App. A's printed closed forms of I₁, I₂, I₃ (β ≠ 1/2, ``u = ũ ≥ 0``)."""
    slow, fast = np.exp(-eps * u / (2.0 * beta)), np.exp(-eps * u / (2.0 * (1.0 - beta)))
    return eps / 8.0 * slow, eps / (8.0 * (2.0 * beta - 1.0)) * (slow - fast), eps / 8.0 * fast


def signed_weights(beta: float) -> tuple[float, float]:
    """Return the weights of Lap(2b/ε) and Lap(2(1 − b)/ε) in (A.1) (b = max(β, 1 − β) > 1/2): sum 1, opposite signs."""
    b = _weight(beta)
    if 2.0 * b - 1.0 < _NEAR_HALF:
        raise ValueError("(A.1) is 0/0 at β = 1/2: use the limit (A.2)")
    return b**2 / (2.0 * b - 1.0), -((1.0 - b) ** 2) / (2.0 * b - 1.0)


def _component(law: str, t: np.ndarray, c: Mapping, cdf: bool) -> np.ndarray:
    from scipy import stats

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
