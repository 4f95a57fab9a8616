"""The integer kernel lattice Λ(A) = {u ∈ Z^n : A u = 0} of a set of counting invariants.

A basis comes from the Smith normal form ``S = U A V`` (sympy): the columns of ``V`` past
``rank(A)`` span Λ(A) over the integers (docs/method.md §1). Because ``V`` is unimodular this is a
basis of the whole kernel lattice, not of a sublattice — unlike, say, a rational null-space
basis scaled to integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _validate as check
from ..errors import InvariantError


def as_vector(v, name: str, *, length: int | None = None, integer: bool = False) -> np.ndarray:
    """Return ``v`` as a finite 1-D vector (int64 if ``integer``, else float): :func:`isdp._validate.vector`."""
    return check.vector(name, v, length=length, integer=integer)


def sum_blocks(A) -> list[np.ndarray] | None:
    """Return the blocks of cells of a "one sum per block" constraint matrix, or None if A is not one.

    A qualifies when every row is 0/1 and no cell is in two rows (cells in no row are free).
    """
    A = np.asarray(A)
    if not (np.isin(A, (0, 1)).all() and (A.sum(axis=0) <= 1).all() and (A.sum(axis=1) >= 1).all()):
        return None
    return [np.flatnonzero(row) for row in A]


INT64_LIMIT = 2**63  # |x| < INT64_LIMIT fits an int64
#: largest |entry| of a constraint matrix: products of two entries stay far inside int64, and
#: sympy's exact LLL is reliable (beyond about 2**40 it fails an internal assertion)
CONSTRAINT_LIMIT = 2**31


def _exact_matmul(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``X @ Y`` of integer arrays without wrap-around.

    Int64 when a bound on every entry of the product fits (the common case), else Python integers (object dtype, exact
    at any size).
    """
    bound = np.abs(X.astype(float)).sum(axis=-1).max(initial=0) * np.abs(Y.astype(float)).max(initial=0)
    if bound < 2.0**62:  # float bound with a factor-2 margin for its own rounding
        return X.astype(np.int64) @ Y.astype(np.int64)
    return X.astype(object) @ Y.astype(object)


def _to_int64(values, what: str) -> np.ndarray:
    """Exact integers (Python ints from sympy) as int64, or an InvariantError naming the limit."""
    arr = np.asarray(values, dtype=object)
    if arr.size and max(abs(int(x)) for x in arr.ravel()) >= INT64_LIMIT:
        raise InvariantError(
            f"{what} has entries beyond the int64 range (|x| < 2**63) that the samplers "
            "compute in; use a constraint matrix with smaller entries"
        )
    return arr.astype(np.int64)


def _smith(A: np.ndarray):
    # deferred: sympy costs 0.35 s at import, and most jobs read a basis instead of computing one
    import sympy  # deferred, as above
    from sympy.matrices.normalforms import smith_normal_decomp  # deferred, as above

    S, U, V = smith_normal_decomp(sympy.Matrix(A.tolist()))
    diag = [int(S[i, i]) for i in range(min(S.shape))]
    rank = sum(1 for d in diag if d != 0)
    return diag, rank, np.array(U.tolist(), dtype=object), np.array(V.tolist(), dtype=object)


def lll_reduce(basis: np.ndarray) -> np.ndarray:
    """Return the LLL reduction (sympy's exact integer LLL) of the columns of the integer ``basis`` (n × k).

    An int64 basis of the same lattice with short, nearly orthogonal columns. Raises :class:`InvariantError` when the
    reduction fails or its result does not fit int64.
    """
    import sympy  # deferred, as in _smith: sympy costs 0.35 s at import
    from sympy.polys.matrices import DomainMatrix  # deferred, as above

    try:
        reduced = DomainMatrix.from_Matrix(sympy.Matrix(basis.T.tolist())).lll().to_Matrix()
    except (AssertionError, OverflowError, ZeroDivisionError) as err:
        biggest = max(abs(int(x)) for x in np.asarray(basis, dtype=object).ravel())
        raise InvariantError(
            f"LLL reduction failed ({type(err).__name__}) on a basis with entries up to "
            f"2**{biggest.bit_length()}; pass reduce=False or smaller constraints"
        ) from None
    return _to_int64(reduced.tolist(), "the LLL-reduced lattice basis").T


