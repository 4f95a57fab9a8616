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
tables built on these sit in :mod:`isdp_papers.e8_privacy_accounting.tables`; E6 reads the Gaussian's
exact profile (:func:`gaussian_delta`) from here too.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

#: The zCDP → (ε, δ)-DP conversions of :func:`zcdp_to_dp` and :func:`dp_to_zcdp` (module docstring):
#: ``standard``, ``integer-orders`` and ``cks`` hold for every ρ-zCDP mechanism, ``gaussian-exact`` for
#: the Gaussian mechanism only. For the same ρ and δ, gaussian-exact ≤ cks ≤ standard ≤ integer-orders.
CONVERSIONS = ("standard", "integer-orders", "cks", "gaussian-exact")


# --------------------------------------------------------------------------- permutation swapping


def _check_b(b) -> np.ndarray:
    b = np.asarray(b, dtype=float)
    if np.any(b < 1) or np.any(np.rint(b) != b):
        raise ValueError(f"the largest stratum size b must be a positive integer, got {b}")
    return b


def swapping_epsilon_from_log_odds(t, b):
    """Budget ε of permutation swapping as a function of the log-odds of the swap rate.

    The same budget as :func:`swapping_epsilon`, written in t = logit p = ln(p/(1 − p)). It is
    exact near p = 0 and p = 1, where forming p in floating point loses digits (p = 1 − 10⁻²⁰
    rounds to 1).

    Parameters
    ----------
    t : float or array_like
        Log-odds logit p of the swap rate(s), any real numbers.
    b : int or array_like
        Largest stratum size(s), positive integers, broadcast against ``t``.

    Returns
    -------
    numpy.float64 or ndarray of float
        The budget ε = max(t, ln(b + 1) − t), in the broadcast shape of ``t`` and ``b`` (a
        NumPy scalar for scalar inputs).

    Raises
    ------
    ValueError
        If an entry of ``b`` is not a positive integer.

    See Also
    --------
    swapping_epsilon : The same in terms of p.

    Notes
    -----
    Swapping slides; see the module docstring: ε is V-shaped in t with its minimum ln(b + 1)/2 at
    t = ln(b + 1)/2.

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon_from_log_odds
    >>> round(float(swapping_epsilon_from_log_odds(0.0, 3)), 4)  # p = 1/2: ln 4
    1.3863
    >>> float(swapping_epsilon_from_log_odds(50.0, 3))  # p = expit(50), which rounds to 1.0
    50.0
    """
    return np.maximum(t, np.log1p(_check_b(b)) - t)


def swapping_epsilon(p, b):
    """Budget ε of permutation swapping at swap rate ``p`` with largest stratum size ``b``.

    The pure-DP budget of permutation swapping subject to its invariants, with the household
    Hamming distance as data divergence (Swapping slides).

    Parameters
    ----------
    p : float or array_like
        Swap rate(s) in the open interval (0, 1).
    b : int or array_like
        Largest stratum size(s), positive integers, broadcast against ``p``.

    Returns
    -------
    float or ndarray of float
        The budget ε = max(logit p, ln(b + 1) − logit p), a float for scalar inputs and an
        array in the broadcast shape otherwise.

    Raises
    ------
    ValueError
        If a swap rate is not in (0, 1) or an entry of ``b`` is not a positive integer.

    See Also
    --------
    swapping_epsilon_from_log_odds : The same in the log-odds, exact near p = 0 and 1.
    swapping_min_epsilon : The smallest budget and the swap rate that attains it.
    swap_rates_for_epsilon : The two swap rates of a budget.

    Notes
    -----
    The Swapping slides state the budget with odds o = p/(1 − p) as ln(b + 1) − ln o for
    0 < p ≤ 1/2 and max{ln o, ln(b + 1) − ln o} for 1/2 < p < 1. Since ln o ≤ 0 < ln(b + 1) − ln o
    for p ≤ 1/2, both cases are max{logit p, ln(b + 1) − logit p} (docs/method.md §10).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon
    >>> round(swapping_epsilon(0.05, 9), 4)  # ln 10 + ln 19
    5.247
    >>> np.round(swapping_epsilon([0.05, 0.5, 0.9], 9), 4).tolist()
    [5.247, 2.3026, 2.1972]
    >>> np.round(swapping_epsilon(0.5, [1, 3]), 4).tolist()  # larger strata, larger ε
    [0.6931, 1.3863]
    """
    p = np.asarray(p, dtype=float)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("swap rates must lie in the open interval (0, 1)")
    eps = swapping_epsilon_from_log_odds(special.logit(p), b)
    return eps if eps.ndim else float(eps)


