"""Non-negative post-processing of a release: the ℓ1-closest integer vector that keeps the invariants.

``isdp release --nonnegative`` replaces every block of the invariants that has a negative cell by its
integer ℓ1 projection (docs/release.md). The ℓ1 projections live with the comparison baselines, which export
them and build their DG + ℓ1 baseline on them (:func:`isdp.baselines.dg_l1_projection`); the release imports
them from :mod:`isdp.baselines`:

- :class:`L1Projector` — the ℓ1-closest point of {y : A y = b} (and y ≥ 0) for many (m, b) on one
  HiGHS model: real (a vertex or the analytic centre of the optimal face, an LP) or integer (a MILP).
- :func:`l1_projection_milp` — one integer projection: :func:`l1_total_projection` for one total,
  HiGHS' MILP otherwise.
- :func:`l1_total_projection` — the integer ℓ1 projection onto one total (with y ≥ 0 or not) in
  closed form, its choice among the many optima fixed by a stated rule (the ℓ2-nearest), so it does
  not depend on a solver.

HiGHS is used through its own Python interface, ``highspy``, imported at the top: importing this
module loads it, so the release imports it only where it post-processes. Constraint matrices must be
integer-valued (counting invariants); every function checks its inputs and raises :class:`ValueError`
on bad ones and :class:`SolverError` when HiGHS does not certify an optimum.
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from .._validate import integer_matrix, vector
from ..errors import SolverError

_INT_TOL = 1e-6


def _constraints(A, b=None, n: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Return ``A`` as int64 (r × n) and ``b`` as float (r,), checking shapes and finiteness.

    A sparse ``A`` stays sparse (a block of two margins of 1000 × 1000 is 16 GB dense, 32 MB sparse).
    """
    A = integer_matrix("A", A)
    if n is not None and A.shape[1] != n:
        raise ValueError(f"A has {A.shape[1]} columns but the vector has {n} cells")
    if b is None:
        return A, None
    b = np.asarray(b)
    if b.ndim != 1 or b.shape[0] != A.shape[0]:
        raise ValueError(f"b must have shape ({A.shape[0]},) to match A, got {b.shape}")
    if not np.issubdtype(b.dtype, np.number) or not np.all(np.isfinite(b)):
        raise ValueError("b must be finite and numeric")
    return A, b.astype(float)


