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
- :func:`l1_total_projection` — the integer ℓ1 projection onto one total (with y ≥ 0 or not) in
  closed form, its choice among the many optima fixed by a stated rule (the ℓ2-nearest), so it
  does not depend on a solver; :func:`l1_projection_milp` uses it for one total.
- :func:`nnl2_projection` — the non-negative ℓ2 projection NNL2 (FODS-20), a QP.

All optimisation goes through established solvers: HiGHS (its own Python interface, ``highspy``)
for the LP and MILP, and Clarabel via ``qpsolvers`` for the QP; only the projections onto one total
(:func:`nonnegative_total_projection`, :func:`l1_total_projection`) are closed forms. Constraint
matrices must be integer-valued (counting invariants); every function checks its inputs and raises
:class:`ValueError` on bad ones and :class:`SolverError` when a solver does not certify an optimum.
"""

from __future__ import annotations

import warnings

import highspy
import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..errors import SolverError
from ..lattice._integer_lattice import as_integer_matrix, as_vector
from ..mcmc._double_geometric import dg_rvs

# Clarabel's feasibility and duality-gap tolerances (defaults 1e-8). At 1e-12 the NNL2 cells
# that belong on the boundary s_i = 0 come out within ~1e-7 of it (~1e-5 at 1e-10), and the
# equality residual is ~1e-12, far inside the 1e-7 relative bound checked on return.
_QP_TOL = 1e-12
_EQ_RTOL = 1e-7
_INT_TOL = 1e-6
#: The optima :func:`l1_projection_lp` can return for its ``method``: ``"vertex"`` (HiGHS' simplex,
#: a vertex of the optimal face) or ``"interior"`` (HiGHS' interior point without crossover, the
#: face's analytic centre).
LP_METHODS = ("vertex", "interior")


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
    """Orthonormal basis of the row space of a constraint matrix.

    Q has orthonormal columns spanning the row space of ``A``, so Π = I − Q Qᵀ is the orthogonal
    projector onto null(A), the subspace the projection mechanisms keep their noise in. Π itself
    is never formed as an n × n matrix: Π e is computed as e − Q (Qᵀ e).

    Parameters
    ----------
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix, one row per invariant and one column per cell. It may
        be rank-deficient (e.g. all margins of a table, which are linearly dependent).

    Returns
    -------
    ndarray of float, shape (n, rank A)
        Q, with Qᵀ Q = I.

    Raises
    ------
    InvariantError
        If ``A`` is not a non-empty, finite, integer-valued 2-D matrix (a :class:`ValueError`).

    See Also
    --------
    projected_gaussian, projected_laplace, projection_sd : The projections that use Q.
    null_space_blocks : Bases of null(A) itself, block by block.

    Notes
    -----
    Only the eigenvectors V of the r × r Gram matrix A Aᵀ whose eigenvalues λ_k are non-zero
    (λ_k > λ_max · max(r, n) · machine ε) are kept, and Q = Aᵀ V Λ^(−1/2). This costs
    O(r³ + nnz(A) · rank) instead of an SVD of the n × r matrix Aᵀ (for E6's 760 margins of
    6,720 cells, about 0.4 s against 3 s). The Gram matrix squares the condition number of
    ``A``, so the result is checked on fixed random probe vectors (Q has orthonormal columns and
    A Π z = 0, to a relative 1e-10); if the check fails, Q comes from an SVD
    (:func:`scipy.linalg.orth`) instead. The probes use their own generator, so no caller's
    random stream is consumed. The columns of Q, and their signs, are not unique; Q Qᵀ is.

    Examples
    --------
    Both margins of a 2 × 2 table: four invariants of rank 3, whose null space is spanned by
    (1, −1, −1, 1):

    >>> import numpy as np
    >>> from isdp.baselines import row_space_basis
    >>> A = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    >>> Q = row_space_basis(A)
    >>> Q.shape
    (4, 3)
    >>> bool(np.allclose(Q.T @ Q, np.eye(3)))
    True
    >>> P = np.eye(4) - Q @ Q.T  # the projector onto null(A), here v vᵀ / 4
    >>> np.round(4 * P, 6).tolist()
    [[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, -1.0], [-1.0, 1.0, 1.0, -1.0], [1.0, -1.0, -1.0, 1.0]]
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
    """Draw releases of the projected Laplace mechanism: Laplace noise projected onto null(A).

    Each release is ``x + Π e`` with ``e`` i.i.d. Laplace(Δ/ε) in every cell and Π the
    orthogonal projector onto the null space of ``A``, so every release keeps the invariants
    ``A x``. The releases are real-valued.

    Parameters
    ----------
    x : array_like, shape (n,)
        The confidential counts, finite (they need not be integers).
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix: the invariants are ``A x``.
    eps : float
        Privacy parameter ε > 0.
    size : int
        Number of releases, ≥ 1.
    rng : numpy.random.Generator
        Source of the noise, drawn as ``rng.laplace(0, Δ/ε, (size, n))``.
    sensitivity : float, default 1.0
        The ℓ1 sensitivity Δ > 0; the Laplace scale is Δ/ε.

    Returns
    -------
    ndarray of float, shape (size, n)
        One release per row.

    Raises
    ------
    ValueError
        If ``eps`` or ``sensitivity`` is not a positive finite number, ``size`` is not a
        positive integer, or ``x`` and ``A`` have bad or mismatched shapes or values.

    See Also
    --------
    projected_gaussian : The same with Gaussian noise.
    projection_sd : The exact per-cell error SD (σ = √2 Δ/ε for Laplace noise).
    row_space_basis : The basis the projection uses.

    Notes
    -----
    Subspace DP Cor. 3.8 (docs/method.md §8). The release is unbiased, its error Π e has
    covariance 2 (Δ/ε)² Π, and A · release = A x holds up to floating-point rounding. For one
    sum constraint Π e = e − mean(e). The projection is :func:`row_space_basis` of ``A``,
    computed on every call.

    Examples
    --------
    Three counts with their total kept:

    >>> import numpy as np
    >>> from isdp.baselines import projected_laplace
    >>> x = np.array([5, 3, 2])
    >>> A = np.ones((1, 3), dtype=int)
    >>> y = projected_laplace(x, A, eps=1.0, size=2, rng=np.random.default_rng(0))
    >>> np.round(y, 2).tolist()
    [[6.25, 3.32, 0.43], [1.82, 4.21, 3.97]]
    >>> np.round(y.sum(axis=1), 9).tolist()
    [10.0, 10.0]
    """
    x = as_vector(x, "x")
    A, _ = _constraints(A, n=x.size)
    scale = _positive(sensitivity, "sensitivity") / _positive(eps, "eps")
    e = rng.laplace(0.0, scale, (_size(size), x.size))
    return x + _project(e, row_space_basis(A))