def swapping_min_epsilon(b):
    """Smallest attainable budget of permutation swapping and the swap rate that attains it.

    Every swap rate p in (0, 1) has a budget of at least ε_b, and exactly one attains it; a larger
    largest stratum size ``b`` raises the floor.

    Parameters
    ----------
    b : int or array_like
        Largest stratum size(s), positive integers.

    Returns
    -------
    eps_b : float or ndarray of float
        The smallest budget ε_b = ln(b + 1)/2.
    p_star : float or ndarray of float
        The swap rate p* whose budget is ε_b: its odds are √(b + 1), i.e.
        p* = √(b + 1) / (1 + √(b + 1)). Floats for a scalar ``b``, arrays of its shape otherwise.

    Raises
    ------
    ValueError
        If an entry of ``b`` is not a positive integer.

    See Also
    --------
    swapping_epsilon : The budget at any swap rate.
    swap_rates_for_epsilon : The two swap rates of a larger budget.

    Notes
    -----
    Swapping slides. In the log-odds t = logit p the budget max{t, ln(b + 1) − t} is V-shaped,
    with its vertex at t = ln(b + 1)/2.

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon, swapping_min_epsilon
    >>> eps_b, p_star = swapping_min_epsilon(3)
    >>> round(eps_b, 4), round(p_star, 4)  # ln 2 at odds 2
    (0.6931, 0.6667)
    >>> round(swapping_epsilon(p_star, 3), 4)
    0.6931
    """
    half = 0.5 * np.log1p(_check_b(b))
    p_star = special.expit(half)
    return (float(half), float(p_star)) if np.ndim(half) == 0 else (half, p_star)


def swap_rates_for_epsilon(epsilon, b):
    """Return the two swap rates p_low ≤ p* ≤ p_high whose permutation-swapping budget is ``epsilon``.

    The inverse of :func:`swapping_epsilon` on each branch of its V: ``p_low`` is the swap rate
    below p*, where the budget falls as p grows, and ``p_high`` the one above, where it rises.

    Parameters
    ----------
    epsilon : float or array_like
        Budget(s) ε, at least the smallest attainable ε_b = ln(b + 1)/2 (to within 1e-12).
    b : int or array_like
        Largest stratum size(s), positive integers, broadcast against ``epsilon``.

    Returns
    -------
    p_low : float or ndarray of float
        The swap rate on the left branch, solving ln(b + 1) − logit p = ε:
        p_low = expit(ln(b + 1) − ε).
    p_high : float or ndarray of float
        The swap rate on the right branch, solving logit p = ε: p_high = expit(ε). Floats for
        scalar inputs, arrays of the broadcast shape otherwise.

    Raises
    ------
    ValueError
        If ``epsilon`` is below ε_b, or an entry of ``b`` is not a positive integer.

    See Also
    --------
    swapping_epsilon : The inverse map, from a swap rate to its budget.
    swapping_min_epsilon : The smallest budget ε_b and the swap rate p* between the two.

    Notes
    -----
    Swapping slides: the budget is V-shaped in logit p, so every ε > ε_b is reached by exactly
    two swap rates, and ε_b by p* alone (p_low = p_high = p*).

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import swap_rates_for_epsilon, swapping_epsilon
    >>> low, high = swap_rates_for_epsilon(1.0, 3)
    >>> round(low, 4), round(high, 4)
    (0.5954, 0.7311)
    >>> round(swapping_epsilon(low, 3), 9), round(swapping_epsilon(high, 3), 9)
    (1.0, 1.0)
    >>> try:
    ...     swap_rates_for_epsilon(0.5, 3)
    ... except ValueError:
    ...     print("below ln(4)/2")
    below ln(4)/2
    """
    epsilon = np.asarray(epsilon, dtype=float)
    log_b1 = np.log1p(_check_b(b))
    if np.any(epsilon < 0.5 * log_b1 - 1e-12):
        raise ValueError(f"ε = {epsilon} is below the smallest attainable budget ln(b + 1)/2 = {0.5 * log_b1}")
    low, high = special.expit(log_b1 - epsilon), special.expit(epsilon)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


