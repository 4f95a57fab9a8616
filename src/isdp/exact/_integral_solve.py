"""The integral solve of invariants A.

A maximal set of independent rows (:func:`independent_rows`), the solved cells S and the integer map from the free
cells' noise to theirs, so the free cells are the coordinates of the lattice Λ(A) (docs/method.md §11).

Floating point chooses the cells and solves; the solve is checked exactly in integers, and an exact
integer elimination in the same order of preference serves when floating point decides wrongly
(:class:`IntegerL1Sampler`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check


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
    >>> from isdp.exact._integral_solve import independent_rows
    >>> independent_rows(np.array([[1, 1, 1], [2, 2, 2], [0, 0, 1]])).tolist()
    [1, 2]
    """
    from scipy.linalg import qr  # deferred: scipy.linalg costs 0.1 s at import, which isdp.exact need not pay at import

    if np.size(A) == 0:  # no rows, or rows over no cells: rank 0
        return np.zeros(0, dtype=np.int64)
    A = check.integer_matrix("A", A)  # NaN or 1.5 is no invariant: refused by name, not by LAPACK
    R, pivots = qr(np.asarray(A, dtype=float).T, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > 1e-9 * max(diag[0], 1.0))) if diag.size else 0
    return np.sort(pivots[:rank]).astype(np.int64)


def _greedy_independent(columns: np.ndarray, order) -> list[int]:
    """Positions (in ``order``) of a maximal linearly independent set of ``columns``' columns, taken greedily.

    One Gram-Schmidt step per column (O(m² n) in all, where the rank-per-column search it replaces was O(m³ n)). Float
    decisions on integer matrices; the sampler verifies its solve exactly in integers (:meth:`IntegerL1Sampler.build`),
    so a wrong call cannot pass unnoticed.
    """
    M = np.asarray(columns, dtype=float)
    norms = np.sqrt(np.einsum("ij,ij->j", M, M))
    Q = np.zeros((min(M.shape), M.shape[0]))  # the orthonormal basis so far, one row per vector
    keep: list[int] = []
    order = np.asarray(order, dtype=np.int64)
    order = order[norms[order] > 0]
    for start in range(0, len(order), 128):
        # a chunk at once: residuals against the basis so far, updated by one rank-one step per
        # vector the chunk adds (a column inside the span stays inside as the basis grows)
        chunk = order[start : start + 128]
        q = Q[: len(keep)]
        R = M[:, chunk] - q.T @ (q @ M[:, chunk])
        tol = 1e-9 * norms[chunk]
        pos = 0
        while True:
            lengths = np.sqrt(np.einsum("ij,ij->j", R[:, pos:], R[:, pos:]))
            outside = np.flatnonzero(lengths > tol[pos:])
            if not outside.size:
                break
            pos += outside[0]
            q = Q[: len(keep)]
            r = R[:, pos] - q.T @ (q @ R[:, pos])  # re-orthogonalised: twice is enough (Kahan-Parlett)
            length = math.sqrt(r @ r)
            pos += 1
            if length <= tol[pos - 1]:
                continue
            Q[len(keep)] = r / length
            keep.append(int(chunk[pos - 1]))
            if len(keep) == Q.shape[0]:
                return keep
            R[:, pos:] -= np.outer(Q[len(keep) - 1], Q[len(keep) - 1] @ R[:, pos:])
    return keep


