"""The double geometric DG(ε) in compiled integer arithmetic, fed by random words read in bulk.

The same algorithm as :func:`double_geometric` (Canonne, Kamath & Steinke 2020, Algorithm 2, with
their Algorithm 1 for the Bernoulli(exp(−γ)) steps), compiled with numba and run on a buffer of
64-bit words that the source fills in one call (``randbytes``: ``os.urandom`` for
:func:`system_source`). Every uniform integer on [0, m) is a word's top 63 bits, drawn again while
they are at or above the largest multiple of m below 2**63 (no modulo bias); every other step is a
comparison or a sum of integers below 2**63. So the law of each draw is DG(ε) exactly, and with the
same words the draws are those of :func:`double_geometric` on a source whose ``randbelow`` reads
words the same way (:class:`WordSource`): ``tests/core/exact/test_compiled_draws.py`` compares them
draw for draw.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

from ._exact_draws import double_geometric_array
from ._integer_sources import IntegerSource

#: the words a draw is expected to use at most, per draw, when the buffer is sized (more are read as needed)
_WORDS_PER_DRAW = 8
#: draws per buffer of words
_CHUNK = 1 << 16
#: largest ε numerator and denominator the compiled draw takes: u + t·v and the rejection limits stay below 2**63
_LIMIT = 2**31


@njit(cache=True, nogil=True)
def _below(words, pos, m):
    """A uniform integer on [0, m) from the words at ``pos`` on, and the next position; -1 when they run out."""
    limit = (np.uint64(1) << np.uint64(63)) // np.uint64(m) * np.uint64(m)
    while pos < words.size:
        word = words[pos] >> np.uint64(1)
        pos += 1
        if word < limit:
            return np.int64(word % np.uint64(m)), pos
    return np.int64(-1), pos


@njit(cache=True, nogil=True)
def _bernoulli_exp(num, den, words, pos):
    """Bernoulli(exp(−num/den)) for 0 ≤ num ≤ den (CKS Algorithm 1): 1 or 0, and the next position; -1 when
    the words run out."""
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
def _fill(s, t, words, out, start):
    """Draws into ``out[start:]`` until the words run out: how many of ``out`` are drawn, and the position of
    the first word of the draw that ran out (its words are read again, with more, by the next call)."""
    pos = 0
    for i in range(start, out.size):
        first = pos
        value, pos, complete = _draw(s, t, words, pos)
        if not complete:
            return i, first
        out[i] = value
    return out.size, pos


def _words(rng: IntegerSource, n: int) -> np.ndarray:
    return np.frombuffer(rng.randbytes(8 * n), dtype="<u8").astype(np.uint64, copy=False)


def compiled_double_geometric(eps, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` independent draws of DG(ε), P(k) ∝ exp(−ε|k|), exactly, in compiled integer arithmetic.

    The law of :func:`double_geometric_array` (CKS Algorithm 2), run by a compiled kernel on random
    words the source delivers in bulk: millions of draws per second instead of tens of thousands.

    Parameters
    ----------
    eps : fractions.Fraction, int or str
        ε > 0 as an exact rational s/t, with s and t below 2**31.
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
    ValueError
        When ε is not positive, its numerator or denominator is 2**31 or more, or ``size`` < 0.

    See Also
    --------
    double_geometric : One draw in Python integers; on a :class:`WordSource` it reads the same words.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import compiled_double_geometric, seeded_source
    >>> draws = compiled_double_geometric(Fraction(1, 2), 100_000, seeded_source(7))
    >>> draws.dtype, round(float(draws.var()), 1)  # 2r/(1 − r)², r = e^(−1/2): 7.9
    (dtype('int64'), 7.9)
    """
    eps = Fraction(eps)
    s, t = eps.numerator, eps.denominator
    if s <= 0 or s >= _LIMIT or t >= _LIMIT:
        raise ValueError(f"ε = {eps} must be a positive fraction s/t with s and t below 2**31")
    if int(size) != size or size < 0:
        raise ValueError(f"size must be a non-negative integer, got {size!r}")
    out = np.empty(int(size), dtype=np.int64)
    left = np.empty(0, dtype=np.uint64)  # words read but not used yet: the next draws use them first
    for start in range(0, out.size, _CHUNK):  # buffers of a chunk's words: memory does not grow with size
        part = out[start:start + _CHUNK]
        words, done = np.concatenate([left, _words(rng, _WORDS_PER_DRAW * part.size + 64)]), 0
        while True:
            done, pos = _fill(np.int64(s), np.int64(t), words, part, done)
            if done == part.size:
                break
            # the draw at `done` ran out: its words are kept and more read after them, so the stream is the same
            words = np.concatenate([words[pos:], _words(rng, _WORDS_PER_DRAW * (part.size - done) + 64)])
        left = words[pos:]
    return out


