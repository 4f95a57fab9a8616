"""Privacy accounting: the budget of permutation swapping, and zCDP ↔ (ε, δ)-DP conversions.

**Permutation swapping** (Swapping slides). Within each stratum (records agreeing on the swap
key), every record is selected with probability ``p`` (the swap rate; a selection of exactly one
record is redrawn) and the swapping variable of the selected records is permuted by a uniform
derangement. Subject to its invariants, with the household Hamming distance as data divergence
and the multiplicative distance (pure DP) as output divergence, its budget is

    ε(p, b) = ln(b + 1) − ln o            if 0 < p ≤ 1/2,
              max{ln o, ln(b + 1) − ln o}  if 1/2 < p < 1,        o = p / (1 − p),

where ``b`` is the largest stratum size. Since ln o ≤ 0 < ln(b + 1) − ln o for p ≤ 1/2, both
cases are ``max{logit p, ln(b + 1) − logit p}``: a V-shaped function of logit p with its minimum
ln(b + 1)/2 at o = √(b + 1), so every larger ε is reached by exactly two swap rates.

**zCDP** (Bun & Steinke 2016). ρ-zCDP implies (ε, δ)-DP; the conversions differ in how small an
ε they certify (``CONVERSIONS``):

- ``standard``: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3); equivalently the
  Rényi-DP conversion ε = inf_{α>1} αρ + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3).
- ``integer-orders``: the same infimum over integer orders α = 2, 3, … only, as a moments
  accountant that tracks integer moments (Abadi et al. 2016).
- ``cks``: ε = inf_{α>1} αρ + (ln(1/δ) − ln α)/(α − 1) + ln(1 − 1/α) (Canonne, Kamath &
  Steinke 2020, Prop. 12 / Cor. 13), valid for every ρ-zCDP mechanism and tighter.
- ``gaussian-exact``: the exact privacy profile of the Gaussian mechanism with ρ = Δ²/(2σ²)
  (Balle & Wang 2018, Thm. 8); it holds for Gaussian noise only, not for every ρ-zCDP mechanism.

All four are increasing in ρ; ``dp_to_zcdp`` inverts them. The E8 reproductions of the printed
tables built on these sit in :mod:`isdp.experiments.e8_privacy_accounting.tables`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

CONVERSIONS = ("standard", "integer-orders", "cks", "gaussian-exact")


# --------------------------------------------------------------------------- permutation swapping


def _check_b(b) -> np.ndarray:
    b = np.asarray(b, dtype=float)
    if np.any(b < 1) or np.any(np.rint(b) != b):
        raise ValueError(f"the largest stratum size b must be a positive integer, got {b}")
    return b


def swapping_epsilon_from_log_odds(t, b):
    """ε of permutation swapping as a function of the log-odds t = logit p of the swap rate: exact
    near p = 0 and p = 1, where ``swapping_epsilon`` would lose digits forming p."""
    return np.maximum(t, np.log1p(_check_b(b)) - t)


def swapping_epsilon(p, b):
    """Budget ε of permutation swapping at swap rate ``p`` with largest stratum size ``b``.

    Parameters
    ----------
    p : float or array_like
        Swap rates in (0, 1).
    b : int or array_like
        Largest stratum size(s), broadcast against ``p``.

    Returns
    -------
    float or ndarray
        ``max(logit p, ln(b + 1) − logit p)`` (the slides' two-case formula, see the module docstring).
    """
    p = np.asarray(p, dtype=float)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("swap rates must lie in the open interval (0, 1)")
    eps = swapping_epsilon_from_log_odds(special.logit(p), b)
    return eps if eps.ndim else float(eps)


def swapping_min_epsilon(b):
    """The smallest attainable budget ε_b = ln(b + 1)/2 and the swap rate p* that attains it.

    p* has odds √(b + 1), i.e. p* = √(b + 1) / (1 + √(b + 1)).
    """
    half = 0.5 * np.log1p(_check_b(b))
    p_star = special.expit(half)
    return (float(half), float(p_star)) if np.ndim(half) == 0 else (half, p_star)


def swap_rates_for_epsilon(eps, b):
    """The two swap rates p_low ≤ p* ≤ p_high whose budget is ``eps`` (largest stratum size ``b``).

    p_low solves ln(b + 1) − logit p = ε and p_high solves logit p = ε. Raises ``ValueError`` when
    ``eps`` is below the smallest attainable ε_b.
    """
    eps = np.asarray(eps, dtype=float)
    log_b1 = np.log1p(_check_b(b))
    if np.any(eps < 0.5 * log_b1 - 1e-12):
        raise ValueError(f"ε = {eps} is below the smallest attainable budget ln(b + 1)/2 = {0.5 * log_b1}")
    low, high = special.expit(log_b1 - eps), special.expit(eps)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


# --------------------------------------------------------------------------- zCDP -> (eps, delta)


def _log_inv_delta(delta: float) -> float:
    if not 0 < delta < 1:
        raise ValueError(f"δ must lie in (0, 1), got {delta}")
    return -math.log(delta)


def gaussian_delta(eps: float, mu: float) -> float:
    """The exact privacy profile δ(ε) of the Gaussian mechanism with Δ/σ = μ (Balle & Wang 2018, Thm. 8):
    Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), the second term in log space. The smallest δ for which the
    mechanism is (ε, δ)-DP."""
    a, c = mu / 2 - eps / mu, -mu / 2 - eps / mu
    return float(special.ndtr(a) - np.exp(eps + special.log_ndtr(c)))


def zcdp_to_dp(rho: float, delta: float, method: str = "standard") -> float:
    """The ε of (ε, δ)-DP implied by ρ-zCDP under one of ``CONVERSIONS``.

    Parameters
    ----------
    rho : float
        zCDP parameter, ≥ 0.
    delta : float
        Target δ in (0, 1).
    method : str
        ``standard``, ``integer-orders``, ``cks`` or ``gaussian-exact`` (module docstring).
    """
    if method not in CONVERSIONS:
        raise ValueError(f"unknown conversion {method!r} (one of {CONVERSIONS})")
    if rho < 0:
        raise ValueError(f"ρ must be non-negative, got {rho}")
    L = _log_inv_delta(delta)
    if rho == 0:
        return 0.0
    if method == "standard":
        return rho + 2 * math.sqrt(rho * L)
    alpha0 = 1 + math.sqrt(L / rho)  # the optimal real order of the standard conversion
    if method == "integer-orders":
        # α ρ + L/(α − 1) is convex in α: the best integer order neighbours the real optimum
        orders = {max(2, math.floor(alpha0)), max(2, math.ceil(alpha0))}
        return min(a * rho + L / (a - 1) for a in orders)
    if method == "cks":
        def eps_at(t):  # t = ln(α − 1): the optimum can sit very close to α = 1
            a = 1 + math.exp(t)
            return a * rho + (L - math.log(a)) / (a - 1) + math.log1p(-1 / a)

        t0 = math.log(alpha0 - 1)
        res = optimize.minimize_scalar(eps_at, bounds=(t0 - 10, t0 + 10), method="bounded",
                                       options={"xatol": 1e-10})
        return float(min(res.fun, eps_at(t0)))
    mu = math.sqrt(2 * rho)  # gaussian-exact: Δ/σ of the Gaussian with ρ = Δ²/(2σ²)
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    return float(optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, rho + 2 * math.sqrt(rho * L),
                                 xtol=1e-13, rtol=1e-13))


def dp_to_zcdp(eps: float, delta: float, method: str = "standard") -> float:
    """The largest ρ whose ρ-zCDP converts (by ``method``) to (ε, δ)-DP: the inverse of ``zcdp_to_dp``.

    ``standard`` has the closed form ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))²; the others are inverted by
    root finding (each conversion is continuous and increasing in ρ).
    """
    if method not in CONVERSIONS:
        raise ValueError(f"unknown conversion {method!r} (one of {CONVERSIONS})")
    if eps <= 0:
        raise ValueError(f"ε must be positive, got {eps}")
    L = _log_inv_delta(delta)
    if method == "standard":
        return (math.sqrt(L + eps) - math.sqrt(L)) ** 2
    # bracket the root starting from the standard ρ (integer orders certify a larger ε, the others a smaller one)
    lo = hi = dp_to_zcdp(eps, delta)
    while zcdp_to_dp(lo, delta, method) > eps:
        lo /= 2
    while zcdp_to_dp(hi, delta, method) < eps:
        hi *= 2
    return float(optimize.brentq(lambda r: zcdp_to_dp(r, delta, method) - eps, lo, hi, xtol=1e-15, rtol=1e-13))


__all__ = ["CONVERSIONS", "dp_to_zcdp", "gaussian_delta", "swap_rates_for_epsilon", "swapping_epsilon",
           "swapping_epsilon_from_log_odds", "swapping_min_epsilon", "zcdp_to_dp"]
