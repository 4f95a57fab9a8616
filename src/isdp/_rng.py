"""Per-chain pseudo-random streams for the compiled kernels (xoshiro256**).

Numba's built-in ``np.random`` keeps one state per thread, so draws inside a ``prange``
would depend on how chains are scheduled on threads. Here every chain owns a 4-word state
seeded from :class:`numpy.random.SeedSequence`, so a seed fixes the draws whatever the
number of threads.
"""

from __future__ import annotations

import zlib

import numpy as np
from numba import njit, uint64

_TWO_POW_M53 = 1.0 / 9007199254740992.0


def seed_states(seed: int | np.random.SeedSequence, n_streams: int) -> np.ndarray:
    """Independent xoshiro256** states, one row (4 × uint64) per stream.

    ``seed`` must be a non-negative integer (or a SeedSequence): ``None`` would draw fresh OS
    entropy and make the run irreproducible, so it is refused like nan or -1.
    """
    if not isinstance(seed, np.random.SeedSequence):
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        seed = np.random.SeedSequence(int(seed))
    ss = seed
    states = np.empty((n_streams, 4), dtype=np.uint64)
    for i, child in enumerate(ss.spawn(n_streams)):
        words = child.generate_state(4, np.uint64)
        if not words.any():  # the all-zero state is a fixed point of xoshiro
            words[0] = 1
        states[i] = words
    return states


@njit(inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always")
def next_u64(s):
    """Advance the state ``s`` (uint64[4]) and return 64 random bits."""
    result = _rotl(s[1] * uint64(5), 7) * uint64(9)
    t = s[1] << uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(inline="always")
def uniform_pos(s):
    """Uniform on (0, 1]: never 0, so its logarithm is finite."""
    return float((next_u64(s) >> uint64(11)) + uint64(1)) * _TWO_POW_M53


@njit(inline="always")
def double_geometric(s, a, p_zero, log_a):
    """One draw of DG(a), P(k) = (1-a)/(1+a) a^|k|, from a single 64-bit word.

    ``p_zero = (1-a)/(1+a)`` and ``log_a = log(a)`` are passed in precomputed. The top 53
    bits give a uniform U; U <= p_zero means 0, otherwise (U - p_zero)/(1 - p_zero) is a
    fresh uniform that sets |k| - 1 ~ Geometric(1 - a) by inversion; the lowest bit is
    the sign (independent of the top bits).
    """
    bits = next_u64(s)
    u = float((bits >> uint64(11)) + uint64(1)) * _TWO_POW_M53
    if u <= p_zero:
        return 0
    v = (u - p_zero) / (1.0 - p_zero)
    magnitude = 1 + int(np.floor(np.log(v) / log_a))
    if bits & uint64(1):
        return -magnitude
    return magnitude


def derive_seed(base: int, *keys) -> int:
    """A stable 63-bit seed for one (experiment, step, setting) from the config's base seed.

    Distinct steps get independent streams, and adding a step never shifts the others.
    """
    words = [int(base)] + [zlib.crc32(str(k).encode()) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> np.uint64(1))