@dataclass(frozen=True)
class IntegerLattice:
    """The integer kernel lattice Λ(A) = {u ∈ Zⁿ : A u = 0} of counting invariants, with a basis.

    Every u ∈ Λ(A) is ``basis @ w`` for exactly one integer vector w ∈ Zᵏ, so noise built from the
    basis columns keeps every invariant: x + u has the same A x as x. Build a lattice with
    :meth:`from_constraints`; the fields below are what it computes. The samplers move along the
    basis columns, so the basis shapes how a chain mixes, never the target law.

    Parameters
    ----------
    A : numpy.ndarray
        The constraint matrix, int64 of shape (m, n): row j marks the cells whose total is
        invariant j (entries at most 2³¹ in size).
    basis : numpy.ndarray
        An integer basis of Λ(A), int64 of shape (n, k) with k = n − rank(A): one lattice vector
        per column.
    rank : int
        The rank of A.
    invariant_factors : tuple of int, default ()
        The non-zero diagonal entries of the Smith normal form of A (all 1 for 0/1 margins and
        totals).
    basis_name : str, default "smith"
        Which basis ``basis`` is: ``"smith"`` (the Smith-normal-form basis), ``"lll"`` (its LLL
        reduction) or a basis set by :func:`isdp.lattice.with_mixing_basis` (``"path"``, ``"table"``).

    Attributes
    ----------
    n : int
        The number of cells, ``A.shape[1]``.
    dim : int
        The lattice dimension k = n − rank(A), ``basis.shape[1]``.
    sum_blocks : list of numpy.ndarray or None
        The cells of each row when A is one sum per block of cells, else None.

    See Also
    --------
    isdp.lattice.with_mixing_basis : The same lattice on a basis chosen for mixing.
    isdp.mcmc.sample : Draws of noise on the lattice from a target law.
    check_release : Verify a release's integrality and invariants.

    Notes
    -----
    The basis comes from the Smith normal form S = U A V (U, V unimodular, S diagonal with
    r = rank(A) non-zero entries): the last n − r columns of V span Λ(A) over the integers
    (ISDP §2–3). Because V is unimodular they are a basis of the whole kernel lattice, not of a
    sublattice, as a rational null-space basis scaled to integers can be.

    Examples
    --------
    The noise lattice of one total over three cells has dimension 2:

    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, sum_constraint
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> lattice.n, lattice.dim, lattice.rank, lattice.basis_name
    (3, 2, 1, 'smith')
    >>> lattice.basis.T.tolist()  # the basis vectors, one per row
    [[-1, 1, 0], [-1, 0, 1]]

    Membership and coordinates in the basis:

    >>> lattice.contains([2, -1, -1]), lattice.contains([1, 0, 0])
    (True, False)
    >>> w = lattice.coordinates([2, -1, -1])
    >>> w.tolist(), (lattice.basis @ w).tolist()
    ([-1, -1], [2, -1, -1])
    """

    A: np.ndarray
    basis: np.ndarray
    rank: int
    invariant_factors: tuple[int, ...] = field(default=())
    basis_name: str = "smith"  # which basis (isdp.lattice): the sampler's chain depends on it, π does not

    @property
    def n(self) -> int:
        """The number of cells n (the columns of A)."""
        return self.A.shape[1]

    @property
    def dim(self) -> int:
        """The lattice dimension k = n − rank(A) (the columns of ``basis``)."""
        return self.basis.shape[1]

    @property
    def sum_blocks(self) -> list[np.ndarray] | None:
        """The cells of each row when A is one sum per block of cells, else None.

        One sum per block: 0/1 entries and no cell in two rows (cells in no row are free); the lattices
        the path basis and the data-augmentation sampler need.
        """
        return sum_blocks(self.A)

    @classmethod
    def from_constraints(cls, A, reduce: bool | str = "auto") -> IntegerLattice:
        """Build Λ(A) and a basis of it from an integer constraint matrix.

        The basis is the Smith-normal-form basis, LLL-reduced (exact, sympy) when ``reduce`` asks
        for it. The target law does not depend on the basis; mixing does.

        Parameters
        ----------
        A : array_like of int
            The constraint matrix, shape (m, n), e.g. :func:`sum_constraint` or
            :func:`table_margins`. Integer-valued floats are accepted; entries must be at most
            2³¹ in size.
        reduce : bool or "auto", default "auto"
            ``True``: LLL-reduce the Smith basis; ``False``: keep it; ``"auto"``: reduce only when
            some basis entry exceeds 1 in size (LLL in pure Python costs seconds at n ≈ 100, and
            the Smith basis of 0/1 sum constraints is already short).

        Returns
        -------
        IntegerLattice
            The lattice, with ``basis_name`` ``"lll"`` when the basis was reduced, else
            ``"smith"``.

        Raises
        ------
        InvariantError
            If A is not a non-empty 2-D integer matrix, has entries beyond 2³¹, has full column
            rank (no non-zero integer noise keeps the invariants), or the LLL reduction fails or
            does not fit int64.

        Examples
        --------
        >>> from isdp.lattice import IntegerLattice
        >>> IntegerLattice.from_constraints([[1, 2, 3]]).basis.T.tolist()
        [[-1, -1, 1], [-2, 1, 0]]
        >>> IntegerLattice.from_constraints([[1, 2, 3]], reduce=False).basis.T.tolist()
        [[-2, 1, 0], [-3, 0, 1]]
        """
        A = check.integer_matrix("A", A)
        if np.abs(A.astype(float)).max() > CONSTRAINT_LIMIT:  # float: abs(int64 min) wraps
            raise InvariantError(
                f"A has entries up to {np.abs(A.astype(float)).max():.4g} in size, beyond the "
                "supported ±2**31 (larger entries overflow the lattice basis and its exact "
                "reduction)"
            )
        diag, rank, _, V = _smith(A)
        n = A.shape[1]
        if rank == n:
            raise InvariantError(
                f"the invariants have full column rank {n}: the only integer noise that keeps "
                "them is zero, so no privacy noise can be added"
            )
        basis = V[:, rank:]
        reduced = reduce is True or (reduce == "auto" and max(abs(int(x)) for x in basis.ravel()) > 1)
        if reduced:
            basis = lll_reduce(basis)  # exact (sympy) on the Smith basis before any int64 cast
        basis = _to_int64(basis, "the lattice basis")
        if np.any(_exact_matmul(A, basis) != 0):  # cheap guard on the library, not on the input
            raise AssertionError("Smith normal form basis does not satisfy A B = 0")
        factors = tuple(d for d in diag if d != 0)
        return cls(A=A, basis=basis, rank=rank, invariant_factors=factors, basis_name="lll" if reduced else "smith")

    def contains(self, u) -> bool:
        """Whether ``u`` (or every row of a 2-D ``u``) is an integer vector with A u = 0.

        Exact at any size: A u is computed in int64 only when it cannot wrap around, else in
        Python integers. NaN, infinite and non-integral entries are not in the lattice.

        Parameters
        ----------
        u : array_like
            One vector of shape (n,) or vectors as the rows of shape (r, n).

        Returns
        -------
        bool
            True when every vector is integer-valued with A u = 0; False otherwise, including
            for a wrong shape.
        """
        u = np.asarray(u)
        if u.ndim not in (1, 2) or u.shape[-1] != self.n:
            return False  # not a vector (or rows) of n cells
        if u.dtype == object:
            if not all(
                isinstance(x, int | np.integer)
                or (isinstance(x, float | np.floating) and np.isfinite(x) and x == int(x))
                for x in u.ravel()
            ):
                return False
            u = np.vectorize(int, otypes=[object])(u) if u.size else u
        elif not np.issubdtype(u.dtype, np.integer):
            if not np.issubdtype(u.dtype, np.number) and u.dtype != bool:
                return False
            if not np.all(np.isfinite(u)) or np.any(np.rint(u) != u):
                return False
            u = np.vectorize(int, otypes=[object])(u) if u.size and np.abs(u).max() >= 2**53 else u.astype(np.int64)
        return bool(np.all(_exact_matmul(u, self.A.T) == 0))

    def coordinates(self, u) -> np.ndarray:
        """Return the integer coordinates w with ``basis @ w == u``.

        Parameters
        ----------
        u : array_like of int
            One lattice vector of shape (n,) or lattice vectors as the rows of shape (r, n).

        Returns
        -------
        numpy.ndarray
            An int64 array of shape (k,), or (r, k) with one row w per row of ``u``.

        Raises
        ------
        InvariantError
            If some ``u`` is not in the lattice.
        """
        u = np.asarray(u, dtype=np.int64)
        if not self.contains(u):
            raise InvariantError("vector is not in the lattice: A u != 0 or not integer")
        w, *_ = np.linalg.lstsq(self.basis.astype(float), u.T.astype(float), rcond=None)
        w_int = np.rint(w).astype(np.int64)
        if np.any(self.basis @ w_int != u.T):
            raise AssertionError("lattice coordinates are not integral")
        return np.ascontiguousarray(w_int.T)  # C order, as the kernels take it (one compiled layout)


