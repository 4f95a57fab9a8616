"""Group numbers in first-appearance order (isdp._first_seen): the compiled hash table against a dictionary."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp import _first_seen
from isdp._first_seen import _COMPILED_FROM, first_seen, row_hashes
from isdp._sparse import as_sparse


def _reference(values) -> tuple[list[int], list[int]]:
    seen: dict = {}
    codes = [seen.setdefault(v, len(seen)) for v in values]
    firsts: dict = {}
    for i, g in enumerate(codes):
        firsts.setdefault(g, i)
    return codes, list(firsts.values())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40),
    st.integers(1, 3 * _COMPILED_FROM),
    st.integers(0, 2**32 - 1),
)
def test_compiled_codes_equal_a_dictionary_pass(pool, n, seed):
    """Values drawn from a pool (repeats, extremes, negatives), long enough for the compiled pass; and sorted."""
    drawn = np.random.default_rng(seed).choice(np.array(pool, dtype=np.int64), size=n)
    for values in (drawn, np.sort(drawn), np.sort(drawn.view(np.uint64))):  # ascending: no table
        codes, first = first_seen(values)
        expected_codes, expected_first = _reference(values.tolist())
        assert codes.dtype == np.int64 and codes.tolist() == expected_codes
        assert first.dtype == np.int64 and first.tolist() == expected_first


@settings(max_examples=60, deadline=None)
@given(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(1, 2**17),
    st.integers(_COMPILED_FROM, 3 * _COMPILED_FROM),
    st.integers(0, 2**32 - 1),
)
def test_a_short_range_indexes_its_table_directly_and_equals_a_dictionary_pass(edge, span, n, seed):
    """Values within a range of ``span`` (the direct table's, or past it) anywhere in int64, its ends included."""
    low = min(edge, 2**63 - span)
    values = np.random.default_rng(seed).integers(low, low + span, size=n, dtype=np.int64, endpoint=False)
    values[:2] = low, low + span - 1
    with pytest.MonkeyPatch.context() as patched:
        if span <= max(2 * n, 2**16):  # the direct table's: the hash table is not asked
            patched.setattr(_first_seen, "_codes", None)
        codes, first = first_seen(values)
    expected_codes, expected_first = _reference(values.tolist())
    assert codes.tolist() == expected_codes and first.tolist() == expected_first


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32, np.uint64])
def test_every_integer_dtype_keeps_its_values_apart(dtype):
    """uint64 values past 2**63 are read as int64 bit patterns: distinct values stay distinct."""
    info = np.iinfo(dtype)
    pool = np.array([info.max, info.max - 1, 0, 1, info.min if info.min else 2], dtype=dtype)
    values = np.tile(pool, _COMPILED_FROM)
    codes, first = first_seen(values)
    assert codes[:5].tolist() == [0, 1, 2, 3, 4] and np.array_equal(codes, np.tile(np.arange(5), _COMPILED_FROM))
    assert first.tolist() == [0, 1, 2, 3, 4]


def test_many_groups_grow_the_table_and_keep_their_order():
    """2**18 distinct values in a shuffled order (the table grows eight times past its first size)."""
    values = np.random.default_rng(5).permutation(2**18).astype(np.int64) * 7919 - 2**40
    codes, first = first_seen(np.concatenate([values, values[::-1]]))
    assert np.array_equal(codes[: values.size], np.arange(values.size))
    assert np.array_equal(codes[values.size :], np.arange(values.size)[::-1])
    assert np.array_equal(first, np.arange(values.size))


def test_text_and_short_arrays_take_the_dictionary_pass():
    codes, first = first_seen(["b", "a", "b", "c"])
    assert codes.tolist() == [0, 1, 0, 2] and first.tolist() == [0, 1, 3]
    codes, first = first_seen(np.array([], dtype=np.int64))
    assert codes.size == 0 and first.size == 0


def test_row_hashes_equal_for_equal_rows_and_apart_for_a_changed_entry():
    rng = np.random.default_rng(3)
    dense = rng.integers(-2, 3, size=(40, 12))
    dense[[5, 17, 33]] = dense[2]  # three repeats of row 2
    dense[8] = 0  # an empty row
    h = row_hashes(as_sparse(dense))
    assert h.dtype == np.uint64 and len(set(h[[2, 5, 17, 33]].tolist())) == 1
    # every other row differs from row 2 in some entry: none shares its hash
    assert len(set(h.tolist())) == 40 - 3
