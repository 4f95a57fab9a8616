"""Per-chain pseudo-random streams for the compiled kernels (xoshiro256**).

Numba's built-in ``np.random`` keeps one state per thread, so the draws of chains run on several
threads (:func:`isdp._runner.over_streams`) would depend on how the chains are spread over the
threads. Here every chain owns a 4-word state seeded from :class:`numpy.random.SeedSequence`, so a
seed fixes the draws whatever the number of threads.
"""

from __future__ import annotations

import hashlib
import zlib

import numpy as np
from numba import njit, uint64

from . import _validate as check
from .errors import ArgumentError

_TWO_POW_M53 = 1.0 / 9007199254740992.0


def seed_states(seed: int, n_streams: int) -> np.ndarray:
    """Independent xoshiro256** states, one row (4 × uint64) per stream.

    Row ``i`` is ``numpy.random.SeedSequence(seed).spawn(n_streams)[i].generate_state(4, np.uint64)``,
    computed for all rows at once (:func:`_spawned_words`): spawning children one at a time costs
    about 30 µs each, which a run of a million pairs or exact draws would spend in seeding.
    ``seed`` must be a non-negative integer: ``None`` would draw fresh OS entropy and make the run
    irreproducible, so it is refused like nan or -1.

    Parameters
    ----------
    seed : int
        A non-negative integer seed.
    n_streams : int
        Number of independent streams (one per chain or pair).

    Returns
    -------
    numpy.ndarray
        uint64, shape (n_streams, 4): one xoshiro256** state per row, never all zero.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, if ``seed`` is not a non-negative integer, or ``n_streams`` is not an integer
        in [0, 2³²).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp._rng import seed_states
    >>> states = seed_states(0, 2)
    >>> states.shape, states.dtype.name, np.array_equal(states, seed_states(0, 2))
    ((2, 4), 'uint64', True)
    >>> child = np.random.SeedSequence(0).spawn(2)[1]
    >>> np.array_equal(states[1], child.generate_state(4, np.uint64))
    True
    """
    seed = check.seed(seed)
    if isinstance(n_streams, bool) or not isinstance(n_streams, int | np.integer) or not 0 <= n_streams < 2**32:
        raise ArgumentError(f"n_streams must be an integer in [0, 2**32), got {n_streams!r}", "n_streams")
    words = _spawned_words(_uint32_words(seed), int(n_streams))
    states = words.astype("<u4").view("<u8").astype(np.uint64)  # numpy's word order for uint64 output
    states[~states.any(axis=1), 0] = 1  # the all-zero state is a fixed point of xoshiro
    return states


# numpy.random.SeedSequence's constants (M. E. O'Neill's seed_seq design, pool of 4 words)
_POOL_SIZE = 4
_INIT_A, _MULT_A = np.uint32(0x43B0D7E5), np.uint32(0x931E8875)
_INIT_B, _MULT_B = np.uint32(0x8B51F9DD), np.uint32(0x58F38DED)
_MIX_MULT_L, _MIX_MULT_R = np.uint32(0xCA01F9DD), np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)


def _uint32_words(n: int) -> list[int]:
    """Return a non-negative int as SeedSequence reads it: 32-bit words, least significant first ([0] for 0)."""
    words = [n & 0xFFFFFFFF]
    while n >> 32:
        n >>= 32
        words.append(n & 0xFFFFFFFF)
    return words


def _spawned_words(entropy: list[int], n: int) -> np.ndarray:
    """``SeedSequence(entropy).spawn(n)[i].generate_state(8, np.uint32)`` for every i, shape (n, 8).

    The children differ only in their spawn key (i,), the last word of the entropy they mix, and
    the hash constants advance the same way for every child, so each step of SeedSequence's
    mixing is one vectorised uint32 operation over all children (arithmetic modulo 2³², as in
    numpy's implementation). ``tests/core/test_rng.py`` compares the rows with numpy's own.
    """
    # a child's entropy: the run entropy padded to the pool size (it has a spawn key), then the key
    run = entropy + [0] * (_POOL_SIZE - len(entropy))
    columns = [np.full(n, w, dtype=np.uint32) for w in run] + [np.arange(n, dtype=np.uint32)]
    hash_const = _INIT_A

    def hashmix(value):
        nonlocal hash_const
        value = value ^ hash_const
        hash_const = hash_const * _MULT_A
        value = value * hash_const
        return value ^ (value >> _XSHIFT)

    def mix(x, y):
        result = _MIX_MULT_L * x - _MIX_MULT_R * y
        return result ^ (result >> _XSHIFT)

    with np.errstate(over="ignore"):
        pool = [hashmix(columns[i]) for i in range(_POOL_SIZE)]
        for i_src in range(_POOL_SIZE):
            for i_dst in range(_POOL_SIZE):
                if i_src != i_dst:
                    pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
        for column in columns[_POOL_SIZE:]:
            for i_dst in range(_POOL_SIZE):
                pool[i_dst] = mix(pool[i_dst], hashmix(column))
        out = np.empty((n, 8), dtype=np.uint32)
        hash_const = _INIT_B
        for i_dst in range(8):
            value = pool[i_dst % _POOL_SIZE] ^ hash_const
            hash_const = hash_const * _MULT_B
            value = value * hash_const
            out[:, i_dst] = value ^ (value >> _XSHIFT)
    return out


