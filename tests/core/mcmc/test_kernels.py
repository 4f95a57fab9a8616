"""The compiled kernels' random streams: :func:`isdp.mcmc.seed_states` against numpy's SeedSequence."""

import numpy as np
import pytest

from isdp.mcmc import seed_states


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
    with pytest.raises(ValueError, match="n_streams must be an integer"):
        seed_states(0, n)