def dg_draws(eps: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """DG(ε) draws for the exact samplers: compiled where ε's numerator and denominator are below 2**31
    (:func:`compiled_double_geometric`), else in numpy integer arithmetic (:func:`double_geometric_array`,
    which takes any numerator); the same law either way."""
    if 0 < eps.numerator < _LIMIT and eps.denominator < _LIMIT:
        return compiled_double_geometric(eps, size, rng)
    return double_geometric_array(eps, size, rng)


class WordSource:
    """A source whose uniform integers are read from 64-bit words as the compiled samplers read them.

    The words come from another source's ``randbytes``, read ahead in bulk into :attr:`words`.
    ``randbelow(m)`` takes the top 63 bits of the next word and draws again while they are at or
    above the largest multiple of m below 2**63, as the compiled kernels do. A kernel reads
    :attr:`words` from :attr:`pos` on and sets :attr:`pos` to where it stopped, so the Python
    samplers on this source read on from the same word: they reproduce the compiled draws word for
    word, and draw a block a kernel hands back from the words it would have used.

    Parameters
    ----------
    rng : IntegerSource
        The source of the bytes.

    Attributes
    ----------
    words : numpy.ndarray of uint64
        The words read so far.
    pos : int
        The first word not yet used.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import WordSource, compiled_double_geometric, double_geometric, seeded_source
    >>> reference = [double_geometric(Fraction(1, 3), WordSource(seeded_source(5))) for _ in range(1)]
    >>> reference == compiled_double_geometric(Fraction(1, 3), 1, seeded_source(5)).tolist()
    True
    """

    def __init__(self, rng: IntegerSource) -> None:
        self._rng, self.words, self.pos = rng, np.empty(0, dtype=np.uint64), 0

    def ensure(self, n: int) -> None:
        """At least ``n`` unread words in :attr:`words`: those left first, then new ones read after them.

        Parameters
        ----------
        n : int
            The number of words wanted.
        """
        left = self.words[self.pos:]
        if left.size < n:
            # at least a few hundred at a time: the Python samplers read one word per step
            self.words, self.pos = np.concatenate([left, _words(self._rng, max(n - left.size, 512))]), 0

    def randbytes(self, n: int) -> bytes:
        """The next ``n`` bytes of the stream: the unread words first.

        Parameters
        ----------
        n : int
            The number of bytes, a multiple of 8.

        Returns
        -------
        bytes
            The bytes.
        """
        if n % 8:
            raise ValueError(f"a WordSource reads whole 8-byte words; got {n} bytes")
        self.ensure(n // 8)
        out = self.words[self.pos:self.pos + n // 8].tobytes()
        self.pos += n // 8
        return out

    def randbelow(self, n: int) -> int:
        """A uniform integer on [0, n), from 63-bit words by rejection.

        Parameters
        ----------
        n : int
            The number of outcomes, 1 ≤ n ≤ 2**63.

        Returns
        -------
        int
            The draw.
        """
        limit = (1 << 63) // n * n
        while True:
            self.ensure(1)
            word = int(self.words[self.pos]) >> 1
            self.pos += 1
            if word < limit:
                return word % n
