"""The constraint matrices of the papers' problems.

One total, a table's two margins, the counts of every union of intersecting sets (ISDP §5–6).

Each builder checks its sizes (positive integers, at most :data:`MATRIX_LIMIT` entries) and returns a
dense int64 matrix for :meth:`isdp.lattice.IntegerLattice.from_constraints`.
"""

from __future__ import annotations

import numbers
from itertools import combinations

import numpy as np

from ..errors import ArgumentError

#: the most entries a constraint-matrix builder below makes (dense int64: 80 MB)
MATRIX_LIMIT = 10**7


def _size(name: str, value) -> int:
    """``value`` as a positive int, or an ArgumentError (a ValueError) naming ``name`` (2.5 cells is not a table)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) or value < 1:
        raise ArgumentError(f"{name} must be a positive integer, not {value!r}", name)
    return int(value)


def _dense(shape: tuple[int, int]) -> np.ndarray:
    if shape[0] * shape[1] > MATRIX_LIMIT:
        raise ArgumentError(
            f"a {shape[0]:,} × {shape[1]:,} constraint matrix has more than {MATRIX_LIMIT:,} entries: "
            "build a larger system sparse (scipy.sparse), as isdp release does"
        )
    return np.zeros(shape, dtype=np.int64)


def sum_constraint(n: int) -> np.ndarray:
    """One counting constraint over all n cells (a state total over its counties).

    Parameters
    ----------
    n : int
        The number of cells.

    Returns
    -------
    numpy.ndarray
        An int64 array of shape (1, n), all ones.

    Raises
    ------
    ValueError
        ``n`` is not a positive integer, or the matrix would exceed :data:`MATRIX_LIMIT` entries.

    Examples
    --------
    >>> from isdp.lattice import sum_constraint
    >>> sum_constraint(3).tolist()
    [[1, 1, 1]]
    """
    A = _dense((1, _size("n", n)))
    A[:] = 1
    return A


def table_margins(n_rows: int, n_cols: int) -> np.ndarray:
    """Row and column totals of an n_rows × n_cols table, cells in row-major order.

    Parameters
    ----------
    n_rows : int
        The number of rows of the table.
    n_cols : int
        The number of columns of the table.

    Returns
    -------
    numpy.ndarray
        An int64 array of shape (n_rows + n_cols, n_rows·n_cols): first the row totals, then
        the column totals, each over the flattened (row-major) table.

    Raises
    ------
    ValueError
        A size that is not a positive integer, or a matrix beyond :data:`MATRIX_LIMIT` entries.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import table_margins
    >>> A = table_margins(2, 2)
    >>> A.tolist()
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]
    >>> x = np.array([[3, 1], [0, 2]])
    >>> (A @ x.ravel()).tolist()  # row totals 4, 2; column totals 3, 3
    [4, 2, 3, 3]
    """
    n_rows, n_cols = _size("n_rows", n_rows), _size("n_cols", n_cols)
    A = _dense((n_rows + n_cols, n_rows * n_cols))
    for i in range(n_rows):
        A[i, i * n_cols : (i + 1) * n_cols] = 1
    for j in range(n_cols):
        A[n_rows + j, j::n_cols] = 1
    return A


def venn_constraints(n_sets: int, records_per_region: int) -> np.ndarray:
    """Incidence matrix of ``n_sets`` counting constraints whose every intersection is non-empty.

    The overlapping-constraints problem of ISDP App. E.2: each column is a record, each row the
    count of one set. Regions are the non-empty subsets of the sets in order of size, then
    lexicographically ({1},{2},{3},{1,2},{1,3},{2,3},{1,2,3} for three sets), each holding
    ``records_per_region`` consecutive records.

    Parameters
    ----------
    n_sets : int
        The number of sets (constraints).
    records_per_region : int
        The number of records (cells) in each of the 2^n_sets − 1 regions.

    Returns
    -------
    numpy.ndarray
        An int64 array of shape (n_sets, (2^n_sets − 1)·records_per_region); entry (s, i) is 1
        when record i belongs to set s.

    Raises
    ------
    ValueError
        A size that is not a positive integer, or a matrix beyond :data:`MATRIX_LIMIT` entries
        (refused before the regions are listed: ``venn_constraints(30, 1)`` would have 30 × 2³⁰ entries).

    Examples
    --------
    >>> from isdp.lattice import venn_constraints
    >>> venn_constraints(2, 1).tolist()  # regions {1}, {2}, {1, 2}
    [[1, 0, 1], [0, 1, 1]]
    >>> venn_constraints(3, 2).shape
    (3, 14)
    """
    n_sets, records_per_region = _size("n_sets", n_sets), _size("records_per_region", records_per_region)
    if n_sets * (2**n_sets - 1) * records_per_region > MATRIX_LIMIT:  # before listing 2^n_sets regions
        _dense((n_sets, (2**n_sets - 1) * records_per_region))
    regions = [c for size in range(1, n_sets + 1) for c in combinations(range(n_sets), size)]
    A = _dense((n_sets, len(regions) * records_per_region))
    for r, members in enumerate(regions):
        cols = slice(r * records_per_region, (r + 1) * records_per_region)
        for s in members:
            A[s, cols] = 1
    return A
