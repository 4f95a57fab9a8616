"""Post-processing baselines and projection mechanisms the papers compare against (docs/method.md §8, E4–E6).

- :func:`projected_laplace` — continuous Laplace noise projected orthogonally onto null(A)
  (Subspace DP, Cor. 3.8): unbiased and invariant-respecting, but real-valued.
- :func:`projected_gaussian` — the same with i.i.d. Gaussian noise (Subspace DP, Cor. 3.5), and
  :func:`projection_sd`, the exact per-cell error SD σ·√Π_ii; both project with
  :func:`row_space_basis`.
- :func:`extended_gaussian` — Gaussian noise drawn in the null space's own coordinates and mapped
  back, its scale set by the sensitivity there (Subspace DP, Cor. 3.6); bases per independent block
  of the invariants from :func:`null_space_blocks`.
- :func:`dg_l1_projection` — double geometric (DG) noise, then the ℓ1-closest point of
  {y : A y = A x}, real (:func:`l1_projection_lp`) or integer (:func:`l1_projection_milp`)
  (ISDP appendix). Integer-valued with the MILP, but the projection step is not unbiased and
  its ℓ1 optimum is not unique: the LP returns either a vertex of the optimal face or its
  analytic centre (``method``, see :func:`l1_projection_lp`).
- :func:`nnl2_projection` — the non-negative ℓ2 projection NNL2 (FODS-20), a QP.

All optimisation goes through established solvers: HiGHS (its own Python interface, ``highspy``)
for the LP and MILP, and Clarabel via ``qpsolvers`` for the QP. Constraint matrices must be integer-valued (counting
invariants); every function checks its inputs and raises :class:`ValueError` on bad ones and
:class:`SolverError` when a solver does not certify an optimum.
"""

from __future__ import annotations

import warnings

import highspy
import numpy as np
import qpsolvers
import scipy.linalg
import scipy.sparse as sp

from .double_geometric import dg_rvs
from .lattice import as_integer_matrix, as_vector

__all__ = [
    "SolverError",
    "LP_METHODS",
    "row_space_basis",
    "projected_laplace",
    "projected_gaussian",
    "projection_sd",
    "null_space_blocks",
    "extended_gaussian",
    "double_geometric_noise",
    "l1_projection_lp",
    "l1_projection_milp",
    "L1Projector",
    "nonnegative_total_projection",
    "dg_l1_projection",
    "discrepancy_concentration",
    "nnl2_projection",
]

# Clarabel's feasibility and duality-gap tolerances (defaults 1e-8). At 1e-12 the NNL2 cells
# that belong on the boundary s_i = 0 come out within ~1e-7 of it (~1e-5 at 1e-10), and the
# equality residual is ~1e-12, far inside the 1e-7 relative bound checked on return.
_QP_TOL = 1e-12
_EQ_RTOL = 1e-7
_INT_TOL = 1e-6
LP_METHODS = ("vertex", "interior")


class SolverError(RuntimeError):
    """An LP, MILP or QP solver did not return a certified optimum."""


# --------------------------------------------------------------------------- validation


