"""The implied rows of :func:`isdp.lattice.implied_by_partition`, compiled for large sets of invariants.

The same greedy search as the Python loop there, on A's CSR arrays (numba): rows widest first;
a row is implied when, taking its cells in ascending order, each cell not yet covered lies in a
narrower row not dropped — the first, in ascending width (ties in row order), whose cells all lie
in the row, none covered yet, with the row's coefficients — and those rows cover it. Per row, a
cell's membership, coefficient and coverage are stamped with the row's number in arrays over the
cells, so each check is one array read and the search is linear in the non-zeros for nested
geography (nation, states, counties, each state's age margin), where the loop took seconds per
million cells. ``tests/core/lattice/test_invariants.py`` compares the two on random nested sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy import sparse


@njit(cache=True, nogil=True)
def _implied(indptr, indices, data, width, widest_first, cell_ptr, cell_rows, n_cells):
    """Per row, whether it is implied (the greedy search above)."""
    dropped = np.zeros(width.size, dtype=np.bool_)
    in_row = np.full(n_cells, -1, dtype=np.int64)  # the row whose cells are stamped
    covered = np.full(n_cells, -1, dtype=np.int64)
    coef = np.zeros(n_cells, dtype=np.int64)
    for i in widest_first:
        for p in range(indptr[i], indptr[i + 1]):
            in_row[indices[p]] = i
            coef[indices[p]] = data[p]
        implied = True
        for p in range(indptr[i], indptr[i + 1]):  # the row's cells, ascending
            j = indices[p]
            if covered[j] == i:
                continue
            part = -1
            for q in range(cell_ptr[j], cell_ptr[j + 1]):  # the rows through j, narrowest first
                r = cell_rows[q]
                if r == i or dropped[r] or width[r] >= width[i]:
                    continue
                fits = True
                for t in range(indptr[r], indptr[r + 1]):
                    c = indices[t]
                    if in_row[c] != i or covered[c] == i or coef[c] != data[t]:
                        fits = False
                        break
                if fits:
                    part = r
                    break
            if part < 0:
                implied = False
                break
            for t in range(indptr[part], indptr[part + 1]):
                covered[indices[t]] = i
        dropped[i] = implied
    return dropped


def implied_rows(A: sparse.csr_array) -> np.ndarray:
    """Per row of the canonical ``A`` (:func:`isdp._sparse.as_sparse`), whether it is implied.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        The invariants in canonical form (int64, sorted indices).

    Returns
    -------
    numpy.ndarray of bool
        One flag per row.
    """
    width = np.diff(A.indptr).astype(np.int64)
    indptr, indices = A.indptr.astype(np.int64, copy=False), A.indices.astype(np.int64, copy=False)
    # the rows through each cell as int32 where they fit: the fill is a scatter across the cells, bound by memory
    cell_rows = np.empty(indices.size, dtype=np.int32 if A.shape[0] < 2**31 else np.int64)
    cell_ptr = _rows_of_cells(indptr, indices, np.argsort(width, kind="stable"), A.shape[1], cell_rows)
    return _implied(
        indptr,
        indices,
        A.data.astype(np.int64, copy=False),
        width,
        np.argsort(-width, kind="stable"),
        cell_ptr,
        cell_rows,
        A.shape[1],
    )


@njit(cache=True, nogil=True)
def _rows_of_cells(indptr, indices, narrowest_first, n_cells, cell_rows):
    """Fill ``cell_rows`` with each cell's rows, narrowest first (ties in row order); return the cells' pointers.

    A counting sort of the non-zeros by cell, filled in the rows' order, so every cell's list comes out in that
    order, in time linear in the non-zeros.
    """
    cell_ptr = np.zeros(n_cells + 1, dtype=np.int64)
    for p in range(indices.size):
        cell_ptr[indices[p] + 1] += 1
    for j in range(n_cells):
        cell_ptr[j + 1] += cell_ptr[j]
    fill = cell_ptr[:-1].copy()
    for r in narrowest_first:
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            cell_rows[fill[j]] = r
            fill[j] += 1
    return cell_ptr
