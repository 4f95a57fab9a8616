"""The exact ℓ1 noise of blocks under one total, compiled and drawn directly, with no proposal rejected.

On a block of n cells whose only invariant is one total with coefficients ±1, every cell in the norm, the ℓ1
law π(u) ∝ exp(−ε‖u‖₁) on {Σ a_i u_i = 0} is drawn without proposals to reject (docs/method.md, "One total,
drawn directly"): K from its law P(K) ∝ C(K + n − 1, n − 1)² e^{−2εK} by inversion of a uniform against
integer thresholds (:func:`~isdp.exact._one_total_law.one_total_law`), then g and g′ two independent uniform
weak compositions of K into n parts (Floyd's sample of the n − 1 bars, or of the K stars when fewer, among
K + n − 1 slots), and u_i = a_i (g_i − g′_i). On the Gaussian route (σ = a/b, ε = 1/σ) the draw is kept with
probability exp(−Σ (b|u_i| − a)² / 2a²), as :mod:`isdp.exact._compiled_l1` keeps its proposals.

**Exact.** Every decision compares uniform integers (the stream's next bits) with integers: K's thresholds are
rounded outwards, and a uniform that falls between a lower and an upper threshold (probability about
(window)·2^−62) stops the kernel at the block's first bit; :func:`reference_one_total`, the same algorithm in
Python integers, then draws the block from the same bits, reading 64 more bits of the uniform against thresholds
of 64 more bits of precision until K is decided. So the draws are those of :func:`reference_one_total` on the
same bits (``tests/core/exact/test_compiled_one_total.py`` compares them block for block).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

from ._compiled_draws import _LIMIT, WordSource, _below, _bits
from ._compiled_l1 import _DONE, _FAILED, _MORE_WORDS, _TOO_LARGE, _bernoulli_exp_any
from ._exact_draws import _bernoulli_exp as _python_bernoulli_exp
from ._integer_sources import IntegerSource
from ._one_total_law import one_total_law

#: the bits of the uniform that decides K in the kernel (its thresholds are below 2**62)
UNIFORM_BITS = 62
#: more bits of the uniform, and of the thresholds' precision, each time K is undecided
_MORE_BITS = 64
#: words in the first buffer, and the most a buffer holds unless one block needs more
_FIRST_WORDS, _MAX_WORDS = 1 << 12, 1 << 20
#: at most this many cells in all are drawn by :func:`reference_one_total` (the same draws from the same words)
_PYTHON_CELLS = 64


@njit(cache=True, nogil=True)
def _composition(K, n, words, pos, marks, out):
    """Draw a uniform weak composition of K into ``out``'s n parts; return the next position (-1: out of words).

    Floyd's uniform sample of the n − 1 bars among the K + n − 1 slots (of the K stars when K < n − 1), marked in
    ``marks``, which is left all False.
    """
    if K == 0:
        out[:] = 0
        return pos
    slots = K + n - 1
    stars = K < n - 1
    choose = K if stars else n - 1
    for j in range(slots - choose, slots):
        t, pos = _below(words, pos, j + 1)
        if t < 0:
            marks[:slots] = False
            return np.int64(-1)
        if marks[t]:
            marks[j] = True
        else:
            marks[t] = True
    part, count = 0, 0
    for p in range(slots):
        if marks[p] != stars:  # a bar
            out[part] = count
            part += 1
            count = 0
        else:
            count += 1
        marks[p] = False
    out[part] = count
    return pos


@njit(cache=True, nogil=True)
def _one_block(lower, upper_before, k_lo, signs, a, b, max_attempts, words, pos, marks, other, row):
    """One block into ``row``: draws until one is kept (at once without a σ). The outcome, draws and next position."""
    n = signs.size
    attempt = 0
    while attempt < max_attempts:
        attempt += 1
        x, pos = _bits(words, pos, 62)
        if x < 0:
            return _MORE_WORDS, attempt, pos
        i = np.searchsorted(lower, x, side="right")  # the first K with x < its lower threshold
        if i == lower.size or x < upper_before[i]:
            return _TOO_LARGE, attempt, pos  # undecided at 62 bits: Python integers read on
        K = k_lo + i
        pos = _composition(K, n, words, pos, marks, other)
        if pos < 0:
            return _MORE_WORDS, attempt, pos
        pos = _composition(K, n, words, pos, marks, row)
        if pos < 0:
            return _MORE_WORDS, attempt, pos
        for c in range(n):
            row[c] = signs[c] * (other[c] - row[c])
        if a == 0:
            return _DONE, attempt, pos
        if n * (b * float(K) + a) ** 2 >= 2.0**61:  # |u_i| ≤ K: the numerator below stays below 2**61
            return _TOO_LARGE, attempt, pos
        num = np.int64(0)
        for c in range(n):
            d = b * abs(row[c]) - a
            num += d * d
        kept, pos = _bernoulli_exp_any(num, 2 * a * a, words, pos)
        if kept < 0:
            return (_MORE_WORDS if kept == -1 else _TOO_LARGE), attempt, pos
        if kept == 1:
            return _DONE, attempt, pos
    return _FAILED, attempt, pos


@njit(cache=True, nogil=True)
def _blocks(lower, upper_before, k_lo, signs, a, b, max_attempts, words, pos, out, attempts, start):
    """Blocks ``start`` on into ``out``'s rows: the outcome, the block it stopped at, and the position.

    The position is a stopped block's first bit when the words ran out, K was undecided or an integer would grow
    too large.
    """
    n = signs.size
    marks = np.zeros(k_lo + lower.size + n, dtype=np.bool_)  # K + n − 1 slots at most
    other = np.empty(n, dtype=np.int64)
    for block in range(start, out.shape[0]):
        first = pos
        outcome, used, pos = _one_block(
            lower, upper_before, k_lo, signs, a, b, max_attempts, words, pos, marks, other, out[block]
        )
        attempts[block] = used
        if outcome == _FAILED:
            return outcome, block, pos
        if outcome != _DONE:
            return outcome, block, first
    return _DONE, out.shape[0], pos


def _python_count(n: int, eps: Fraction, rng) -> int:
    """K by inversion: a uniform of 62 bits, then 64 more at a time against finer thresholds, until decided."""
    bits, a = UNIFORM_BITS, rng.randbelow(1 << UNIFORM_BITS)
    while (k := one_total_law(n, eps, bits).decide(a)) is None:
        a, bits = (a << _MORE_BITS) | rng.randbelow(1 << _MORE_BITS), bits + _MORE_BITS
    return k


def _python_composition(K: int, n: int, rng) -> list[int]:
    """:func:`_composition` in Python integers, reading the same bits."""
    if K == 0:
        return [0] * n
    slots, stars = K + n - 1, K < n - 1
    marked: set[int] = set()
    for j in range(slots - (K if stars else n - 1), slots):
        t = rng.randbelow(j + 1)
        marked.add(j if t in marked else t)
    parts, count = [], 0
    for p in range(slots):
        if (p in marked) != stars:
            parts.append(count)
            count = 0
        else:
            count += 1
    return [*parts, count]


def reference_one_total(
    signs: np.ndarray, eps: Fraction, rng, *, max_attempts: int, sigma: Fraction | None = None
) -> tuple[list[int] | None, int]:
    """One block's noise in Python integers, one draw after another: the compiled kernel's algorithm.

    Parameters
    ----------
    signs : numpy.ndarray of int, shape (n,)
        The total's coefficients, each 1 or −1.
    eps : fractions.Fraction
        ε per unit ℓ1 distance (1/σ with ``sigma``).
    rng : IntegerSource
        The source of uniform integers (a :class:`~isdp.exact._compiled_draws.WordSource` to read the kernel's words).
    max_attempts : int
        Draws before giving up (with ``sigma``; without, the first draw is kept).
    sigma : fractions.Fraction or None, default None
        With a σ, the generalized Gaussian's rejection from the ℓ1 draw.

    Returns
    -------
    row : list of int or None
        The block's noise, cell by cell; None when nothing was kept.
    attempts : int
        The ℓ1 draws made.
    """
    n = len(signs)
    for attempt in range(1, max_attempts + 1):
        K = _python_count(n, eps, rng)
        g, h = _python_composition(K, n, rng), _python_composition(K, n, rng)
        u = [int(s) * (x - y) for s, x, y in zip(signs, g, h, strict=True)]
        if sigma is None:
            return u, attempt
        gamma = sum((abs(v) - sigma) ** 2 for v in u) / (2 * sigma**2)
        if _python_bernoulli_exp(gamma.numerator, gamma.denominator, rng):
            return u, attempt
    return None, max_attempts


def one_total_blocks(
    signs: np.ndarray,
    eps: Fraction,
    count: int,
    rng: IntegerSource,
    *,
    max_attempts: int,
    sigma: Fraction | None = None,
) -> tuple[np.ndarray | None, int]:
    """``count`` independent blocks' noise under one total, drawn directly, compiled where the integers allow.

    Parameters
    ----------
    signs, eps, max_attempts, sigma
        As for :func:`reference_one_total` (``max_attempts`` per block).
    count : int
        The number of blocks.
    rng : IntegerSource
        The source of the words: :func:`isdp.exact.system_source` for publication.

    Returns
    -------
    rows : numpy.ndarray of int64, shape (count, n) or None
        Per block, its noise; None when some block kept nothing (with ``sigma`` only).
    attempts : int
        The ℓ1 draws made in all blocks (up to the block that kept nothing).
    """
    n = len(signs)
    out = np.zeros((count, n), dtype=np.int64)
    attempts = np.zeros(count, dtype=np.int64)
    eps, sigma = Fraction(eps), None if sigma is None else Fraction(sigma)
    a, b = (0, 0) if sigma is None else (sigma.numerator, sigma.denominator)
    reader = WordSource(rng)

    def in_python(block: int) -> bool:  # the block at ``block`` from the reader's position; False when none kept
        row, attempts[block] = reference_one_total(signs, eps, reader, max_attempts=max_attempts, sigma=sigma)
        if row is not None:
            out[block] = row
        return row is not None

    # outside the kernel's integers, or so few cells that loading the kernel costs more than them
    if not (a < _LIMIT and b < _LIMIT) or count * n <= _PYTHON_CELLS:
        for block in range(count):
            if not in_python(block):
                return None, int(attempts[: block + 1].sum())
        return out, int(attempts.sum())
    lower, upper_before = one_total_law(n, eps, UNIFORM_BITS).kernel_arrays()
    k_lo = one_total_law(n, eps, UNIFORM_BITS).k_lo
    kernel_signs = np.ascontiguousarray(signs, dtype=np.int64)
    # a block's bits: 62 for K, then about 2(n − 1) uniforms of ⌈log₂(K + n)⌉ bits; more are read as needed
    want = min(_MAX_WORDS, max(_FIRST_WORDS, (n + 1) * count // 3))
    done = 0
    while done < count:
        reader.ensure(want)
        outcome, done, reader.pos = _blocks(
            lower,
            upper_before,
            np.int64(k_lo),
            kernel_signs,
            np.int64(a),
            np.int64(b),
            np.int64(max_attempts),
            reader.words,
            np.int64(reader.pos),
            out,
            attempts,
            np.int64(done),
        )
        if outcome == _FAILED:
            return None, int(attempts[: done + 1].sum())
        if outcome == _MORE_WORDS:  # the block at `done` starts over on a buffer with more words after these
            want = max(want, 2 * (reader.words.size - (reader.pos >> 6)))
        elif outcome == _TOO_LARGE:  # the block at `done` is drawn again in Python integers, from its first bit
            if not in_python(done):
                return None, int(attempts[: done + 1].sum())
            done += 1
    return out, int(attempts.sum())