class L1Projector:
    """Projections onto {y : A y = b} in ℓ1 for many (m, b), on one HiGHS model built once.

    Each call returns a minimiser of ‖y − m‖₁ subject to A y = b (and y ≥ 0 with
    ``nonnegative``). Only the right-hand side changes between calls, so the model is built once
    and each call changes the row bounds and solves again, from a cold start.

    Parameters
    ----------
    A : array_like or scipy.sparse array of int, shape (r, n)
        Integer-valued constraint matrix.
    kind : {"vertex", "interior", "integer"}, default "vertex"
        Which optimum to return (the optimum is generally not unique):

        - ``"vertex"``: HiGHS' choice of simplex, a vertex of the optimal face (float);
        - ``"interior"``: HiGHS' interior point with crossover and presolve off, on the LP
          written in d = y − m: the analytic centre of the optimal face (float; see
          :func:`l1_projection_lp`);
        - ``"integer"``: the MILP with y integer and ``mip_rel_gap = 0``, a proven optimum,
          returned as int64 after a rounding check.
    nonnegative : bool, default False
        Add the bounds y ≥ 0 (the release's non-negative post-processing, docs/release.md).

    Attributes
    ----------
    KINDS : tuple of str
        The accepted values of ``kind``.
    A : ndarray of int64, shape (r, n)
        The constraint matrix.
    kind : str
        The kind of projection.

    Raises
    ------
    ValueError
        If ``kind`` is not one of ``KINDS`` or ``A`` is not an integer-valued 2-D matrix.

    See Also
    --------
    l1_projection_lp, l1_projection_milp : One projection each.
    dg_l1_projection : Noise, then one projector for all releases.

    Notes
    -----
    The LP has variables z = (y, t): minimise Σ t subject to y − t ≤ m, −y − t ≤ −m, A y = b.
    Every solve starts cold (``clearSolver``): a warm start from the previous basis would be
    faster, but it returns another vertex of the (non-unique) optimal face, so the releases
    would depend on their order. Cold solves give exactly what a fresh
    ``scipy.optimize.linprog`` or ``milp`` call gives (same vertex, same interior point, same
    integer point; tests/core/release/test_nonnegative.py checks it), at a third to a half of its cost,
    since SciPy rebuilds and re-validates the model on every call. For ``"integer"``, HiGHS'
    feasibility-jump heuristic is off: with one sum per block the LP relaxation is already
    integral (totally unimodular), and the optimum is still proven. Which of the many optima
    ``"integer"`` returns is HiGHS' choice, which can change with its version (with
    ``nonnegative``, highspy 1.15 and 1.16 return different ones); :func:`l1_total_projection`
    fixes the choice for one total.

    Examples
    --------
    One total over three cells; the integer projection moves the whole discrepancy onto one
    cell:

    >>> import numpy as np
    >>> from isdp.baselines import L1Projector
    >>> project = L1Projector(np.ones((1, 3), dtype=int), kind="integer")
    >>> project([4.0, 3.0, 2.0], [12]).tolist()
    [7, 3, 2]
    >>> project([1.0, 1.0, 1.0], [0]).tolist()
    [-2, 1, 1]
    >>> L1Projector.KINDS
    ('vertex', 'interior', 'integer')
    """

    KINDS = ("vertex", "interior", "integer")

    def __init__(self, A, kind: str = "vertex", nonnegative: bool = False):
        if kind not in self.KINDS:
            raise ValueError(f"kind must be one of {self.KINDS}, got {kind!r}")
        self.A, _ = _constraints(A)
        self.kind = kind
        n, k = self.A.shape[1], self.A.shape[0]
        eye = sp.eye_array(n, format="csc")
        matrix = sp.vstack(
            [
                sp.hstack([eye, -eye]),
                sp.hstack([-eye, -eye]),
                sp.hstack([sp.csc_array(self.A.astype(float)), sp.csc_array((k, n))]),
            ],
            format="csc",
        )
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = 2 * n, 2 * n + k
        lp.col_cost_ = np.concatenate([np.zeros(n), np.ones(n)])
        lp.col_lower_ = np.concatenate([np.full(n, 0.0 if nonnegative else -inf), np.zeros(n)])
        lp.col_upper_ = np.full(2 * n, inf)
        lp.row_lower_ = np.full(2 * n + k, -inf)
        lp.row_upper_ = np.zeros(2 * n + k)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
        if kind == "integer":
            lp.integrality_ = [highspy.HighsVarType.kInteger] * n + [highspy.HighsVarType.kContinuous] * n
        self._highs = highspy.Highs()
        options: dict[str, bool | int | float | str] = {"output_flag": False}
        if kind == "interior":
            # In d = y − m the IPM's absolute tolerances act on the discrepancy (tens), not on the
            # counts (millions), and its last iterate lies close to the central path's limit; with
            # presolve on, HiGHS eliminates a cell through the equality and no longer ends near the
            # centre (it did for n ≤ 10 in ~96 % of cases).
            options.update(solver="ipm", run_crossover="off", presolve="off")
        elif kind == "integer":
            # The feasibility-jump heuristic costs ~10 ms per solve whatever the size (90 % of the
            # time of a 3-county state) and never helps here: the LP relaxation is already integral
            # (one sum per block is totally unimodular). Off, the optimum is still proven (gap 0)
            # and the integer points came out identical (tests/core/release/test_nonnegative.py; the note in
            # docs/experiments/e4.md gives the national comparison).
            options.update(mip_rel_gap=0.0, mip_heuristic_run_feasibility_jump=False)
        for key, value in options.items():
            self._highs.setOptionValue(key, value)
        self._highs.passModel(lp)
        self._rows = np.arange(2 * n + k, dtype=np.int32)
        self._n = n
        self._nonnegative = nonnegative

    def __call__(self, m, b) -> np.ndarray:
        """Project ``m`` onto {y : A y = b} in ℓ1.

        Changes the right-hand side of the model built by the constructor and solves it again
        from a cold start, so the result does not depend on earlier calls.

        Parameters
        ----------
        m : array_like, shape (n,)
            The point to project, finite.
        b : array_like, shape (r,)
            The right-hand side; integer-valued for ``kind="integer"``.

        Returns
        -------
        ndarray, shape (n,)
            A minimiser of ‖y − m‖₁ subject to A y = b (and y ≥ 0 with ``nonnegative``): float,
            or int64 for ``kind="integer"``.

        Raises
        ------
        ValueError
            If ``m`` or ``b`` has the wrong shape or non-finite entries, or ``b`` is not
            integer-valued for an integer projection.
        SolverError
            If HiGHS does not report an optimum, or the integer point fails the rounding check
            (an entry ≥ 1e-6 from an integer, or A y ≠ b after rounding).

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.baselines import L1Projector
        >>> project = L1Projector(np.ones((1, 3), dtype=int), kind="interior")
        >>> np.round(project([4.0, 3.0, 2.0], [12]), 6).tolist()
        [5.0, 4.0, 3.0]
        """
        m = vector("m", m, length=self._n)
        _, b = _constraints(self.A, b)
        if self.kind == "integer":
            if np.any(np.rint(b) != b):
                raise ValueError("b must be integer-valued for an integer projection")
            b = np.rint(b)
        n, inf = self._n, highspy.kHighsInf
        if self.kind == "interior":
            rhs, upper = b - self.A @ m, np.zeros(2 * n)
        else:
            rhs, upper = b, np.concatenate([m, -m])
        h = self._highs
        h.clearSolver()
        if self.kind == "interior" and self._nonnegative:  # the interior model's columns are d = y − m: y ≥ 0 is d ≥ −m
            h.changeColsBounds(n, np.arange(n, dtype=np.int32), -m, np.full(n, inf))
        h.changeRowsBounds(  # type: ignore[attr-defined]  # bound by highspy, absent from its stubs
            len(self._rows), self._rows, np.concatenate([np.full(2 * n, -inf), rhs]), np.concatenate([upper, rhs])
        )
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"HiGHS {self.kind} projection failed: {h.modelStatusToString(status)}")
        y = np.asarray(h.getSolution().col_value[:n])
        if self.kind == "interior":
            return m + y
        if self.kind == "vertex":
            return y
        rounded = np.rint(y)
        if np.max(np.abs(y - rounded)) >= _INT_TOL:
            raise SolverError(
                f"HiGHS MILP returned a non-integer point (max rounding error {np.max(np.abs(y - rounded)):.3g})"
            )
        rounded = rounded.astype(np.int64)
        if np.any(self.A @ rounded != b):
            raise SolverError("the rounded HiGHS MILP solution violates A y = b")
        return rounded


