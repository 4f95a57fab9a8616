"""Tests of :mod:`isdp.lattice._invariants`: a constraint matrix in canonical sparse form, its rows' values in
exact integers, a maximal set of independent rows, the rows implied by a partition, and the blocks of cells that
no invariant ties together."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse

from isdp._sparse import as_sparse, row_values
from isdp.errors import InvariantError
from isdp.exact._integral_solve import independent_rows
from isdp.lattice import blocks, implied_by_partition, table_margins


def test_blocks_split_independent_invariants_and_free_cells():
    A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])  # two totals, cell 4 in no invariant
    found = [(cells.tolist(), rows.tolist()) for cells, rows in blocks(A)]
    assert found == [([0, 1], [0]), ([2, 3], [1]), ([4], [])]
    assert len(blocks(table_margins(3, 4))) == 1  # margins tie every cell together


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
    for A in (
        [[1, 1, 1.5]],
        sparse.csr_array(np.array([[1.0, 1.0, 1.5]])),
        [[1, 1, np.nan]],
        np.array([[True, True]]),
        [[1, "a"]],
        [[2.0**64, 1]],
    ):
        with pytest.raises(InvariantError, match="^A must"):
            as_sparse(A)
    whole = as_sparse(sparse.csr_array(np.array([[1.0, 0.0, 2.0]])))  # whole floats are the integers they hold
    assert whole.dtype == np.int64 and whole.toarray().tolist() == [[1, 0, 2]]


integer_matrices = st.integers(1, 4).flatmap(
    lambda m: st.integers(1, 6).flatmap(
        lambda n: arrays(np.int64, (m, n), elements=st.integers(-3, 3) | st.sampled_from([2**31 - 1, -(2**40)]))
    )
)


@given(
    A=integer_matrices,
    kind=st.sampled_from(["int", "float", "object", "csr", "coo"]),
    x=arrays(np.int64, 6, elements=st.integers(-(2**53), 2**53)),
)
def test_every_integer_matrix_reads_as_itself_and_its_blocks_partition_the_cells(A, kind, x):
    given_A = {
        "int": A,
        "float": A.astype(float),
        "object": A.astype(object),
        "csr": sparse.csr_array(A),
        "coo": sparse.coo_array(A),
    }[kind]
    S = as_sparse(given_A)
    assert S.dtype == np.int64 and np.array_equal(S.toarray(), A) and S.has_canonical_format
    xs = x[: A.shape[1]]
    assert row_values(S, xs) == [sum(int(a) * int(v) for a, v in zip(row, xs, strict=True)) for row in A.tolist()]
    found = blocks(given_A)
    cells = np.concatenate([c for c, _ in found])
    assert sorted(cells.tolist()) == list(range(A.shape[1]))  # every cell in exactly one block
    for c, rows in found:  # a block's rows touch its cells only
        outside = np.setdiff1d(np.arange(A.shape[1]), c)
        assert not A[np.ix_(rows, outside)].any()


@given(
    A=integer_matrices,
    i=st.integers(0, 23),
    bad=st.sampled_from([0.5, -1.5, np.nan, np.inf, 2.0**64, 1e300]),
    sparse_kind=st.booleans(),
)
def test_a_matrix_with_one_non_integer_entry_is_refused_naming_it(A, i, bad, sparse_kind):
    F = A.astype(float)
    F.flat[i % F.size] = bad
    with pytest.raises(InvariantError, match="^A must") as err:
        as_sparse(sparse.csr_array(F) if sparse_kind else F)
    assert str(bad) in str(err.value) or "int64" in str(err.value)


def test_every_lattice_entry_refuses_a_non_integer_or_a_wrong_kind_with_an_isdp_error():
    """Raw ValueErrors, silent truncations (row values of 1.5) and an AttributeError before: now each names its
    argument in an IsdpError (a ValueError still)."""
    from isdp.errors import IsdpError
    from isdp.lattice import (
        IntegerLattice,
        generalized_gaussian,
        generalized_laplace,
        sum_constraint,
        with_mixing_basis,
    )
    from isdp.lattice._bases import default_basis

    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    calls = {
        "n must be a positive integer": lambda: sum_constraint(2.5),
        "n_rows must be a positive integer": lambda: table_margins(0, 3),
        "more than 10,000,000 entries": lambda: table_margins(10**6, 10**6),
        "A must be integer-valued": lambda: default_basis(np.array([[1, 1.5]])),
        "A must be integer-valued; entry (0, 1) is nan": lambda: independent_rows(np.array([[1, np.nan]])),
        "x must be integer-valued": lambda: row_values(as_sparse([[1, 1, 1]]), np.array([1.5, 1, 1])),
        "epsilon must be a positive number": lambda: generalized_laplace(True),
        "sigma must be a positive number": lambda: generalized_gaussian(float("nan")),
        "unsupported norm 'l3'": lambda: generalized_laplace(1, "l3"),
        "lattice must be an IntegerLattice": lambda: with_mixing_basis(None),
        "basis must be one of": lambda: with_mixing_basis(lattice, "best"),
    }
    for message, call in calls.items():
        with pytest.raises(IsdpError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call()
    assert row_values(as_sparse([[1, 1, 1]]), np.array([1.0, 2.0, 3.0])) == [6]  # whole floats are integers
