"""Sets of invariants as sparse integer matrices (isdp._sparse): one canonical form, A x exactly, repeated rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from isdp import _first_seen, _sparse
from isdp._sparse import as_sparse, first_rows, group_rows, row_values
from isdp.errors import InvariantError


def test_equal_matrices_have_one_canonical_form_and_exact_row_values():
    coo = sparse.coo_array(([1, 1, 0, 2], ([0, 0, 1, 1], [2, 2, 0, 1])), shape=(2, 3))  # a repeat, an explicit 0
    A, B = as_sparse(coo), as_sparse([[0, 0, 2], [0, 2, 0]])
    assert all(np.array_equal(getattr(A, k), getattr(B, k)) for k in ("indptr", "indices", "data"))
    assert A.dtype == np.int64 and A.nnz == 2
    big = np.array([2**62, 2**62, 0])
    assert row_values(A, big) == [0, 2**63]  # int64 would wrap to a negative value


def test_a_non_integer_invariant_or_table_is_refused_never_cast():
    with pytest.raises(InvariantError, match=r"entry \(0, 2\) is 1.5"):
        as_sparse([[1, 1, 1.5]])
    with pytest.raises(InvariantError, match="x must be integer-valued"):
        row_values(as_sparse([[1, 1, 1]]), np.array([1.5, 1, 1]))
    assert row_values(as_sparse([[1, 1, 1]]), np.array([1.0, 2.0, 3.0])) == [6]  # whole floats are integers


def _first_rows_reference(dense: np.ndarray) -> list[int]:
    seen, keep = set(), []
    for i, r in enumerate(dense.tolist()):
        if tuple(r) not in seen:
            seen.add(tuple(r))
            keep.append(i)
    return keep


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.integers(-2, 2), min_size=5, max_size=5), min_size=1, max_size=6),
    st.lists(st.integers(0, 5), min_size=1, max_size=20),
)
def test_first_rows_keeps_each_row_once_in_order(distinct, picks):
    """Rows picked with repeats from a few (zero rows and negative coefficients among them), by the set of rows
    and by the compiled hash."""
    dense = np.array([distinct[p % len(distinct)] for p in picks], dtype=np.int64)
    assert first_rows(as_sparse(dense)) == _first_rows_reference(dense)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_sparse, "_COMPILED_FROM", 0)
        assert first_rows(as_sparse(dense)) == _first_rows_reference(dense)


def test_first_rows_compares_rows_whose_hashes_collide(monkeypatch):
    """Every row hashed alike: the exact comparison alone decides which rows repeat."""
    monkeypatch.setattr(_first_seen, "row_hashes", lambda A: np.zeros(A.shape[0], dtype=np.uint64))
    monkeypatch.setattr(_sparse, "_COMPILED_FROM", 0)
    dense = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 1], [0, 2, 0], [0, 1, 1], [0, 0, 0]])
    assert first_rows(as_sparse(dense)) == [0, 1, 3, 5]


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6)), max_size=8))
def test_segments_are_each_range_in_turn(pairs):
    starts = np.array([p[0] for p in pairs], dtype=np.int64)
    sizes = np.array([p[1] for p in pairs], dtype=np.int64)
    expected = [start + k for start, size in pairs for k in range(size)]
    got = _sparse.segments(starts, sizes)
    assert got.dtype == np.int64 and got.tolist() == expected


@given(st.sampled_from([1, 3, 256, 257, 65_537]), st.data())
@settings(max_examples=60, deadline=None)
def test_group_rows_is_the_coordinate_matrix_of_the_groups(groups, data):
    # groups that fit 8 bits, 16 bits and neither, NumPy's sort and the compiled counting sort: each must keep a
    # row's cells ascending
    size = data.draw(st.integers(1, 300))
    member = np.array(data.draw(st.lists(st.integers(0, min(groups, 6) - 1), min_size=size, max_size=size)))
    member = member * (groups // min(groups, 6))  # few groups, far apart: long runs of equal keys to sort
    if data.draw(st.booleans()):
        member = np.sort(member)
    n = member.size
    want = sparse.csr_array((np.ones(n, dtype=np.int64), (member, np.arange(n))), shape=(groups, n))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_sparse, "_COMPILED_FROM", data.draw(st.sampled_from([0, _sparse._COMPILED_FROM])))
        got = group_rows(member, groups)
    assert got.shape == want.shape and got.has_canonical_format
    for k in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(got, k), getattr(want, k))
        assert getattr(got, k).dtype == getattr(want, k).dtype
