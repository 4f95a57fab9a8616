"""The compiled kernels' random streams (isdp._rng): :func:`seed_states` against numpy's SeedSequence, and the
double geometric draw's alias table against the law it encodes."""

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof_integers
from mcmc_support import dg_rvs_compiled
from scipy import stats

from isdp._rng import dg_table, next_u64, seed_states
from isdp.errors import ArgumentError


def _numpy_states(seed: int, n: int) -> np.ndarray:
    """The states as numpy's SeedSequence spawns them, one child at a time."""
    rows = [child.generate_state(4, np.uint64) for child in np.random.SeedSequence(seed).spawn(n)]
    return np.array(rows, dtype=np.uint64).reshape(n, 4)


# one- to seven-word entropies: small seeds, derive_seed's 63-bit seeds, and integers longer than the pool
SEEDS = [0, 1, 2**32 - 1, 2**32, 8121364948480920842, 2**64 + 5, 2**128 + 7, 3**120]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [0, 1, 5, 2000])
def test_the_states_are_numpys_spawned_children(seed, n):
    assert np.array_equal(seed_states(seed, n), _numpy_states(seed, n))


def test_the_rows_are_distinct_and_a_prefix_of_more_streams():
    many = seed_states(42, 100_000)
    assert len(np.unique(many, axis=0)) == len(many)
    assert np.array_equal(seed_states(42, 10), many[:10])


@pytest.mark.parametrize("seed", [-1, 2.5, None, True, "1", np.random.SeedSequence(0)])
def test_a_seed_that_is_not_a_non_negative_integer_is_refused(seed):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        seed_states(seed, 2)


@pytest.mark.parametrize("n", [-1, 2**32, 1.0, True])
def test_a_stream_count_out_of_range_is_refused(n):
    with pytest.raises(ArgumentError, match="n_streams must be an integer") as refused:
        seed_states(0, n)
    assert refused.value.argument == "n_streams"


# --------------------------------------------------------------------------- the double geometric draw


def _eps(a: float) -> float:
    """ε of DG with a = exp(-ε): the closed forms below are written in a."""
    return float(-np.log(a))


def test_compiled_sampler_is_seeded():
    a = 0.7
    np.testing.assert_array_equal(dg_rvs_compiled(_eps(a), 1000, 5), dg_rvs_compiled(_eps(a), 1000, 5))
    assert not np.array_equal(dg_rvs_compiled(_eps(a), 1000, 5), dg_rvs_compiled(_eps(a), 1000, 6))


@pytest.mark.parametrize("a", [0.6, 0.92, float(np.exp(-0.05))])
@pytest.mark.parametrize("max_table_bits", [2, 11], ids=["tail-heavy", "default"])
def test_alias_table_sampler_against_scipy_dlaplace(a, max_table_bits):
    """The compiled alias-table sampler, including its inversion fallback beyond the table."""
    draws = dg_rvs_compiled(_eps(a), 200_000, seed=20240611, max_table_bits=max_table_bits)
    eps = -np.log(a)
    ks = np.arange(*stats.dlaplace.interval(1 - 1e-12, eps)).astype(np.int64)
    p = chisquare_gof_integers(draws, ks, stats.dlaplace.pmf(ks, eps))
    assert p > ALPHA, f"chi-square p = {p:.2e}"
    keep, alias, shift, log_a = dg_table(_eps(a), max_table_bits)
    tail = keep.size - 1
    beyond = np.abs(draws) > tail  # reachable only through the fallback
    assert beyond.any() or max_table_bits == 11
    expected = stats.dlaplace.sf(tail, eps) * 2  # P(|K| > M + 1), M + 1 = tail entry
    assert abs(beyond.mean() - expected) < Z_TOL * np.sqrt(expected * (1 - expected) / draws.size) + 1e-12


@pytest.mark.parametrize("a", [1e-9, 0.3, 0.9, 0.9999])
def test_alias_table_encodes_the_magnitude_law(a):
    """Reading the table back (keep mass + mass aliased in) gives P(|K| = m) and the tail mass."""
    keep, alias, shift, log_a = dg_table(_eps(a))
    size = keep.size
    assert size & (size - 1) == 0 and int(shift) == 64 - size.bit_length() + 1
    assert log_a == pytest.approx(np.log(a), rel=1e-12, abs=1e-15)
    capacity = 2**52
    mass = keep.astype(float) / capacity
    np.add.at(mass, alias, (capacity - keep.astype(float)) / capacity)
    mass /= size
    m = np.arange(size - 1)
    law = np.where(m == 0, (1 - a) / (1 + a), 2 * (1 - a) / (1 + a) * a**m)
    np.testing.assert_allclose(mass[:-1], law, rtol=1e-12, atol=1e-15)
    assert mass[-1] == pytest.approx(2 * a ** (size - 1) / (1 + a), rel=1e-9, abs=1e-15)


def test_text_seed_is_the_sha256_of_the_keys_joined_by_slashes():
    """The release's streams (a seeded part, an --uncertainty law) are seeded so; their values never change."""
    import hashlib

    from isdp._rng import text_seed

    assert text_seed(7, 0) == int.from_bytes(hashlib.sha256(b"7/0").digest()[:8], "big") == 1852762088771586474
    assert text_seed("('l1', '1/2', (3,))") == text_seed(repr(("l1", "1/2", (3,))))
    assert len({text_seed(7, k) for k in range(1000)}) == 1000 and 0 <= text_seed(7, 0) < 2**64


@pytest.mark.parametrize("max_table_bits", [2, 11], ids=["tail-heavy", "default"])
def test_a_draw_reads_one_word_and_its_tail_the_next(max_table_bits):
    """The stream every seeded chain rests on: the top bits of a word pick the table entry, the next 52 keep it or
    take its alias, the last bit is the sign, and a draw past the table reads one more word as a uniform on (0, 1]
    for its inversion. The compiled draws equal this reading, word for word, and each starts where the last ended."""
    eps = 0.6
    keep, alias, shift, log_a = dg_table(eps, max_table_bits)
    compiled = dg_rvs_compiled(eps, 20_000, seed=7, max_table_bits=max_table_bits)
    state = seed_states(7, 1)[0]
    read, tails = [], 0
    for _ in range(compiled.size):
        word = int(next_u64(state))
        i = word >> int(shift)
        if (word >> 1) & (2**52 - 1) >= int(keep[i]):
            i = int(alias[i])
        if i == keep.size - 1:
            tails += 1
            i += int(np.log(((int(next_u64(state)) >> 11) + 1) * 2.0**-53) / log_a)
        read.append(-i if word & 1 else i)
    assert tails > 1000 or max_table_bits == 11
    np.testing.assert_array_equal(compiled, read)