@njit(inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always")
def _step(s0, s1, s2, s3):
    """One xoshiro256** step on the state's four words: (64 random bits, the next four words)."""
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always")
def next_u64(s):
    """Advance the state ``s`` (uint64[4]) and return 64 random bits (xoshiro256**; compiled).

    Parameters
    ----------
    s : numpy.ndarray
        uint64, shape (4,): a state from :func:`seed_states`, advanced in place.

    Returns
    -------
    numpy.uint64
        The next 64 random bits.

    Examples
    --------
    >>> from isdp._rng import next_u64, seed_states
    >>> state = seed_states(0, 1)[0]
    >>> int(next_u64(state))
    16895730233391000001
    """
    result, s[0], s[1], s[2], s[3] = _step(s[0], s[1], s[2], s[3])
    return result


@njit(inline="always")
def uniform_pos(s):
    """Uniform on (0, 1]: never 0, so its logarithm is finite (53 random bits; compiled).

    Parameters
    ----------
    s : numpy.ndarray
        uint64, shape (4,): a state from :func:`seed_states`, advanced in place.

    Returns
    -------
    float
        A draw of the uniform law on (0, 1].

    Examples
    --------
    >>> from isdp._rng import seed_states, uniform_pos
    >>> state = seed_states(0, 1)[0]
    >>> round(uniform_pos(state), 3)
    0.916
    """
    return _unit(next_u64(s))


@njit(inline="always")
def _unit(word):
    """Return the uniform on (0, 1] of a word's top 53 bits (as ``uniform_pos`` reads its word)."""
    return float((word >> uint64(11)) + uint64(1)) * _TWO_POW_M53


#: An alias table has 2**b entries, b <= 11: the top b bits of a word pick the entry, bits 1..52
#: decide between it and its alias, bit 0 is the sign — one 64-bit word per draw.
_MAX_TABLE_BITS = 11
_KEEP_BITS = 52
_KEEP_MASK = uint64((1 << _KEEP_BITS) - 1)
#: Below this tail mass the table stops growing; past it, draws fall back to inversion.
_TAIL_MASS = 2.0**-10


def dg_table(eps: float, max_bits: int = _MAX_TABLE_BITS) -> tuple:
    """Walker alias table of |K| for K ~ DG(ε), the argument ``dg`` of :func:`dg_draw`.

    With ``a = exp(-ε)``: entries 0..M are the magnitudes, P(|K| = 0) = (1-a)/(1+a), P(|K| = m) = 2(1-a)a^m/(1+a);
    the last entry M+1 stands for the whole tail |K| > M, mass 2a^{M+1}/(1+a), which the
    draw resolves exactly by memorylessness. The table has the smallest power-of-two size
    (at most 2**max_bits) whose tail mass is below 2**-10. The probabilities are rounded to
    integers out of 2**52 per entry and the alias construction is done in exact integer
    arithmetic, so the sampled law is DG(a) up to that rounding (< 2**-52 per magnitude).

    Parameters
    ----------
    eps : float
        ε of the double geometric law, a = e^(−ε).
    max_bits : int, default 11
        Largest table size, as a power of two.

    Returns
    -------
    tuple
        (keep thresholds uint64, aliases int64, index shift uint64, log a): the ``dg`` argument of
        :func:`dg_draw`.

    Examples
    --------
    >>> from isdp._rng import dg_draw, dg_table, seed_states
    >>> keep, alias, shift, log_a = dg_table(1.0)
    >>> keep.size, int(shift), round(log_a, 3)
    (16, 60, -1.0)
    >>> state = seed_states(0, 1)[0]
    >>> [int(dg_draw(state, dg_table(1.0))) for _ in range(5)]
    [-2, -2, 0, 0, -1]
    """
    a = float(np.exp(-eps))
    bits = 1
    while bits < max_bits and 2 * a ** (2**bits - 1) / (1 + a) > _TAIL_MASS:
        bits += 1
    size = 2**bits
    tail = size - 1
    m = np.arange(size, dtype=float)
    prob = 2 * (1 - a) / (1 + a) * a**m
    prob[0] = (1 - a) / (1 + a)
    prob[tail] = 2 * a**tail / (1 + a)
    capacity = 2**_KEEP_BITS
    weight = [int(round(p * size * capacity)) for p in prob]
    weight[int(np.argmax(prob))] += size * capacity - sum(weight)  # exact total: the table is a law
    keep = [capacity] * size
    alias = list(range(size))
    small = [i for i in range(size) if weight[i] < capacity]
    large = [i for i in range(size) if weight[i] >= capacity]
    while small and large:
        s, big = small.pop(), large.pop()
        keep[s], alias[s] = weight[s], big
        weight[big] -= capacity - weight[s]
        (small if weight[big] < capacity else large).append(big)
    return (np.array(keep, dtype=np.uint64), np.array(alias, dtype=np.int64), np.uint64(64 - bits), float(np.log(a)))


# Not inline="always": inlining copies its IR into every call site (5 s of each kernel's cold compile,
# and no speed gained: docs/performance.md).
@njit
def dg_draw(s, dg):
    """Draw once from DG(a), P(k) = (1-a)/(1+a) a^|k|, with the alias table ``dg`` = :func:`dg_table`.

    Compiled and floating-point; :func:`isdp.exact.double_geometric` is the exact integer-arithmetic draw of a
    release.

    No logarithm except in the tail (probability < 2**-10), where |K| - M - 1 given |K| > M is
    Geometric(1 - a) on {0, 1, ...} and is drawn by inversion from a fresh uniform.

    Parameters
    ----------
    s : numpy.ndarray
        uint64, shape (4,): a state from :func:`seed_states`, advanced in place.
    dg : tuple
        The alias table of :func:`dg_table` for the law's ε.

    Returns
    -------
    int
        One draw of DG(ε).

    Examples
    --------
    >>> from isdp._rng import dg_draw, dg_table, seed_states
    >>> state = seed_states(0, 1)[0]
    >>> [int(dg_draw(state, dg_table(1.0))) for _ in range(5)]
    [-2, -2, 0, 0, -1]
    """
    keep, alias, shift, log_a = dg
    # The state is read once and written once, its words in locals: passing ``s`` to next_u64 inside the tail's
    # branch would keep numba's reference counting of the array in every draw (about twice the draw's own time).
    bits, s0, s1, s2, s3 = _step(s[0], s[1], s[2], s[3])
    i = np.int64(bits >> shift)
    # Selects and the sign flip are branch-free: these coin flips would defeat branch prediction.
    other = alias[i]
    alias_taken = np.int64((bits >> uint64(1)) & _KEEP_MASK >= keep[i])
    i ^= (i ^ other) & -alias_taken  # as a mask: LLVM turns a select in a loop back into a branch
    if i == keep.shape[0] - 1:  # the tail, by inversion from the next word (as uniform_pos reads it)
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i += np.int64(np.log(_unit(word)) / log_a)
    s[0], s[1], s[2], s[3] = s0, s1, s2, s3
    negative = np.int64(bits & uint64(1))
    return (i ^ -negative) + negative


def derive_seed(base: int, *keys) -> int:
    """Return a stable 63-bit seed for one (experiment, step, setting) from the config's base seed.

    Distinct steps get independent streams, and adding a step never shifts the others: the
    seed depends on ``base`` and the step's own keys only, not on how many seeds were derived
    before it.

    Parameters
    ----------
    base : int
        The base seed, e.g. the config's ``seed``.
    *keys : object
        Names of the step, e.g. ``"e1", "burn-in", 0.5``. Each is converted with ``str``, so
        ``1`` and ``"1"`` give the same seed.

    Returns
    -------
    int
        A seed in [0, 2⁶³), the same on every machine.

    Notes
    -----
    The keys are hashed with CRC-32 and fed with ``base`` to :class:`numpy.random.SeedSequence`,
    whose first 64-bit word, shifted right by one bit, is the seed.

    Examples
    --------
    >>> from isdp._rng import derive_seed
    >>> derive_seed(2024, "e1", "burn-in")
    8121364948480920842
    >>> derive_seed(2024, "e1", "draws")
    7799736019812594091
    >>> derive_seed(0, 1) == derive_seed(0, "1")
    True
    """
    words = [int(base)] + [zlib.crc32(str(k).encode()) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> np.uint64(1))


def text_seed(*keys) -> int:
    """Return a stable 64-bit seed for a stream named by ``keys``: the first 8 bytes of the SHA-256 of their text.

    The derivation of the streams a release draws from: a seeded release's parts
    (``"seed/part"``, so the parts of a seeded release are the same however they are run) and
    the simulated laws behind ``--uncertainty`` (a block's shape, so they never depend on the
    counts). :func:`derive_seed` derives the experiments' and the certificates' seeds instead.

    Parameters
    ----------
    *keys : object
        Names of the stream, each converted with ``str`` and joined by ``/``.

    Returns
    -------
    int
        A seed in [0, 2⁶⁴), the same on every machine.

    Examples
    --------
    >>> from isdp._rng import text_seed
    >>> text_seed(7, 0)
    1852762088771586474
    >>> text_seed(7, 0) == text_seed("7/0"), text_seed(7, 0) == text_seed(7, 1)
    (True, False)
    """
    text = "/".join(str(k) for k in keys)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
