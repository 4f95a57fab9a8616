"""The DG + ℓ1 projection baseline: double geometric noise, then the ℓ1-closest point that keeps the invariants (E4).

ISDP appendix (docs/method.md §8):

- :func:`dg_l1_projection` — double geometric (DG) noise (:class:`isdp.mcmc.DoubleGeometric`), then the
  ℓ1-closest point of {y : A y = A x}, real (the LP, ``l1_projection_lp``) or integer (the MILP of
  :class:`~isdp.baselines.L1Projector`, ``kind="integer"``). Integer-valued with the MILP, but the projection step
  is not unbiased and its ℓ1 optimum is not unique: the LP returns either a vertex of the optimal
  face or its analytic centre (``method``, see ``l1_projection_lp``).

The projections themselves (:class:`~isdp.baselines.L1Projector`, one HiGHS model through ``highspy``
for many projections, the MILP and the closed form onto one total) are the release's non-negative
post-processing, :mod:`isdp.baselines._nonnegative`; this module builds the baseline on them. Every
function checks its inputs and raises :class:`ValueError` on bad ones and :class:`SolverError` when
HiGHS does not certify an optimum.
"""

from __future__ import annotations

import numpy as np

from .._validate import vector
from ..mcmc import DoubleGeometric
from ._nonnegative import L1Projector, _constraints
from ._projected_noise import _positive, _size

#: The optima :func:`l1_projection_lp` can return for its ``method``: ``"vertex"`` (HiGHS' simplex,
#: a vertex of the optimal face) or ``"interior"`` (HiGHS' interior point without crossover, the
#: face's analytic centre).
LP_METHODS = ("vertex", "interior")


def _lp_method(method: str) -> str:
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}, got {method!r}")
    return method


def l1_projection_lp(m, A, b, method: str = "vertex") -> np.ndarray:
    """Project onto {y : A y = b} in ℓ1 with y real, an LP solved by HiGHS.

    Returns a minimiser of ‖y − m‖₁ subject to A y = b (y unbounded). The optimum is generally
    not unique; ``method`` picks which one is returned.

    Parameters
    ----------
    m : array_like, shape (n,)
        The point to project (e.g. noisy counts), finite.
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix.
    b : array_like, shape (r,)
        The right-hand side (the invariants' values), finite.
    method : {"vertex", "interior"}, default "vertex"
        ``"vertex"``: HiGHS' simplex, which returns a vertex of the optimal face.
        ``"interior"``: HiGHS' interior point, which returns the analytic centre of the
        optimal face. See :data:`LP_METHODS` and the Notes.

    Returns
    -------
    ndarray of float, shape (n,)
        The projection y.

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`LP_METHODS`, or the inputs have bad or mismatched
        shapes or values.
    SolverError
        If HiGHS does not report an optimum.

    See Also
    --------
    l1_projection_milp : The same with y integer.
    L1Projector : The projector, built once for many projections.

    Notes
    -----
    ISDP appendix (docs/method.md §8). The LP has variables (y, t): minimise Σ t subject to
    t ≥ y − m, t ≥ m − y, A y = b. For one sum constraint every y = m + d with
    Σ d = b − Σ m and all d_i of the sign of b − Σ m is optimal (value |b − Σ m|): the optimal
    face is a simplex.

    - ``"vertex"`` is what ``scipy.optimize.linprog(method="highs")`` returns. It is exact up to
      HiGHS' tolerances; the values are sums of entries of m and b, so integer data often give
      an integer y (not guaranteed). The whole discrepancy goes on one cell, and that cell is
      fixed by n alone, not by the data: with SciPy 1.17.1 / HiGHS 1.12.0, over 1000 instances
      with n = 102 and m = x + DG(0.192) noise, one cell absorbed all of it in all 997 with a
      non-zero discrepancy, always cell 86 (0-based), whichever cell had the largest m. Other n
      give other fixed cells (n = 3, 5 → 0; 10, 50 → 3; 101 → 65; 103 → 90; 200 → 161), with or
      without presolve, for either sign of the discrepancy and for real-valued m; HiGHS' MILP
      (:class:`L1Projector`'s ``"integer"`` kind) picks the same cell. So this baseline leaves DG
      noise on every county but one, which carries the whole state discrepancy (SD ≈ √n · SD(DG)); which county
      depends on the input order and the HiGHS version.
    - ``"interior"`` runs HiGHS' interior-point solver with crossover off and no presolve
      (options ``solver="ipm"``, ``run_crossover="off"``, ``presolve="off"``) on the same LP
      written in d = y − m, and returns the last iterate: a point in the relative interior of
      the optimal face, close to the limit of the central path, i.e. the face's analytic
      centre. For one sum constraint that centre is d_i = (b − Σ m)/n in every cell (the
      discrepancy spread evenly: y = m − mean(m) + b/n, the ℓ2 projection of m); with SciPy
      1.17.1 / HiGHS 1.12.0, on 200 instances for each n in 3–254, the returned d was within
      5e-10 of it and the ℓ1 objective within 4e-8 of the vertex solution's. A y = b holds to
      HiGHS' primal feasibility tolerance (1e-7, absolute on the discrepancy) plus the
      floating-point rounding of m + d and of the sum (at most 2.4e-7 for totals up to 6e8).

    Examples
    --------
    Three noisy counts whose total must be 12 (their sum is 9):

    >>> import numpy as np
    >>> from isdp.baselines._l1_projection import l1_projection_lp
    >>> A = np.ones((1, 3), dtype=int)
    >>> l1_projection_lp([4.0, 3.0, 2.0], A, [12]).tolist()
    [7.0, 3.0, 2.0]
    >>> y = l1_projection_lp([4.0, 3.0, 2.0], A, [12], method="interior")
    >>> np.round(y, 6).tolist()
    [5.0, 4.0, 3.0]
    """
    m = vector("m", m)
    A, b = _constraints(A, b, n=m.size)
    return L1Projector(A, _lp_method(method))(m, b)


