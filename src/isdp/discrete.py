"""Exact discrete samplers in integer arithmetic, for releases (Canonne, Kamath & Steinke 2020, §5).

The compiled double geometric of the MCMC kernels (:func:`isdp._rng.dg_table`) is a Walker alias
table whose probabilities are rounded to multiples of 2**-52, with a floating-point logarithm in
its tail: its law differs from DG(ε) by rounding, and which outputs are possible or how often can
depend on the rounding — harmless for studying a sampler, not what a published release should
rest on. Here every draw is a function of uniformly random *integers* only: ε is a fraction p/q,
Bernoulli(exp(-γ)) for rational γ is drawn by comparisons of random integers (CKS Algorithm 1),
and the double geometric by CKS Algorithm 2, so the sampled law is DG(ε) exactly.

The random source is any object with ``randbelow(n)`` returning a uniform integer in [0, n):
:class:`secrets.SystemRandom` (operating-system entropy, for publication) or
:func:`seeded_source` (reproducible, not for publication).
"""

from __future__ import annotations

import random
import secrets
from fractions import Fraction
from typing import Protocol

import numpy as np


class IntegerSource(Protocol):
    """Uniform random integers: ``randbelow(n)`` is uniform on {0, …, n-1}; ``randbytes(k)`` gives k
    uniformly random bytes (for the array samplers)."""

    def randbelow(self, n: int) -> int: ...

    def randbytes(self, n: int) -> bytes: ...


class _Seeded(random.Random):
    """Python's Mersenne Twister; ``randbelow`` draws integers by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


class _System(secrets.SystemRandom):
    """Operating-system entropy (``os.urandom``); ``randbelow`` by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


def system_source() -> IntegerSource:
    """Operating-system entropy: the default source of a release."""
    return _System()


def seeded_source(seed: int) -> IntegerSource:
    """A reproducible source from ``seed``: for tests and reproductions, not for publication."""
    return _Seeded(int(seed))


def as_fraction(value) -> Fraction:
    """``value`` as an exact positive fraction; strings are read exactly (``"0.1"`` is 1/10)."""
    try:
        f = Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{value!r} is not a number") from None
    if f <= 0:
        raise ValueError(f"{value!r} must be positive")
    return f


def bernoulli_exp(num: int, den: int, rng: IntegerSource) -> bool:
    """Bernoulli(exp(-γ)) for a rational γ = num/den ≥ 0 (CKS Algorithm 1), exactly.

    For γ ≤ 1: draw Bernoulli(γ/k) for k = 1, 2, … until the first failure at K; P(K odd) = exp(-γ).
    For γ > 1: exp(-γ) = exp(-1)^⌊γ⌋ · exp(-(γ - ⌊γ⌋)), stopping at the first failure.
    """
    if num < 0 or den <= 0:
        raise ValueError(f"gamma must be a non-negative fraction, got {num}/{den}")
    while num > den:
        if not bernoulli_exp(1, 1, rng):
            return False
        num -= den
    k = 1
    while rng.randbelow(den * k) < num:  # Bernoulli(γ/k)
        k += 1
    return k % 2 == 1


def double_geometric(eps: Fraction, rng: IntegerSource) -> int:
    """One draw of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational (:func:`double_geometric_array`)."""
    return int(double_geometric_array(eps, 1, rng)[0])


def _uniform_below(m: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Uniform integers on [0, m_i) for each m_i < 2**62, exactly: 63-bit words from ``rng.randbytes``,
    those at or above the largest multiple of m_i below 2**63 drawn again (rejection, no modulo bias)."""
    m = np.asarray(m, dtype=np.uint64)
    out = np.empty(m.shape, dtype=np.uint64)
    todo = np.arange(m.size)
    limit = (np.uint64(1 << 63) // m) * m
    while todo.size:
        words = np.frombuffer(rng.randbytes(8 * todo.size), dtype="<u8") >> np.uint64(1)
        ok = words < limit[todo]
        out[todo[ok]] = words[ok] % m[todo[ok]]
        todo = todo[~ok]
    return out


def _bernoulli_exp_array(num: np.ndarray, den: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Bernoulli(exp(-num_i/den_i)) for 0 ≤ num_i ≤ den_i, elementwise (CKS Algorithm 1 for γ ≤ 1):
    K_i is the first k at which Bernoulli(γ_i/k) fails, and the draw is K_i odd."""
    num, den = np.asarray(num, dtype=np.uint64), np.asarray(den, dtype=np.uint64)
    k = np.ones(num.shape, dtype=np.uint64)
    K = np.zeros(num.shape, dtype=np.uint64)
    active = np.arange(num.size)
    while active.size:
        carry_on = _uniform_below(den[active] * k[active], rng) < num[active]
        stopped = active[~carry_on]
        K[stopped] = k[stopped]
        active = active[carry_on]
        k[active] += np.uint64(1)
    return K % np.uint64(2) == 1


def double_geometric_array(eps: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` independent draws of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational, int64 (CKS Algorithm 2,
    scale t/s = 1/ε, run on whole arrays: far fewer calls to the random source than one at a time).

    X = U + tV with P(X) ∝ exp(-X/t) (U uniform on 0..t-1 kept with probability exp(-U/t), V
    geometric), so Y = ⌊X/s⌋ has P(Y = y) ∝ exp(-ys/t); a random sign (Y = 0 counted once) makes it DG.
    """
    s, t = eps.numerator, eps.denominator
    if not 0 < t < 2**31 or s <= 0:
        raise ValueError(f"ε = {eps} must be a positive fraction with a denominator below 2**31")
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
        y = (u.astype(np.int64) + t * v) // s
        negative = _uniform_below(np.full(n, 2), rng) == 1
        good = kept & ~(negative & (y == 0))
        out[todo[good]] = np.where(negative, -y, y)[good]
        todo = todo[~good]
    return out
