"""The sources of uniform random integers (isdp.exact.seeded_source, system_source)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from exact_support import finishes

from isdp.errors import ArgumentError
from isdp.exact import seeded_source, system_source
from isdp.exact._exact_draws import double_geometric


def test_seeded_source_is_reproducible_and_seeds_differ():
    def run(seed):
        rng = seeded_source(seed)
        return [double_geometric(Fraction(1, 2), rng) for _ in range(50)]

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_seeded_source_refuses_a_seed_that_is_not_a_non_negative_integer(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        seeded_source(bad)


@pytest.mark.parametrize("source", [lambda: seeded_source(1), system_source], ids=["seeded", "system"])
def test_both_sources_draw_in_range_and_give_bytes(source):
    rng = source()
    assert {rng.randbelow(3) for _ in range(200)} == {0, 1, 2}
    assert rng.randbelow(1) == 0
    assert len(rng.randbytes(16)) == 16


@pytest.mark.parametrize("source", [lambda: seeded_source(1), system_source], ids=["seeded", "system"])
@pytest.mark.parametrize("bad", [0, -1, -(2**70), 2.5, True, float("nan")])
def test_a_uniform_integer_below_no_positive_integer_is_refused_not_waited_for(source, bad):
    """randbelow(0) or a negative bound never ended (Python's rejection loop cannot draw below 0)."""
    with pytest.raises(ArgumentError, match="^n must be an integer"):
        finishes(lambda: source().randbelow(bad))


@pytest.mark.parametrize("source", [lambda: seeded_source(1), system_source], ids=["seeded", "system"])
def test_bytes_are_counted_by_an_integer(source):
    assert source().randbytes(0) == b""
    for bad in (-1, 2.5, True):
        with pytest.raises(ArgumentError, match="^n must be an integer"):
            source().randbytes(bad)


def test_seeds_that_mersenne_twister_s_own_seeding_merges_give_distinct_streams():
    """random.seed reads s and s + ((s − 1) mod 2**32)·2**32 as keys of different lengths that give one state."""
    for s in (5, 123_456_789, 2**32 - 1):
        other = s + ((s - 1) % 2**32) * 2**32
        assert random.Random(s).getrandbits(64) == random.Random(other).getrandbits(64)  # the collision
        assert [seeded_source(s).randbelow(2**64) for _ in range(4)] != [
            seeded_source(other).randbelow(2**64) for _ in range(4)
        ]


def test_a_seeded_source_s_state_is_its_seed_sequence_s_words():
    import numpy as np

    state = seeded_source(2024).getstate()[1]
    assert list(state[:624]) == np.random.SeedSequence(2024).generate_state(624, np.uint32).tolist()
    assert len({tuple(seeded_source(s).getstate()[1][:4]) for s in range(2000)}) == 2000
