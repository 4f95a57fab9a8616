"""The integer kernel lattice Λ(A), integer solutions and release checks."""

from __future__ import annotations

import itertools
from math import gcd

import numpy as np
import pytest

from isdp.errors import InvariantError
from isdp.lattice import (
    IntegerLattice,
    check_release,
    sum_constraint,
    table_margins,
    venn_constraints,
)
from isdp.lattice._integer_lattice import integer_solution

# (name, A, rank(A), lattice dimension) — ranks and dimensions worked out by hand, not from the code
MATRICES = [
    ("E1 venn(3,2)", venn_constraints(3, 2), 3, 11),
    ("E2 margins(4,4)", table_margins(4, 4), 7, 9),
    ("margins(2,2)", table_margins(2, 2), 3, 1),
    ("sum(5)", sum_constraint(5), 1, 4),
    ("[[2,4,6]]", np.array([[2, 4, 6]]), 1, 2),  # invariant factor 2
    ("[[1,1,0],[1,-1,2]]", np.array([[1, 1, 0], [1, -1, 2]]), 2, 1),  # invariant factors 1, 2
    ("[[6,10,15]]", np.array([[6, 10, 15]]), 1, 2),  # gcd 1, but no unit entry
    ("[[0,2,4,0]]", np.array([[0, 2, 4, 0]]), 1, 3),  # zero columns, factor 2
    ("rank-deficient", np.array([[1, 1, 1], [2, 2, 2]]), 1, 2),
]


def minors_gcd(M: np.ndarray, r: int) -> int:
    """gcd of all r×r minors of the integer matrix M (numpy determinants, exactly rounded).

    By the theory of the Smith normal form this is the product of the first r invariant
    factors of M — computed here independently of sympy.
    """
    M = np.asarray(M)
    cols = np.array(list(itertools.combinations(range(M.shape[1]), r)))
    g = 0
    for rows in itertools.combinations(range(M.shape[0]), r):
        sub = M[np.array(rows)][:, cols].transpose(1, 0, 2).astype(float)
        dets = np.linalg.det(sub)
        rounded = np.rint(dets)
        assert np.all(np.abs(dets - rounded) < 1e-6)
        for d in np.unique(np.abs(rounded).astype(np.int64)):
            g = gcd(g, int(d))
    return g


def max_minor_gcd(B: np.ndarray) -> int:
    """gcd of the k×k minors of the n×k matrix B: 1 iff B's columns span a saturated lattice
    (Smith invariant factors all 1, B extends to a unimodular matrix)."""
    return minors_gcd(B, B.shape[1])


def small_box_kernel(A: np.ndarray, radius: int = 2) -> np.ndarray:
    """Every integer u with |u|_∞ <= radius and A u = 0 (brute force, for small n)."""
    n = A.shape[1]
    box = np.array(list(itertools.product(range(-radius, radius + 1), repeat=n)), dtype=np.int64)
    return box[np.all(box @ A.T == 0, axis=1)]


def test_whole_kernel_check_has_teeth():
    # a basis of a proper sublattice of Λ([[2,4,6]]): the scaled rational null-space vectors
    sub = np.array([[3, 0, -1], [0, 3, -2]]).T
    assert np.all(np.array([[2, 4, 6]]) @ sub == 0)
    assert max_minor_gcd(sub) == 3
    whole = np.array([[1, 1, -1], [2, -1, 0]]).T
    assert max_minor_gcd(whole) == 1


@pytest.mark.parametrize("reduce", [False, True, "auto"])
@pytest.mark.parametrize(("name", "A", "rank", "dim"), MATRICES, ids=[m[0] for m in MATRICES])
def test_basis_spans_the_whole_integer_kernel(name, A, rank, dim, reduce):
    lat = IntegerLattice.from_constraints(A, reduce=reduce)
    B = lat.basis
    assert B.dtype == np.int64 and B.shape == (A.shape[1], dim)
    assert lat.rank == rank and lat.dim == dim and lat.n == A.shape[1]
    assert np.linalg.matrix_rank(A.astype(float)) == rank  # the expected rank itself
    assert np.all(A @ B == 0)
    assert np.linalg.matrix_rank(B.astype(float)) == A.shape[1] - rank
    assert max_minor_gcd(B) == 1, "basis spans a proper sublattice of the integer kernel"
    # invariant factors of A: their product is the gcd of the rank×rank minors of A
    assert len(lat.invariant_factors) == rank
    assert int(np.prod(np.abs(lat.invariant_factors))) == minors_gcd(A, rank)


