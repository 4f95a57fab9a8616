"""The one-dimensional discrete Gaussian with a rational centre.

Its decisions are exact, against a uniform number read 63 bits at a time.

Klein's sampler (:mod:`isdp.exact._lattice_gaussian`) draws one coordinate at a time from
D_{Z,σ,c}(x) ∝ exp(−(x − c)²/2σ²) with c and σ² rational, by rejection from a double geometric
(:func:`discrete_gaussian`), itself drawn by inversion (:func:`inverse_double_geometric`: the integer
part of −t ln U). Each accept-or-reject is a comparison of a uniform number U in
[0, 1) with a probability p: U is revealed 63 bits at a time (``randbelow(2**63)``: 63 bits of
:class:`~isdp.exact._compiled_draws.WordSource`'s stream), and the comparison is decided as soon as the bits
read place U's whole interval on one side of rigorous bounds on p — first double-precision
bounds, then interval arithmetic at growing precision (mpmath.iv); the inversion's integer part is
decided the same way, once the image of U's interval lies between two integers. The decision is U < p,
a function of U and p only, whichever bounds decide it; so the compiled sampler
(:mod:`isdp.exact._compiled_klein`), which decides with its own floating-point bounds and hands
the rare undecided cases here, gives the same draws on the same bits.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .. import _validate as check
from ..errors import ArgumentError
from ._integer_sources import IntegerSource

#: bits of U each reading reveals
WORD_BITS = 63
#: the σ² the discrete Gaussians serve: below, σ² underflows the doubles that bound the decisions; above,
#: a lattice block's draws (about 40σ at most) would leave int64
SIGMA2_LOW, SIGMA2_HIGH = Fraction(1, 2**64), Fraction(2**100)
#: below this σ², the rejection's bound is the least one over the integers (:func:`_least_bound`): the simple
#: bound is 1/8σ² too high at a centre halfway between integers, and its acceptance exp(−1/8σ²) would never come
NARROW = Fraction(1, 8)
#: above this γ, exp(−γ) < 5e-324, the smallest double: bounds 0 and 5e-324 hold it
_HUGE_GAMMA = 800
#: below this first word of U, −t ln U is left to the intervals (probability 2**-51 a draw)
_SMALL_WORD = 1 << 12
#: above this, the doubles no longer resolve −t ln U to its integer part
_LARGEST_DOUBLE_FLOOR = 2.0**52


def sigma2_argument(sigma2, name: str = "sigma2") -> Fraction:
    """Return ``sigma2`` as an exact fraction in [:data:`SIGMA2_LOW`, :data:`SIGMA2_HIGH`].

    Outside it, an ArgumentError names the range the samplers serve.
    """
    value = check.positive(name, sigma2)
    if not SIGMA2_LOW <= value <= SIGMA2_HIGH:
        shown = str(sigma2) if len(str(sigma2)) <= 40 else f"{str(sigma2)[:20]}… ({len(str(sigma2))} characters)"
        raise ArgumentError(
            f"{name} must lie in [2**-64, 2**100], the variances the exact samplers serve; got {shown}", name
        )
    return value


def decided(word: int, low: float, high: float) -> bool | None:
    """U < p for U in [word, word + 1)/2**63 and p in [low, high]: True or False when the bounds decide, else None.

    Parameters
    ----------
    word : int
        U's first 63 bits.
    low, high : float
        Rigorous bounds on p.

    Returns
    -------
    bool or None
        True when U < p surely, False when U ≥ p surely, None when the bounds cannot tell.
    """
    # the factors 1 ± 2**-50 cover the rounding of word (+ 1) to a double (2**-53)
    if (word + 1) * 2.0**-WORD_BITS * (1 + 2.0**-50) <= low:
        return True
    if word * 2.0**-WORD_BITS * (1 - 2.0**-50) >= high:
        return False
    return None


def exp_bounds(gamma: float, err: float) -> tuple[float, float]:
    """Rigorous bounds on exp(−γ) when |γ − ``gamma``| ≤ ``err`` (the exponential within 2**-48 relative).

    Parameters
    ----------
    gamma : float
        An approximation of γ.
    err : float
        A bound on its error.

    Returns
    -------
    tuple of float
        (low, high) with low ≤ exp(−γ) ≤ high; high > 0 even where the exponential underflows.
    """
    return math.exp(-(gamma + err)) * (1 - 2.0**-48), math.exp(-(gamma - err)) * (1 + 2.0**-48) + 5e-324


def below(word: int, bounds, rng: IntegerSource) -> bool:
    """U < p exactly, U in [word, word + 1)/2**63 refined by more words as needed, p given by interval bounds.

    Parameters
    ----------
    word : int
        U's first 63 bits.
    bounds : callable
        ``bounds(prec)``: an mpmath.iv interval that contains p, at ``prec`` bits.
    rng : IntegerSource
        The source of U's further bits (63 per word).

    Returns
    -------
    bool
        Whether U < p.
    """
    from mpmath import iv  # deferred: the rare undecided draws only, and mpmath takes 30 ms to load

    bits, numerator = WORD_BITS, word
    while True:
        iv.prec = bits + 32
        p = bounds(bits + 32)
        if iv.mpf(numerator + 1) / iv.mpf(2) ** bits <= p.a:
            return True
        if iv.mpf(numerator) / iv.mpf(2) ** bits >= p.b:
            return False
        numerator = (numerator << WORD_BITS) | rng.randbelow(1 << WORD_BITS)
        bits += WORD_BITS


def bernoulli_exp_real(gamma: Fraction, rng: IntegerSource) -> bool:
    """Bernoulli(exp(−γ)) for a rational γ ≥ 0, exactly.

    U < exp(−γ), decided by double bounds or, where they cannot tell, by interval arithmetic on more bits of U.

    Parameters
    ----------
    gamma : fractions.Fraction
        γ ≥ 0.
    rng : IntegerSource
        The random source.

    Returns
    -------
    bool
        True with probability exactly exp(−γ).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact._compiled_draws import WordSource
    >>> from isdp.exact._discrete_gaussian import bernoulli_exp_real
    >>> rng = WordSource(seeded_source(1))
    >>> sum(bernoulli_exp_real(Fraction(1, 2), rng) for _ in range(1000))  # exp(−1/2) ≈ 0.607
    599
    """
    word = rng.randbelow(1 << WORD_BITS)
    if gamma > _HUGE_GAMMA:  # float(γ) may overflow; exp(−γ) lies in [0, 5e-324]
        outcome = decided(word, 0.0, 5e-324)
    else:
        approx = float(gamma)  # correctly rounded: within 2**-53 relative
        outcome = decided(word, *exp_bounds(approx, abs(approx) * 2.0**-52))
    if outcome is not None:
        return outcome
    from mpmath import iv  # deferred: the rare undecided draws only

    return below(word, lambda prec: iv.exp(-(iv.mpf(gamma.numerator) / gamma.denominator)), rng)


def geometric_in_doubles(word: int, t: int) -> int:
    """Return ⌊−t ln U⌋ for every U in [word, word + 1)/2**63 when double precision decides it, else −1.

    −t ln U lies in (x − t/w, x] for x = −t ln(w/2**63), w = ``word`` (as ln(1 + 1/w) < 1/w). The
    computed x is within 2**-51 (t + 2x) of x (the word's rounding to a double moves the logarithm by
    2**-53, the logarithm and the product are within an ulp each), and the bounds allow 2**-46 (t + x).
    The compiled pass runs this same function (:mod:`isdp.exact._compiled_klein`); where it gives −1,
    :func:`inverse_geometric` decides by intervals.

    Parameters
    ----------
    word : int
        U's first 63 bits.
    t : int
        The scale, ≥ 1.

    Returns
    -------
    int
        The integer part, or −1 when the bounds cannot tell (a first word below 2**12, an image within
        about 2**-46 (t + x) of an integer, or an image beyond 2**52).
    """
    if word < _SMALL_WORD:
        return -1
    x = -float(t) * math.log(float(word) * 2.0**-63)
    err = 2.0**-46 * (float(t) + x)
    high = x + err
    if high >= _LARGEST_DOUBLE_FLOOR:
        return -1
    g = math.floor(high)
    # the image is positive (U < 1), so an integer part 0 of the upper bound decides
    if g == 0 or x - float(t) / float(word) * (1 + 2.0**-40) - err >= g:
        return g
    return -1


def inverse_geometric(t: int, rng: IntegerSource) -> int:
    """One exact draw of G = ⌊−t ln U⌋ for a uniform U: P(G ≥ g) = P(U < exp(−g/t)) = exp(−g/t).

    U is revealed 63 bits at a time (``randbelow(2**63)``); G is decided as soon as U's interval
    [w, w + 1)/2**k maps between two integers: by :func:`geometric_in_doubles`, else by interval
    arithmetic at growing precision on more bits of U. As U is never exp(−g/t) for g ≥ 1 (an irrational
    number) the reading ends with probability 1, and G is a function of U alone whichever bounds decide it.

    Parameters
    ----------
    t : int
        The scale, ≥ 1: G is geometric with P(G = g) = (1 − q) q**g, q = exp(−1/t).
    rng : IntegerSource
        The random source.

    Returns
    -------
    int
        The draw, ≥ 0.

    Examples
    --------
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact._compiled_draws import WordSource
    >>> from isdp.exact._discrete_gaussian import inverse_geometric
    >>> rng = WordSource(seeded_source(1))
    >>> round(sum(inverse_geometric(3, rng) for _ in range(10_000)) / 10_000, 1)  # q/(1 − q) = 2.53 at t = 3
    2.5
    """
    word = rng.randbelow(1 << WORD_BITS)
    g = geometric_in_doubles(word, t)
    if g >= 0:
        return g
    from mpmath import iv  # deferred: the rare undecided draws only

    bits, numerator = WORD_BITS, word
    while True:
        if numerator:
            iv.prec = bits + t.bit_length() + 40
            x = -t * iv.log(iv.mpf([numerator, numerator + 1]) / iv.mpf(2) ** bits)
            g = max(0, int(x.a))  # ⌊x.a⌋ where x.a ≥ 0; the image is positive where it is not
            if x.b < g + 1:
                return g
        numerator = (numerator << WORD_BITS) | rng.randbelow(1 << WORD_BITS)
        bits += WORD_BITS


def inverse_double_geometric(t: int, rng: IntegerSource) -> int:
    """One exact draw of DG(1/t), P(y) ∝ exp(−|y|/t): ±G with G from :func:`inverse_geometric`, a sign bit after it.

    The pair (negative, 0) is drawn again, so 0 is as likely as each of ±g is for g ≥ 1 times exp(g/t).

    Parameters
    ----------
    t : int
        The scale, ≥ 1.
    rng : IntegerSource
        The random source.

    Returns
    -------
    int
        The draw.

    Examples
    --------
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact._compiled_draws import WordSource
    >>> from isdp.exact._discrete_gaussian import inverse_double_geometric
    >>> rng = WordSource(seeded_source(1))
    >>> draws = [inverse_double_geometric(2, rng) for _ in range(10_000)]
    >>> round(sum(d * d for d in draws) / 10_000, 1)  # 2q/(1 − q)², q = exp(−1/2): 7.84
    7.9
    """
    while True:
        g = inverse_geometric(t, rng)
        negative = rng.randbelow(2)
        if negative and g == 0:
            continue
        return -g if negative else g


def klein_scale(sigma2: float, a: int, b: int) -> int:
    """Return the double geometric's scale t for a coordinate of Klein's pass with σ_k² = σ²·a/b.

    ⌊√(σ²·a/b)⌋ + 1, in the double-precision operations the compiled pass makes (so both pick the same t).

    Parameters
    ----------
    sigma2 : float
        σ² in double precision.
    a, b : int
        The coordinate's ratio σ_k²/σ² = a/b.

    Returns
    -------
    int
        t ≥ 1.
    """
    return int(math.sqrt(sigma2 * a / b)) + 1


def discrete_gaussian(centre: Fraction, sigma2: Fraction, rng: IntegerSource, *, scale: int | None = None) -> int:
    """One exact draw of the discrete Gaussian D_{Z,σ,c}(x) ∝ exp(−(x − c)²/2σ²), c and σ² rational.

    Rejection from a double geometric centred at c₀ = ⌊c + 1/2⌋ with scale t (Canonne, Kamath &
    Steinke 2020, Algorithm 3, moved to a rational centre): x = c₀ + Y, P(Y) ∝ exp(−|Y|/t) (drawn by
    inversion, :func:`inverse_double_geometric`),
    accepted with probability exp(−γ), γ = M + (x − c)²/2σ² − |Y|/t, where
    M = σ²/2t² + |c − c₀|/t bounds |Y|/t − (x − c)²/2σ² from above for every t > 0 (as
    |Y| ≤ |x − c| + |c − c₀| and a·u − u²/2σ² ≤ a²σ²/2), so γ ≥ 0. Below σ² = 1/8 (:data:`NARROW`)
    M is the least bound, the maximum over the integers (:func:`_least_bound`): the other is then
    too high by up to 1/8σ². The Bernoulli draw is exact (:func:`bernoulli_exp_real`). Any t ≥ 1
    gives the same law; t = ⌊σ⌋ + 1 keeps the acceptance near its best, and a t far from it
    makes it vanish, so ``scale`` is held within a factor 2 of it.

    Parameters
    ----------
    centre : fractions.Fraction, int, float or str
        The centre c, any rational number (read as :func:`isdp._validate.positive` reads numbers).
    sigma2 : fractions.Fraction, int, float or str
        σ², in [2**-64, 2**100] (:data:`SIGMA2_LOW`, :data:`SIGMA2_HIGH`).
    rng : IntegerSource
        The random source.
    scale : int or None, default None
        The double geometric's scale t, an integer in [⌊T/2⌋, 2T] (at least 1) for T = ⌊√σ²⌋ + 1;
        None: T, with the square root in double precision (Klein's sampler passes the t its compiled
        twin computes).

    Returns
    -------
    int
        The draw.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ``centre`` or ``sigma2`` is not a number in one of the number forms,
        ``sigma2`` lies outside [2**-64, 2**100], or ``scale`` is not an integer in its range.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact import discrete_gaussian
    >>> rng = seeded_source(1)
    >>> [discrete_gaussian(Fraction(1, 3), Fraction(4), rng) for _ in range(6)]
    [-3, 3, 1, 2, 5, -1]
    """
    centre, sigma2 = check.exact_number("centre", centre, low=None), sigma2_argument(sigma2)
    best = int(math.sqrt(float(sigma2))) + 1
    t = best if scale is None else check.integer("scale", scale, low=max(1, best // 2), high=2 * best)
    return _discrete_gaussian(centre, sigma2, rng, t)


def _discrete_gaussian(centre: Fraction, sigma2: Fraction, rng: IntegerSource, t: int) -> int:
    """:func:`discrete_gaussian` of arguments known to be in range (Klein's pass), with the scale ``t``."""
    c0 = math.floor(centre + Fraction(1, 2))
    if sigma2 < NARROW:
        bound = _least_bound(centre - c0, sigma2, t)
    else:
        bound = sigma2 / (2 * t * t) + abs(centre - c0) / t
    while True:
        y = inverse_double_geometric(t, rng)
        gamma = bound + (c0 + y - centre) ** 2 / (2 * sigma2) - Fraction(abs(y), t)
        if bernoulli_exp_real(gamma, rng):
            return c0 + y


def _least_bound(d: Fraction, sigma2: Fraction, t: int) -> Fraction:
    """Max over the integers y of f(y) = |y|/t − (y − d)²/2σ², exactly: the least M with γ = M − f(y) ≥ 0.

    On y ≥ 0 and on y ≤ 0, f is a concave quadratic whose peak is at d ± σ²/t; an integer maximum of
    each side is the floor or the ceiling of its peak, or 0 when the peak lies on the other side.
    """
    ys = {0}
    for peak in (d + sigma2 / t, d - sigma2 / t):
        ys.update((math.floor(peak), math.ceil(peak)))
    return max(Fraction(abs(y), t) - (y - d) ** 2 / (2 * sigma2) for y in ys)
