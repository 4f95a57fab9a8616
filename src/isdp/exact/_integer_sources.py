"""The sources of uniform random integers, the only randomness of the exact samplers (release mode).

A source is any object with ``randbelow(n)``, a uniform integer in [0, n), and ``randbytes(n)``:
:func:`system_source` (operating-system entropy, for publication) or :func:`seeded_source`
(reproducible, not for publication). Both draw integers by rejection from random bits, so no
modulo bias and no floating-point number enters a draw.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Protocol

import numpy as np

from .. import _validate as check
from ..errors import ArgumentError

#: the words of a Mersenne Twister's state
_MT_WORDS = 624


class IntegerSource(Protocol):  # numpydoc ignore=PR01
    """A source of uniform random integers, the only randomness the exact samplers use.

    Any object with these two methods serves: :func:`system_source` (operating-system entropy, for
    publication) and :func:`seeded_source` (reproducible, not for publication) are the two the
    package provides. A typing protocol only: it is not checked at run time.

    See Also
    --------
    system_source : Operating-system entropy.
    seeded_source : A reproducible source from a seed.

    Examples
    --------
    >>> from isdp.exact import seeded_source
    >>> rng = seeded_source(2024)
    >>> [rng.randbelow(6) for _ in range(5)]
    [4, 1, 1, 4, 3]
    >>> len(rng.randbytes(8))
    8
    """

    def randbelow(self, n: int) -> int:
        """Return a uniform integer on {0, …, n − 1}, exactly (no modulo bias).

        Parameters
        ----------
        n : int
            The number of outcomes, ≥ 1.

        Returns
        -------
        int
            The draw.
        """
        ...

    def randbytes(self, n: int) -> bytes:
        """``n`` uniformly random bytes (for the array samplers).

        Parameters
        ----------
        n : int
            The number of bytes.

        Returns
        -------
        bytes
            The draw.
        """
        ...


def bound(n) -> int:
    """``n`` as the number of outcomes of a uniform draw, an integer ≥ 1.

    0 or a negative bound has no draw, and Python's own rejection loop would never end on one.
    """
    return n if type(n) is int and n >= 1 else check.integer("n", n, low=1)


def read_bytes(rng: IntegerSource, n: int) -> bytes:
    """``rng.randbytes(n)``, refused when the source returns fewer (or more) bytes than asked.

    A sampler waiting for more words from a source that has none would wait forever.
    """
    data = rng.randbytes(n)
    if len(data) != n:
        raise ArgumentError(
            f"rng returned {len(data)} bytes when {n} were asked: a source's randbytes(n) must return n bytes", "rng"
        )
    return data


class _Seeded(random.Random):
    """Python's Mersenne Twister; ``randbelow`` draws integers by rejection from random bits (exact).

    The state is the seed's :class:`numpy.random.SeedSequence` words, not ``random.seed``'s: that reads
    a seed as a key of 32-bit words whose length varies with the seed, and keys of different lengths can
    give one state (5 and 17179869189 do). SeedSequence mixes a seed below 2**128 into its 128-bit pool
    one to one, and each of the first four words of its output is a one-to-one function of a word of
    the pool, so distinct seeds below 2**128 give distinct states.
    """

    # CPython's exact rejection draw, private and so absent from the stubs (randrange checks its argument again)
    _randbelow: Callable[[int], int]

    def __init__(self, seed: int = 0) -> None:  # no seed: as pickle rebuilds a source, before its state
        super().__init__(0)
        words = np.random.SeedSequence(seed).generate_state(_MT_WORDS, np.uint32).tolist()
        self.setstate((3, (*words, _MT_WORDS), None))

    def randbelow(self, n: int) -> int:
        return self._randbelow(bound(n))

    def randbytes(self, n: int) -> bytes:
        return super().randbytes(check.size("n", n))


class _System(secrets.SystemRandom):
    """Operating-system entropy (``os.urandom``); ``randbelow`` by rejection from random bits (exact)."""

    _randbelow: Callable[[int], int]  # as in _Seeded

    def randbelow(self, n: int) -> int:
        return self._randbelow(bound(n))

    def randbytes(self, n: int) -> bytes:
        return super().randbytes(check.size("n", n))


def system_source() -> IntegerSource:
    """Operating-system entropy: the default source of a release.

    Returns
    -------
    IntegerSource
        A :class:`secrets.SystemRandom` (``os.urandom``) whose ``randbelow`` draws by rejection
        from random bits, exactly.

    See Also
    --------
    seeded_source : A reproducible source, for tests and reproductions.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import system_source
    >>> from isdp.exact._exact_draws import double_geometric
    >>> rng = system_source()
    >>> 0 <= rng.randbelow(6) < 6
    True
    >>> isinstance(double_geometric(Fraction(1, 2), rng), int)
    True
    """
    return _System()


def seeded_source(seed: int) -> IntegerSource:
    """Return a reproducible source from ``seed``: for tests and reproductions, not for publication.

    Parameters
    ----------
    seed : int
        A non-negative integer. The Mersenne Twister's state is ``numpy.random.SeedSequence(seed)``'s
        words, so seeds below 2**128 give distinct streams.

    Returns
    -------
    IntegerSource
        A :class:`random.Random` whose ``randbelow`` draws by rejection from random bits, exactly.
        Its stream is predictable from the seed, so a release drawn from it protects nobody.

    Raises
    ------
    ValueError
        If ``seed`` is not a non-negative integer (a float would be truncated).

    See Also
    --------
    system_source : The source of a release for publication.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import double_geometric_array, seeded_source
    >>> double_geometric_array(Fraction(1, 2), 6, seeded_source(2024)).tolist()
    [3, 0, -1, 0, 0, -2]
    >>> double_geometric_array(Fraction(1, 2), 6, seeded_source(2024)).tolist()  # the same seed, the same draws
    [3, 0, -1, 0, 0, -2]
    """
    return _Seeded(check.seed(seed))
