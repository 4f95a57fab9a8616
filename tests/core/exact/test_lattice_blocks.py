"""Which blocks Klein's sampler serves (isdp.exact.lattice_block): a total, or two margins, read from A.

Generated grids under their margins (cells in any order, a margin stated twice, the grand total, an implied margin
left out, rows in any order) are recognised, and every grid returned is one whose margins span exactly A's rows:
checked by rank, against the definition rather than the recogniser's own steps.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp.errors import InvariantError
from isdp.exact import LatticeBlock, lattice_block, seeded_source


def _margins(grid: np.ndarray) -> np.ndarray:
    """The row and column totals of ``grid`` (cells numbered by its entries), one row each."""
    r, c = grid.shape
    M = np.zeros((r + c, grid.size), dtype=np.int64)
    for i in range(r):
        M[i, grid[i]] = 1
    for j in range(c):
        M[r + j, grid[:, j]] = 1
    return M


def _same_span(A: np.ndarray, B: np.ndarray) -> bool:
    rank = np.linalg.matrix_rank
    return rank(A) == rank(B) == rank(np.vstack([A, B]))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 5),
    st.randoms(use_true_random=False),
    st.sets(st.sampled_from(["twice", "grand", "implied", "extra"])),
)
def test_a_grid_s_margins_are_recognised_and_every_grid_returned_spans_a_s_rows(r, c, rnd, changes):
    n = r * c
    grid = np.array(rnd.sample(range(n), n)).reshape(r, c)
    rows = list(_margins(grid))
    if "twice" in changes:
        rows.append(rows[rnd.randrange(len(rows))].copy())
    if "grand" in changes:
        rows.append(np.ones(n, dtype=np.int64))
    if "implied" in changes:
        rows.pop(rnd.randrange(len(rows)))
    if "extra" in changes:  # any other row: a grid may come back only if its margins still span A exactly
        rows.append(np.array([rnd.randrange(3) for _ in range(n)], dtype=np.int64))
    rnd.shuffle(rows)
    A = np.array(rows)
    block = lattice_block(A)
    if "extra" not in changes:
        assert block is not None and block.kind == "margins" and block.grid.shape in ((r, c), (c, r))
    if block is not None and block.kind == "margins":
        assert sorted(block.grid.ravel().tolist()) == list(range(n))
        assert _same_span(A, _margins(block.grid))


def test_the_structures_it_serves_and_those_it_leaves():
    margins = np.vstack(
        [np.kron(np.eye(2, dtype=int), np.ones(3, dtype=int)), np.kron(np.ones(2, dtype=int), np.eye(3, dtype=int))]
    )
    assert lattice_block(margins).grid.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert lattice_block(margins[:-1]).grid.tolist() == [[0, 1, 2], [3, 4, 5]]  # an implied margin left out
    assert lattice_block(np.vstack([margins, np.ones((1, 6), dtype=int)])).kind == "margins"  # the grand total
    transposed = margins[:, [0, 3, 1, 4, 2, 5]]
    assert sorted(lattice_block(transposed).grid.ravel().tolist()) == list(range(6))
    assert lattice_block(np.array([[2, 2, 2]])).kind == "total"
    assert lattice_block(np.array([[1, 1, 0], [0, 1, 1]])) is None  # overlapping totals
    assert lattice_block(np.array([[1, 2, 1]])) is None  # not a total
    assert lattice_block(np.array([[-3, -3, -3]])).kind == "total"
    assert lattice_block(np.array([[1]])) is None
    three_way = np.vstack([margins, [[1, 0, 0, 0, 1, 0]]])  # a third total: more than the margins
    assert lattice_block(three_way) is None


def test_two_margins_are_recognised_from_a_sparse_matrix_without_densifying_it():
    """lattice_block built a dense matrix and an SVD: 300 x 300 under both margins took 113 s and 3.2 GB, 1000 x 1000
    was a MemoryError. It reads the non-zeros; a dense 600 x 90,000 matrix is never made."""
    from scipy import sparse

    r, c = 300, 300
    cells = np.arange(r * c).reshape(r, c)
    rows = np.concatenate([np.repeat(np.arange(r), c), r + np.tile(np.arange(c), r)])
    A = sparse.csr_array(
        (np.ones(2 * r * c, dtype=np.int64), (rows, np.concatenate([cells.ravel(), cells.ravel()]))),
        shape=(r + c, r * c),
    )
    block = lattice_block(A)
    assert block.kind == "margins" and block.grid.shape == (r, c)
    assert lattice_block(A[1:]).kind == "margins"  # a margin the others imply, left out
    assert lattice_block(A[2:]) is None  # two left out: the margins are not spanned


@pytest.mark.parametrize("row", [[2, 0, 2], [1, 1, 0], [0, 3, 3, 3]])
def test_a_total_over_some_cells_is_not_the_blocks_total(row):
    """[[2, 0, 2]] and [[1, 1, 0]] were taken for a total over every cell, and most draws broke A u = 0:
    a total covers every cell of its block."""
    A = np.array([row])
    assert lattice_block(A) is None
    wrong = LatticeBlock(np.arange(A.shape[1]).reshape(1, -1), "total")  # what was served: Σ u = 0 only
    rng = seeded_source(5)
    assert any((A @ wrong.draw(Fraction(4), rng)[0]).any() for _ in range(20))


def test_a_non_integer_invariant_is_refused_not_cast_to_a_total():
    with pytest.raises(InvariantError, match=r"entry \(0, 2\) is 1.5"):
        lattice_block(np.array([[1, 1, 1.5]]))