def l1_projection_milp(m, A, b, nonnegative: bool = False) -> np.ndarray:
    """Project onto {y : A y = b} in ℓ1 with y integer: in closed form for one total, else a HiGHS MILP.

    Returns an integer minimiser of ‖y − m‖₁ subject to A y = b (and y ≥ 0 with
    ``nonnegative``), a proven optimum.

    Parameters
    ----------
    m : array_like, shape (n,)
        The point to project (e.g. noisy counts), finite.
    A : array_like or scipy.sparse array of int, shape (r, n)
        Integer-valued constraint matrix.
    b : array_like, shape (r,)
        The right-hand side, integer-valued (with integer A and y nothing else is feasible).
    nonnegative : bool, default False
        Add the bounds y ≥ 0.

    Returns
    -------
    ndarray of int64, shape (n,)
        The projection y, an exact integer solution of A y = b.

    Raises
    ------
    ValueError
        If ``b`` is not integer-valued, the inputs have bad or mismatched shapes or values, or
        (one total) ``nonnegative`` is asked with a negative total.
    SolverError
        If HiGHS does not report an optimum (e.g. no feasible y), or its point has an entry at
        least 1e-6 from an integer or violates A y = b after rounding.

    See Also
    --------
    l1_total_projection : The projection for one total, which this returns there.
    l1_projection_lp : The same with y real.
    L1Projector : HiGHS' MILP, built once for many projections.

    Notes
    -----
    ISDP appendix (docs/method.md §8). The optimum is not unique. When ``A`` is one row of ones
    (one total) the result is :func:`l1_total_projection`'s: the optimum its rule picks, the same
    under every solver version. Otherwise HiGHS solves the MILP with ``mip_rel_gap = 0``, so the
    optimum is proven, not within HiGHS' default 0.01 % gap, and its y is rounded and checked;
    which optimum it returns is HiGHS' choice (:class:`L1Projector`).

    Examples
    --------
    One total: the discrepancy 3 is spread over the cells, the negative cell raised to 0 and the
    excess 2 taken back from the two others:

    >>> import numpy as np
    >>> from isdp.baselines._nonnegative import l1_projection_milp
    >>> A = np.ones((1, 3), dtype=int)
    >>> l1_projection_milp([4.0, 3.0, 2.0], A, [12]).tolist()
    [5, 4, 3]
    >>> l1_projection_milp([-1.0, 3.0, 2.0], A, [3], nonnegative=True).tolist()
    [0, 2, 1]

    Both margins of a 2 × 2 table, solved by HiGHS:

    >>> A = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    >>> y = l1_projection_milp([2.0, -1.0, 1.0, 3.0], A, [2, 4, 3, 3], nonnegative=True)
    >>> (A @ y).tolist(), bool(y.min() >= 0), int(np.abs(y - [2, -1, 1, 3]).sum())
    ([2, 4, 3, 3], True, 1)
    """
    m = vector("m", m)
    A, b = _constraints(A, b, n=m.size)
    if A.shape[0] == 1 and (A.nnz == A.shape[1] and bool(np.all(A.data == 1)) if sp.issparse(A) else np.all(A == 1)):
        return l1_total_projection(m, b[0], nonnegative)
    return L1Projector(A, "integer", nonnegative)(m, b)