def integer_solution(A, b) -> np.ndarray:
    """One integer x with A x = b: a table that meets given invariants.

    Parameters
    ----------
    A : array_like of int
        The constraint matrix, shape (m, n).
    b : array_like of int
        The invariant values, shape (m,).

    Returns
    -------
    numpy.ndarray
        One integer solution, int64 of shape (n,). Every other is x + u with u in Λ(A)
        (:class:`IntegerLattice`). It may have negative entries.

    Raises
    ------
    InvariantError
        If ``b`` has the wrong shape or A x = b has no integer solution (inconsistent equations,
        or an invariant factor that does not divide).

    Notes
    -----
    With the Smith normal form S = U A V, A x = b ⇔ S y = U b with x = V y; it is solvable over
    Z iff each (U b)_i is divisible by the i-th invariant factor and the rows past rank(A)
    vanish.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice._integer_lattice import integer_solution
    >>> A = np.array([[1, 1, 0], [0, 1, 1]])
    >>> x = integer_solution(A, [5, 3])
    >>> x.tolist(), (A @ x).tolist()
    ([2, 3, 0], [5, 3])

    An even total cannot be odd:

    >>> integer_solution([[2, 2]], [3])
    Traceback (most recent call last):
    ...
    isdp.errors.InvariantError: A x = b has no integer solution (invariant factor 2 does not divide 3)
    """
    A = check.integer_matrix("A", A)
    b = np.asarray(b)
    if b.shape != (A.shape[0],):
        raise InvariantError(f"right-hand side has shape {b.shape}, expected ({A.shape[0]},)")
    b = check.integer_matrix("b", b[:, None])[:, 0]
    diag, rank, U, V = _smith(A)
    c = U.dot(np.array([int(v) for v in b], dtype=object))
    y = np.zeros(A.shape[1], dtype=object)
    for i, ci in enumerate(c):
        d = diag[i] if i < len(diag) else 0
        if d == 0:
            if ci != 0:
                raise InvariantError("the constraints A x = b are inconsistent: no solution exists")
        elif ci % d:
            raise InvariantError(f"A x = b has no integer solution (invariant factor {d} does not divide {ci})")
        else:
            y[i] = ci // d
    x = V.dot(y).astype(np.int64)
    assert np.all(A @ x == b)
    return x