def projected_gaussian(
    x, A, sigma: float, size: int, rng: np.random.Generator, basis=None
) -> np.ndarray:
    """Draw releases of the projected Gaussian mechanism: Gaussian noise projected onto null(A).

    Each release is ``x + Π e`` with ``e`` i.i.d. N(0, σ²) in every cell and Π the orthogonal
    projector onto the null space of ``A``, so every release keeps the invariants ``A x``. The
    releases are real-valued.

    Parameters
    ----------
    x : array_like, shape (n,)
        The confidential counts, finite (they need not be integers).
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix: the invariants are ``A x``.
    sigma : float
        Noise standard deviation σ > 0 per cell before the projection.
    size : int
        Number of releases, ≥ 1.
    rng : numpy.random.Generator
        Source of the noise, drawn as ``rng.normal(0, σ, (size, n))``.
    basis : ndarray of float, shape (n, rank A), optional
        A :func:`row_space_basis` of ``A``, computed once and reused across calls; it is not
        re-checked. By default it is computed on every call.

    Returns
    -------
    ndarray of float, shape (size, n)
        One release per row.

    Raises
    ------
    ValueError
        If ``sigma`` is not a positive finite number, ``size`` is not a positive integer,
        ``basis`` does not have n rows, or ``x`` and ``A`` have bad or mismatched shapes or
        values.

    See Also
    --------
    projected_laplace : The same with Laplace noise.
    projection_sd : The exact per-cell error SD σ √Π_ii.
    extended_gaussian : Gaussian noise drawn in the null space's own coordinates.

    Notes
    -----
    Subspace DP Cor. 3.5, where σ = Δ₂ c_{ε,δ} (docs/method.md §8). The release is unbiased and
    satisfies A · release = A x up to floating-point rounding. Its error Π e is N(0, σ² Π): the
    law of x + e conditioned on A (x + e) = A x (Subspace DP Thm 4.2), with
    E‖Π e‖² = (n − rank A) σ².

    Examples
    --------
    Three counts with their total kept:

    >>> import numpy as np
    >>> from isdp.baselines import projected_gaussian, row_space_basis
    >>> x = np.array([5, 3, 2])
    >>> A = np.ones((1, 3), dtype=int)
    >>> y = projected_gaussian(x, A, sigma=1.0, size=2, rng=np.random.default_rng(0))
    >>> np.round(y, 2).tolist()
    [[4.91, 2.66, 2.43], [5.13, 2.49, 2.38]]
    >>> np.round(y.sum(axis=1), 9).tolist()
    [10.0, 10.0]

    With a basis computed once, the mean squared error per release is close to
    (n − rank A) σ² = 2:

    >>> Q = row_space_basis(A)
    >>> y = projected_gaussian(x, A, sigma=1.0, size=20000, rng=np.random.default_rng(0), basis=Q)
    >>> round(float(np.mean(((y - x) ** 2).sum(axis=1))), 2)
    2.0
    """
    x = as_vector(x, "x")
    A, _ = _constraints(A, n=x.size)
    Q = _basis(A, basis)
    e = rng.normal(0.0, _positive(sigma, "sigma"), (_size(size), x.size))
    return x + _project(e, Q)


