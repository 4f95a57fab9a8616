"""Klein's sampler compiled.

The exact discrete Gaussian on the lattice of a total or of two margins, for many blocks of one shape at once.

The pass of :meth:`isdp.exact.LatticeBlock.draw`, run by numba on a stream of random bits read in bulk
(:class:`~isdp.exact._compiled_draws.WordSource`): each coordinate z_k is drawn from
D_{Z,σ_k,c_k} by :func:`isdp.exact.discrete_gaussian`'s rejection — the centre c_k = C/R and the
nearest integer c₀ = ⌊c_k + 1/2⌋ in integers, the double geometric DG(1/t) by inversion, its
integer part ⌊−t ln U⌋ decided from U's first 63 bits by the Python pass's own double-precision
rule (:func:`~isdp.exact._discrete_gaussian.geometric_in_doubles`, compiled), and the decision
U < exp(−γ) made from U's first 63 bits
against double-precision bounds on exp(−γ): γ's four terms are computed in a handful of
roundings each, so |γ̃ − γ| ≤ 2⁻⁴⁹ Σ|terms|, and the kernel allows 2⁻⁴⁰ Σ|terms| (and 2⁻⁴⁸ for the
exponential). The pass's final acceptance is decided against 1 − (a bound on 1 − the product of
theta ratios). A decision these bounds cannot make (probability about 2⁻⁴⁰ each at σ_k ≥ 1),
an integer that could leave the range where doubles are exact, or a narrow σ_k sends the block,
from its first bit, to the Python pass, which decides in exact interval arithmetic and reads
on from the same bits. Every decision is U < p, a function of U and p alone, so the compiled
blocks are the Python ones bit for bit (``tests/core/exact/test_compiled_klein.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._compiled_draws import WordSource, _bits
from ._discrete_gaussian import NARROW, geometric_in_doubles

#: kernel outcomes: every block drawn; the words ran out; a decision or an integer the kernel leaves to Python
_DONE, _MORE_WORDS, _HAND_OVER = 0, 2, 3
_FIRST_WORDS, _MAX_WORDS = 1 << 12, 1 << 20
_EXACT = 2.0**53  # integers below this are exact in a double
#: below this σ_k² the Python pass takes the least rejection bound (above NARROW in any rounding of σ_k²)
_NARROW = 2 * float(NARROW)
#: at most this many cells in all are drawn by the Python pass: loading the compiled kernel (about 0.4 s) costs more
_PYTHON_CELLS = 4096

_geometric = njit(cache=True, nogil=True)(geometric_in_doubles)


@njit(cache=True, nogil=True)
def _below_exp(gamma, err, words, pos):
    """U < exp(−γ) from the next word, |γ̃ − γ| ≤ err.

    1 or 0 and the next position; -1 when the words run out, -2 when the bounds cannot tell
    (:func:`isdp.exact._discrete_gaussian.decided`).
    """
    bits, pos = _bits(words, pos, 63)
    if bits < 0:
        return np.int64(-1), pos
    word = float(bits)
    low = math.exp(-(gamma + err)) * (1 - 2.0**-48)
    high = math.exp(-(gamma - err)) * (1 + 2.0**-48) + 5e-324
    if (word + 1) * 2.0**-63 * (1 + 2.0**-50) <= low:
        return np.int64(1), pos
    if word * 2.0**-63 * (1 - 2.0**-50) >= high:
        return np.int64(0), pos
    return np.int64(-2), pos


@njit(cache=True, nogil=True)
def _coordinate(C, R, sigma2, a, b, words, pos):
    """Draw once from D_{Z,σ_k,C/R}, σ_k² = σ²·a/b: the value, the next position and the outcome.

    As :func:`isdp.exact.discrete_gaussian` with :func:`~isdp.exact._discrete_gaussian.klein_scale`'s t.
    """
    s2 = sigma2 * a / b
    if s2 < _NARROW:
        return np.int64(0), pos, _HAND_OVER
    t = int(math.sqrt(s2)) + 1
    c0 = (2 * C + R) // (2 * R)  # ⌊C/R + 1/2⌋ (R > 0)
    t1 = s2 / (2.0 * t * t)
    t2 = abs(C - c0 * R) / (float(R) * t)
    while True:
        bits, pos = _bits(words, pos, 63)
        if bits < 0:
            return np.int64(0), pos, _MORE_WORDS
        g = _geometric(bits, t)
        if g < 0:
            return np.int64(0), pos, _HAND_OVER
        negative, pos = _bits(words, pos, 1)
        if negative < 0:
            return np.int64(0), pos, _MORE_WORDS
        if negative == 1 and g == 0:
            continue
        y = -g if negative == 1 else g
        if abs(y) * float(R) >= _EXACT:  # before (c0 + y)·R, which could leave int64
            return np.int64(0), pos, _HAND_OVER
        d = (c0 + y) * R - C
        if abs(d) >= _EXACT:
            return np.int64(0), pos, _HAND_OVER
        t3 = float(d) * float(d) / (float(R) * float(R) * 2.0 * s2)
        t4 = abs(y) / float(t)
        kept, pos = _below_exp(t1 + t2 + t3 - t4, 2.0**-40 * (t1 + t2 + t3 + t4), words, pos)
        if kept == -1:
            return np.int64(0), pos, _MORE_WORDS
        if kept == -2:
            return np.int64(0), pos, _HAND_OVER
        if kept == 1:
            return c0 + y, pos, _DONE


@njit(cache=True, nogil=True)
def _gap(s2):
    """Return a bound on 1 − ρ_s(Z − c)/ρ_s(Z) for every c (:func:`isdp.exact._lattice_gaussian._theta_gap_bound`)."""
    if s2 * 2 * math.pi < 1:
        return 1.0
    q = math.exp(-2 * math.pi**2 * s2)
    return 4 * q / (1 - q) * (1 + 1e-9) + 1e-300


@njit(cache=True, nogil=True)
def _pass(total, r, c, sigma2, words, pos, z):
    """One Klein pass into ``z`` (shape (r + 1, c + 1), zero beyond the coordinates) and its acceptance.

    The outcome and the next position.
    """
    gap = 0.0
    if total:
        for i in range(c - 1, 0, -1):
            if i * float(abs(z[0, i + 1])) >= _EXACT:  # the centre's numerator, before it could leave int64
                return _HAND_OVER, pos
            z[0, i], pos, outcome = _coordinate(i * z[0, i + 1], np.int64(i + 1), sigma2, i, i + 1, words, pos)
            if outcome != _DONE:
                return outcome, pos
            gap += _gap(sigma2 * i / (i + 1))
    else:
        for i in range(r - 1, 0, -1):
            for j in range(c - 1, 0, -1):
                R = np.int64((i + 1) * (j + 1))
                # |C| ≤ R Σ|z|: checked in floats before C, which could leave int64
                near = float(abs(z[i, j + 1])) + float(abs(z[i + 1, j])) + float(abs(z[i + 1, j + 1]))
                if float(R) * near >= _EXACT:
                    return _HAND_OVER, pos
                C = j * (i + 1) * z[i, j + 1] + i * (j + 1) * z[i + 1, j] - i * j * z[i + 1, j + 1]
                z[i, j], pos, outcome = _coordinate(C, R, sigma2, i * j, R, words, pos)
                if outcome != _DONE:
                    return outcome, pos
                gap += _gap(sigma2 * (i * j) / R)
    bits, pos = _bits(words, pos, 63)
    if bits < 0:
        return _MORE_WORDS, pos
    word = float(bits)
    # the acceptance: surely kept when U lies below 1 − gap; the Python pass decides every other case
    if gap < 1 and (word + 1) * 2.0**-63 * (1 + 2.0**-50) <= 1 - gap - 2.0**-40:
        return _DONE, pos
    return _HAND_OVER, pos


@njit(cache=True, nogil=True)
def _blocks(total, r, c, sigma2, words, pos, out, attempts, start):
    """Blocks ``start`` on into ``out`` (count, r + 1, c + 1).

    The outcome, the block it stopped at, and the position (a stopped block's first word).
    """
    for block in range(start, out.shape[0]):
        first = pos
        attempts[block] = 1
        z = out[block]
        z[:] = 0
        outcome, pos = _pass(total, r, c, sigma2, words, pos, z)
        if outcome != _DONE:
            return outcome, block, first
    return _DONE, out.shape[0], pos


def compiled_klein_blocks(
    kind: str, shape: tuple[int, int], sigma2, count: int, rng, reference
) -> tuple[np.ndarray, int]:
    """``count`` independent Klein draws of the lattice coordinates of one block shape, compiled.

    Parameters
    ----------
    kind : {"total", "margins"}
        The block's invariants (:class:`isdp.exact.LatticeBlock`).
    shape : tuple of int
        The grid's shape (1, n) or (r, c).
    sigma2 : fractions.Fraction
        σ² > 0.
    count : int
        The number of blocks.
    rng : IntegerSource
        The source of the words: :func:`isdp.exact.system_source` for publication.
    reference : callable
        ``reference(reader)``: one block's (z, attempts) by the Python pass, reading a
        :class:`~isdp.exact._compiled_draws.WordSource`; the blocks the kernel hands over.

    Returns
    -------
    z : numpy.ndarray of int64, shape (count, dim)
        Each block's coordinates, in the order of :meth:`isdp.exact.LatticeBlock.noise`.
    attempts : int
        The Klein passes drawn in all.
    """
    r, c = (1, shape[1]) if kind == "total" else shape
    out = np.zeros((count, r + 1, c + 1), dtype=np.int64)
    attempts = np.zeros(count, dtype=np.int64)
    reader = WordSource(rng)
    if count * r * c <= _PYTHON_CELLS:  # the same draws from the same words, without loading the kernel
        z = [reference(reader) for _ in range(count)]
        dim = c - 1 if kind == "total" else (r - 1) * (c - 1)
        return np.array([v for v, _ in z], dtype=np.int64).reshape(count, dim), sum(a for _, a in z)
    # a proposal takes a word and a bit, its acceptance a word, and the narrower σ_k the more proposals: a cell took
    # 3.9 words at σ² = 1, 3.7 at 2 (30 × 30 margins), 3.1 at 9, 2.6 from 10⁴ on (measured); at least one block's
    # worth with a margin, as a block that runs out of words starts over on a longer buffer (a 2,000,000-cell block
    # read 1, 2 then 4 M words, drawing it nearly twice)
    per_cell = 2.8 + 1.4 / math.sqrt(max(1.0, float(sigma2)))  # below σ² = 1 blocks are mostly handed over
    want = max(_FIRST_WORDS, min(_MAX_WORDS, 4 * r * c * count), math.ceil(per_cell * r * c))
    done = 0
    while done < count:
        reader.ensure(want)
        outcome, done, reader.pos = _blocks(
            kind == "total",
            np.int64(r),
            np.int64(c),
            float(sigma2),
            reader.words,
            np.int64(reader.pos),
            out,
            attempts,
            np.int64(done),
        )
        if outcome == _MORE_WORDS:  # the block at `done` starts over on a buffer with more words after these
            want = max(want, 2 * (reader.words.size - (reader.pos >> 6)))
        elif outcome == _HAND_OVER:  # the block at `done` is drawn again in Python, from its first word
            z, attempts[done] = reference(reader)
            out[done] = 0
            if kind == "total":
                out[done, 0, 1:c] = z
            else:
                out[done, 1:r, 1:c] = z.reshape(r - 1, c - 1)
            done += 1
    coordinates = out[:, 0, 1:c] if kind == "total" else out[:, 1:r, 1:c].reshape(count, -1)
    return np.ascontiguousarray(coordinates), int(attempts.sum())
