"""Lattice bases chosen for mixing: the same Λ(A), another basis, another Markov chain, the same π.

The sampler (ISDP Algorithm 1) moves along one basis column at a time, so the basis is a choice
of the sampler, not of the lattice. The Smith-normal-form basis of a sum constraint is a star
(every column e_j − e_1 touches cell 1): coupled pairs on it stop meeting beyond about 30 cells,
so no L-lag certificate can be obtained. Local bases — every column touching a few neighbouring
cells — let disagreement heal locally, and every pair meets (docs/coupling-study.md). The bases:

- ``"path"``: e_i − e_{i+1} within each block of a sum constraint (one sum over all cells, or
  one sum per block of cells, as a state's counties or several states side by side);
- ``"table"``: the adjacent 2×2 moves e_(i,j) − e_(i,j+1) − e_(i+1,j) + e_(i+1,j+1) of a two-way
  table with both margins fixed (cells in row-major order, as :func:`isdp.lattice.table_margins`);
- ``"lll"``: the LLL reduction of the Smith basis (sympy), for any A: short vectors, the general
  substitute for a local basis;
- ``"smith"``: the lattice's own basis, unchanged.

``"auto"`` (:func:`default_basis`) picks ``path`` for sum constraints, ``table`` for two-way
margins and ``lll`` otherwise. Every basis is checked to span the same lattice:
:func:`change_of_basis` returns the integer transform T (new = old · T) and its integer inverse,
so det T = ±1 (unimodular).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import _validate as check
from ..errors import ArgumentError, InvariantError
from ._constraint_builders import table_margins
from ._integer_lattice import IntegerLattice, lll_reduce, sum_blocks

#: The basis names :func:`with_mixing_basis` accepts: ``"auto"`` (:func:`default_basis`: path, else
#: table, else lll), ``"smith"`` (the lattice's basis, unchanged), ``"path"`` (e_i − e_{i+1} within each
#: sum block), ``"table"`` (adjacent 2×2 moves of a two-way table with both margins fixed) and
#: ``"lll"`` (the LLL-reduced Smith basis, for any A).
MIXING_BASES = ("auto", "smith", "path", "table", "lll")


def table_shape(A) -> tuple[int, int] | None:
    """(rows, columns) if A is exactly :func:`isdp.lattice.table_margins` of a two-way table, else None."""
    A = np.asarray(A)
    m, n = A.shape
    for r in range(2, n // 2 + 1):
        if n % r == 0 and n // r >= 2 and r + n // r == m and np.array_equal(A, table_margins(r, n // r)):
            return r, n // r
    return None


def default_basis(A) -> str:
    """Return the mixing basis ``"auto"`` picks for a constraint matrix.

    ``"path"`` when A is one 0/1 sum per block of cells (no cell in two sums; a single total is
    one block), else ``"table"`` when A is exactly :func:`isdp.lattice.table_margins` of a two-way table,
    else ``"lll"``.

    Parameters
    ----------
    A : array_like of int
        The constraint matrix, shape (m, n).

    Returns
    -------
    str
        ``"path"``, ``"table"`` or ``"lll"``.

    Examples
    --------
    >>> from isdp.lattice import sum_constraint, table_margins, venn_constraints
    >>> from isdp.lattice._bases import default_basis
    >>> default_basis(sum_constraint(4)), default_basis(table_margins(2, 3))
    ('path', 'table')
    >>> default_basis(venn_constraints(2, 1))  # overlapping sums: neither
    'lll'
    """
    A = check.integer_matrix("A", A)  # 1.5 is refused, not read as a sum's coefficient
    if sum_blocks(A) is not None:
        return "path"
    if table_shape(A) is not None:
        return "table"
    return "lll"


def path_basis(A) -> np.ndarray:
    """e_i − e_{i+1} for consecutive cells of each sum block, and e_i for every free cell (n × k)."""
    blocks = sum_blocks(A)
    if blocks is None:
        raise InvariantError("the path basis needs one 0/1 sum per block of cells (no cell in two sums)")
    n = np.asarray(A).shape[1]
    cols = []
    for cells in blocks:
        for a, b in zip(cells[:-1], cells[1:], strict=True):
            v = np.zeros(n, dtype=np.int64)
            v[a], v[b] = 1, -1
            cols.append(v)
    for i in np.flatnonzero(np.asarray(A).sum(axis=0) == 0):
        cols.append(np.eye(n, dtype=np.int64)[i])
    return np.array(cols, dtype=np.int64).reshape(-1, n).T


def table_basis(A) -> np.ndarray:
    """Return the adjacent 2×2 moves of a two-way table with both margins fixed (n × (r−1)(c−1))."""
    shape = table_shape(A)
    if shape is None:
        raise InvariantError("the table basis needs the row and column margins of a two-way table")
    r, c = shape
    cols = []
    for i in range(r - 1):
        for j in range(c - 1):
            v = np.zeros((r, c), dtype=np.int64)
            v[i, j] = v[i + 1, j + 1] = 1
            v[i, j + 1] = v[i + 1, j] = -1
            cols.append(v.ravel())
    return np.array(cols, dtype=np.int64).T


def change_of_basis(old, new) -> tuple[np.ndarray, np.ndarray]:
    """Return the integer change of basis between two bases of one lattice, or an error if there is none.

    Parameters
    ----------
    old : array_like of int
        A lattice basis, shape (n, k), one vector per column.
    new : array_like of int
        Another basis of the same shape.

    Returns
    -------
    T : numpy.ndarray
        An int64 array of shape (k, k) with ``new = old @ T``.
    T_inv : numpy.ndarray
        An int64 array of shape (k, k) with ``old = new @ T_inv`` and ``T @ T_inv`` the identity.

    Raises
    ------
    InvariantError
        If the shapes differ, or either basis is not an integer combination of the other (the
        two span different lattices).

    Notes
    -----
    Both matrices exist exactly when the two bases span the same lattice; then T · T⁻¹ = I over
    the integers, so det T · det T⁻¹ = 1 and det T = ±1 (T is unimodular).

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, sum_constraint, with_mixing_basis
    >>> from isdp.lattice._bases import change_of_basis
    >>> smith = IntegerLattice.from_constraints(sum_constraint(3))
    >>> path = with_mixing_basis(smith, "path")
    >>> T, T_inv = change_of_basis(smith.basis, path.basis)
    >>> T.tolist(), bool((smith.basis @ T == path.basis).all())
    ([[-1, 1], [0, -1]], True)

    Twice a basis spans a sublattice, not the same lattice:

    >>> change_of_basis(smith.basis, 2 * path.basis)
    Traceback (most recent call last):
    ...
    isdp.errors.InvariantError: the old basis is not an integer combination of the other basis: not the same lattice
    """
    old = np.asarray(old, dtype=np.int64)
    new = np.asarray(new, dtype=np.int64)
    if old.shape != new.shape:
        raise InvariantError(f"bases of different shapes {old.shape} and {new.shape} cannot span one lattice")

    def coords(basis, vectors, what):
        w = np.rint(np.linalg.lstsq(basis.astype(float), vectors.astype(float), rcond=None)[0]).astype(np.int64)
        if not np.array_equal(basis @ w, vectors):
            raise InvariantError(f"{what} is not an integer combination of the other basis: not the same lattice")
        return w

    T = coords(old, new, "the new basis")
    T_inv = coords(new, old, "the old basis")
    if not np.array_equal(T @ T_inv, np.eye(T.shape[0], dtype=np.int64)):
        raise InvariantError("the change of basis is not unimodular")
    return T, T_inv


def with_mixing_basis(lattice: IntegerLattice, basis: str = "auto") -> IntegerLattice:
    """Return the same lattice Λ(A) on a basis chosen for mixing.

    The sampler moves along one basis column at a time, so the basis is a choice of the
    sampler: :func:`isdp.mcmc.sample` on the returned lattice targets the same π with another Markov
    chain. Local moves let a disagreement between coupled chains heal locally, while the Smith
    basis of a sum constraint is a star through one hub cell, on which coupled pairs stop meeting
    beyond about 30 cells.

    Parameters
    ----------
    lattice : IntegerLattice
        The lattice, e.g. from :meth:`IntegerLattice.from_constraints`.
    basis : str, default "auto"
        One of :data:`MIXING_BASES`:

        - ``"auto"``: :func:`default_basis` of ``lattice.A``;
        - ``"path"``: e_i − e_{i+1} for consecutive cells of each block of a one-sum-per-block
          A, and e_i for a cell in no sum;
        - ``"table"``: the adjacent 2×2 moves e_(i,j) − e_(i,j+1) − e_(i+1,j) + e_(i+1,j+1) of a
          two-way table with both margins fixed (A exactly :func:`isdp.lattice.table_margins`);
        - ``"lll"``: the LLL reduction (exact, sympy) of ``lattice.basis``, for any A;
        - ``"smith"``: ``lattice`` itself, unchanged.

    Returns
    -------
    IntegerLattice
        A copy of ``lattice`` with the new ``basis`` and ``basis_name``; ``A``, ``rank`` and
        ``invariant_factors`` are unchanged.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, if ``lattice`` is not an :class:`IntegerLattice` or ``basis`` is not one of
        :data:`MIXING_BASES`.
    InvariantError
        If the basis does not apply to A (``"path"`` without sum blocks, ``"table"`` without
        two-way margins) or does not span the same lattice (checked by :func:`change_of_basis`).

    See Also
    --------
    change_of_basis : The unimodular check every new basis passes.

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, sum_constraint, table_margins, with_mixing_basis
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(4))
    >>> lattice.basis.T.tolist()  # Smith: a star through cell 0
    [[-1, 1, 0, 0], [-1, 0, 1, 0], [-1, 0, 0, 1]]
    >>> path = with_mixing_basis(lattice)
    >>> path.basis_name, path.basis.T.tolist()
    ('path', [[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, 1, -1]])
    >>> table = with_mixing_basis(IntegerLattice.from_constraints(table_margins(2, 3)))
    >>> table.basis_name, table.basis.T.tolist()
    ('table', [[1, -1, 0, -1, 1, 0], [0, 1, -1, 0, -1, 1]])
    """
    if not isinstance(lattice, IntegerLattice):
        raise ArgumentError(f"lattice must be an IntegerLattice, got {type(lattice).__name__}", "lattice")
    if basis not in MIXING_BASES:
        raise ArgumentError(f"basis must be one of {MIXING_BASES}, got {basis!r}", "basis")
    name = default_basis(lattice.A) if basis == "auto" else basis
    if name == "smith":
        return lattice
    if name == "path":
        moves = path_basis(lattice.A)
    elif name == "table":
        moves = table_basis(lattice.A)
    else:
        moves = lll_reduce(lattice.basis)
    change_of_basis(lattice.basis, moves)
    return dataclasses.replace(lattice, basis=moves, basis_name=name)