def projection_sd(A, sigma: float = 1.0, basis=None) -> np.ndarray:
    """Exact per-cell error standard deviation of the projected Gaussian mechanism.

    The error of :func:`projected_gaussian` in cell i has SD σ √Π_ii, with
    Π_ii = 1 − Σ_k Q_ik² the diagonal of the projector onto null(A) (Q a
    :func:`row_space_basis` of ``A``).

    Parameters
    ----------
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix.
    sigma : float, default 1.0
        Noise SD σ > 0 per cell before the projection.
    basis : ndarray of float, shape (n, rank A), optional
        A :func:`row_space_basis` of ``A`` to reuse; computed from ``A`` by default.

    Returns
    -------
    ndarray of float, shape (n,)
        The SD σ √Π_ii of every cell i; 0 for the cells the invariants pin down (Π_ii = 0).

    Raises
    ------
    ValueError
        If ``sigma`` is not a positive finite number, ``A`` is not an integer-valued 2-D
        matrix, or ``basis`` does not have n rows.

    See Also
    --------
    projected_gaussian, projected_laplace : The mechanisms whose error SD this is.

    Notes
    -----
    The error Π e of i.i.d. noise e with SD σ has covariance σ² Π, so the result holds for any
    i.i.d. noise of SD σ; for projected Laplace noise σ = √2 Δ/ε. Rounding below 0 in
    1 − Σ_k Q_ik² is clipped to 0. For both margins of a G × H table every cell has
    Π_ii = (1 − 1/G)(1 − 1/H) (E6).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.baselines import projection_sd
    >>> sd = projection_sd(np.ones((1, 3), dtype=int))  # one total: √(1 − 1/3)
    >>> np.round(sd, 4).tolist()
    [0.8165, 0.8165, 0.8165]

    Cell 0 is an invariant itself, so it carries no error:

    >>> A = np.array([[1, 0, 0], [0, 1, 1]])
    >>> np.round(projection_sd(A, sigma=2.0), 4).tolist()
    [0.0, 1.4142, 1.4142]
    """
    A = as_integer_matrix(A)
    Q = _basis(A, basis)
    return _positive(sigma, "sigma") * np.sqrt(np.clip(1.0 - np.einsum("ik,ik->i", Q, Q), 0.0, None))