def integral_solve(A: np.ndarray, first=()) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the solved cells S and the integral solve X = -A[:, S]⁻¹ A[:, F] of invariants A.

    With A[:, S] square and invertible and X integral (F the other cells, the free ones),
    z ↦ (u_F = z, u_S = X z) is a bijection from Z^F onto Λ(A) = {u integer : A u = 0}: the free
    cells are the lattice's coordinates, and the exact sampler draws them freely.

    Parameters
    ----------
    A : numpy.ndarray of int, shape (m, n)
        The invariants, with linearly independent rows (pass ``A[independent_rows(A)]``).
    first : sequence of int, default ()
        Cells to solve for first (a derived table's, :meth:`IntegerL1Sampler.norm_tables`); the others follow from
        the last column backwards.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray) or None
        ``(S, X)``: the m solved cells (sorted int64) and X (int64, shape (m, n − m)), row i the
        coefficients of solved cell S[i] on the free cells in increasing order; or None when the
        greedy S gives a non-integral X (or entries of 2**52 or more) in both orders tried.

    Raises
    ------
    AssertionError
        When A's rows are not independent.

    Notes
    -----
    An integer u in ker A is fixed by u_F, and every integer z gives an integer u. S is taken
    greedily from the cells ``first``, then from the last column, so the solved cells are the
    table's last ones; where that gives no integral X, the cells with a coefficient ±1 are tried
    first; for totally unimodular A (margins of two-way tables, nested totals) X is
    always integral. The solve is checked exactly in integers (A_S X = −A_F) before it is returned
    (docs/method.md §11).

    Examples
    --------
    A total over three cells: the last cell is solved, u_2 = −u_0 − u_1.

    >>> import numpy as np
    >>> from isdp.exact._integral_solve import integral_solve
    >>> solved, X = integral_solve(np.array([[1, 1, 1]]))
    >>> solved.tolist(), X.tolist()
    ([2], [[-1, -1]])
    >>> integral_solve(np.array([[2, 4, 6]])) is None  # every cell's coefficient is even: no integral solve
    True
    """
    m, n = A.shape
    for order in _orders(A, first):
        solved = np.array(sorted(_greedy_independent(A, order)), dtype=np.int64)
        if len(solved) != m:
            raise AssertionError("A's rows are not independent; pass A[independent_rows(A)]")
        free = np.delete(np.arange(n), solved)  # solved is sorted and unique
        X = np.rint(-np.linalg.solve(A[:, solved].astype(float), A[:, free].astype(float)))
        if not np.all(np.abs(X) < 2**52):  # integers exact in floats
            continue
        X = X.astype(np.int64)
        if np.array_equal(_exact_product(A[:, solved], X), -A[:, free]):  # A_S X = -A_F: X is the solve
            return solved, X
    return None


def _orders(A: np.ndarray, first) -> list[list[int]]:
    """Return the orders in which the solves try cells.

    ``first``, then from the last column backwards; failing that, the cells with a coefficient ±1 before the others
    (``w,1,3`` on two cells solves the first: u₀ = −3u₁, where the last column's 3 gave no integral solve and the
    invariants were refused while ``w,3,1`` was served).
    """
    first = [int(j) for j in first]
    taken = np.zeros(A.shape[1], dtype=bool)  # one pass over the cells: a set rebuilt per cell made this quadratic
    taken[first] = True
    rest = np.flatnonzero(~taken)[::-1]
    has_unit = (np.abs(A) == 1).any(axis=0)[rest]
    other = first + rest[has_unit].tolist() + rest[~has_unit].tolist()
    rest = first + rest.tolist()
    return [rest] + ([other] if other != rest else [])


def _exact_solve(A: np.ndarray, first=()) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`integral_solve` in exact integer arithmetic, dependent rows allowed: ``(rows, S, X)``.

    Gauss-Jordan elimination without fractions (each row kept integral and divided by the gcd of
    its entries) over the cells in :func:`integral_solve`'s order of preference, so S is the same
    greedy choice that floating point makes when it decides right. ``rows`` are the original rows
    that became pivots: independent, and every other row is a combination of them. X is
    −A[rows, S]⁻¹ A[rows, F], exact; None when it is not integral (or has entries of 2**52 or
    more). Python integers: O(m² n) operations, for blocks within :data:`EXACT_SOLVE_LIMIT`.
    """
    for order in _orders(A, first):
        found = _exact_solve_in(A, order)
        if found is not None:
            return found
    return None


def _exact_solve_in(A: np.ndarray, order: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_exact_solve` with the cells tried in ``order``."""
    m, n = A.shape
    M = [[int(v) for v in row] for row in A.tolist()]
    origin = list(range(m))
    pivots: list[int] = []
    for col in order:
        r = len(pivots)
        if r == m:
            break
        k = next((i for i in range(r, m) if M[i][col]), None)
        if k is None:
            continue
        M[r], M[k], origin[r], origin[k] = M[k], M[r], origin[k], origin[r]
        p = M[r][col]
        for i in range(m):
            c = M[i][col]
            if i != r and c:
                row = [p * a - c * b for a, b in zip(M[i], M[r], strict=True)]
                g = math.gcd(*row)
                M[i] = [a // g for a in row] if g > 1 else row
        pivots.append(col)
    solved = np.array(sorted(pivots), dtype=np.int64)
    free = np.setdiff1d(np.arange(n), solved)
    X = np.zeros((len(pivots), len(free)), dtype=np.int64)
    where = {col: k for k, col in enumerate(pivots)}
    for i, s_col in enumerate(solved.tolist()):
        row = M[where[s_col]]
        p = row[s_col]
        for j, f in enumerate(free.tolist()):
            q, rem = divmod(-row[f], p)
            if rem or abs(q) >= 2**52:
                return None
            X[i, j] = q
    return np.array(sorted(origin[: len(pivots)]), dtype=np.int64), solved, X


def _exact_product(M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """M @ X exactly: in floats (BLAS) when no partial sum can reach 2**53, else in Python integers."""
    bound = float(np.abs(M).max(initial=0)) * float(np.abs(X).max(initial=0)) * max(M.shape[1], 1)
    if bound < 2.0**53:
        return (M.astype(float) @ X.astype(float)).astype(np.int64)
    return M.astype(object) @ X.astype(object)