# --------------------------------------------------------------------------- zCDP -> (eps, delta)


def _log_inv_delta(delta: float) -> float:
    if not 0 < delta < 1:
        raise ValueError(f"δ must lie in (0, 1), got {delta}")
    return -math.log(delta)


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact privacy profile δ(ε) of the Gaussian mechanism with Δ/σ = ``mu``.

    The smallest δ for which the Gaussian mechanism with ℓ2 sensitivity Δ and noise SD σ is
    (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        The ε at which to evaluate the profile, ≥ 0.
    mu : float
        The ratio μ = Δ/σ of the sensitivity to the noise SD, > 0.

    Returns
    -------
    float
        The profile δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), Φ the standard normal
        distribution function.

    See Also
    --------
    zcdp_to_dp : Its ``"gaussian-exact"`` conversion inverts this profile.

    Notes
    -----
    Balle & Wang 2018, Thm. 8. The second term is computed in log space, e^(ε + ln Φ(·)), so it
    does not overflow at large ε. At ε = 0 the profile is the total variation distance
    2 Φ(μ/2) − 1 of the two output laws. The inputs are not checked.

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import gaussian_delta
    >>> round(gaussian_delta(1.0, 1.0), 4)
    0.1269
    >>> round(gaussian_delta(0.0, 1.0), 4)  # 2 Φ(1/2) − 1
    0.3829
    """
    a, c = mu / 2 - epsilon / mu, -mu / 2 - epsilon / mu
    return float(special.ndtr(a) - np.exp(epsilon + special.log_ndtr(c)))


def zcdp_to_dp(rho: float, delta: float, method: str = "standard") -> float:
    """Return the ε of (ε, δ)-DP implied by ρ-zCDP under one of :data:`CONVERSIONS`.

    A ρ-zCDP mechanism is (ε, δ)-DP for this ε at the given δ; the conversions differ in how
    small an ε they certify, and ``"gaussian-exact"`` holds for the Gaussian mechanism only.

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ ≥ 0.
    delta : float
        Target δ in the open interval (0, 1).
    method : {"standard", "integer-orders", "cks", "gaussian-exact"}, default "standard"
        The conversion (see Notes and the module docstring).

    Returns
    -------
    float
        The ε; 0.0 for ρ = 0 (and for ``"gaussian-exact"`` whenever δ(0) ≤ ``delta``).

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`CONVERSIONS`, ``rho`` is negative, or ``delta`` is not
        in (0, 1).

    See Also
    --------
    dp_to_zcdp : The inverse.
    gaussian_delta : The Gaussian mechanism's exact privacy profile.

    Notes
    -----
    With L = ln(1/δ) (Bun & Steinke 2016 for zCDP; docs/method.md §10):

    - ``"standard"``: ε = ρ + 2√(ρ L) (Bun & Steinke 2016, Prop. 1.3), the infimum of
      αρ + L/(α − 1) over real orders α > 1, attained at α₀ = 1 + √(L/ρ).
    - ``"integer-orders"``: the same infimum over integer orders α ≥ 2 only; the expression is
      convex in α, so the best integer order is ⌊α₀⌋ or ⌈α₀⌉ (at least 2).
    - ``"cks"``: inf_{α>1} αρ + (L − ln α)/(α − 1) + ln(1 − 1/α) (Canonne, Kamath & Steinke 2020),
      minimised numerically over ln(α − 1) within 10 of ln(α₀ − 1).
    - ``"gaussian-exact"``: the ε at which :func:`gaussian_delta` with μ = √(2ρ) equals δ, found by
      root finding; it holds for the Gaussian mechanism with ρ = Δ²/(2σ²) only.

    For every ρ and δ, gaussian-exact ≤ cks ≤ standard ≤ integer-orders.

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import CONVERSIONS, zcdp_to_dp
    >>> for method in CONVERSIONS:
    ...     print(method, round(zcdp_to_dp(0.5, 1e-6, method), 4))
    standard 5.7565
    integer-orders 5.7631
    cks 5.2215
    gaussian-exact 4.8866
    >>> zcdp_to_dp(0.0, 1e-6)
    0.0
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
        res = optimize.minimize_scalar(eps_at, bounds=(t0 - 10, t0 + 10), method="bounded", options={"xatol": 1e-10})
        return float(min(res.fun, eps_at(t0)))
    mu = math.sqrt(2 * rho)  # gaussian-exact: Δ/σ of the Gaussian with ρ = Δ²/(2σ²)
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    return float(
        optimize.brentq(
            lambda e: gaussian_delta(e, mu) - delta, 0.0, rho + 2 * math.sqrt(rho * L), xtol=1e-13, rtol=1e-13
        )
    )


