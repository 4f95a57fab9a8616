"""Sets of invariants as sparse integer matrices (isdp._sparse): one canonical form, and A x exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from isdp._sparse import as_sparse, row_values
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