def null_space_blocks(A) -> list[tuple[np.ndarray, np.ndarray]]:
    """Orthonormal bases of null(A), one per independent block of the invariants.

    The cells split into blocks that share no invariant (the connected components of
    :func:`isdp.lattice.blocks`). Each block's basis is an orthonormal basis of the null
    space of the block's own submatrix; together they are the block-diagonal Q_N of Subspace DP
    §3.3 without its zero blocks.

    Parameters
    ----------
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix.

    Returns
    -------
    list of tuple of (ndarray, ndarray)
        ``(cells, Q)`` per block, in the order of the blocks' first cells: ``cells`` the block's
        cell indices (int, sorted), ``Q`` a float array (len(cells), k) with orthonormal columns
        spanning the null space of ``A[:, cells]`` (k = 0 when the block's cells are all
        pinned down). A cell in no invariant is a block of its own with ``Q = [[1.0]]``.

    Raises
    ------
    InvariantError
        If ``A`` is not a non-empty, finite, integer-valued 2-D matrix (a :class:`ValueError`).

    See Also
    --------
    extended_gaussian : Draws noise with these bases.
    row_space_basis : An orthonormal basis of the row space instead.

    Notes
    -----
    Rows implied by a partition of narrower rows are set aside before the blocks are found
    (they do not change the null space). Each block's basis comes from an SVD
    (:func:`scipy.linalg.null_space`), so its columns and signs are not unique; Q Qᵀ is.

    Examples
    --------
    Two pairs of cells with their totals kept, and a fifth cell in no invariant:

    >>> import numpy as np
    >>> from isdp.baselines import null_space_blocks
    >>> A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])
    >>> [(cells.tolist(), Q.shape) for cells, Q in null_space_blocks(A)]
    [([0, 1], (2, 1)), ([2, 3], (2, 1)), ([4], (1, 1))]
    >>> cells, Q = null_space_blocks(A)[0]
    >>> np.round(Q @ Q.T, 6).tolist()
    [[0.5, -0.5], [-0.5, 0.5]]
    """
    from ..lattice._invariants import blocks

    A = as_integer_matrix(A)
    out = []
    for cells, rows in blocks(A):
        sub = A[np.ix_(rows, cells)].astype(float)
        out.append((cells, scipy.linalg.null_space(sub) if rows.size else np.eye(cells.size)))
    return out


def extended_gaussian(
    x, A, scale: float, size: int, rng: np.random.Generator, basis=None
) -> tuple[np.ndarray, float]:
    """Draw releases of the extended Gaussian mechanism: Gaussian noise in the null space's coordinates.

    Each release is ``x + Q_N e_N`` with Q_N an orthonormal basis of null(A) and ``e_N`` i.i.d.
    N(0, σ_N²) in its n − rank A coordinates, for the identity query with neighbours that add
    or remove one record (one cell changes by 1). Every release keeps the invariants ``A x``;
    the releases are real-valued.

    Parameters
    ----------
    x : array_like, shape (n,)
        The confidential counts, finite (they need not be integers).
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix: the invariants are ``A x``.
    scale : float
        The constant c_{ε,δ} > 0 of the Gaussian mechanism; σ_N = scale · Δ₂(Q_Nᵀ). The
        projected mechanism of :func:`projected_gaussian` has σ = scale · Δ₂(I) = scale.
    size : int
        Number of releases, ≥ 1.
    rng : numpy.random.Generator
        Source of the noise, drawn block by block as ``rng.normal(0, σ_N, (size, k))``.
    basis : list of tuple of (ndarray, ndarray), optional
        The :func:`null_space_blocks` of ``A``, computed once and reused across calls; it is
        not re-checked. By default it is computed on every call.

    Returns
    -------
    releases : ndarray of float, shape (size, n)
        One release per row.
    sigma : float
        The noise scale σ_N = scale · max_i √Π_ii.

    Raises
    ------
    ValueError
        If ``scale`` is not a positive finite number, ``size`` is not a positive integer, or
        ``x`` and ``A`` have bad or mismatched shapes or values.

    See Also
    --------
    projected_gaussian : The projected Gaussian mechanism.
    null_space_blocks : The bases the noise is drawn in.

    Notes
    -----
    Subspace DP Cor. 3.6. The sensitivity in the null space's coordinates is
    Δ₂(Q_Nᵀ) = max_i ‖Q_Nᵀ e_i‖ = max_i √Π_ii. The noise is drawn block by block, so Q_N is
    never formed whole. The error is N(0, σ_N² Π), unbiased, with
    E‖error‖² = (n − rank A) σ_N², no more than the projected mechanism's (n − rank A) scale².

    Examples
    --------
    Two pairs of cells with their totals kept: Π_ii = 1/2 in every cell, so σ_N = scale/√2.

    >>> import numpy as np
    >>> from isdp.baselines import extended_gaussian
    >>> x = np.array([5, 3, 2, 4])
    >>> A = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    >>> y, sigma = extended_gaussian(x, A, scale=1.0, size=2, rng=np.random.default_rng(0))
    >>> round(sigma, 4)
    0.7071
    >>> np.round(y @ A.T, 9).tolist()
    [[8.0, 6.0], [8.0, 6.0]]
    >>> np.round(y, 2).tolist()
    [[4.94, 3.06, 1.68, 4.32], [5.07, 2.93, 1.95, 4.05]]
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
    """I.i.d. double geometric (DG) noise, the integer noise of the ℓ1 projection baseline.

    Each entry has P(k) = (1 − a)/(1 + a) · a^|k| for every integer k, with a = exp(−ε/Δ): the
    DG(ε/Δ) law, ``scipy.stats.dlaplace(ε/Δ)``.

    Parameters
    ----------
    n : int
        Number of cells, ≥ 1.
    eps : float
        Privacy parameter ε > 0.
    size : int
        Number of noise vectors, ≥ 1.
    rng : numpy.random.Generator
        Source of the draws.
    sensitivity : float, default 1
        The ℓ1 sensitivity Δ > 0; the law is DG(ε/Δ).

    Returns
    -------
    ndarray of int64, shape (size, n)
        One noise vector per row.

    Raises
    ------
    ValueError
        If ``n`` or ``size`` is not a positive integer, or ``eps`` or ``sensitivity`` is not a
        positive finite number.

    See Also
    --------
    dg_l1_projection : Adds this noise and projects.

    Notes
    -----
    Each draw is the difference of two i.i.d. Geometric(1 − a) variables
    (:func:`isdp.mcmc.dg_rvs`), which has exactly the DG law. Its variance is
    2a/(1 − a)².

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.baselines import double_geometric_noise
    >>> double_geometric_noise(4, eps=1.0, size=2, rng=np.random.default_rng(0)).tolist()
    [[1, -2, -1, 0], [0, 2, -1, 1]]
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return dg_rvs(_positive(eps, "eps") / _positive(sensitivity, "sensitivity"), (_size(size), int(n)), rng)


