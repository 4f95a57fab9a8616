r"""The exact privacy profile of the discrete Gaussian on a lattice, and σ calibrated from it.

The Gaussian route releases x + u with u ~ D_{Λ,σ}(u) ∝ exp(−‖u‖²/2σ²) on the kernel lattice
Λ = Λ(A) of the invariants. Neighbours x' = x + v keep the invariants, so v ∈ Λ, and the privacy
loss of an output is log P(u)/Q(u) = (s − 2t)/2σ² with s = ‖v‖² and t = ⟨u, v⟩: it depends on
u through the integer t alone. The hockey-stick divergence δ(ε) = Σ_u (P(u) − e^ε Q(u))₊ is
therefore a sum over t.

**The law of t.** Split Λ by the residue of t modulo s. Inside one residue class r, u =
(t/s)·v + w with w in a coset of Λ ∩ v^⊥ that depends on r only (adding v to u moves t by s and
leaves w), so P(t) ∝ exp(−t²/2σ²s)·Θ_r for t ≡ r (mod s), Θ_r a theta-function constant of the
class. Q moves t by s, inside its class. So δ(ε) = Σ_r π_r δ_r(ε), a convex combination over the
classes of δ_r, the profile of the one-dimensional discrete Gaussian exp(−t²/2σ²s) on r + sZ
against itself shifted by s — Canonne, Kamath & Steinke's Theorem 7 on a coset. Hence

    δ(ε) ≤ max_r δ_r(ε),

for **every** lattice and every shift of squared norm s, with no smoothing condition: this is
the profile this module computes (:func:`profile_delta`), maximised over the squared distances
1 … S a change can have. It is attained when one class carries all the mass (a 2 × 2 table's
lattice is Z·v: t ∈ 4Z) and within the spread between the δ_r otherwise, a few per cent of δ at
the σ of a release: at (1, 10⁻⁶) per person the audited ε of the enumerated lattice law is within
0.2 % of the stated one for a move under a total and within 1 % for a swap under 2 × 3 margins
(``tests/core/release/test_release_privacy.py``; ``tests/core/privacy/test_gaussian_profile.py`` compares δ).

**Calibration.** :func:`calibrate_sigma` returns the smallest σ on a 10⁻⁶ grid (rounded up; the
exact sampler needs a rational σ) whose profile at the stated ε is at most the stated δ for every
squared distance 1 … S; :func:`profile_epsilon` returns the smallest ε a given σ meets at a δ
(rounded up). The zCDP line ρ = S/2σ² stays true (the lattice Gaussian's Rényi divergence of order
α between neighbours is at most αs/2σ², docs/method.md §11) and is what composes with other
releases; the (ε, δ) line comes from this profile.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from functools import lru_cache

import numpy as np

from .._validate import MAX_SHIFT

#: grid on which σ is rounded up (the exact sampler needs a rational σ)
SIGMA_GRID = 10**6
#: standard deviations of t kept on either side of the region that matters (mass beyond: < e^{-800})
_SPAN = 40.0
#: relative margin a computed δ or ε keeps against floating-point rounding of the sums
_ROUNDING = 1e-9
#: terms an exact sum holds in memory at once
_BLOCK = 2**20
#: the most terms the profile of one squared distance is summed over exactly (about 80 σ√s + 2εσ²); a wider law
#: takes the bound of ``_log_delta_bound``, whose cost does not grow with σ (nor with 1/ε)
_EXACT_TERMS = 200_000


def _epsilon(epsilon, positive: bool = False) -> float:
    value = float(epsilon)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"epsilon must be a finite number {'>' if positive else '≥'} 0, not {epsilon!r}")
    return value


def _sigma2(sigma) -> float:
    value = float(sigma)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"sigma must be a finite number > 0, not {sigma!r}")
    return value * value


def _delta(delta) -> float:
    value = float(delta)
    if not 0 < value < 1:  # also refuses NaN
        raise ValueError(f"delta must lie strictly between 0 and 1, not {delta!r}")
    return value


def _shift(shift) -> int:
    if isinstance(shift, bool) or not isinstance(shift, numbers.Integral):
        raise ValueError(f"the squared distance must be an integer, not {shift!r} (‖v‖² of an integer v is one)")
    if not 1 <= int(shift) <= MAX_SHIFT:
        raise ValueError(f"the squared distance must lie in 1 … {MAX_SHIFT:,}, not {shift}")
    return int(shift)


def _log_delta_classes(epsilon: float, sigma2: float, s: int) -> np.ndarray:
    """Log δ_r(ε) for every residue class r = 0 … s − 1 of t = ⟨u, v⟩ modulo s = ‖v‖² (−inf for 0).

    Summed exactly, a block of classes at a time (at most :data:`_BLOCK` terms in memory).
    """
    from scipy.special import logsumexp  # deferred: scipy.special loads in 0.2 s, and only the Gaussian route needs it

    sd = math.sqrt(sigma2 * s)
    half = math.ceil((max(epsilon, 0.0) * sigma2 + _SPAN * sd + 2 * s) / s)
    n = np.arange(-half, half + 1)
    rows = max(1, _BLOCK // len(n))
    out = np.empty(s)
    for first in range(0, s, rows):
        t = np.arange(first, min(first + rows, s))[:, None] + s * n[None, :]  # row r: the coset r + sZ
        logw = -(t.astype(float) ** 2) / (2 * sigma2 * s)
        loss = (s - 2 * t) / (2 * sigma2)  # log P(t)/Q(t), Q the law shifted by s
        gap = np.where(loss > epsilon, -np.expm1(np.minimum(epsilon - loss, 0.0)), 0.0)  # 1 − e^{ε − L}, where > 0
        with np.errstate(divide="ignore"):
            out[first : first + len(t)] = logsumexp(logw + np.log(gap), axis=1) - logsumexp(logw, axis=1)
    return out


def _exact_terms(epsilon: float, sigma2: float, s: int) -> int:
    """How many terms :func:`_log_delta_classes` sums."""
    return s * (2 * math.ceil((epsilon * sigma2 + _SPAN * math.sqrt(sigma2 * s) + 2 * s) / s) + 1)


def _log_delta_bound(epsilon: float, sigma2: float, s: int) -> float:
    """Return an upper bound on log max_r δ_r(ε) that costs the same for every σ: for a wide law (τ = σ/√s ≥ 1000).

    In units x = t/s the class r is the grid Z + r/s, P ∝ g(x) = exp(−x²/2τ²), and
    δ_r = Σ_{x < a} D(x) / Σ_x g(x) with D(x) = g(x) − e^ε g(x − 1) = g(x)(1 − e^{−(a − x)/τ²}) and
    a = 1/2 − ετ². D is log-concave on x < a, so its sum over a unit grid is at most its integral plus its
    largest value; by Poisson summation, Σ_x g(x) = τ√(2π)(1 + 2 Σ_k e^{−2π²τ²k²} cos(2πkr/s)) is at least
    τ√(2π)(1 − 3e^{−2π²τ²}):

        δ_r ≤ (τ√(2π)[Φ(u) − e^ε Φ(u − 1/τ)] + max D) / (τ√(2π)(1 − 3e^{−2π²τ²})),  u = a/τ,

    with max D ≤ max_x g(x)(a − x)/τ² (as 1 − e^{−y} ≤ y), attained at x = (a − √(a² + 4τ²))/2. The
    bound exceeds the exact δ by about (max D)/∫D relatively: below 10⁻³ where it is used
    (``tests/core/privacy/test_gaussian_profile.py``).
    """
    from scipy.special import log_ndtr  # deferred: as above

    tau = math.sqrt(sigma2 / s)
    a = 0.5 - epsilon * sigma2 / s
    u = a / tau
    lp, lq = float(log_ndtr(u)), float(log_ndtr(u - 1 / tau))
    # q = ε + log Φ(u − 1/τ) − log Φ(u) < 0, lowered by its rounding error: −expm1(q) is then an upper bound
    q = epsilon + (lq - lp) - 8 * np.finfo(float).eps * (abs(lp) + abs(lq) + epsilon + 1)
    log_integral = math.log(tau * math.sqrt(2 * math.pi)) + lp + math.log(-math.expm1(min(q, 0.0)) or 1e-300)
    root = math.sqrt(a * a + 4 * tau * tau)
    x = (a - root) / 2
    # a − x = (a + root)/2 cancels to 0 where a ≪ −τ (σ of 10⁹ at ε of 1): 2τ²/(root − a) is the same, stably
    a_minus_x = (a + root) / 2 if a >= 0 else 2 * tau * tau / (root - a)
    log_max = -x * x / (2 * tau * tau) + math.log(a_minus_x / (tau * tau))
    log_z = math.log(tau * math.sqrt(2 * math.pi)) + math.log1p(-3 * math.exp(-2 * math.pi**2 * tau * tau))
    return float(np.logaddexp(log_integral, log_max)) - log_z


def _log_delta_max(epsilon: float, sigma2: float, s: int) -> float:
    """Log max_r δ_r(ε).

    Summed exactly up to :data:`_EXACT_TERMS` terms, else the bound of :func:`_log_delta_bound` where τ = σ/√s ≥ 1000 (a
    narrower law is summed exactly whatever the cost).
    """
    if _exact_terms(epsilon, sigma2, s) <= _EXACT_TERMS or sigma2 < 1000**2 * s:
        return float(_log_delta_classes(epsilon, sigma2, s).max())
    return _log_delta_bound(epsilon, sigma2, s)


def residue_profiles(epsilon: float, sigma, shift: int) -> np.ndarray:
    """δ_r(ε) for each residue class r = 0 … s − 1 of t = ⟨u, v⟩ modulo s = ‖v‖², at one shift s.

    Parameters
    ----------
    epsilon : float
        The ε ≥ 0 at which the profiles are read.
    sigma : fractions.Fraction or float
        The Gaussian's σ > 0.
    shift : int
        s = ‖v‖² ≥ 1, the squared ℓ2 norm of the difference between the two neighbours.

    Returns
    -------
    numpy.ndarray of float, shape (s,)
        δ_r(ε): the hockey-stick divergence of the discrete Gaussian exp(−t²/2σ²s) on r + sZ
        from itself shifted by s. A lattice's own δ(ε) at v is their average weighted by the
        classes' masses (module docstring).

    Raises
    ------
    ValueError
        ε < 0 or not finite; σ ≤ 0 or not finite; a squared distance that is not an integer in
        1 … :data:`MAX_SHIFT`.

    See Also
    --------
    profile_delta : Their largest over the classes and over every shift up to a bound.

    Examples
    --------
    A 2 × 2 table's lattice is Z·v (the swap, s = 4), so t lies in 4Z and its δ is the class r = 0:

    >>> from isdp.privacy._gaussian_profile import residue_profiles
    >>> deltas = residue_profiles(1.0, 1.5, 4)
    >>> deltas.shape, round(float(deltas[0]), 4)
    ((4,), 0.1923)
    """
    return np.exp(_log_delta_classes(_epsilon(epsilon), _sigma2(sigma), _shift(shift)))


@lru_cache(maxsize=4096)
def _log_profile(epsilon: float, sigma2: float, largest: int) -> float:
    return max(_log_delta_max(epsilon, sigma2, s) for s in range(1, largest + 1))


def profile_delta(epsilon: float, sigma, largest_shift: int) -> float:
    """Return the δ(ε) of the lattice discrete Gaussian for changes of squared ℓ2 norm at most ``largest_shift``.

    The largest, over squared distances s = 1 … ``largest_shift`` and residue classes r mod s, of
    the one-dimensional profile δ_r(ε) (module docstring): an upper bound on the hockey-stick
    divergence between the release's output laws for any lattice and any two neighbours whose
    difference v has ‖v‖² ≤ ``largest_shift``.

    Parameters
    ----------
    epsilon : float
        The ε ≥ 0 at which the profile is read.
    sigma : fractions.Fraction or float
        The Gaussian's σ > 0.
    largest_shift : int
        S ≥ 1, the largest squared ℓ2 distance between neighbours (2 for one person moving
        between cells of one table, :data:`isdp.privacy.PERSON_SHIFT`; two persons:
        :meth:`isdp.privacy.Neighbours.two_person_shift`).

    Returns
    -------
    float
        δ(ε), in [0, 1].

    Raises
    ------
    ValueError
        ε < 0 or not finite; σ ≤ 0 or not finite; a squared distance that is not an integer in
        1 … :data:`MAX_SHIFT`.

    See Also
    --------
    profile_epsilon : The smallest ε whose δ(ε) is at most a given δ.
    calibrate_sigma : The smallest σ meeting a requested (ε, δ).

    Notes
    -----
    δ_r(ε) = Σ_{t ∈ r + sZ, L(t) > ε} P_r(t)(1 − e^{ε − L(t)}), with P_r(t) ∝ exp(−t²/2σ²s) on the
    coset and L(t) = (s − 2t)/2σ², summed in log space over ±(εσ² + 40·σ√s) around 0 (the mass left
    out is below e^{−800}). Canonne, Kamath & Steinke (2020), Theorem 7, is the class r = 0 of
    Z·v itself.

    Examples
    --------
    One person moving between cells (‖v‖² = 2) at σ = 4:

    >>> from isdp.privacy._gaussian_profile import profile_delta
    >>> round(profile_delta(1.0, 4, 2), 6)
    0.000418
    >>> profile_delta(1.0, 4, 8) > profile_delta(1.0, 4, 2)  # two persons: a longer shift leaks more
    True
    """
    return float(math.exp(_log_profile(_epsilon(epsilon), _sigma2(sigma), _shift(largest_shift))))


def profile_epsilon(delta: float, sigma, largest_shift: int) -> float:
    """Return the smallest ε at which the lattice discrete Gaussian's profile is at most ``delta``.

    Parameters
    ----------
    delta : float
        δ in (0, 1).
    sigma : fractions.Fraction or float
        The Gaussian's σ > 0.
    largest_shift : int
        S ≥ 1, the largest squared ℓ2 distance between neighbours (:func:`profile_delta`).

    Returns
    -------
    float
        The ε, rounded up so that ``profile_delta(ε, sigma, largest_shift) <= delta`` holds as
        computed; 0.0 when the two laws are already within ``delta`` in total variation.

    Raises
    ------
    ValueError
        δ outside (0, 1); σ ≤ 0 or not finite; a squared distance that is not an integer in
        1 … :data:`MAX_SHIFT`.

    See Also
    --------
    profile_delta : The profile this inverts.

    Examples
    --------
    >>> from isdp.privacy._gaussian_profile import profile_epsilon
    >>> from isdp.privacy._gaussian_profile import profile_delta
    >>> eps = profile_epsilon(1e-6, 6, 2)
    >>> round(eps, 4), profile_delta(eps, 6, 2) <= 1e-6
    (0.9974, True)
    """
    return _profile_epsilon(_delta(delta), _sigma2(sigma), _shift(largest_shift))


@lru_cache(maxsize=4096)
def _profile_epsilon(delta: float, sigma2: float, largest: int) -> float:
    target = math.log(delta) + math.log1p(-_ROUNDING)  # aim a hair below δ: the rounding stays on our side
    if _log_profile(0.0, sigma2, largest) <= target:
        return 0.0
    hi = 1.0
    while _log_profile(hi, sigma2, largest) > target:
        hi *= 2
    from scipy import optimize  # deferred: SciPy's optimizers load in 0.2 s, and only the Gaussian route solves

    eps = optimize.brentq(lambda e: _log_profile(e, sigma2, largest) - target, 0.0, hi, xtol=1e-13, rtol=1e-12)
    step = max(eps * _ROUNDING, 1e-12)
    while _log_profile(eps, sigma2, largest) > math.log(delta):  # Brent's root may sit a hair inside
        eps, step = eps + step, 2 * step
    return float(eps)


@lru_cache(maxsize=256)  # each part of a large release asks again
def calibrate_sigma(epsilon: float, delta: float, largest_shift: int) -> Fraction:
    """Return the smallest σ on a 10⁻⁶ grid whose profile meets (ε, δ) for shifts of squared norm ≤ ``largest_shift``.

    Parameters
    ----------
    epsilon : float
        ε > 0 needed.
    delta : float
        δ in (0, 1) needed.
    largest_shift : int
        S ≥ 1, the largest squared ℓ2 distance between neighbours (:func:`profile_delta`).

    Returns
    -------
    fractions.Fraction
        σ with denominator dividing :data:`SIGMA_GRID`, rounded up; stepped up further while the
        computed profile exceeds ``delta`` less a relative 2·10⁻⁹ (floating-point rounding is
        never in the user's disfavour, and :func:`profile_epsilon`, which aims 10⁻⁹ below δ,
        states at most ``epsilon`` for it).

    Raises
    ------
    ValueError
        ε ≤ 0 or not finite; δ outside (0, 1); a squared distance that is not an integer in
        1 … :data:`MAX_SHIFT`.

    See Also
    --------
    isdp.privacy.gaussian_sigma : The release's σ per person, through this function.

    Notes
    -----
    log δ(ε; σ) falls as σ grows; the root of log δ(ε; σ) = log δ is found by Brent's method and
    rounded up on the grid. At (1, 10⁻⁶) and one person's move it is 1/1.26 of the σ the standard zCDP
    conversion ε = ρ + 2√(ρ ln 1/δ) needs: 1.6 times less variance (``tests/core/privacy/test_gaussian_profile.py``).

    Examples
    --------
    ε = 1, δ = 10⁻⁶ for one person moving between cells (‖v‖² = 2):

    >>> from fractions import Fraction
    >>> from isdp.privacy._gaussian_profile import calibrate_sigma
    >>> from isdp.privacy._gaussian_profile import profile_delta
    >>> sigma = calibrate_sigma(1.0, 1e-6, 2)
    >>> float(sigma)
    5.983225
    >>> profile_delta(1.0, sigma, 2) <= 1e-6 < profile_delta(1.0, sigma - Fraction(1, 10**6), 2)
    True
    """
    largest, eps, delta = _shift(largest_shift), _epsilon(epsilon, positive=True), _delta(delta)
    # aim twice the margin below δ that profile_epsilon aims at: the ε it then states for this σ is at most ε
    target = math.log(delta) + math.log1p(-2 * _ROUNDING)

    def excess(sigma: float) -> float:
        return _log_profile(eps, sigma * sigma, largest) - target

    lo, hi = 1e-3, 1.0
    while excess(hi) > 0:
        lo, hi = hi, hi * 2
    from scipy import optimize  # deferred: as above

    root = optimize.brentq(excess, lo, hi, xtol=1e-12, rtol=1e-12)
    sigma, step = Fraction(math.ceil(root * SIGMA_GRID), SIGMA_GRID), Fraction(1, SIGMA_GRID)
    while _log_profile(eps, float(sigma) ** 2, largest) > target:  # Brent's root may sit a hair inside
        sigma, step = sigma + step, 2 * step
    return sigma