def dp_to_zcdp(epsilon: float, delta: float, method: str = "standard") -> float:
    """Return the largest ρ whose ρ-zCDP converts to (ε, δ)-DP: the inverse of :func:`zcdp_to_dp`.

    Every ρ-zCDP mechanism with ρ at most the result is (ε, δ)-DP by the conversion ``method``;
    e.g. the zCDP budget to give a Gaussian mechanism that must be (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        Target δ in the open interval (0, 1).
    method : {"standard", "integer-orders", "cks", "gaussian-exact"}, default "standard"
        The conversion to invert (see :func:`zcdp_to_dp`).

    Returns
    -------
    float
        The ρ with ``zcdp_to_dp(ρ, delta, method) == eps`` (to root-finding accuracy).

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`CONVERSIONS`, ``epsilon`` is not positive, or ``delta`` is
        not in (0, 1).

    See Also
    --------
    zcdp_to_dp : The conversion it inverts.

    Notes
    -----
    ``"standard"`` has the closed form ρ = (√(L + ε) − √L)², L = ln(1/δ). The other conversions
    are inverted by root finding (Brent's method), bracketed from the standard ρ: each is
    continuous and increasing in ρ. The release's Gaussian does not use it: its σ comes from the
    exact privacy profile (docs/method.md §11), a smaller σ than this conversion gives.

    Examples
    --------
    >>> from isdp_papers.e8_privacy_accounting.accounting import dp_to_zcdp, zcdp_to_dp
    >>> rho = dp_to_zcdp(1.0, 1e-6)
    >>> round(rho, 6)
    0.017469
    >>> round(zcdp_to_dp(rho, 1e-6), 9)
    1.0
    >>> rho_cks = dp_to_zcdp(1.0, 1e-6, method="cks")  # a tighter conversion allows a larger ρ
    >>> rho_cks > rho, round(zcdp_to_dp(rho_cks, 1e-6, method="cks"), 9)
    (True, 1.0)
    """
    if method not in CONVERSIONS:
        raise ValueError(f"unknown conversion {method!r} (one of {CONVERSIONS})")
    if epsilon <= 0:
        raise ValueError(f"ε must be positive, got {epsilon}")
    L = _log_inv_delta(delta)
    if method == "standard":
        return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2
    # bracket the root starting from the standard ρ (integer orders certify a larger ε, the others a smaller one)
    lo = hi = dp_to_zcdp(epsilon, delta)
    while zcdp_to_dp(lo, delta, method) > epsilon:
        lo /= 2
    while zcdp_to_dp(hi, delta, method) < epsilon:
        hi *= 2
    return float(optimize.brentq(lambda r: zcdp_to_dp(r, delta, method) - epsilon, lo, hi, xtol=1e-15, rtol=1e-13))