def _lp_method(method: str) -> str:
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}, got {method!r}")
    return method


class L1Projector:
    """Projections onto {y : A y = b} in ℓ1 for many (m, b), on one HiGHS model built once.

    Each call returns a minimiser of ‖y − m‖₁ subject to A y = b (and y ≥ 0 with
    ``nonnegative``). Only the right-hand side changes between calls, so the model is built once
    and each call changes the row bounds and solves again, from a cold start.

    Parameters
    ----------
    A : array_like of int, shape (r, n)
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
    integer point; tests/core/baselines/test_projections.py checks it), at a third to a half of its cost,
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
            # and the integer points came out identical (tests/core/baselines/test_projections.py; the note in
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
        if self.kind == "interior" and self._nonnegative:  # the interior model's columns are d = y − m: y ≥ 0 is d ≥ −m
            h.changeColsBounds(n, np.arange(n, dtype=np.int32), -m, np.full(n, inf))
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
    discrepancy_concentration : Where the discrepancy lands.

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
    >>> from isdp.baselines import l1_projection_lp
    >>> A = np.ones((1, 3), dtype=int)
    >>> l1_projection_lp([4.0, 3.0, 2.0], A, [12]).tolist()
    [7.0, 3.0, 2.0]
    >>> y = l1_projection_lp([4.0, 3.0, 2.0], A, [12], method="interior")
    >>> np.round(y, 6).tolist()
    [5.0, 4.0, 3.0]
    """
    m = as_vector(m, "m")
    A, b = _constraints(A, b, n=m.size)
    return L1Projector(A, _lp_method(method))(m, b)