def dg_l1_projection(
    x,
    A,
    epsilon: float,
    size: int,
    rng: np.random.Generator,
    integer: bool,
    sensitivity: float = 1,
    return_noisy: bool = False,
    method: str = "vertex",
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Draw releases of the DG + ℓ1 projection baseline: double geometric noise, then the ℓ1-closest point.

    Each release draws m = x + DG(ε/Δ)ⁿ noise and returns a minimiser of ‖y − m‖₁ subject to
    A y = A x: real-valued (an LP) or integer-valued (a MILP).

    Parameters
    ----------
    x : array_like of int, shape (n,)
        The confidential counts, integer-valued.
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix: the invariants are ``A x``.
    epsilon : float
        Privacy parameter ε > 0.
    size : int
        Number of releases, ≥ 1.
    rng : numpy.random.Generator
        Source of the noise, drawn as ``DoubleGeometric(ε/Δ).rvs((size, n), rng)``
        (:class:`isdp.mcmc.DoubleGeometric`).
    integer : bool
        ``False``: the LP projection of ``l1_projection_lp`` (float releases);
        ``True``: HiGHS' MILP, :class:`L1Projector`'s ``"integer"`` kind (int64 releases).
    sensitivity : float, default 1
        The ℓ1 sensitivity Δ > 0; the noise is DG(ε/Δ).
    return_noisy : bool, default False
        Also return the noisy vectors m.
    method : {"vertex", "interior"}, default "vertex"
        Which LP optimum (see ``l1_projection_lp``); must stay ``"vertex"`` with
        ``integer=True``.

    Returns
    -------
    releases : ndarray, shape (size, n)
        One release per row: float, or int64 with ``integer=True``.
    noisy : ndarray of int64, shape (size, n)
        The noisy vectors m, only with ``return_noisy=True`` (to see where the projection put
        the discrepancy y − m).

    Raises
    ------
    ValueError
        If ``method`` is not one of ``LP_METHODS`` ("vertex", "interior"), ``method="interior"`` is asked with
        ``integer=True``, or the other inputs are invalid (``x`` not integer-valued, ``epsilon``,
        ``sensitivity`` or ``size`` not positive).
    SolverError
        If HiGHS does not certify a projection.

    See Also
    --------
    L1Projector : The projector used for every release.

    Notes
    -----
    ISDP appendix (docs/method.md §8; E4). The releases keep A x exactly with ``integer=True``
    and up to HiGHS' tolerances otherwise. The projection step is not unbiased, and for one
    sum constraint the vertex LP and the MILP put the whole discrepancy A x − A m on one cell,
    fixed by n (see ``l1_projection_lp``). One HiGHS model serves all releases, solved cold for each
    (see :class:`L1Projector`), so a release does not depend on the others. Cost per release
    with n = 102 and one sum constraint (HiGHS 1.15.1, two shared cores): 3.9 ms vertex LP,
    1.5 ms interior-point LP, 10.6 ms MILP (fresh SciPy calls: 10.5, 11.7 and 16.5 ms).

    Examples
    --------
    Three counts with their total kept; each noisy sum is off by the discrepancy, which the
    projection moves onto cell 0:

    >>> import numpy as np
    >>> from isdp.baselines import dg_l1_projection
    >>> x = np.array([5, 3, 2])
    >>> A = np.ones((1, 3), dtype=int)
    >>> y, m = dg_l1_projection(x, A, epsilon=1.0, size=3, rng=np.random.default_rng(0),
    ...                         integer=True, return_noisy=True)
    >>> m.tolist()
    [[4, 2, 2], [4, 4, 3], [5, 3, 2]]
    >>> y.tolist()
    [[6, 2, 2], [3, 4, 3], [5, 3, 2]]
    >>> (y @ A.T).ravel().tolist()
    [10, 10, 10]
    """
    x = vector("x", x, integer=True)
    A, _ = _constraints(A, n=x.size)
    if _lp_method(method) != "vertex" and integer:
        raise ValueError("the integer projection has no interior-point variant; use method='vertex'")
    law = DoubleGeometric(_positive(epsilon, "epsilon") / _positive(sensitivity, "sensitivity"))
    noisy = x + law.rvs((_size(size), x.size), rng)
    b = A @ x
    project = L1Projector(A, "integer" if integer else method)
    out = np.stack([project(m.astype(float), b) for m in noisy])
    return (out, noisy) if return_noisy else out
