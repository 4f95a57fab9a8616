"""The structure of a set of invariants A (rows × cells, integer coefficients) that the samplers rely on.

Its canonical sparse form (:func:`as_sparse`), its row values A x computed exactly (:func:`row_values`), a set of
independent rows (:func:`independent_rows`), the rows the others imply (:func:`implied_by_partition`) and the
independent blocks each sampler draws on its own (:func:`blocks`; docs/release.md, "Scale").
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .. import _validate as check
from ..errors import InvariantError


def as_sparse(A) -> sparse.csr_array:
    """Return a constraint matrix as a canonical int64 CSR array (memory linear in its non-zeros).

    Canonical: duplicate entries summed, explicit zeros removed, column indices sorted within
    each row, so two equal matrices have equal ``indptr``, ``indices`` and ``data``.

    Parameters
    ----------
    A : array_like or scipy.sparse array or matrix
        The invariants, rows × cells (integer coefficients).

    Returns
    -------
    scipy.sparse.csr_array
        ``A`` with dtype int64, in canonical form.

    Raises
    ------
    isdp.errors.InvariantError
        An entry that is not an integer within int64 (1.5 is refused, not cast to 1), a bool matrix, or a
        dense ``A`` that is not a non-empty 2-D matrix (:func:`isdp.lattice.as_integer_matrix`).

    Examples
    --------
    >>> from isdp.lattice import as_sparse
    >>> A = as_sparse([[1, 0, 2], [0, 0, 0]])
    >>> A.shape, A.nnz, A.dtype.name
    ((2, 3), 2, 'int64')
    >>> A.toarray().tolist()
    [[1, 0, 2], [0, 0, 0]]
    >>> as_sparse([[1, 1, 1.5]])
    Traceback (most recent call last):
    ...
    isdp.errors.InvariantError: A must be integer-valued; entry (0, 2) is 1.5
    """
    A = sparse.csr_array(check.integer_matrix("A", A))  # read, never cast: 1.5 is not the invariant 1
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    return A


def row_values(A: sparse.csr_array, x: np.ndarray) -> list[int]:
    """Return a x exactly, in Python integers (no int64 wrap-around).

    Parameters
    ----------
    A : scipy.sparse.csr_array
        The invariants, canonical (:func:`as_sparse`), rows × n.
    x : numpy.ndarray
        An integer vector of n cells (a table, a release or a noise vector).

    Returns
    -------
    list of int
        One exact value per row of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import as_sparse, row_values
    >>> A = as_sparse([[1, 1, 1, 1], [1, 1, 0, 0]])
    >>> row_values(A, np.array([3, 5, 4, 2]))
    [14, 8]
    >>> row_values(as_sparse([[2**40, 2**40]]), np.array([2**40, 2**40]))  # beyond int64
    [2417851639229258349412352]
    """
    x = np.asarray(x)
    if x.dtype.kind in "fb" and x.size:  # 1.5 would be truncated by the exact loop below, True read as 1
        x = check.integer_matrix("x", x.reshape(1, -1), error=InvariantError)[0]
    width = int(np.diff(A.indptr).max()) if A.shape[0] else 0
    largest = (int(np.abs(A.data).max()) if A.nnz else 0) * (int(np.abs(x).max()) if x.size else 0)
    if x.dtype.kind in "iu" and largest * width < 2**63:  # no partial sum can wrap around: int64 is exact
        return (A @ x.astype(np.int64)).tolist()
    out = []
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        out.append(sum(int(c) * int(v) for c, v in zip(A.data[lo:hi], x[A.indices[lo:hi]], strict=True)))
    return out


def independent_rows(A: np.ndarray) -> np.ndarray:
    """Return the positions (sorted) of a maximal set of linearly independent rows of A.

    The pivots of a rank-revealing QR of Aᵀ (LAPACK, a relative tolerance of 1e-9 on R's
    diagonal): any maximal set gives the same Λ(A), and the sampler checks every row exactly.

    Parameters
    ----------
    A : numpy.ndarray
        The invariants, dense, rows × cells.

    Returns
    -------
    numpy.ndarray
        The positions of the rows kept, int64, ascending; as many as the rank of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import independent_rows
    >>> independent_rows(np.array([[1, 1, 1], [2, 2, 2], [0, 0, 1]])).tolist()
    [1, 2]
    """
    from scipy.linalg import qr  # deferred: scipy.linalg costs 0.1 s at import, which isdp.lattice need not pay

    if np.size(A) == 0:  # no rows, or rows over no cells: rank 0
        return np.zeros(0, dtype=np.int64)
    A = check.integer_matrix("A", A)  # NaN or 1.5 is no invariant: refused by name, not by LAPACK
    R, pivots = qr(np.asarray(A, dtype=float).T, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > 1e-9 * max(diag[0], 1.0))) if diag.size else 0
    return np.sort(pivots[:rank]).astype(np.int64)


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
    from scipy.sparse.csgraph import connected_components  # deferred: 0.07 s at import, for this one function

    A = as_sparse(A)
    m, n = A.shape
    kept = np.setdiff1d(np.arange(m), implied_by_partition(A))
    rows, cols = A[kept].nonzero()
    rows = kept[rows]
    graph = sparse.coo_array((np.ones(len(rows)), (cols, n + rows)), shape=(n + m, n + m))
    _, label = connected_components(graph, directed=False)
    row_label = np.full(m, -1)
    row_label[kept] = label[n + kept]
    # one sort each for cells and rows, then every component's slice at once (linear in the cells, not
    # quadratic in the blocks); a stable sort keeps each component's cells and rows ascending
    cell_order = np.argsort(label[:n], kind="stable")
    cell_labels = label[:n][cell_order]
    starts = np.flatnonzero(np.diff(cell_labels, prepend=-1))
    row_order = np.argsort(row_label, kind="stable")
    row_labels = row_label[row_order]
    first_row = np.searchsorted(row_labels, cell_labels[starts], "left")
    last_row = np.searchsorted(row_labels, cell_labels[starts], "right")
    ends = np.append(starts[1:], n)
    cuts = zip(starts.tolist(), ends.tolist(), first_row.tolist(), last_row.tolist(), strict=True)
    parts = [(cell_order[a:b], row_order[lo:hi]) for a, b, lo, hi in cuts]
    parts.sort(key=lambda part: part[0][0])  # in the order of each block's first cell
    return parts