def l1_projection_milp(m, A, b, nonnegative: bool = False) -> np.ndarray:
    """Project onto {y : A y = b} in ℓ1 with y integer: in closed form for one total, else a HiGHS MILP.

    Returns an integer minimiser of ‖y − m‖₁ subject to A y = b (and y ≥ 0 with
    ``nonnegative``), a proven optimum.

    Parameters
    ----------
    m : array_like, shape (n,)
        The point to project (e.g. noisy counts), finite.
    A : array_like of int, shape (r, n)
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
    >>> from isdp.baselines import l1_projection_milp
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
    m = as_vector(m, "m")
    A, b = _constraints(A, b, n=m.size)
    if A.shape[0] == 1 and np.all(A == 1):
        return l1_total_projection(m, b[0], nonnegative)
    return L1Projector(A, "integer", nonnegative)(m, b)


def l1_total_projection(m, total, nonnegative: bool = False) -> np.ndarray:
    """The integer ℓ1 projection onto one total, the same optimum whatever the solver: the ℓ2-nearest.

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
    m = as_vector(m, "m")
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
    index)."""
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
    """Draw releases of the DG + ℓ1 projection baseline: double geometric noise, then the ℓ1-closest point.

    Each release draws m = x + DG(ε/Δ)ⁿ noise and returns a minimiser of ‖y − m‖₁ subject to
    A y = A x: real-valued (an LP) or integer-valued (a MILP).

    Parameters
    ----------
    x : array_like of int, shape (n,)
        The confidential counts, integer-valued.
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix: the invariants are ``A x``.
    eps : float
        Privacy parameter ε > 0.
    size : int
        Number of releases, ≥ 1.
    rng : numpy.random.Generator
        Source of the noise (:func:`double_geometric_noise`).
    integer : bool
        ``False``: the LP projection of :func:`l1_projection_lp` (float releases);
        ``True``: HiGHS' MILP, :class:`L1Projector`'s ``"integer"`` kind (int64 releases).
    sensitivity : float, default 1
        The ℓ1 sensitivity Δ > 0; the noise is DG(ε/Δ).
    return_noisy : bool, default False
        Also return the noisy vectors m.
    method : {"vertex", "interior"}, default "vertex"
        Which LP optimum (see :func:`l1_projection_lp`); must stay ``"vertex"`` with
        ``integer=True``.

    Returns
    -------
    releases : ndarray, shape (size, n)
        One release per row: float, or int64 with ``integer=True``.
    noisy : ndarray of int64, shape (size, n)
        The noisy vectors m, only with ``return_noisy=True`` (e.g. for
        :func:`discrepancy_concentration`).

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`LP_METHODS`, ``method="interior"`` is asked with
        ``integer=True``, or the other inputs are invalid (``x`` not integer-valued, ``eps``,
        ``sensitivity`` or ``size`` not positive).
    SolverError
        If HiGHS does not certify a projection.

    See Also
    --------
    L1Projector : The projector used for every release.
    discrepancy_concentration : The share of the discrepancy the largest cell absorbs.

    Notes
    -----
    ISDP appendix (docs/method.md §8; E4). The releases keep A x exactly with ``integer=True``
    and up to HiGHS' tolerances otherwise. The projection step is not unbiased, and for one
    sum constraint the vertex LP and the MILP put the whole discrepancy A x − A m on one cell,
    fixed by n (see :func:`l1_projection_lp`). One HiGHS model serves all releases, solved cold for each
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
    >>> y, m = dg_l1_projection(x, A, eps=1.0, size=3, rng=np.random.default_rng(0),
    ...                         integer=True, return_noisy=True)
    >>> m.tolist()
    [[4, 2, 2], [4, 4, 3], [5, 3, 2]]
    >>> y.tolist()
    [[6, 2, 2], [3, 4, 3], [5, 3, 2]]
    >>> (y @ A.T).ravel().tolist()
    [10, 10, 10]
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
    """Share of the projection discrepancy absorbed by the single cell that moves most.

    For a noisy vector m and its projection y, the share is max_i |y_i − m_i| / Σ_i |y_i − m_i|:
    1.0 when one cell (county) absorbs the whole discrepancy, 1/n when it is spread evenly.

    Parameters
    ----------
    m : array_like, shape (n,) or (size, n)
        The vectors before the projection (e.g. the noisy counts), one per row.
    y : array_like, same shape as ``m``
        The projected vectors.

    Returns
    -------
    float or ndarray of float, shape (size,)
        The share, a float for 1-D inputs and one per row for 2-D inputs; NaN where y = m (no
        discrepancy).

    Raises
    ------
    ValueError
        If ``m`` and ``y`` differ in shape, are not 1-D or 2-D, or have no cells.

    See Also
    --------
    dg_l1_projection : Returns the releases and the noisy vectors.

    Examples
    --------
    >>> from isdp.baselines import discrepancy_concentration
    >>> discrepancy_concentration([4, 3, 2], [7, 3, 2])  # one cell takes all of it
    1.0
    >>> round(discrepancy_concentration([4, 3, 2], [5, 4, 3]), 4)  # spread evenly: 1/3
    0.3333
    >>> discrepancy_concentration([[4, 3, 2], [1, 1, 1]], [[6, 3, 3], [1, 1, 1]]).tolist()
    [0.6666666666666666, nan]
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
    m = as_vector(m, "m")
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