@pytest.mark.parametrize(
    ("A", "factors"),
    [
        ([[2, 4, 6]], (2,)),
        ([[1, 1, 0], [1, -1, 2]], (1, 2)),
        ([[0, 2, 4, 0]], (2,)),
        ([[6, 10, 15]], (1,)),
    ],
)
def test_invariant_factors(A, factors):
    got = IntegerLattice.from_constraints(A).invariant_factors
    assert tuple(abs(int(f)) for f in got) == factors


@pytest.mark.parametrize(
    "A",
    [[[2, 4, 6]], [[1, 1, 0], [1, -1, 2]], [[6, 10, 15]], [[0, 2, 4, 0]], [[1, 1, 1], [2, 2, 2]]],
)
def test_every_small_kernel_vector_has_integer_coordinates(A):
    A = np.array(A)
    lat = IntegerLattice.from_constraints(A)
    vectors = small_box_kernel(A, radius=5 if A.shape[1] <= 3 else 3)
    assert len(vectors) > 1
    for u in vectors:
        assert lat.contains(u)
        w = lat.coordinates(u)
        assert w.dtype == np.int64
        np.testing.assert_array_equal(lat.basis @ w, u)


def test_known_kernel_vectors_of_the_experiment_lattices():
    e1 = IntegerLattice.from_constraints(venn_constraints(3, 2))
    # swap inside region {1}; region {1,2} record against one record of {1} and one of {2}
    swap = np.zeros(14, dtype=np.int64)
    swap[[0, 1]] = [1, -1]
    triangle = np.zeros(14, dtype=np.int64)
    triangle[[6, 0, 2]] = [1, -1, -1]
    # a {1,2,3} record against one record each of {1}, {2}, {3}: every total changes by 1 - 1
    centre = np.zeros(14, dtype=np.int64)
    centre[[12, 0, 2, 4]] = [1, -1, -1, -1]
    e2 = IntegerLattice.from_constraints(table_margins(4, 4))
    quad = np.zeros((4, 4), dtype=np.int64)
    quad[0, 0] = quad[2, 3] = 1
    quad[0, 3] = quad[2, 0] = -1
    for lat, u in (
        (e1, swap),
        (e1, triangle),
        (e1, centre),
        (e1, 3 * swap - 2 * centre),
        (e2, quad.ravel()),
    ):
        w = lat.coordinates(u)
        np.testing.assert_array_equal(lat.basis @ w, u)
    # a vector that breaks one constraint is not in Λ
    bad = np.zeros(14, dtype=np.int64)
    bad[[0, 6]] = [1, -1]  # {1} vs {1,2}: changes the total of constraint 2
    assert not e1.contains(bad)
    with pytest.raises(InvariantError):
        e1.coordinates(bad)


def test_contains_rejects_non_integer_and_checks_every_row(sum2):
    assert sum2.contains([3, -3])
    assert sum2.contains(np.array([3.0, -3.0]))
    assert not sum2.contains([0.5, -0.5])
    assert not sum2.contains([1, 0])
    assert sum2.contains(np.array([[1, -1], [2, -2]]))
    assert not sum2.contains(np.array([[1, -1], [2, -1]]))


@pytest.mark.parametrize(
    "A",
    [
        [[1, 0.5, 1]],  # non-integer entry
        [[1, np.nan]],  # non-finite
        [[1, np.inf]],
        [1, 1, 1],  # 1-D
        np.zeros((0, 3)),  # empty
        np.ones((1, 2, 2)),  # 3-D
        [["a", "b"]],  # not numeric
        np.eye(3, dtype=np.int64),  # full column rank
        [[1, 2], [3, 4]],  # full column rank, not unimodular
        [[2, 0], [0, 3], [1, 1]],  # full column rank with more rows than columns
    ],
)
def test_bad_constraints_raise_invariant_error(A):
    with pytest.raises(InvariantError):
        IntegerLattice.from_constraints(A)


