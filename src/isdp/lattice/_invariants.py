"""The structure of a set of invariants A (rows × cells, integer coefficients) that the samplers rely on.

The rows the others imply (:func:`implied_by_partition`) and the independent blocks each sampler draws on its own
(:func:`blocks`; docs/release.md, "Scale"), read from A's canonical sparse form (:func:`isdp._sparse.as_sparse`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .._sparse import as_sparse
from .._union_find import cell_components

#: at most this many non-zeros are searched by the loop below; more by :mod:`isdp.lattice._compiled_partition`
_PYTHON_ENTRIES = 4096


def implied_by_partition(A: sparse.csr_array) -> np.ndarray:
    """Return the rows that are the sum of other rows with disjoint supports and the same coefficients.

    A nation's total of its states', a state's of its counties': implied, so dropping them keeps
    Λ(A) and lets the rest fall into :func:`blocks`. Rows are taken widest first; a row of a
    repeated support is never dropped for its twin.

    Parameters
    ----------
    A : array_like or scipy.sparse array
        The invariants, rows × cells.

    Returns
    -------
    numpy.ndarray
        The positions of the implied rows, ascending (empty if none).

    Examples
    --------
    Two state totals and the nation's:

    >>> from isdp.lattice import implied_by_partition
    >>> implied_by_partition([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]).tolist()
    [2]
    """
    A = as_sparse(A)
    width = np.diff(A.indptr)
    if A.shape[0] == 0 or width.min() == width.max():  # an implied row is wider than the rows it sums
        return np.zeros(0, dtype=np.int64)
    if A.nnz > _PYTHON_ENTRIES:  # the same search compiled: linear in the non-zeros for nested geography
        from ._compiled_partition import implied_rows  # deferred: it loads numba, which small tables need not

        return np.flatnonzero(implied_rows(A))
    support = [frozenset(A.indices[A.indptr[i] : A.indptr[i + 1]].tolist()) for i in range(A.shape[0])]
    rows_of_cell: dict[int, list[int]] = {}
    for i in np.argsort(width, kind="stable"):
        for j in support[i]:
            rows_of_cell.setdefault(j, []).append(int(i))
    dropped = np.zeros(A.shape[0], dtype=bool)
    for i in np.argsort(-width, kind="stable"):
        coef = dict(
            zip(
                A.indices[A.indptr[i] : A.indptr[i + 1]].tolist(),
                A.data[A.indptr[i] : A.indptr[i + 1]].tolist(),
                strict=True,
            )
        )
        covered: set[int] = set()
        for j in sorted(support[i]):
            if j in covered:
                continue
            part = next(
                (
                    r
                    for r in rows_of_cell[j]
                    if r != i
                    and not dropped[r]
                    and width[r] < width[i]
                    and support[r] <= support[i]
                    and not (support[r] & covered)
                    and all(
                        coef[c] == v
                        for c, v in zip(
                            A.indices[A.indptr[r] : A.indptr[r + 1]].tolist(),
                            A.data[A.indptr[r] : A.indptr[r + 1]].tolist(),
                            strict=True,
                        )
                    )
                ),
                None,
            )
            if part is None:
                break
            covered |= support[part]
        else:
            dropped[i] = True
    return np.flatnonzero(dropped)


def blocks(A) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return the invariants' independent blocks: (cells, rows) of each connected component.

    The components of the graph joining a cell to every invariant it enters, rows
    :func:`implied_by_partition` set aside (they hold on every block's noise). Λ(A) is the direct
    sum of the blocks' lattices and exp(−ε‖u‖) (ℓ1, and the Gaussian's ‖u‖₂²) factorizes over
    them, so each block is drawn on its own — one total per state is 52 small problems, not one
    of 3,221 cells, also with the nation's total beside them. A cell in no invariant is a block
    without rows (one double geometric draw).

    Parameters
    ----------
    A : array_like or scipy.sparse array
        The invariants, rows × cells.

    Returns
    -------
    list of tuple of numpy.ndarray
        ``(cells, rows)`` per block, in the order of each block's first cell: the positions of
        its cells and of its rows in ``A``, ascending. Implied rows are in no block.

    See Also
    --------
    isdp.exact.ExactSampler : Draws block by block.

    Examples
    --------
    Two state totals and the nation's, and a cell in no invariant:

    >>> from isdp.lattice import blocks
    >>> A = [[1, 1, 0, 0, 0], [0, 0, 1, 1, 0], [1, 1, 1, 1, 0]]
    >>> [(cells.tolist(), rows.tolist()) for cells, rows in blocks(A)]
    [([0, 1], [0]), ([2, 3], [1]), ([4], [])]
    """
    A = as_sparse(A)
    m, n = A.shape
    kept = np.setdiff1d(np.arange(m), implied_by_partition(A))
    cell_label = cell_components(A.indptr.astype(np.int64), A.indices.astype(np.int64), kept, n)
    row_label = np.full(m, -1)
    held = kept[A.indptr[kept + 1] > A.indptr[kept]]  # a row without cells is in no block
    row_label[held] = cell_label[A.indices[A.indptr[held]]]
    # one sort each for cells and rows, then every component's slice at once (linear in the cells, not
    # quadratic in the blocks); a stable sort keeps each component's cells and rows ascending, and a component's
    # label is its first cell, so the blocks come in the order of their first cells
    cell_order = np.argsort(cell_label, kind="stable")
    cell_labels = cell_label[cell_order]
    starts = np.flatnonzero(np.diff(cell_labels, prepend=-1))
    row_order = np.argsort(row_label, kind="stable")
    row_labels = row_label[row_order]
    first_row = np.searchsorted(row_labels, cell_labels[starts], "left")
    last_row = np.searchsorted(row_labels, cell_labels[starts], "right")
    ends = np.append(starts[1:], n)
    cuts = zip(starts.tolist(), ends.tolist(), first_row.tolist(), last_row.tolist(), strict=True)
    return [(cell_order[a:b], row_order[lo:hi]) for a, b, lo, hi in cuts]