def l1_total_projection(m, total, nonnegative: bool = False) -> np.ndarray:
    """Return the integer ℓ1 projection onto one total, the same optimum whatever the solver: the ℓ2-nearest.

    Returns the integer y with Σ y = ``total`` (and y ≥ 0 with ``nonnegative``) that minimises
    ‖y − m‖₁ and, among the many such minimisers, ‖y − m‖₂; of these, when several remain (see
    Notes), the one whose lower-indexed cells move first. Computed in closed form, without a
    solver.

    Parameters
    ----------
    m : array_like, shape (n,)
        The point to project (e.g. noisy counts), finite.
    total : int or float
        The total Σ y, integer-valued; ≥ 0 with ``nonnegative``.
    nonnegative : bool, default False
        Add the bounds y ≥ 0.

    Returns
    -------
    ndarray of int64, shape (n,)
        The projection y, with Σ y = ``total`` exactly.

    Raises
    ------
    ValueError
        If ``m`` is not a finite non-empty 1-D vector, ``total`` is not a finite integer, or
        ``nonnegative`` is asked with a negative total (no y ≥ 0 has it).

    See Also
    --------
    l1_projection_milp : Any integer A; returns this for one total.
    L1Projector : HiGHS' own choice among the optima (E4's MILP baseline).
    nonnegative_total_projection : The real-valued ℓ2 projection with y ≥ 0.

    Notes
    -----
    Why a rule. With one total the ℓ1 optimum is a whole face: every way of spreading the
    discrepancy over the cells in the right direction costs the same, and a solver returns one
    vertex of it by its own tie-breaking (with y ≥ 0, highspy 1.15 and 1.16 return different ones,
    which moves ISDP-E4-nonnegative-projection-bias). Why this rule. The ℓ2-nearest optimum spreads
    the discrepancy as evenly as the bounds allow and treats the cells alike. Without y ≥ 0 it
    commutes with integer shifts (m + v and total + Σv give y + v), so a release x + e projected
    onto Σx has an error that depends on e alone, as the mechanism's does; a rule that looked at
    the counts ("the largest cell absorbs it") would make it depend on x. For one total it is also
    the integer ℓ2 projection: ordered by their ℓ2 cost the unit steps below are also ordered by
    their ℓ1 cost, so the ℓ2-nearest integer point is ℓ1-optimal.

    How. Both norms are sums of convex terms over the cells, so the optimum is greedy: start from
    y = ⌊m⌋ (raised to 0 with y ≥ 0) and move one unit at a time towards the total, each where it
    adds least to ‖y − m‖₂²: added where y_i − m_i is smallest, taken where it is largest. Only
    steps of equal cost are left to a convention — cells with equal y_i − m_i, as for integer m,
    where up to n − 1 units remain after an even split — and they go to the lower indices first.
    The code finds the greedy's end point at once: by bisection, the integer level below which
    every unit step is taken, then the steps at that level in their order. About 0.1–0.2 ms per
    call for n ≤ 102, against 1–15 ms for HiGHS' MILP (:class:`L1Projector`, highspy 1.15–1.16).

    Examples
    --------
    The total is 3 more than Σ m; it goes one unit to each cell (HiGHS' MILP puts all 3 on one):

    >>> import numpy as np
    >>> from isdp.baselines import l1_total_projection
    >>> l1_total_projection([4.0, 3.0, 2.0], 12).tolist()
    [5, 4, 3]

    Non-negative: the cell at −3 is raised to 0 and the excess 4 is taken back, one unit from each
    of the three others; cell 2 is then at 0, and the last unit comes from the lower-indexed of
    the two cells tied after that:

    >>> y = l1_total_projection([-3.0, 5.0, 1.0, 4.0], 6, nonnegative=True)
    >>> y.tolist()
    [0, 3, 0, 3]
    >>> int(np.abs(y - [-3, 5, 1, 4]).sum())  # ℓ1-optimal: 3 to raise the cell, 4 taken back
    7

    Fractional m: the unit that the total adds goes where m is furthest above its floor:

    >>> l1_total_projection([0.2, 0.7, 1.4], 3).tolist()
    [0, 1, 2]
    """
    m = vector("m", m)
    total = np.asarray(total)
    if total.ndim or not np.issubdtype(total.dtype, np.number) or not np.isfinite(total) or total != np.rint(total):
        raise ValueError(f"total must be a finite integer, got {total!r}")
    if nonnegative and total < 0:
        raise ValueError(f"no y ≥ 0 has the negative total {total}")
    y = np.floor(m)
    if nonnegative:
        y = np.maximum(y, 0.0)
    steps = int(total - y.sum())
    if steps >= 0:  # add: each unit where y − m is smallest
        return (y + _cheapest_steps(y - m, np.inf, steps)).astype(np.int64)
    # take away: each unit where m − y is smallest, none below 0 with nonnegative
    return (y - _cheapest_steps(m - y, y if nonnegative else np.inf, -steps)).astype(np.int64)


def _cheapest_steps(start, cap, count: int) -> np.ndarray:
    """How many of ``count`` unit steps each cell takes when every step goes where it costs least.

    Cell i's j-th step (j = 0 … cap_i − 1) costs ``start_i + j``; the ``count`` cheapest steps,
    ties to the lower index, are taken. Steps are counted by integer level: every step whose
    cost's integer part is below ``level`` is taken, then those at ``level`` by (fractional part,
    index).
    """
    whole = np.floor(start)
    frac = start - whole

    def taken(level):  # steps whose cost's integer part is below level
        return np.minimum(cap, np.maximum(level - whole, 0))

    low, high = whole.min(), whole.max() + count + 1  # taken(low).sum() = 0 ≤ count
    while high - low > 1:  # the largest level with no more than count steps below it
        mid = np.floor((low + high) / 2)
        low, high = (mid, high) if taken(mid).sum() <= count else (low, mid)
    level = high if taken(high).sum() <= count else low
    k = taken(level)
    at_level = np.flatnonzero((whole <= level) & (k < cap))  # each has one step at this level
    k[at_level[np.lexsort((at_level, frac[at_level]))][: count - int(k.sum())]] += 1
    return k
