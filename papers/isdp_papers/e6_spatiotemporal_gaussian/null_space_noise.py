"""Noise in the null space's own coordinates (Subspace DP Cor. 3.6), and the projected Gaussian's error SD.

- :func:`extended_gaussian` — Gaussian noise drawn in the coordinates of an orthonormal basis of
  null(A) and mapped back, its scale set by the sensitivity there (Subspace DP Cor. 3.6); bases per
  independent block of the invariants from :func:`null_space_blocks`.
- :func:`projection_sd` — the exact per-cell error SD σ·√Π_ii of
  :func:`isdp.baselines.projected_gaussian`, whose projection is :func:`isdp.baselines.row_space_basis`.

E6 compares the extended mechanism with the projected one (:mod:`.spatiotemporal`,
:mod:`.measures.transparency`). Constraint matrices must be integer-valued (counting invariants); every
function checks its inputs and raises :class:`ValueError` on bad ones.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from isdp.baselines import row_space_basis
from isdp.lattice import blocks


def _positive(value: float, name: str) -> float:
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value}")
    return value


def _size(size: int) -> int:
    if isinstance(size, bool) or int(size) != size or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    return int(size)


def _integer_matrix(A) -> np.ndarray:
    """Return ``A`` as a non-empty 2-D int64 matrix, refusing any entry that is not a whole number."""
    arr = np.asarray(A)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"A must be a non-empty 2-D matrix, got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError("A must hold integers")
    if not np.issubdtype(arr.dtype, np.integer) and not (np.all(np.isfinite(arr)) and np.all(arr == np.rint(arr))):
        raise ValueError("A must be integer-valued")
    # no copy of an int64 matrix: every study validates the same one (tens of MB at E6's size) and only reads it
    return arr.astype(np.int64, copy=False)


def _counts_and_constraints(x, A) -> tuple[np.ndarray, np.ndarray]:
    """Return ``x`` as a finite non-empty float vector and ``A`` as an int64 matrix with one column per cell."""
    x = np.asarray(x)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"x must be a 1-D vector non-empty, got shape {x.shape}")
    if not (np.issubdtype(x.dtype, np.number) or x.dtype == bool) or not np.all(np.isfinite(x)):
        raise ValueError("x must be finite and numeric")
    A = _integer_matrix(A)
    if A.shape[1] != x.size:
        raise ValueError(f"A has {A.shape[1]} columns but the vector has {x.size} cells")
    return x.astype(float), A


def projection_sd(A, sigma: float = 1.0, basis=None) -> np.ndarray:
    """Exact per-cell error standard deviation of the projected Gaussian mechanism.

    The error of :func:`isdp.baselines.projected_gaussian` in cell i has SD σ √Π_ii, with
    Π_ii = 1 − Σ_k Q_ik² the diagonal of the projector onto null(A) (Q a
    :func:`isdp.baselines.row_space_basis` of ``A``).

    Parameters
    ----------
    A : array_like of int, shape (r, n)
        Integer-valued constraint matrix.
    sigma : float, default 1.0
        Noise SD σ > 0 per cell before the projection.
    basis : ndarray of float, shape (n, rank A), optional
        A :func:`isdp.baselines.row_space_basis` of ``A`` to reuse; computed from ``A`` by default.

    Returns
    -------
    ndarray of float, shape (n,)
        The SD σ √Π_ii of every cell i; 0 for the cells the invariants pin down (Π_ii = 0).

    Raises
    ------
    ValueError
        If ``sigma`` is not a positive finite number, ``A`` is not an integer-valued 2-D
        matrix, or ``basis`` does not have n rows.

    Notes
    -----
    The error Π e of i.i.d. noise e with SD σ has covariance σ² Π, so the result holds for any
    i.i.d. noise of SD σ; for projected Laplace noise σ = √2 Δ/ε. Rounding below 0 in
    1 − Σ_k Q_ik² is clipped to 0. For both margins of a G × H table every cell has
    Π_ii = (1 − 1/G)(1 − 1/H).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import projection_sd
    >>> sd = projection_sd(np.ones((1, 3), dtype=int))  # one total: √(1 − 1/3)
    >>> np.round(sd, 4).tolist()
    [0.8165, 0.8165, 0.8165]

    Cell 0 is an invariant itself, so it carries no error:

    >>> A = np.array([[1, 0, 0], [0, 1, 1]])
    >>> np.round(projection_sd(A, sigma=2.0), 4).tolist()
    [0.0, 1.4142, 1.4142]
    """
    A = _integer_matrix(A)
    if basis is None:
        Q = row_space_basis(A)
    else:
        Q = np.asarray(basis, dtype=float)
        if Q.ndim != 2 or Q.shape[0] != A.shape[1]:
            raise ValueError(f"basis must have {A.shape[1]} rows (one per cell), got shape {Q.shape}")
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
    ValueError
        If ``A`` is not a non-empty, finite, integer-valued 2-D matrix.

    See Also
    --------
    extended_gaussian : Draws noise with these bases.

    Notes
    -----
    Rows implied by a partition of narrower rows are set aside before the blocks are found
    (they do not change the null space). Each block's basis comes from an SVD
    (:func:`scipy.linalg.null_space`), so its columns and signs are not unique; Q Qᵀ is.

    Examples
    --------
    Two pairs of cells with their totals kept, and a fifth cell in no invariant:

    >>> import numpy as np
    >>> from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import null_space_blocks
    >>> A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])
    >>> [(cells.tolist(), Q.shape) for cells, Q in null_space_blocks(A)]
    [([0, 1], (2, 1)), ([2, 3], (2, 1)), ([4], (1, 1))]
    >>> cells, Q = null_space_blocks(A)[0]
    >>> np.round(Q @ Q.T, 6).tolist()
    [[0.5, -0.5], [-0.5, 0.5]]
    """
    A = _integer_matrix(A)
    out = []
    for cells, rows in blocks(A):
        sub = A[np.ix_(rows, cells)].astype(float)
        out.append((cells, scipy.linalg.null_space(sub) if rows.size else np.eye(cells.size)))
    return out


def extended_gaussian(x, A, scale: float, size: int, rng: np.random.Generator, basis=None) -> tuple[np.ndarray, float]:
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
        projected mechanism of :func:`isdp.baselines.projected_gaussian` has σ = scale · Δ₂(I) = scale.
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
    >>> from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian
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
    x, A = _counts_and_constraints(x, A)
    parts = null_space_blocks(A) if basis is None else basis
    sigma = _positive(scale, "scale") * max(
        float(np.sqrt(np.einsum("ik,ik->i", Q, Q).max())) for _, Q in parts if Q.size
    )
    out = np.repeat(x[None, :], _size(size), axis=0)
    for cells, Q in parts:
        if Q.shape[1]:
            out[:, cells] += rng.normal(0.0, sigma, (out.shape[0], Q.shape[1])) @ Q.T
    return out, sigma
