"""The non-negative ℓ2 (NNL2) projection of Congenial DP: the closest s ≥ 0 in ℓ2 that keeps the invariants.

- :func:`nnl2_projection` — the NNL2 post-processing (FODS-20, docs/method.md §8) for any integer
  constraint matrix, a quadratic program solved by Clarabel via ``qpsolvers``.
- :func:`nonnegative_total_projection` — the same optimum for one total, in closed form (the
  projection onto a scaled simplex) and for many rows at once.

Every function checks its inputs and raises :class:`ValueError` on bad ones and :class:`SolverError`
when Clarabel does not certify an optimum.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._validate import vector
from ..errors import SolverError
from ._nonnegative import _constraints

# Clarabel's feasibility and duality-gap tolerances (defaults 1e-8). At 1e-12 the NNL2 cells
# that belong on the boundary s_i = 0 come out within ~1e-7 of it (~1e-5 at 1e-10), and the
# equality residual is ~1e-12, far inside the 1e-7 relative bound checked on return.
_QP_TOL = 1e-12
_EQ_RTOL = 1e-7


def nonnegative_total_projection(m, total) -> np.ndarray:
    """Non-negative ℓ2 projection onto one total, exactly and for many rows at once.

    For every row m of ``m``, returns argmin_s ‖s − m‖₂ subject to Σ s = total and s ≥ 0: the
    NNL2 projection of one sum constraint (the projection onto a scaled simplex).

    Parameters
    ----------
    m : array_like, shape (n,) or (size, n)
        The vectors to project, one per row (a 1-D input is one row).
    total : float or array_like, shape (size,)
        The total, one number for every row or one per row; each finite and ≥ 0 (a total of 0
        leaves the single point 0).

    Returns
    -------
    ndarray of float, shape (size, n)
        The projections, one per row (2-D also for a 1-D ``m``).

    Raises
    ------
    ValueError
        If a total is negative or not finite.

    See Also
    --------
    nnl2_projection : The same optimum for any A, one row per QP.

    Notes
    -----
    The solution is s = max(m − τ, 0), with the threshold τ found from the row sorted in
    decreasing order (the simplex projection): τ = (Σ_{j≤k} u_j − total)/k, with u the sorted
    row and k the largest index with u_k > (Σ_{j≤k} u_j − total)/k. It is exact up to rounding and
    gives the same optimum as :func:`nnl2_projection` with A = 1ᵀ. E4 applies it to the
    25,704 cells of Illinois' county histograms.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.baselines import nonnegative_total_projection
    >>> m = np.array([[3.0, -1.0, 1.0], [1.0, 1.0, 1.0]])
    >>> nonnegative_total_projection(m, [2, 6]).tolist()
    [[2.0, 0.0, 0.0], [2.0, 2.0, 2.0]]
    >>> nonnegative_total_projection([3.0, -1.0, 1.0], 4).tolist()
    [[3.0, 0.0, 1.0]]
    """
    m = np.atleast_2d(np.asarray(m, dtype=float))
    total = np.broadcast_to(np.asarray(total, dtype=float).reshape(-1, 1), (m.shape[0], 1))
    if np.any(total < 0) or not np.all(np.isfinite(total)):
        raise ValueError("nonnegative_total_projection: every total must be finite and ≥ 0")
    u = -np.sort(-m, axis=1)
    excess = (np.cumsum(u, axis=1) - total) / np.arange(1, m.shape[1] + 1)
    # the last index kept positive (u − excess is positive, then not); at least the first, which a 0 total needs
    rho = np.maximum((u > excess).sum(axis=1) - 1, 0)
    tau = excess[np.arange(m.shape[0]), rho]
    return np.maximum(m - tau[:, None], 0.0)


def nnl2_projection(m, A, b) -> np.ndarray:
    """Non-negative ℓ2 (NNL2) projection: the closest s ≥ 0 in ℓ2 with A s = b.

    Returns argmin_s ‖s − m‖₂² subject to A s = b and s ≥ 0, the NNL2 post-processing of
    Congenial DP, solved as a quadratic program.

    Parameters
    ----------
    m : array_like, shape (n,)
        The point to project (e.g. noisy counts), finite.
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix; redundant rows (e.g. all margins of a table) are
        allowed.
    b : array_like, shape (r,)
        The right-hand side, finite.

    Returns
    -------
    ndarray of float, shape (n,)
        The projection s, with every entry ≥ 0.

    Raises
    ------
    ValueError
        If the inputs have bad or mismatched shapes or values.
    SolverError
        If the QP is infeasible or not solved to the accuracy checked (see Notes).

    See Also
    --------
    nonnegative_total_projection : The exact solution for one sum constraint, many rows at once.

    Notes
    -----
    Congenial DP (docs/method.md §8). The QP min ½ sᵀs − mᵀs subject to A s = b, s ≥ 0 is
    solved by Clarabel through ``qpsolvers``. Clarabel is an interior-point solver: it reaches
    high accuracy in a few iterations, tolerates the redundant equality rows of table margins,
    and certifies infeasibility (status ``PrimalInfeasible``) instead of returning an
    inaccurate point. (OSQP, a first-order ADMM solver, holds the equalities of 4 × 4 margins
    only to about 1e-7 at its defaults.) Its tolerances are tightened to 1e-12; the result must
    satisfy A s = b within 1e-7 · max(1, ‖b‖∞) and s ≥ −1e-9, and tiny negative entries
    (interior-point round-off) are then set to 0. Entries that belong on the boundary s_i = 0
    can come out slightly above it (of order 1e-7). About 1 ms per solve for n ≤ 102.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.baselines import nnl2_projection
    >>> s = nnl2_projection([3.0, -1.0, 1.0], np.ones((1, 3), dtype=int), [2.0])
    >>> np.round(s, 4).tolist()
    [2.0, 0.0, 0.0]
    >>> round(float(s.sum()), 6)
    2.0
    """
    m = vector("m", m)
    A, b = _constraints(A, b, n=m.size)
    n = m.size
    import qpsolvers  # here: a 0.3 s import that only this projection needs

    problem = qpsolvers.Problem(
        P=sp.eye(n, format="csc"),
        q=-m,
        A=sp.csc_matrix(A.astype(float)),
        b=b,
        lb=np.zeros(n),
    )
    with warnings.catch_warnings():  # qpsolvers warns on failure; the error below says it all
        warnings.filterwarnings("ignore", message="Clarabel.rs terminated", category=UserWarning)
        solution = qpsolvers.solve_problem(
            problem, solver="clarabel", tol_feas=_QP_TOL, tol_gap_abs=_QP_TOL, tol_gap_rel=_QP_TOL
        )
    status = solution.extras.get("status")
    if not solution.found or solution.x is None:
        raise SolverError(f"Clarabel did not solve the NNL2 QP (status {status})")
    s = np.asarray(solution.x, dtype=float)
    residual = np.max(np.abs(A @ s - b))
    if residual > _EQ_RTOL * max(1.0, np.max(np.abs(b))) or s.min() < -1e-9:
        raise SolverError(
            f"Clarabel's NNL2 solution is inaccurate (status {status}, equality residual "
            f"{residual:.3g}, min entry {s.min():.3g})"
        )
    return np.maximum(s, 0.0)
