"""Tests of :mod:`isdp.privacy._neighbours`: which changes of one, two or more persons' records keep the
invariants, decided from A alone, against brute force over every sum of moves."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse

from isdp import _first_seen
from isdp.lattice import table_margins
from isdp.privacy import Neighbours
from isdp.privacy._neighbours import _repeated_column

TOTAL3 = np.ones((1, 3), dtype=np.int64)

MARGINS23 = table_margins(2, 3)


def _moves(n):
    """Every change of one person: a move between cells 0..n-1 or outside (index n)."""
    for a, b in itertools.permutations(range(n + 1), 2):
        v = np.zeros(n + 1, dtype=np.int64)
        v[a] -= 1
        v[b] += 1
        yield v[:n]


def _brute_force(A):
    n = A.shape[1]
    moves = list(_moves(n))
    one = any(not np.any(A @ v) for v in moves)
    two = any(np.any(v + w) and not np.any(A @ (v + w)) for v, w in itertools.product(moves, repeat=2))
    return one, two


@pytest.mark.parametrize(
    "A",
    [
        TOTAL3,
        MARGINS23,
        table_margins(3, 3),
        np.array([[1, 3, 7, 12]]),
        np.array([[1, 2, 4, 8]]),
        np.array([[1, 0, 0], [0, 1, 0]]),
        np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]),
        np.eye(3, dtype=np.int64)[:2] + np.eye(3, dtype=np.int64)[1:],
    ],
    ids=["total", "2x3 margins", "3x3 margins", "Sidon 1,3,7,12", "powers of 2", "a free cell", "chain", "overlap"],
)
def test_realisable_changes_match_brute_force(A):
    one, two = _brute_force(A)
    found = Neighbours.of(A)
    assert (found.one_person, found.two_persons) == (one, two)


def test_the_invariants_decide_who_is_covered():
    assert Neighbours.of(TOTAL3).one_person  # a move keeps a total
    assert not Neighbours.of(MARGINS23).one_person and Neighbours.of(MARGINS23).two_persons  # a 2x2 swap
    assert Neighbours.of(np.array([[1, 3, 7, 12]])).two_persons is False  # sums of pairs all distinct


def _kept_changes(A, k):
    """Every change of ``k`` persons (sums of k moves) that is not zero and keeps A x."""
    moves = np.array(list(_moves(A.shape[1])))
    v = moves[np.array(list(itertools.product(range(len(moves)), repeat=k)))].sum(axis=1)
    return v[np.any(v, axis=1) & ~np.any(v @ A.T, axis=1)]


@pytest.mark.parametrize(
    "A", [np.array([[3, 1]]), np.array([[5, 2]]), np.array([[1, 3, 7, 12]])], ids=["3,1", "5,2", "Sidon 1,3,7,12"]
)
def test_the_smallest_change_matches_brute_force(A):
    """Where no one or two persons' change keeps A: the fewest persons whose change does, and the largest ‖v‖₁
    and ‖v‖₂² among those changes, against every sum of k moves."""
    found = Neighbours.of(A)
    assert (found.one_person, found.two_persons) == (False, False)
    k = 3
    while not len(kept := _kept_changes(A, k)):
        k += 1
    assert (found.smallest.persons, found.smallest.l1, found.smallest.l2_squared) == (
        k,
        np.abs(kept).sum(axis=1).max(),
        (kept * kept).sum(axis=1).max(),
    )


@pytest.mark.parametrize(
    "A, attained",
    [(TOTAL3, True), (MARGINS23, True), (np.array([[1, 2, 3]]), True), (np.array([[1, 0, 0], [0, 1, 0]]), False)],
    ids=["total", "2x3 margins", "weights 1,2,3", "a free cell"],
)
def test_two_person_shift_bounds_every_kept_two_person_change(A, attained):
    """The Gaussian's two-person line is taken at the largest ‖v‖₂² of two persons' change that keeps A: attained
    when two persons can make the same move, a swap or share a cell; a bound when they can only be added."""
    kept = _kept_changes(A, 2)
    largest = (kept * kept).sum(axis=1).max()
    shift = Neighbours.of(A).two_person_shift(A)
    assert shift == largest if attained else shift > largest


@settings(max_examples=150, deadline=None)
@given(
    A=arrays(np.int64, st.tuples(st.integers(0, 4), st.integers(1, 7)), elements=st.integers(-1, 2)),
    collide=st.sampled_from(["none", "all", "halves"]),
)
def test_a_repeated_column_is_found_exactly_whatever_the_hashes(A, collide):
    """Two equal columns of A ∪ {0}, against a comparison of every pair; also when hashes collide (all equal, or
    unequal columns sharing one), so the exact comparison, not the hash, decides."""
    columns = [tuple(c) for c in A.T] + [(0,) * A.shape[0]]
    expected = len(set(columns)) < len(columns)
    real = _first_seen.row_hashes
    fake = {
        "none": real,
        "all": lambda M: np.zeros(M.shape[0], dtype=np.uint64),
        "halves": lambda M: real(M) % np.uint64(2),
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_first_seen, "row_hashes", fake[collide])
        assert _repeated_column(sparse.csc_array(A)) is expected