def _constraints(A, b=None, n: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``A`` as int64 (r × n) and ``b`` as float (r,), checking shapes and finiteness."""
    A = as_integer_matrix(A)
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


def _positive(value: float, name: str) -> float:
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value}")
    return value


def _size(size: int) -> int:
    if isinstance(size, bool) or int(size) != size or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    return int(size)


# --------------------------------------------------------------------------- orthogonal projection


def row_space_basis(A) -> np.ndarray:
    """An orthonormal basis Q (n × rank A) of the row space of ``A``; Π = I − Q Qᵀ projects onto null(A).

    Rank-deficient ``A`` (e.g. all margins of a table, which are linearly dependent) needs no
    special care: only the eigenvectors of the r × r Gram matrix A Aᵀ with a non-zero eigenvalue
    λ_k are kept (λ_k > λ_max · max(r, n) · machine ε), and Q = Aᵀ V Λ^(−1/2). This costs
    O(r³ + nnz(A)·rank) instead of an SVD of the
    n × r matrix Aᵀ (for the E6 margins: about 0.4 s against 3 s).
    The Gram matrix squares A's condition number, so the result is checked on random probe
    vectors (Q has orthonormal columns, and A Π z = 0); if the check fails, Q comes from an SVD
    (:func:`scipy.linalg.orth`) instead.
    """
    A = as_integer_matrix(A)
    S = sp.csr_array(A.astype(float))
    w, V = np.linalg.eigh((S @ S.T).toarray())
    keep = w > w.max() * max(A.shape) * np.finfo(float).eps if w.size and w.max() > 0 else np.zeros(w.size, bool)
    Q = np.ascontiguousarray(S.T @ (V[:, keep] / np.sqrt(w[keep])))
    if not _is_row_space_basis(S, Q):
        Q = scipy.linalg.orth(A.T.astype(float))
    return Q


def _is_row_space_basis(S: sp.csr_array, Q: np.ndarray, n_probes: int = 4, rtol: float = 1e-10) -> bool:
    """Probe check: ‖Qᵀ Q w‖ = ‖w‖ (orthonormal columns) and A (z − Q Qᵀ z) ≈ 0 (Q spans the row space)."""
    rng = np.random.default_rng(0)  # a fixed probe: the check must not consume the caller's stream
    w = rng.standard_normal((Q.shape[1], n_probes))
    z = rng.standard_normal((Q.shape[0], n_probes))
    ortho = np.abs(Q.T @ (Q @ w) - w).max() <= rtol * max(1.0, np.abs(w).max()) if Q.shape[1] else True
    scale = abs(S).sum(axis=1).max() * np.abs(z).max() if S.nnz else 1.0
    spans = np.abs(S @ (z - Q @ (Q.T @ z))).max() <= rtol * scale
    return bool(ortho and spans)


def _project(e: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Π e for the rows of ``e``, with Π = I − Q Qᵀ."""
    return e - (e @ Q) @ Q.T


def _basis(A: np.ndarray, basis) -> np.ndarray:
    if basis is None:
        return row_space_basis(A)
    Q = np.asarray(basis, dtype=float)
    if Q.ndim != 2 or Q.shape[0] != A.shape[1]:
        raise ValueError(f"basis must have {A.shape[1]} rows (one per cell), got shape {Q.shape}")
    return Q


# --------------------------------------------------------------------------- projected Laplace and Gaussian


def projected_laplace(
    x, A, eps: float, size: int, rng: np.random.Generator, sensitivity: float = 1.0
) -> np.ndarray:
    """``size`` releases ``x + Π e`` with ``e ~ Lap(Δ/ε)^n`` and Π the projector onto null(A).

    ``e`` is drawn as ``rng.laplace(0, Δ/ε, (size, n))`` and projected with
    :func:`row_space_basis`. For one sum constraint Π e = e − mean(e). The release is unbiased,
    with covariance 2 (Δ/ε)² Π, and satisfies A·release = A·x up to floating-point rounding; it
    is real-valued. Returns a float array (size, n).
    """
    x = as_vector(x, "x")
    A, _ = _constraints(A, n=x.size)
    scale = _positive(sensitivity, "sensitivity") / _positive(eps, "eps")
    e = rng.laplace(0.0, scale, (_size(size), x.size))
    return x + _project(e, row_space_basis(A))


def projected_gaussian(
    x, A, sigma: float, size: int, rng: np.random.Generator, basis=None
) -> np.ndarray:
    """``size`` releases ``x + Π e`` with ``e ~ N(0, σ²)^n`` i.i.d.: the projected Gaussian mechanism.

    Subspace DP Cor. 3.5 (σ = Δ₂ c_{ε,δ} there). ``e`` is drawn as
    ``rng.normal(0, σ, (size, n))``. The release is unbiased, satisfies A·release = A·x up to
    floating-point rounding, and its error Π e is N(0, σ² Π): the law of x + e conditioned on
    A(x + e) = A x (Subspace DP Thm 4.2), with E‖Π e‖² = (n − rank A) σ². ``basis``: a
    :func:`row_space_basis` of ``A`` computed once and reused across calls (it is not
    re-checked). Returns a float array (size, n).
    """
    x = as_vector(x, "x")
    A, _ = _constraints(A, n=x.size)
    Q = _basis(A, basis)
    e = rng.normal(0.0, _positive(sigma, "sigma"), (_size(size), x.size))
    return x + _project(e, Q)


def projection_sd(A, sigma: float = 1.0, basis=None) -> np.ndarray:
    """Exact per-cell error SD of :func:`projected_gaussian`: σ √Π_ii, with Π_ii = 1 − Σ_k Q_ik².

    The same holds for any i.i.d. noise of SD σ (projected Laplace: σ = √2 Δ/ε). Cells that
    the invariants pin down (Π_ii = 0) get SD 0. Returns a float array (n,).
    """
    A = as_integer_matrix(A)
    Q = _basis(A, basis)
    return _positive(sigma, "sigma") * np.sqrt(np.clip(1.0 - np.einsum("ik,ik->i", Q, Q), 0.0, None))


def null_space_blocks(A) -> list[tuple[np.ndarray, np.ndarray]]:
    """(cells, Q) per independent block of the invariants, Q an orthonormal basis of the null space of
    the block's columns: together the block-diagonal Q_N of Subspace DP §3.3 without its zeros."""
    from .constraints import blocks  # the block decomposition of the release's exact route

    A = as_integer_matrix(A)
    out = []
    for cells, rows in blocks(A):
        sub = A[np.ix_(rows, cells)].astype(float)
        out.append((cells, scipy.linalg.null_space(sub) if rows.size else np.eye(cells.size)))
    return out


def extended_gaussian(
    x, A, scale: float, size: int, rng: np.random.Generator, basis=None
) -> tuple[np.ndarray, float]:
    """``size`` releases ``x + Q_N e_N`` of the extended Gaussian mechanism (Subspace DP Cor. 3.6) for the
    identity query with neighbours that add or remove one record (one cell changes by 1).

    ``e_N ~ N(0, σ_N²)`` i.i.d. in the null space's n − rank A coordinates, ``σ_N = scale · Δ₂(Q_Nᵀ)``
    with ``Δ₂(Q_Nᵀ) = max_i ‖Q_Nᵀ e_i‖ = max_i √Π_ii`` and ``scale = c_{ε,δ}`` (the projected
    mechanism's σ is ``scale · Δ₂(I) = scale``). Drawn block by block (``basis``: a
    :func:`null_space_blocks` of ``A``, reused across calls), so Q_N is never formed whole. The error
    is N(0, σ_N² Π) and E‖error‖² = (n − rank A) σ_N². Returns (releases (size, n), σ_N).
    """
    x = as_vector(x, "x")
    A, _ = _constraints(A, n=x.size)
    parts = null_space_blocks(A) if basis is None else basis
    sigma = _positive(scale, "scale") * max(float(np.sqrt(np.einsum("ik,ik->i", Q, Q).max()))
                                            for _, Q in parts if Q.size)
    out = np.repeat(x[None, :], _size(size), axis=0)
    for cells, Q in parts:
        if Q.shape[1]:
            out[:, cells] += rng.normal(0.0, sigma, (out.shape[0], Q.shape[1])) @ Q.T
    return out, sigma


# --------------------------------------------------------------------------- DG + ℓ1 projection


def double_geometric_noise(
    n: int, eps: float, size: int, rng: np.random.Generator, sensitivity: float = 1
) -> np.ndarray:
    """i.i.d. DG noise, ``P(k) = (1−a)/(1+a) a^|k|`` with ``a = exp(−ε/Δ)``: int64 (size, n).

    Drawn as the difference of two i.i.d. Geometric(1 − a) variables, which is exact.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return dg_rvs(_positive(eps, "eps") / _positive(sensitivity, "sensitivity"), (_size(size), int(n)), rng)


def _lp_method(method: str) -> str:
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}, got {method!r}")
    return method


class L1Projector:
    """argmin_y ‖y − m‖₁ subject to A y = b, for many (m, b), on one HiGHS model built once.

    The LP has variables z = (y, t): minimise Σ t subject to y − t ≤ m, −y − t ≤ −m, A y = b.
    Only the right-hand side changes between calls, so the model is built once and each call
    changes the row bounds and solves again. Every solve starts cold (``clearSolver``): a warm
    start from the previous basis would be faster, but it returns another vertex of the
    (non-unique) optimal face, so the releases would depend on their order. Cold solves give
    exactly what a fresh ``scipy.optimize.linprog``/``milp`` call gave (same vertex, same
    interior point, same integer point; ``tests/core/test_baselines.py`` checks it), at a third to
    a half of its cost, since SciPy rebuilds and re-validates the model on every call.

    ``kind``: ``"vertex"`` (HiGHS' choice of simplex: a vertex of the optimal face),
    ``"interior"`` (interior point, crossover and presolve off, on the LP in d = y − m: the
    analytic centre of the face, see :func:`l1_projection_lp`), or ``"integer"`` (the MILP with
    y integer, ``mip_rel_gap = 0``: a proven optimum, returned as int64 after a rounding check).
    ``nonnegative`` adds y ≥ 0 (the release's non-negative post-processing, docs/release.md).
    """

    KINDS = ("vertex", "interior", "integer")

    def __init__(self, A, kind: str = "vertex", nonnegative: bool = False):
        if kind not in self.KINDS:
            raise ValueError(f"kind must be one of {self.KINDS}, got {kind!r}")
        self.A, _ = _constraints(A)
        self.kind = kind
        n, k = self.A.shape[1], self.A.shape[0]
        eye = sp.eye_array(n, format="csc")
        matrix = sp.vstack([sp.hstack([eye, -eye]), sp.hstack([-eye, -eye]),
                            sp.hstack([sp.csc_array(self.A.astype(float)), sp.csc_array((k, n))])], format="csc")
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
        options = {"output_flag": False}
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
            # and the integer points came out identical (tests/core/test_baselines.py; the note in
            # docs/experiments/e4.md gives the national comparison).
            options.update(mip_rel_gap=0.0, mip_heuristic_run_feasibility_jump=False)
        for key, value in options.items():
            self._highs.setOptionValue(key, value)
        self._highs.passModel(lp)
        self._rows = np.arange(2 * n + k, dtype=np.int32)
        self._n = n

    def __call__(self, m, b) -> np.ndarray:
        """The projection of ``m`` onto {y : A y = b}: float (n,), int64 for ``kind="integer"``."""
        m = as_vector(m, "m", length=self._n)
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
        h.changeRowsBounds(len(self._rows), self._rows, np.concatenate([np.full(2 * n, -inf), rhs]),
                           np.concatenate([upper, rhs]))
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
            raise SolverError(f"HiGHS MILP returned a non-integer point (max rounding error "
                              f"{np.max(np.abs(y - rounded)):.3g})")
        rounded = rounded.astype(np.int64)
        if np.any(self.A @ rounded != b):
            raise SolverError("the rounded HiGHS MILP solution violates A y = b")
        return rounded


def l1_projection_lp(m, A, b, method: str = "vertex") -> np.ndarray:
    """argmin_y ‖y − m‖₁ s.t. A y = b (y real, unbounded), an LP solved by HiGHS (:class:`L1Projector`).

    Formulation: variables (y, t), minimise Σ t subject to t ≥ y − m, t ≥ m − y, A y = b.

    The optimum is generally not unique. For one sum constraint, every y = m + d with
    Σd = b − Σm and all d_i of the sign of b − Σm is optimal (value |b − Σm|): the optimal face
    is a simplex. ``method`` picks which optimum is returned (float array (n,) either way):

    - ``"vertex"`` (default): HiGHS' simplex (what ``linprog(method="highs")`` runs) returns a
      vertex of the optimal face. Exact up to HiGHS' tolerances; the values are sums of
      entries of m and b, so integer data often give integer y (not guaranteed).
    - ``"interior"``: HiGHS' interior-point solver with crossover off and no presolve
      (HiGHS options ``solver="ipm"``, ``run_crossover="off"``) on the same LP written
      in d = y − m. It returns the last interior-point iterate: a point in the relative
      interior of the optimal face, close to the limit of the central path, i.e. the face's
      analytic centre. For one sum constraint that centre is d_i = (b − Σm)/n in every
      cell (the discrepancy spread evenly: y = m − mean(m) + b/n, the ℓ2 projection of m);
      measured with SciPy 1.17.1 / HiGHS 1.12.0 on 200 instances for each n in 3–254, the
      returned d was within 5e-10 of it and the ℓ1 objective within 4e-8 of the vertex
      solution's. y is real-valued; A y = b holds to HiGHS' primal feasibility tolerance
      (1e-7, absolute on the discrepancy) plus the floating-point rounding of m + d and of
      the sum (at most 2.4e-7 there, for totals up to 6e8).

    With ``"vertex"`` the whole discrepancy goes on one cell — and that cell is fixed by n
    alone, not by the data. Measured with SciPy
    1.17.1 / HiGHS 1.12.0 on 1000 instances, n = 102, m = x + DG(e^{−0.192}) noise, x random:
    in all 997 with a non-zero discrepancy one cell absorbed all of it, always cell 86
    (0-based) — neither the first or last cell nor the one with the largest m (that
    coincided 10 times in 997, about the 1/102 expected by chance). Other n give other fixed cells
    (n = 3, 5 → 0; 10, 50 → 3; 101 → 65; 103 → 90; 200 → 161), with or without presolve,
    for either sign of the discrepancy and for real-valued m; :func:`l1_projection_milp`
    picks the same cell. So this baseline leaves DG noise on every county but one, which
    carries the whole state discrepancy (SD ≈ √n · SD(DG)); which county depends on the
    input order and the HiGHS version. :func:`discrepancy_concentration` measures it.
    """
    m = as_vector(m, "m")
    A, b = _constraints(A, b, n=m.size)
    return L1Projector(A, _lp_method(method))(m, b)


def l1_projection_milp(m, A, b, nonnegative: bool = False) -> np.ndarray:
    """argmin_y ‖y − m‖₁ s.t. A y = b (and y ≥ 0 with ``nonnegative``) with y integer, a MILP solved by
    HiGHS (int64; :class:`L1Projector`).

    The solver's y is rounded; a rounding error ≥ 1e-6 or a violation of A y = b after
    rounding raises :class:`SolverError`, so the result is an exact integer solution.
    ``mip_rel_gap = 0`` asks for a proven optimum, not HiGHS' default 0.01 % gap. ``b`` must
    be integer-valued (with integer A and y nothing else is feasible).
    """
    m = as_vector(m, "m")
    A, b = _constraints(A, b, n=m.size)
    return L1Projector(A, "integer", nonnegative)(m, b)


def dg_l1_projection(
    x,
    A,
    eps: float,
    size: int,
    rng: np.random.Generator,
    integer: bool,
    sensitivity: float = 1,
    return_noisy: bool = False,
    method: str = "vertex",
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """``size`` releases: m = x + DG(e^{−ε/Δ})^n, then the ℓ1 projection onto {y : A y = A x}.

    ``integer=False`` uses :func:`l1_projection_lp` with ``method`` ("vertex" or "interior",
    float releases), ``integer=True`` :func:`l1_projection_milp` (int64 releases; ``method``
    must stay "vertex"). One HiGHS model for all releases, solved cold for each (see
    :class:`L1Projector`), so a release does not depend on the others. Returns the (size, n) releases, and with
    ``return_noisy=True`` also the (size, n) noisy vectors m (e.g. for
    :func:`discrepancy_concentration`). Cost per release on the CI profile (n = 102, one sum
    constraint, HiGHS 1.15.1, two cores shared with other jobs): 3.9 ms vertex LP, 1.5 ms
    interior-point LP, 10.6 ms MILP (SciPy's fresh calls took 10.5, 11.7 and 16.5 ms).
    """
    x = as_vector(x, "x", integer=True)
    A, _ = _constraints(A, n=x.size)
    if _lp_method(method) != "vertex" and integer:
        raise ValueError("the integer projection has no interior-point variant; use method='vertex'")
    noisy = x + double_geometric_noise(x.size, eps, size, rng, sensitivity)
    b = A @ x
    project = L1Projector(A, "integer" if integer else method)
    out = np.stack([project(m.astype(float), b) for m in noisy])
    return (out, noisy) if return_noisy else out


def discrepancy_concentration(m, y) -> np.ndarray | float:
    """Share of the total |y − m| absorbed by the cell with the largest |y_i − m_i|.

    1.0 means one cell (county) absorbs the whole projection discrepancy; 1/n means it is
    spread evenly. NaN where y = m (no discrepancy). Works row-wise on (size, n) arrays.
    """
    m, y = np.asarray(m, dtype=float), np.asarray(y, dtype=float)
    if m.shape != y.shape or m.ndim not in (1, 2) or m.shape[-1] == 0:
        raise ValueError(
            f"m and y must be equal-shaped 1-D or 2-D arrays, got {m.shape}, {y.shape}"
        )
    d = np.abs(y - m)
    total = d.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, d.max(axis=-1) / total, np.nan)
    return float(share) if share.ndim == 0 else share


# --------------------------------------------------------------------------- NNL2


def nonnegative_total_projection(m, total) -> np.ndarray:
    """Row-wise argmin_s ‖s − m‖₂ s.t. Σ s = ``total``, s ≥ 0 (the NNL2 projection of one total), for all rows of
    ``m`` at once: s = max(m − τ, 0) with τ from the sorted row (the simplex projection, exact). ``total`` is one
    number or one per row, each ≥ 0 (a total of 0 leaves the single point 0). The same optimum as
    :func:`nnl2_projection` with A = 1ᵀ, which solves one row per QP."""
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
    """argmin_s ‖s − m‖₂² s.t. A s = b, s ≥ 0: the NNL2 post-processing of FODS-20.

    Solved as the QP min ½ sᵀs − mᵀs with Clarabel through ``qpsolvers``. Clarabel is an
    interior-point solver: it reaches high accuracy in a few iterations, tolerates the
    redundant equality rows of table margins, and certifies infeasibility (status
    ``PrimalInfeasible``) instead of returning an inaccurate point. OSQP, the other solver at
    hand, is first-order (ADMM): at its defaults the 4 × 4-margins equalities hold only to
    ~1e-7, and exact answers need its active-set polishing step to succeed. Tolerances are
    tightened to 1e-12; the result is checked to satisfy A s = b within 1e-7·max(1, ‖b‖∞)
    and s ≥ −1e-9, and tiny negative entries (interior-point round-off) are then set to 0.
    Raises :class:`SolverError` when the QP is infeasible or not solved to that accuracy.
    About 1 ms per solve for n ≤ 102.
    """
    m = as_vector(m, "m")
    A, b = _constraints(A, b, n=m.size)
    n = m.size
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
