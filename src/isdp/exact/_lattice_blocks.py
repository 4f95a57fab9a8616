"""Which blocks Klein's sampler serves: one total, or a table's two margins, recognised from the invariants.

A block's invariants A are read from their CSR arrays whole, in passes linear in the non-zeros: a total over every
cell, or totals that fall into two families whose cells form an r × c grid (:func:`lattice_block`), the rows of A
then spanning exactly the grid's margins. The grid is what :class:`isdp.exact.LatticeBlock` draws on.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .._sparse import as_sparse, segments
from .._union_find import two_colouring
from ._lattice_gaussian import LatticeBlock


def lattice_block(A) -> LatticeBlock | None:
    """Return the block's cells as a grid when its invariants are a total or a table's two margins.

    The invariants' row space must be exactly that of one total over every cell, or that of the
    row and column totals of an r × c arrangement of the cells (r, c ≥ 2): rows the margins imply
    (the grand total, a margin stated twice) may be among them, and a margin the others imply may
    be missing. Anything else (other coefficients, a third family of totals, a block of one cell)
    gives None, and the release uses its general exact sampler.

    Parameters
    ----------
    A : array_like or scipy.sparse array of int, shape (m, n)
        The block's invariants over its n cells. Read in time linear in their non-zeros (a row
        other than a total, a margin or the grand total costs O(n)): no dense matrix, no
        factorisation, so a 1000 × 1000 table's two margins are recognised as quickly as they
        are read.

    Returns
    -------
    LatticeBlock or None
        The grid, or None when the invariants are not of either kind.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.exact import lattice_block
    >>> lattice_block(np.array([[1, 1, 1]])).kind
    'total'
    >>> lattice_block(np.array([[1, 1, 0], [0, 1, 1]])) is None  # two overlapping totals
    True
    """
    A = as_sparse(A)  # integer entries only: 1.5 is refused, not cast to 1
    if (np.diff(A.indptr) == 0).any():
        A = A[np.flatnonzero(np.diff(A.indptr))]  # the rows that hold a cell
    n = A.shape[1]
    if n < 2 or A.shape[0] == 0:
        return None
    lengths, starts = np.diff(A.indptr), A.indptr[:-1]
    low, high = np.minimum.reduceat(A.data, starts), np.maximum.reduceat(A.data, starts)
    if (lengths == n).all() and (low == high).all():  # multiples of a total over every cell
        return LatticeBlock(np.arange(n).reshape(1, n), "total")
    totals = (low == 1) & (high == 1)
    grid = _two_margins_grid(A, totals, n)
    if grid is None or not _spans_the_margins(A, totals, grid):
        return None
    return LatticeBlock(grid, "margins")


def _spans_the_margins(A: sparse.csr_array, totals: np.ndarray, grid: np.ndarray) -> bool:
    """Whether the invariants A (no empty row; ``totals`` marks its rows of ones) span exactly the margins of ``grid``.

    A vector w on the grid is in their span iff w[a, b] = α_a + β_b; (α, β) is then its coordinate, defined up to
    the relation ρ = (1, …, 1, −1, …, −1) (the row totals sum to the column totals). So the rows span the margins
    iff each is in the span and their coordinates with ρ have rank r + c. A row or column total is a unit
    coordinate, found for every row at once; any other row (the grand total, usually alone) is checked on the
    grid, O(cells) each.
    """
    r, c = grid.shape
    row_of, col_of = np.empty(grid.size, dtype=np.int64), np.empty(grid.size, dtype=np.int64)
    row_of[grid] = np.arange(r)[:, None]
    col_of[grid] = np.arange(c)[None, :]
    lengths, starts = np.diff(A.indptr), A.indptr[:-1]
    rows, cols = row_of[A.indices], col_of[A.indices]
    one_row = np.minimum.reduceat(rows, starts) == np.maximum.reduceat(rows, starts)
    one_col = np.minimum.reduceat(cols, starts) == np.maximum.reduceat(cols, starts)
    row_unit, col_unit = totals & (lengths == c) & one_row, totals & (lengths == r) & one_col
    units = np.zeros(r + c, dtype=bool)
    units[rows[starts[row_unit]]] = True
    units[r + cols[starts[col_unit & ~row_unit]]] = True
    others = []
    for k in np.flatnonzero(~(row_unit | col_unit)).tolist():
        w = np.zeros(grid.size, dtype=np.int64)
        w[A.indices[A.indptr[k] : A.indptr[k + 1]]] = A.data[A.indptr[k] : A.indptr[k + 1]]
        w = w[grid]
        if (w - w[:, :1] - w[:1, :] + w[0, 0]).any():  # not α_a + β_b: outside the margins' span
            return False
        others.append(np.concatenate([w[:, 0] - w[0, 0], w[0, :]]))
    rest = np.flatnonzero(~units)  # coordinates no unit row covers
    relation = np.concatenate([np.ones(r), -np.ones(c)])
    extra = np.vstack([relation, *others])[:, rest].astype(float)
    return int(units.sum()) + (np.linalg.matrix_rank(extra) if rest.size else 0) == r + c


def _two_margins_grid(A: sparse.csr_array, totals: np.ndarray, n: int) -> np.ndarray | None:
    """Return the r × c grid whose row and column totals are among the invariants A, or None.

    ``totals`` marks A's rows whose every coefficient is 1 (A has no empty row). Array operations over the totals'
    cells throughout (a 20,000 × 100 table's 20,100 totals): distinct totals of a grid share at most one cell, so
    two that begin with the same two cells are one total stated twice (checked cell by cell) or no grid; each cell
    in at most two totals; the totals that share a cell coloured in two families
    (:func:`isdp._union_find.two_colouring`), each family completed by the total the others imply, and each row
    total holding one cell of every column.
    """
    lengths = np.diff(A.indptr)
    candidates = np.flatnonzero(totals & (lengths > 1) & (lengths < n))
    if len(candidates) < 2:
        return None
    first, second = A.indices[A.indptr[candidates]], A.indices[A.indptr[candidates] + 1]
    order = np.lexsort((second, first))  # the totals in the order of their cells
    first, second, candidates = first[order], second[order], candidates[order]
    new = np.ones(len(candidates), dtype=bool)
    new[1:] = (first[1:] != first[:-1]) | (second[1:] != second[:-1])
    again = np.flatnonzero(~new)
    if again.size:  # a total stated twice, or two that share two cells (no grid)
        same = np.maximum.accumulate(np.where(new, np.arange(len(candidates)), 0))[again]
        twice, once = candidates[again], candidates[same]
        if (lengths[twice] != lengths[once]).any() or (
            A.indices[_entries(A, twice)] != A.indices[_entries(A, once)]
        ).any():
            return None
    parts = candidates[new]
    sizes = lengths[parts]
    cells = A.indices[_entries(A, parts)]
    owner = np.repeat(np.arange(len(parts)), sizes)
    held = np.bincount(cells, minlength=n)
    if held.max() > 2:
        return None
    # the totals that share a cell (its first and its last) coloured in two families, each component from its first
    first_owner, last_owner = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    first_owner[cells[::-1]] = owner[::-1]
    last_owner[cells] = owner
    shared = held == 2
    colour = two_colouring(first_owner[shared], last_owner[shared], len(parts))
    if colour.size == 0:  # an odd cycle of totals: not two families
        return None
    families = []  # per colour: (each total's first cell, size, cells), totals in the order of their first cell
    for side in (0, 1):
        mine = colour == side
        covered = np.zeros(n, dtype=bool)
        covered[cells[mine[owner]]] = True
        held_cells, held_sizes = [cells[mine[owner]]], [sizes[mine]]
        if not covered.all():  # the total the others imply: the cells left over
            rest = np.flatnonzero(~covered)
            held_cells.append(rest)
            held_sizes.append(np.array([len(rest)]))
        family_cells, family_sizes = np.concatenate(held_cells), np.concatenate(held_sizes)
        ends = np.cumsum(family_sizes)
        heads = family_cells[ends - family_sizes]
        order = np.argsort(heads, kind="stable")
        families.append(
            (
                heads[order],
                family_sizes[order],
                family_cells[segments((ends - family_sizes)[order], family_sizes[order])],
            )
        )
    # rows: the family whose first total holds cells 0 and 1 (a table written row by row)
    holds_one = [bool((cells_[: sizes_[0]] == 1).any()) for _, sizes_, cells_ in families]
    rows_, cols = families if holds_one[0] or not holds_one[1] else families[::-1]
    r, c = len(rows_[0]), len(cols[0])
    if r < 2 or c < 2 or r * c != n or (rows_[1] != c).any():
        return None  # not an r × c table, or a row total without c cells
    col_of = np.empty(n, dtype=np.int64)
    col_of[cols[2]] = np.repeat(np.arange(c), cols[1])
    row_cells = rows_[2]
    row_index = np.repeat(np.arange(r), c)
    if (np.bincount(row_index * c + col_of[row_cells], minlength=n) != 1).any():
        return None  # a row total without one cell of every column
    grid = np.empty((r, c), dtype=np.int64)
    grid[row_index, col_of[row_cells]] = row_cells
    return grid


def _entries(A: sparse.csr_array, rows: np.ndarray) -> np.ndarray:
    """Return the positions of ``rows``' entries in A's CSR arrays, row after row."""
    return segments(A.indptr[rows], np.diff(A.indptr)[rows])
