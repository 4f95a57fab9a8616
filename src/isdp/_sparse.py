"""Sets of invariants as sparse integer matrices: their canonical form and their values at a table, exactly.

Every part that reads a matrix of invariants (the lattice, the exact samplers, the tables, the release) holds it in
one canonical CSR form (:func:`as_sparse`) and computes A x in Python integers where int64 could wrap
(:func:`row_values`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from . import _validate as check
from .errors import InvariantError

#: the entries (non-zeros, cells) from which the compiled passes run: the row hash, the counting sort (fewer: NumPy
#: and a set of the rows, without loading numba)
_COMPILED_FROM = 2**15


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
        ``A`` with dtype int64, in canonical form: ``A`` itself when it is one already (every part passes its
        matrix on, and a conversion costs a second per 10⁷ non-zeros).

    Raises
    ------
    isdp.errors.InvariantError
        An entry that is not an integer within int64 (1.5 is refused, not cast to 1), a bool matrix, or a
        dense ``A`` that is not a non-empty 2-D matrix (:func:`isdp._validate.integer_matrix`).

    Examples
    --------
    >>> from isdp._sparse import as_sparse
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
    if isinstance(A, sparse.csr_array) and A.dtype == np.int64 and A.has_canonical_format and not (A.data == 0).any():
        return A
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
    >>> from isdp._sparse import as_sparse, row_values
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


def segments(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Return the positions ``starts[k], …, starts[k] + sizes[k] − 1`` of every segment k, one after the other.

    The positions of CSR rows' entries (``A.indptr[rows]`` and their widths), or of runs held back to back, gathered
    without a Python loop.

    Parameters
    ----------
    starts, sizes : numpy.ndarray of int
        Each segment's first position and its length (≥ 0).

    Returns
    -------
    numpy.ndarray of int64
        The positions, ``sizes.sum()`` of them.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp._sparse import segments
    >>> segments(np.array([5, 0, 9]), np.array([2, 3, 0])).tolist()
    [5, 6, 0, 1, 2]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    return np.repeat(np.asarray(starts, dtype=np.int64) - (ends - sizes), sizes) + np.arange(total, dtype=np.int64)


def group_rows(member: np.ndarray, groups: int) -> sparse.csr_array:
    """Return the 0/1 matrix whose row g holds the cells of group g, canonical (:func:`as_sparse`).

    Each cell is in one group, so the rows are a stable sort of the cells by group: a counting sort
    (:func:`isdp._first_seen.cells_by_group`), no coordinate list to convert (SciPy's COO route took 0.14 s
    per 2·10⁶ cells).

    Parameters
    ----------
    member : numpy.ndarray of int
        Each cell's group, in ``0 … groups − 1``.
    groups : int
        The number of groups (rows).

    Returns
    -------
    scipy.sparse.csr_array
        int64, ``groups`` × ``member.size``; a row's cells ascending.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp._sparse import group_rows
    >>> group_rows(np.array([1, 0, 1, 2]), 3).toarray().tolist()
    [[0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 1]]
    """
    member = np.asarray(member, dtype=np.int64)
    if member.size >= _COMPILED_FROM:
        from ._first_seen import cells_by_group  # here: it loads numba, which a few cells need not

        cells, indptr = cells_by_group(member, groups)
    else:
        cells = np.argsort(member, kind="stable")
        indptr = np.zeros(groups + 1, dtype=np.int64)
        np.cumsum(np.bincount(member, minlength=groups), out=indptr[1:])
    return sparse.csr_array((np.ones(member.size, dtype=np.int64), cells, indptr), shape=(groups, member.size))


def first_rows(A: sparse.csr_array) -> list[int]:
    """Return the rows of ``A`` (canonical) that equal no earlier row, in order.

    What :func:`isdp.tables.constraint_matrix` keeps of its families' rows, and a part of a large table of its own.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        Canonical (:func:`isdp._sparse.as_sparse`): equal rows have equal indices and data.

    Returns
    -------
    list of int
        The positions kept.

    Examples
    --------
    >>> from isdp._sparse import as_sparse, first_rows
    >>> first_rows(as_sparse([[1, 1, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0], [0, 0, 0]]))
    [0, 1, 3]
    """
    m = A.shape[0]

    def row(i: int) -> tuple[bytes, bytes]:
        lo, hi = A.indptr[i], A.indptr[i + 1]
        return A.indices[lo:hi].tobytes(), A.data[lo:hi].tobytes()

    if A.nnz < _COMPILED_FROM:  # a few rows: a set of them, without loading the compiled hash
        seen: dict[tuple[bytes, bytes], int] = {}
        for i in range(m):
            seen.setdefault(row(i), i)
        return sorted(seen.values())
    from ._first_seen import first_seen, row_hashes  # here: it loads numba, which a few rows need not

    # equal rows have equal lengths and first cells (a canonical row's cells ascend): only rows that share both with
    # another are hashed (a part's families share none, each row of a family its own cells)
    lengths, width = np.diff(A.indptr), A.shape[1] + 1
    if A.nnz and width**2 < 2**62:
        firsts = A.indices[np.minimum(A.indptr[:-1], A.nnz - 1)].astype(np.int64) + 1
        starts = np.where(lengths > 0, firsts, 0)  # 0 for an empty row
        shape, _ = first_seen(starts * width + lengths)
        shared = np.flatnonzero(np.bincount(shape)[shape] > 1)
        if not shared.size:
            return list(range(m))
        if shared.size < m:
            keep = np.ones(m, dtype=bool)
            keep[shared] = False
            keep[shared[first_rows(A[shared])]] = True
            return np.flatnonzero(keep).tolist()
    # equal rows hash alike, so a row is compared exactly only with earlier rows of its hash, and a set of
    # invariants without repeats compares none
    group, first = first_seen(row_hashes(A).view(np.int64))
    later = np.flatnonzero(first[group] != np.arange(m))
    if not later.size:
        return list(range(m))
    kept: dict[int, set] = {}
    dropped = set()
    for i in later.tolist():
        g = int(group[i])
        rows = kept.setdefault(g, {row(int(first[g]))})
        if row(i) in rows:
            dropped.add(i)
        else:
            rows.add(row(i))
    return [i for i in range(m) if i not in dropped]
