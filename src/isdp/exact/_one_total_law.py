"""The law of K, the size of the two weak compositions behind a one-total block's ℓ1 noise, as inversion thresholds.

On a block of n cells under one total, the ℓ1 law π(u) ∝ exp(−ε‖u‖₁) on {Σu = 0} is the law of u = g − g′ for
(g, g′) i.i.d. geometric vectors conditioned on Σg = Σg′ (docs/method.md, "One total, drawn directly"); their
common sum K has P(K) ∝ w(K) = C(K + n − 1, n − 1)² e^{−2εK}. Here that law is turned into integer thresholds
for a uniform of ``bits`` bits read as an integer a, so that comparing a with them decides K without a
floating-point number: :func:`one_total_law` bounds e^{−2ε} by rationals (its Taylor series with a bounded
remainder), the weights w(K)/w(K_lo) by the recurrence w(K + 1)/w(K) = ((K + n)/(K + 1))² e^{−2ε} rounded down
for the lower bound and up for the upper, and the tails outside the window [K_lo, K_hi] by geometric series
(the ratio of neighbours is monotone: w is log-concave). Where a falls between a lower and an upper bound the
comparison is undecided, and the sampler reads more bits against thresholds of more precision
(:meth:`OneTotalLaw.decide`); that happens with probability about (K_hi − K_lo)·2^−bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

#: precision of the weights beyond the uniform's bits
_GUARD_BITS = 64
#: the window holds every K whose weight is above 2^−(bits + this) of the largest
_WINDOW_BITS = 24
#: the most thresholds a law holds for 62-bit uniforms (K's spread grows like √n/ε: a tiny ε is drawn by rejection)
MAX_WINDOW = 2**18


def _exp_minus(y: Fraction, bits: int) -> tuple[int, int]:
    """Integers lo ≤ e^{−y}·2^bits ≤ hi for a rational y ≥ 0, by the Taylor series of e^{y/2^j} ≤ e and squaring."""
    j = max(0, math.ceil(math.log2(float(y)))) if y > 1 else 0
    z = y / 2**j  # z ≤ 1
    p = bits + j + 8  # each squaring at most doubles the relative width
    total, term, k = Fraction(1), Fraction(1), 0
    while True:  # partial sums of e^z; after term k the rest is at most term·(z/(k + 1))/(1 − z/(k + 2))
        k += 1
        term = term * z / k
        total += term
        rest = term * z / (k + 1) / (1 - z / (k + 2))
        if rest * 2 ** (p + 2) < 1:
            break
    upper, lower = total + rest, total  # bounds of e^z
    lo = (upper.denominator << p) // upper.numerator  # ⌊2^p / upper⌋
    hi = -((-lower.denominator << p) // lower.numerator)  # ⌈2^p / lower⌉
    for _ in range(j):  # e^{−y} = (e^{−z})^(2^j): squares of bounds of a positive number bound its square
        lo, hi = (lo * lo) >> p, -((-hi * hi) >> p)
    shift = p - bits
    return lo >> shift, -((-hi) >> shift)


def _window(n: int, eps: float, bits: int) -> tuple[int, int]:
    """Return the K whose weight is within 2^−(bits + 24) of the mode's (floats: where to look, never a decision)."""
    q = math.exp(-eps)
    mode = max(0, math.floor((n * q - 1) / (1 - q))) if q < 1 else 0

    def log_w(k: int) -> float:
        return 2 * (math.lgamma(k + n) - math.lgamma(k + 1)) - 2 * eps * k

    floor = log_w(mode) - (bits + _WINDOW_BITS) * math.log(2)
    lo, step = mode, 1
    while lo > 0 and log_w(lo) > floor:  # doubling, then the last interval walked: O(log) evaluations
        lo = max(0, lo - step)
        step *= 2
    hi, step = mode, 1
    while log_w(hi) > floor:
        hi += step
        step *= 2
    return lo, hi


@lru_cache(maxsize=256)  # a table's blocks share a few sizes: once per size, not once per block
def fits(n: int, eps: Fraction) -> bool:
    """Return whether K's law for ``n`` cells at ``eps`` has at most :data:`MAX_WINDOW` thresholds (in floats).

    Parameters
    ----------
    n : int
        The cells under the total, ≥ 2.
    eps : fractions.Fraction
        ε > 0 per unit ℓ1 distance.

    Returns
    -------
    bool
        True when the one-total block is drawn directly; False leaves it to the rejection sampler (the same law).

    Examples
    --------
    >>> from fractions import Fraction
    >>> fits(100, Fraction(1, 2)), fits(100, Fraction(1, 10**9))
    (True, False)
    """
    lo, hi = _window(n, float(eps), 62)
    return hi - lo < MAX_WINDOW