def check_release(release, A, invariants, what: str = "release") -> np.ndarray:
    """Verify that a release is integer-valued and meets every invariant exactly.

    Raises :class:`InvariantError` unless every vector of ``release`` is integer and
    A·r = ``invariants``. The workflow calls this on every released or noise vector before
    writing it (for noise, the invariants are zero).

    Parameters
    ----------
    release : array_like
        One released table of shape (n,), or several with the cells on the last axis, e.g.
        (chains, draws, n). Numeric; integer-valued floats are accepted.
    A : array_like of int
        The constraint matrix, shape (m, n).
    invariants : array_like of int
        The invariant values A x of the confidential table x, shape (m,).
    what : str, default "release"
        The name the error messages give the checked array.

    Returns
    -------
    numpy.ndarray
        ``release`` as int64, same shape.

    Raises
    ------
    InvariantError
        If the release is not numeric or not integer-valued, the invariants are not integers,
        a value exceeds ±2⁵³ (or A·r could overflow int64), the shapes do not match A, or some
        vector breaks A·r = invariants (the message gives the count and the first index).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import check_release, sum_constraint
    >>> A = sum_constraint(3)
    >>> x = np.array([4, 1, 2])
    >>> release = x + np.array([1, -1, 0])  # noise in Λ(A) keeps the total
    >>> check_release(release, A, A @ x).tolist()
    [5, 0, 2]
    >>> check_release([5, 1, 2], A, A @ x)
    Traceback (most recent call last):
    ...
    isdp.errors.InvariantError: release: 1 of 1 vectors break the invariants A·x = a (first at index 0)
    """
    r = np.asarray(release)
    if r.dtype.kind not in "iuf" or r.ndim == 0:
        raise InvariantError(
            f"{what} must be a numeric vector or array of vectors, got dtype {r.dtype}, shape {r.shape}"
        )
    if not np.issubdtype(r.dtype, np.integer):
        if not np.all(np.isfinite(r)) or np.any(np.rint(r) != r):
            raise InvariantError(f"{what} is not integer-valued")
    A = check.integer_matrix("A", A)
    raw = np.asarray(invariants)
    if raw.dtype.kind not in "iuf" or not np.all(np.isfinite(raw)) or np.any(np.rint(raw) != raw):
        raise InvariantError(f"{what}: the invariants must be integers (counts), got {raw.tolist()!r}")
    # beyond 2**53 a float is no longer an exact integer and int64 casts or A·x can wrap around,
    # which once let a wrapped release "match" a wrapped target
    for name, values in (("release", r), ("invariants", raw)):
        if values.size and np.abs(values.astype(float)).max() > check.COUNT_LIMIT:
            raise InvariantError(f"{what}: {name} too large to check exactly (beyond ±2**53)")
    r, target = r.astype(np.int64), raw.astype(np.int64)
    if r.size and float(np.abs(r).max()) * float(np.abs(A).sum(axis=1).max()) > 2.0**62:
        raise InvariantError(f"{what}: release too large to check exactly (A·x would overflow int64)")
    if target.shape != (A.shape[0],):
        raise InvariantError(f"{what}: {target.size} invariant values for {A.shape[0]} constraints")
    rows = r.reshape(-1, r.shape[-1])
    if rows.shape[1] != A.shape[1]:
        raise InvariantError(f"{what} has {rows.shape[1]} cells, the invariants {A.shape[1]}")
    bad = np.any(rows @ A.T != target, axis=1)
    if bad.any():
        raise InvariantError(
            f"{what}: {int(bad.sum())} of {len(rows)} vectors break the invariants A·x = a "
            f"(first at index {int(np.argmax(bad))})"
        )
    return r