# --------------------------------------------------------------------------- integer_solution


@pytest.mark.parametrize(
    "A",
    [
        venn_constraints(3, 2),
        table_margins(4, 4),
        np.array([[2, 4, 6]]),
        np.array([[1, 1, 0], [1, -1, 2]]),
        np.array([[6, 10, 15]]),
        np.array([[1, 1, 1], [2, 2, 2]]),  # redundant row, consistent right-hand sides
    ],
)
def test_integer_solution_solves_feasible_systems(A):
    rng = np.random.default_rng(7)
    for _ in range(5):
        x0 = rng.integers(-20, 40, size=A.shape[1])
        b = A @ x0
        x = integer_solution(A, b)
        assert x.dtype == np.int64
        np.testing.assert_array_equal(A @ x, b)


@pytest.mark.parametrize(
    ("A", "b"),
    [
        ([[2, 4, 6]], [3]),  # parity: no integer solution
        ([[1, 1, 0], [1, -1, 2]], [0, 1]),  # u1+u2 = 0 forces u1-u2 even
        ([[1, 1, 1], [2, 2, 2]], [1, 3]),  # inconsistent over the rationals
        ([[1, 1], [1, 1]], [1, 2]),
    ],
)
def test_integer_solution_rejects_impossible_systems(A, b):
    with pytest.raises(InvariantError):
        integer_solution(A, b)


@pytest.mark.parametrize(("A", "b"), [([[1, 1, 1]], [1, 2]), ([[1, 1, 1]], [0.5]), ([[1, 1, 1]], [[1]])])
def test_integer_solution_rejects_bad_right_hand_sides(A, b):
    with pytest.raises(InvariantError):
        integer_solution(A, b)


# --------------------------------------------------------------------------- check_release


def test_check_release():
    A = table_margins(2, 3)
    x = np.array([[3, 1, 4], [1, 5, 9]]).ravel()
    margins = A @ x
    swap = np.array([1, -1, 0, -1, 1, 0])
    releases = np.stack([x, x + swap, x - 2 * swap])
    out = check_release(releases, A, margins)
    np.testing.assert_array_equal(out, releases)
    check_release((x + swap).astype(float), A, margins)  # integer-valued floats pass
    with pytest.raises(InvariantError, match="integer"):
        check_release(x + 0.5 * swap, A, margins)
    with pytest.raises(InvariantError, match="integer"):
        check_release(np.where(swap == 1, np.nan, x), A, margins)
    broken = releases.copy()
    broken[1, 0] += 1
    with pytest.raises(InvariantError, match="1 of 3"):
        check_release(broken, A, margins)
    with pytest.raises(InvariantError):
        check_release(x[:-1], A, margins)
    with pytest.raises(InvariantError):
        check_release(x, [[1, 0.5, 0, 0, 0, 0]], [1])


# --------------------------------------------------------------------------- builders


def test_check_release_rejects_invariants_of_the_wrong_length():
    A = np.array([[1, 0], [0, 1]])
    with pytest.raises(InvariantError):
        check_release(np.array([5, 5]), A, [5])  # two constraints, one invariant value


@pytest.mark.parametrize(
    "release, invariants, message",
    [
        (np.array([[1, 2, 3]]), [6.5], "must be integers"),
        (np.array([[1, 2, 3]]), [float("nan")], "must be integers"),
        (np.array([["1", "2", "3"]]), [6], "numeric"),
        (np.array([[1.0, 2.5, 2.5]]), [6], "not integer-valued"),
        (np.array(6), [6], "numeric vector"),
    ],
)
def test_check_release_rejects_non_integer_invariants_and_non_numeric_releases(release, invariants, message):
    with pytest.raises(InvariantError, match=message):
        check_release(release, sum_constraint(3), invariants)