@dataclass(frozen=True)
class OneTotalLaw:
    """Inversion thresholds of K's law for a uniform integer a of ``bits`` bits (0 ≤ a < 2^bits).

    K = k_lo + i is certain when ``lower[i] > a ≥ upper_before[i]``: then F(K − 1) ≤ a/2^bits and
    (a + 1)/2^bits ≤ F(K), F the distribution function of K. Any other a is undecided at these bits.

    Parameters
    ----------
    n : int
        The cells under the total.
    eps : fractions.Fraction
        ε per unit ℓ1 distance.
    bits : int
        The bits of the uniform.
    k_lo : int
        The first K of the window.
    lower : numpy.ndarray of object (Python int), shape (k_hi − k_lo + 1,)
        ⌊F_lo(K)·2^bits⌋ for K = k_lo, …, k_hi (nondecreasing).
    upper_before : numpy.ndarray of object (Python int), shape (k_hi − k_lo + 1,)
        ⌈F_hi(K − 1)·2^bits⌉ for K = k_lo, …, k_hi (F(k_lo − 1) the left tail's mass; 0 when k_lo = 0).
    """

    n: int
    eps: Fraction
    bits: int
    k_lo: int
    lower: np.ndarray
    upper_before: np.ndarray

    def decide(self, a: int) -> int | None:
        """Return K for the uniform integer ``a`` (``bits`` bits), or None when these thresholds cannot decide it.

        Parameters
        ----------
        a : int
            The uniform's bits as an integer, 0 ≤ a < 2^bits.

        Returns
        -------
        int or None
            K, exactly the inverse of K's distribution function at a uniform whose first bits are a.

        Examples
        --------
        >>> from fractions import Fraction
        >>> law = one_total_law(100, Fraction(1, 2), 62)
        >>> law.decide(2**61)  # the median of K for 100 cells at ε = 1/2
        153
        >>> law.decide(0) is None  # the left tail, beyond these thresholds: more bits decide it
        True
        """
        i = int(np.searchsorted(self.lower, a, side="right"))  # the first K with a < lower
        if i == len(self.lower) or a < self.upper_before[i]:
            return None
        return self.k_lo + i

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the thresholds as int64 (``bits`` ≤ 62), for the compiled sampler."""
        assert self.bits <= 62  # every threshold ≤ 2^62
        return self.lower.astype(np.int64), self.upper_before.astype(np.int64)


@lru_cache(maxsize=64)
def one_total_law(n: int, eps: Fraction, bits: int) -> OneTotalLaw:
    """Return the inversion thresholds of K's law, P(K) ∝ C(K + n − 1, n − 1)² e^{−2εK}, for ``bits``-bit uniforms.

    Parameters
    ----------
    n : int
        The cells under the total, ≥ 2.
    eps : fractions.Fraction
        ε > 0 per unit ℓ1 distance.
    bits : int
        The bits of the uniform the thresholds are for.

    Returns
    -------
    OneTotalLaw
        The thresholds, rigorous: every bound is rounded outwards in integer arithmetic.

    Examples
    --------
    >>> from fractions import Fraction
    >>> law = one_total_law(2, Fraction(1), 62)
    >>> law.k_lo, round(law.lower[0] / 2**62, 12)  # P(K = 0) = 1/Σ (K + 1)² e^{−2K}
    (0, 0.569402117881)
    """
    p = bits + _GUARD_BITS
    ql, qh = _exp_minus(2 * eps, p)  # ql ≤ e^{−2ε}·2^p ≤ qh
    k_lo, k_hi = _window(n, float(eps), bits)
    one = 1 << p
    # the left tail: w(K − 1)/w(K) = (K/(K + n − 1))² e^{2ε} grows with K, so below k_lo it is at most ρ_L
    if k_lo > 0:
        rho = Fraction(k_lo * k_lo * one, (k_lo + n - 1) ** 2 * ql)
        if rho >= 1:  # no bound from here (never at the window's edge): start at 0
            k_lo = 0
    # the weights w(K)/w(k_lo)·2^p, rounded down and up
    lows, highs = [one], [one]
    while True:
        k = k_lo + len(lows) - 1
        lows.append(lows[-1] * (k + n) ** 2 * ql // ((k + 1) ** 2 * one))
        highs.append(-(-highs[-1] * (k + n) ** 2 * qh // ((k + 1) ** 2 * one)))
        if k + 1 >= k_hi:
            rho_r = Fraction((k + 1 + n) ** 2 * qh, (k + 2) ** 2 * one)  # w(K + 1)/w(K) beyond, at most
            if rho_r < 1:
                break
    k_hi = k_lo + len(lows) - 1
    right = math.ceil(highs[-1] * rho_r / (1 - rho_r))
    left = 0 if k_lo == 0 else math.ceil(one * rho / (1 - rho))
    low_total, high_total = sum(lows), sum(highs)
    lower, upper_before = [], []
    low_cum = high_cum = 0
    for lo, hi in zip(lows, highs, strict=True):
        # F(K − 1) ≤ (left + Σ_{<K} hi)/(left + Σ_{<K} hi + Σ_{≥K} lo): F grows with the mass below K
        upper_before.append(-(-((left + high_cum) << bits) // (left + high_cum + low_total - low_cum)))
        low_cum, high_cum = low_cum + lo, high_cum + hi
        # F(K) ≥ Σ_{≤K} lo/(Σ_{≤K} lo + Σ_{>K} hi + right)
        lower.append((low_cum << bits) // (low_cum + high_total - high_cum + right))
    del k_hi
    return OneTotalLaw(n, eps, bits, k_lo, np.array(lower, dtype=object), np.array(upper_before, dtype=object))
