"""The integral solve of invariants (isdp.exact._integral_solve): in floating point, checked, and in exact integers."""

from __future__ import annotations

import numpy as np

from isdp.exact._integral_solve import _exact_product, _exact_solve, independent_rows, integral_solve
from isdp.lattice import table_margins


def test_the_solve_maps_every_free_vector_into_the_kernel():
    A = table_margins(3, 4)
    A = A[independent_rows(A)]
    solved, X = integral_solve(A)
    free = np.setdiff1d(np.arange(A.shape[1]), solved)
    assert len(solved) == A.shape[0] and np.array_equal(A[:, solved] @ X, -A[:, free])
    z = np.random.default_rng(1).integers(-9, 10, size=(20, len(free)))
    u = np.zeros((20, A.shape[1]), dtype=np.int64)
    u[:, free], u[:, solved] = z, z @ X.T
    assert not np.any(u @ A.T)


def test_cells_with_a_unit_coefficient_are_tried_when_the_last_column_gives_no_integral_solve():
    """u0 + 3 u1 = 0: solving the last cell (u1 = −u0/3) is not integral, solving the first (u0 = −3 u1) is."""
    solved, X = integral_solve(np.array([[1, 3]]))
    assert solved.tolist() == [0] and X.tolist() == [[-3]]


def test_cells_asked_for_first_are_solved():
    solved, X = integral_solve(np.array([[1, 1, 1]]), first=[0])
    assert solved.tolist() == [0] and X.tolist() == [[-1, -1]]


def test_the_exact_solve_makes_the_floating_point_choice_where_that_one_is_right():
    A = table_margins(3, 3)  # rank 5 of 6 rows: the exact solve sets a dependent row aside itself
    rows, solved, X = _exact_solve(A)
    assert len(rows) == 5 and np.array_equal(A[rows], A[independent_rows(A)])
    float_solved, float_X = integral_solve(A[rows])
    assert np.array_equal(solved, float_solved) and np.array_equal(X, float_X)
    assert _exact_solve(np.array([[2, 3]])) is None  # Λ = {(3t, −2t)}: neither cell is a coordinate


def test_the_exact_solve_tells_apart_rows_that_floating_point_takes_for_one():
    a = 2**31 - 1
    A = np.array([[a, a - 1, 1], [a - 1, a - 2, 1]])
    assert len(independent_rows(A)) == 1  # floating point: one row
    rows, solved, X = _exact_solve(A)
    assert rows.tolist() == [0, 1] and solved.tolist() == [1, 2] and X.tolist() == [[-1], [-1]]


def test_the_exact_product_is_exact_beyond_the_floats_integers():
    M = np.array([[2**40 + 1, 2**40 - 1]], dtype=np.int64)
    X = np.array([[2**20 + 3], [2**20 - 5]], dtype=np.int64)
    expected = (2**40 + 1) * (2**20 + 3) + (2**40 - 1) * (2**20 - 5)
    assert expected > 2**53 and int(_exact_product(M, X)[0, 0]) == expected
    assert _exact_product(np.array([[1, 2]]), np.array([[3], [4]])).tolist() == [[11]]


def test_the_order_of_preference_is_first_then_unit_coefficients_then_the_rest_from_the_last_column():
    from isdp.exact._integral_solve import _orders

    A = np.array([[3, 1, 2, 1, 5]])
    assert _orders(A, [2]) == [[2, 4, 3, 1, 0], [2, 3, 1, 4, 0]]
    assert _orders(np.ones((1, 3), dtype=np.int64), []) == [[2, 1, 0]]  # every cell ±1: one order


def test_one_total_over_many_cells_is_solved_in_linear_time():
    """A set of the cells was rebuilt per cell: 16,384 cells took seconds, 65,536 a minute."""
    import time

    start = time.perf_counter()
    solved, X = integral_solve(np.ones((1, 40_000), dtype=np.int64))
    assert time.perf_counter() - start < 5  # about 0.2 s; the quadratic order took minutes
    assert solved.tolist() == [39_999] and X.shape == (1, 39_999) and (X == -1).all()
