"""The double geometric DG(ε) in compiled integer arithmetic, fed by a stream of random bits read in bulk.

The same algorithm as :func:`double_geometric` (Canonne, Kamath & Steinke 2020, Algorithm 2, with
their Algorithm 1 for the Bernoulli(exp(−γ)) steps), compiled with numba and run on a buffer of
64-bit words that the source fills in one call (``randbytes``: ``os.urandom`` for
:func:`system_source`), read as one stream of bits. Every uniform integer on [0, m) is the next
``(m − 1).bit_length()`` bits, read again while they are m or more (no modulo bias, and only the
bits it needs: about 11 per draw at ε = 1/2); every other step is a comparison or a sum of
integers below 2**63. So the law of each draw is DG(ε) exactly, and on the same stream the draws
are those of :func:`double_geometric` on a source whose ``randbelow`` reads bits the same way
(:class:`WordSource`): ``tests/core/exact/test_compiled_draws.py`` compares them draw for draw.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from .. import _validate as check
from ..errors import ArgumentError
from ._exact_draws import double_geometric_array
from ._integer_sources import IntegerSource, bound, read_bytes

#: the bits a draw is expected to use, when the buffer is sized (more are read as needed): about 11 at ε = 1/2,
#: 18 at 1/3, 52 at 1/1000
_BITS_PER_DRAW = 32
#: the fewest words a :class:`WordSource` reads at a time (the Python samplers read a few bits per step)
_READ_AHEAD = 512
#: draws per buffer of words
_CHUNK = 1 << 16
#: largest ε numerator and denominator the compiled draw takes: u + t·v and the rejection limits stay below 2**63
_LIMIT = 2**31


@njit(cache=True, nogil=True)
def _bits(words, pos, b):
    """Return the ``b`` bits (1 ≤ b ≤ 63) of the stream from bit ``pos`` on, first bit highest, and the next position.

    -1 when the words run out. Bit ``pos`` is bit 63 − pos % 64 of word pos // 64 (each word read highest first).
    """
    end = pos + b
    if end > words.size * 64:
        return np.int64(-1), pos
    i, off = pos >> 6, np.uint64(pos & 63)
    x = words[i] << off
    if off + np.uint64(b) > np.uint64(64):
        x |= words[i + 1] >> (np.uint64(64) - off)
    return np.int64(x >> (np.uint64(64) - np.uint64(b))), end


@njit(cache=True, nogil=True)
def _bit_length(n):
    """Return the number of bits of ``n`` ≥ 0 (Python's ``int.bit_length``)."""
    b = 0
    while n:
        n >>= 1
        b += 1
    return b


@njit(cache=True, nogil=True)
def _below(words, pos, m):
    """Return a uniform integer on [0, m) from the stream at bit ``pos`` on, and the next position.

    -1 when the words run out. ``(m − 1).bit_length()`` bits at a time, read again while they are m or more (no
    bits when m = 1).
    """
    b = _bit_length(m - 1)
    if b == 0:
        return np.int64(0), pos
    while True:
        x, pos = _bits(words, pos, b)
        if x < m:  # -1 (out of words) included
            return x, pos


@njit(cache=True, nogil=True)
def _bernoulli_exp(num, den, words, pos):
    """Bernoulli(exp(−num/den)) for 0 ≤ num ≤ den (CKS Algorithm 1).

    1 or 0, and the next position; -1 when the words run out.
    """
    k = 1
    while True:
        x, pos = _below(words, pos, den * k)
        if x < 0:
            return np.int64(-1), pos
        if x >= num:
            return np.int64(k % 2), pos
        k += 1


@njit(cache=True, nogil=True)
def _draw(s, t, words, pos):
    """One draw of DG(s/t) (CKS Algorithm 2), the next position, and whether the words sufficed."""
    while True:
        u, pos = _below(words, pos, t)
        if u < 0:
            return np.int64(0), pos, False
        kept, pos = _bernoulli_exp(u, t, words, pos)
        if kept < 0:
            return np.int64(0), pos, False
        if kept == 0:
            continue
        v = 0
        while True:  # V: successes of Bernoulli(exp(−1)) before the first failure
            success, pos = _bernoulli_exp(1, 1, words, pos)
            if success < 0:
                return np.int64(0), pos, False
            if success == 0:
                break
            v += 1
        y = (u + t * v) // s
        negative, pos = _below(words, pos, 2)
        if negative < 0:
            return np.int64(0), pos, False
        if negative == 1 and y == 0:
            continue
        return (-y if negative == 1 else y), pos, True


@njit(cache=True, nogil=True)
def _fill(s, t, words, pos, out, start):
    """Draws into ``out[start:]`` from bit ``pos`` on until the words run out.

    How many of ``out`` are drawn, and the position of the first bit of the draw that ran out (read again, with more
    words, by the next call).
    """
    for i in range(start, out.size):
        first = pos
        value, pos, complete = _draw(s, t, words, pos)
        if not complete:
            return i, first
        out[i] = value
    return out.size, pos


def _words(rng: IntegerSource, n: int) -> np.ndarray:
    return np.frombuffer(read_bytes(rng, 8 * n), dtype="<u8").astype(np.uint64, copy=False)


class _Forks:
    """How many times this process is a fork's child.

    A :class:`WordSource` drops the words it read before a fork, which the parent (and every other child) holds too.
    """

    count = 0


def _after_fork_in_child() -> None:
    _Forks.count += 1


os.register_at_fork(after_in_child=_after_fork_in_child)


def compiled_double_geometric(epsilon, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` independent draws of DG(ε), P(k) ∝ exp(−ε|k|), exactly, in compiled integer arithmetic.

    The law of :func:`double_geometric_array` (CKS Algorithm 2), run by a compiled kernel on random
    words the source delivers in bulk: millions of draws per second instead of tens of thousands.

    Parameters
    ----------
    epsilon : fractions.Fraction, int, float or str
        ε > 0, read as :func:`isdp._validate.positive` reads it, an exact rational s/t with s and t
        below 2**31 (:func:`double_geometric_array` serves any other).
    size : int
        The number of draws, ≥ 0.
    rng : IntegerSource
        The source of the words (its ``randbytes``): :func:`system_source` for publication.

    Returns
    -------
    numpy.ndarray of int64, shape (size,)
        The draws, independent.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ε is not a positive number in one of the number forms or its numerator or
        denominator is 2**31 or more, or ``size`` is not an integer ≥ 0.

    See Also
    --------
    double_geometric : One draw in Python integers; on a :class:`WordSource` it reads the same words.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import compiled_double_geometric, seeded_source
    >>> draws = compiled_double_geometric(Fraction(1, 2), 100_000, seeded_source(7))
    >>> draws.dtype, round(float(draws.var()), 1)  # 2r/(1 − r)², r = e^(−1/2): 7.84
    (dtype('int64'), 7.8)
    """
    epsilon, size = check.positive("epsilon", epsilon), check.size("size", size)
    s, t = epsilon.numerator, epsilon.denominator
    if s >= _LIMIT or t >= _LIMIT:
        raise ArgumentError(
            f"epsilon = {epsilon} must be a fraction s/t with s and t below 2**31 for the compiled draw "
            "(double_geometric_array serves any)",
            "epsilon",
        )
    out = np.empty(size, dtype=np.int64)
    reader = WordSource(rng)
    for start in range(0, out.size, _CHUNK):  # a chunk's words at a time: memory does not grow with size
        part, done = out[start : start + _CHUNK], 0
        want = -(-_BITS_PER_DRAW * part.size // 64) + 1
        while done < part.size:
            reader.ensure(want)
            # a draw that runs out of words starts again from its first bit, on more words read after these
            done, reader.pos = _fill(np.int64(s), np.int64(t), reader.words, np.int64(reader.pos), part, done)
            want *= 2
    return out


def dg_draws(eps, size: int, rng: IntegerSource) -> np.ndarray:
    """DG(ε) draws for the exact samplers.

    Compiled where ε's numerator and denominator are below 2**31 (:func:`compiled_double_geometric`), else in numpy
    integer arithmetic (:func:`double_geometric_array`, which takes any numerator); the same law either way.
    """
    if 0 < eps.numerator < _LIMIT and eps.denominator < _LIMIT:
        return compiled_double_geometric(eps, size, rng)
    return double_geometric_array(eps, size, rng)


class WordSource:
    """A source whose uniform integers are read from a stream of random bits as the compiled samplers read them.

    The bits come from another source's ``randbytes``, read ahead in bulk as 64-bit words into
    :attr:`words`, each word's bits read highest first. ``randbelow(m)`` reads the next
    ``(m − 1).bit_length()`` bits as an integer and reads again while it is m or more (no bits for
    m = 1), as the compiled kernels do: a draw uses the bits it needs, not a word per uniform. A
    kernel reads :attr:`words` from bit :attr:`pos` on and sets :attr:`pos` to where it stopped, so
    the Python samplers on this source read on from the same bit: they reproduce the compiled
    draws bit for bit, and draw a block a kernel hands back from the bits it would have used.
    A fork's child drops the words read before the fork (the parent holds the same ones) and reads
    new ones from the source: on :func:`system_source`, parent and child draw differently.

    Parameters
    ----------
    rng : IntegerSource
        The source of the bytes.

    Attributes
    ----------
    words : numpy.ndarray of uint64
        The words read and not yet passed.
    pos : int
        The first unused bit of :attr:`words` (bit ``pos % 64``, from the highest, of word ``pos // 64``).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import compiled_double_geometric, seeded_source
    >>> from isdp.exact._compiled_draws import WordSource
    >>> from isdp.exact._exact_draws import double_geometric
    >>> reader = WordSource(seeded_source(5))
    >>> reference = [double_geometric(Fraction(1, 3), reader) for _ in range(1000)]
    >>> reference == compiled_double_geometric(Fraction(1, 3), 1000, seeded_source(5)).tolist()
    True
    >>> round(reader.pos / 1000, 1)  # bits per draw at ε = 1/3
    18.4
    """

    def __init__(self, rng: IntegerSource) -> None:
        self._rng, self.words, self.pos, self._forks = rng, np.empty(0, dtype=np.uint64), 0, _Forks.count

    def ensure(self, n: int) -> None:
        """At least ``n`` unread words' worth of bits: the words not yet passed first, then new ones after them.

        Parameters
        ----------
        n : int
            The number of 64-bit words wanted.
        """
        if self._forks != _Forks.count:  # the words read before a fork are the parent's too
            self.words, self.pos, self._forks = np.empty(0, dtype=np.uint64), 0, _Forks.count
        passed = self.pos >> 6
        if self.words.size * 64 - self.pos < 64 * n:
            new = _words(self._rng, max(n + 1 - (self.words.size - passed), _READ_AHEAD))
            self.words, self.pos = np.concatenate([self.words[passed:], new]), self.pos & 63

    def randbytes(self, n: int) -> bytes:
        """Return the next ``8 n`` bytes' bits of the stream, as ``n / 8`` words (each written little-endian).

        Parameters
        ----------
        n : int
            The number of bytes, a multiple of 8.

        Returns
        -------
        bytes
            The bytes.
        """
        if check.size("n", n) % 8:
            raise ArgumentError(f"n must be a multiple of 8 (a WordSource reads whole 8-byte words), got {n}", "n")
        k = n // 8
        self.ensure(k + 1)
        i, off = self.pos >> 6, np.uint64(self.pos & 63)
        out = self.words[i : i + k]
        if off:  # the words straddle two of the buffer's
            out = (out << off) | (self.words[i + 1 : i + k + 1] >> (np.uint64(64) - off))
        self.pos += 64 * k
        return out.astype("<u8").tobytes()

    def randbelow(self, n: int) -> int:
        """Return a uniform integer on [0, n): ``(n − 1).bit_length()`` bits at a time, by rejection.

        Parameters
        ----------
        n : int
            The number of outcomes, ≥ 1 (any size: above 2**64 the bits span several words).

        Returns
        -------
        int
            The draw.
        """
        n = bound(n)
        b = (n - 1).bit_length()
        if b == 0:
            return 0
        while (x := self._bits(b)) >= n:
            pass
        return x

    def _bits(self, b: int) -> int:
        """Return the next ``b`` ≥ 1 bits of the stream as an integer, the first bit highest."""
        x = 0
        while b > 64:  # whole words first: the same bits, in the same order, as one read of b bits
            x, b = (x << 64) | self._bits(64), b - 64
        self.ensure(1)
        i, off = self.pos >> 6, self.pos & 63
        word = (int(self.words[i]) << off) & 0xFFFF_FFFF_FFFF_FFFF
        if off + b > 64:
            word |= int(self.words[i + 1]) >> (64 - off)
        self.pos += b
        return (x << b) | (word >> (64 - b))
