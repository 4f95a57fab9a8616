"""Tests of :mod:`isdp.lattice._invariants`: a constraint matrix in canonical sparse form, its rows' values in
exact integers, a maximal set of independent rows, the rows implied by a partition, and the blocks of cells that
no invariant ties together."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from isdp.errors import InvariantError
from isdp.lattice import as_sparse, blocks, implied_by_partition, independent_rows, row_values, table_margins


def test_blocks_split_independent_invariants_and_free_cells():
    A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])  # two totals, cell 4 in no invariant
    found = [(cells.tolist(), rows.tolist()) for cells, rows in blocks(A)]
    assert found == [([0, 1], [0]), ([2, 3], [1]), ([4], [])]
    assert len(blocks(table_margins(3, 4))) == 1  # margins tie every cell together


def test_equal_matrices_have_one_canonical_form_and_exact_row_values():
    coo = sparse.coo_array(([1, 1, 0, 2], ([0, 0, 1, 1], [2, 2, 0, 1])), shape=(2, 3))  # a repeat, an explicit 0
    A, B = as_sparse(coo), as_sparse([[0, 0, 2], [0, 2, 0]])
    assert all(np.array_equal(getattr(A, k), getattr(B, k)) for k in ("indptr", "indices", "data"))
    assert A.dtype == np.int64 and A.nnz == 2
    big = np.array([2**62, 2**62, 0])
    assert row_values(A, big) == [0, 2**63]  # int64 would wrap to a negative value


def test_independent_rows_and_the_rows_a_partition_implies():
    margins = table_margins(3, 3)
    rows = independent_rows(margins)
    assert len(rows) == np.linalg.matrix_rank(margins) == 5
    assert np.linalg.matrix_rank(margins[rows]) == 5
    assert independent_rows(np.zeros((0, 4), dtype=np.int64)).tolist() == []
    nested = [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0]]  # nation, states, counties
    assert implied_by_partition(nested).tolist() == [0, 1]
    assert implied_by_partition([[1, 1], [2, 2]]).tolist() == []  # other coefficients: not a partition



def test_a_non_integer_or_boolean_invariant_is_refused_never_cast():
    """1.5 cast to 1 would keep another invariant than the one asked; dense or sparse, it is refused by name."""
    for A in ([[1, 1, 1.5]], sparse.csr_array(np.array([[1.0, 1.0, 1.5]])), [[1, 1, np.nan]],
              np.array([[True, True]]), [[1, "a"]], [[2.0**64, 1]]):
        with pytest.raises(InvariantError, match="^A must"):
            as_sparse(A)
    whole = as_sparse(sparse.csr_array(np.array([[1.0, 0.0, 2.0]])))  # whole floats are the integers they hold
    assert whole.dtype == np.int64 and whole.toarray().tolist() == [[1, 0, 2]]
