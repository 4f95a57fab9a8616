"""Bernoulli(exp(−γ)) and the double geometric DG(ε) drawn exactly in integer arithmetic.

As in Canonne, Kamath & Steinke 2020, §5.

The compiled double geometric of the MCMC kernels (:func:`isdp._rng.dg_table`) is a Walker alias
table whose probabilities are rounded to multiples of 2**-52, with a floating-point logarithm in
its tail: its law differs from DG(ε) by rounding, and which outputs are possible or how often can
depend on the rounding — harmless for studying a sampler, not what a published release should
rest on. Here every draw is a function of uniformly random *integers* only
(:class:`IntegerSource`): ε is a fraction p/q, Bernoulli(exp(-γ)) for rational γ is drawn by
comparisons of random integers (CKS Algorithm 1), and the double geometric by CKS Algorithm 2,
so the sampled law is DG(ε) exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import _validate as check
from ._integer_sources import IntegerSource, read_bytes

_INT64_MAX = 2**63 - 1
#: the array samplers' smallest ε: their draws, int64, reach 2**63 with probability below exp(−2**12)
MIN_ARRAY_EPS = Fraction(1, 2**50)


def bernoulli_exp(num: int, den: int, rng: IntegerSource) -> bool:
    """Bernoulli(exp(-γ)) for a rational γ = num/den ≥ 0 (CKS Algorithm 1), exactly.

    Parameters
    ----------
    num : int
        γ's numerator, an integer ≥ 0 (0.5 is refused, not truncated: write γ = 1/2 as 1, 2).
    den : int
        γ's denominator, an integer > 0.
    rng : IntegerSource
        The random source.

    Returns
    -------
    bool
        True with probability exactly exp(−num/den).

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ``num`` is not an integer ≥ 0 or ``den`` not an integer > 0 (a bool, a
        float with a fraction, NaN).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), *The Discrete Gaussian for Differential Privacy*,
    Algorithm 1. For γ ≤ 1: draw Bernoulli(γ/k) for k = 1, 2, … until the first failure at K
    (each a comparison of a uniform integer below den·k with num); P(K odd) = exp(-γ). For γ > 1:
    exp(-γ) = exp(-1)^⌊γ⌋ · exp(-(γ - ⌊γ⌋)), stopping at the first failure. No floating-point
    number is involved.

    Examples
    --------
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact._exact_draws import bernoulli_exp
    >>> rng = seeded_source(2024)
    >>> [bernoulli_exp(1, 2, rng) for _ in range(6)]  # exp(-1/2) ≈ 0.61
    [False, True, True, True, False, False]
    >>> bernoulli_exp(0, 1, rng)  # exp(0) = 1
    True
    """
    return _bernoulli_exp(check.integer("num", num, low=0), check.integer("den", den, low=1), rng)


def _bernoulli_exp(num: int, den: int, rng: IntegerSource) -> bool:
    """:func:`bernoulli_exp` on integers known to be in range (the samplers' inner loops)."""
    while num > den:
        if not _bernoulli_exp(1, 1, rng):
            return False
        num -= den
    k = 1
    while rng.randbelow(den * k) < num:  # Bernoulli(γ/k)
        k += 1
    return k % 2 == 1


def double_geometric(eps: Fraction, rng: IntegerSource) -> int:
    """One draw of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational (:func:`double_geometric_array`).

    Parameters
    ----------
    eps : fractions.Fraction, int, float or str
        ε > 0, any positive number in one of the number forms (:func:`isdp._validate.positive`).
    rng : IntegerSource
        The random source.

    Returns
    -------
    int
        The draw, a Python integer (of any size).

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ``eps`` is not a positive number in one of the number forms.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import seeded_source
    >>> from isdp.exact._exact_draws import double_geometric
    >>> double_geometric(Fraction(1, 2), seeded_source(2024))
    1
    """
    return _double_geometric(check.positive("eps", eps), rng)


def _double_geometric(eps: Fraction, rng: IntegerSource) -> int:
    """:func:`double_geometric` of an ε known to be a positive fraction (the samplers' inner loops)."""
    # CKS Algorithm 2 one draw at a time in Python integers (the array version's numpy overhead
    # dominates a single draw): P(y) ∝ exp(−|y| s/t)
    s, t = eps.numerator, eps.denominator
    while True:
        u = rng.randbelow(t)
        if not _bernoulli_exp(u, t, rng):
            continue
        v = 0
        while _bernoulli_exp(1, 1, rng):  # V: successes of Bernoulli(exp(-1)) before the first failure
            v += 1
        y = (u + t * v) // s
        negative = rng.randbelow(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _uniform_below(m: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Draw uniform integers on [0, m_i) for each m_i < 2**62, exactly.

    63-bit words from ``rng.randbytes``, those at or above the largest multiple of m_i below 2**63 drawn again
    (rejection, no modulo bias).
    """
    m = np.asarray(m, dtype=np.uint64)
    limit = (np.uint64(1 << 63) // m) * m
    words = np.frombuffer(read_bytes(rng, 8 * m.size), dtype="<u8") >> np.uint64(1)
    out = words % m
    todo = np.flatnonzero(words >= limit)  # almost always none (P < m_i / 2**63): the arrays stay whole
    while todo.size:
        words = np.frombuffer(read_bytes(rng, 8 * todo.size), dtype="<u8") >> np.uint64(1)
        ok = words < limit[todo]
        out[todo[ok]] = words[ok] % m[todo[ok]]
        todo = todo[~ok]
    return out


def _bernoulli_exp_array(num: np.ndarray, den: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Bernoulli(exp(-num_i/den_i)) for 0 ≤ num_i ≤ den_i, elementwise (CKS Algorithm 1 for γ ≤ 1).

    K_i is the first k at which Bernoulli(γ_i/k) fails, and the draw is K_i odd.
    """
    num, den = np.asarray(num, dtype=np.uint64), np.asarray(den, dtype=np.uint64)
    odd = np.zeros(num.shape, dtype=bool)
    active = np.arange(num.size)
    k = 1  # the same for every element still drawing: all start at 1 and step together
    while active.size:
        carry_on = _uniform_below(den * np.uint64(k), rng) < num
        odd[active[~carry_on]] = k % 2 == 1
        active, num, den = active[carry_on], num[carry_on], den[carry_on]
        k += 1
    return odd


def double_geometric_array(epsilon: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` independent draws of the double geometric DG(ε), P(k) ∝ exp(-ε|k|), exactly.

    CKS Algorithm 2 (the discrete Laplace of scale t/s = 1/ε for ε = s/t) run on whole arrays: far
    fewer calls to the random source than one draw at a time, and the same law.

    Parameters
    ----------
    epsilon : fractions.Fraction, int, float or str
        ε ≥ 2**-50 (per unit ℓ1 distance), in one of the number forms (:func:`isdp._validate.positive`): any
        numerator, any denominator (one of 2**31 or more is drawn one at a time, in Python integers).
    size : int
        The number of draws, ≥ 0.
    rng : IntegerSource
        The random source (its ``randbytes``; ``randbelow`` for a denominator of 2**31 or more).

    Returns
    -------
    numpy.ndarray of int64, shape (size,)
        The draws, independent.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ``epsilon`` is not a number in one of the number forms or is below 2**-50 (the
        draws, of scale 1/ε, would not fit int64), or ``size`` is not an integer ≥ 0.

    See Also
    --------
    double_geometric : One draw.

    Notes
    -----
    Canonne, Kamath & Steinke (2020), *The Discrete Gaussian for Differential Privacy*,
    Algorithm 2. X = U + tV with P(X) ∝ exp(-X/t) (U uniform on 0..t-1 kept with probability
    exp(-U/t), V geometric), so Y = ⌊X/s⌋ has P(Y = y) ∝ exp(-ys/t); a random sign (Y = 0 counted
    once) makes it DG. Every step draws uniform integers only (:func:`bernoulli_exp`), so the law
    is DG(ε) exactly, with variance 2r/(1 − r)², r = e^−ε.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import double_geometric_array, seeded_source
    >>> draws = double_geometric_array(Fraction(1), 20000, seeded_source(2024))
    >>> draws.dtype, draws.shape
    (dtype('int64'), (20000,))
    >>> round(float(np.mean(draws == 0)), 3)  # P(0) = (1 - e^-1)/(1 + e^-1) ≈ 0.462
    0.465
    """
    epsilon = check.exact_number("epsilon", epsilon, low=MIN_ARRAY_EPS, low_closed=True)
    size = check.size("size", size)
    s, t = epsilon.numerator, epsilon.denominator
    if t >= 2**31:  # den·k would leave uint64 in the array arithmetic
        return np.array([_double_geometric(epsilon, rng) for _ in range(size)], dtype=np.int64)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        n = todo.size
        u = _uniform_below(np.full(n, t), rng)
        kept = _bernoulli_exp_array(u, np.full(n, t), rng)
        v = np.zeros(n, dtype=np.int64)
        active = np.flatnonzero(kept)
        while active.size:  # V: successes of Bernoulli(exp(-1)) before the first failure
            success = _bernoulli_exp_array(np.ones(active.size), np.ones(active.size), rng)
            v[active[success]] += 1
            active = active[success]
        # u + t·v < 2**63 ≤ s: y = 0 (numpy cannot divide by an s beyond int64)
        y = (u.astype(np.int64) + t * v) // s if s <= _INT64_MAX else np.zeros(n, dtype=np.int64)
        negative = _uniform_below(np.full(n, 2), rng) == 1
        good = kept & ~(negative & (y == 0))
        out[todo[good]] = np.where(negative, -y, y)[good]
        todo = todo[~good]
    return out
