"""Exact computations behind the rows on ISDP §2's privacy properties, App. E.4's statements and §4's kernels.

§2's properties are composition across invariants, randomized post-processing and the smooth-DP equivalence; App. E.4's
statements are on projection and non-negativity. The computations are laws of products and of Markov kernels applied to
an enumerated law, an LP feasibility problem and a one-step transition matrix. Laws are
:class:`isdp.privacy.TruncatedLaw` (a box and a bound on what it leaves out).
"""

from __future__ import annotations

import itertools

import numpy as np

from isdp.privacy import TruncatedLaw


def product_ratio_arrays(pairs):
    """For independent releases i with laws (P_i, Q_i) at x and x', each aligned on its support.

    The product laws' probabilities as two flat arrays (the outer products), without enumerating the product's points.
    """
    a, b = np.ones(1), np.ones(1)
    for p, q in pairs:
        pa, qb = p.aligned_with(q)
        a, b = np.outer(a, pa).ravel(), np.outer(b, qb).ravel()
    return a, b


def max_log_ratio(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """Return max ln a/b of two probability arrays on the same outputs, where both are at least ``floor``.

    :meth:`isdp.privacy.TruncatedLaw.max_privacy_loss` for laws already aligned, such as the outer products of
    :func:`product_ratio_arrays`, whose points are never enumerated.
    """
    both = (a >= floor) & (b >= floor)
    return float(np.max(np.log(a[both]) - np.log(b[both])))


def randomized_map(law: TruncatedLaw, images) -> TruncatedLaw:
    """Return the law of F(Y), Y ~ ``law``, for a Markov kernel given as ``images``.

    A list of (f, weight) with f a vectorised map from the points (m × n) to images (m × d) and weights summing to 1
    (F(Y) = f(Y) with that probability, independently of Y; f may itself add independent noise through several entries).
    """
    points = np.vstack([np.asarray(f(law.points), dtype=np.int64) for f, _ in images])
    probs = np.concatenate([w * law.probs for _, w in images])
    return TruncatedLaw(points, probs, law.outside)


def compact(law: TruncatedLaw) -> TruncatedLaw:
    """Return the same law with repeated points merged (their probabilities added)."""
    points, index = np.unique(law.points, axis=0, return_inverse=True)
    return TruncatedLaw(points, np.bincount(index.ravel(), weights=law.probs), law.outside)


def add_noise(law: TruncatedLaw, pmf, support) -> TruncatedLaw:
    """Return the law of Y + Z, Y one-dimensional, Z independent on ``support`` (integers).

    Z has the probabilities ``pmf``.
    """
    steps = np.asarray(support, dtype=np.int64)[None, :, None]
    points = (law.points[:, None, :] + steps).reshape(-1, law.points.shape[1])
    return TruncatedLaw(points, np.outer(law.probs, pmf).ravel(), law.outside + max(0.0, 1.0 - float(np.sum(pmf))))


def log_ratio_on_grid(logp: np.ndarray, v) -> float:
    """Return max_y ln p(y) − ln p(y − v) for a law on the cube {−R..R}^n: the privacy loss of x ↦ x + U.

    The law is given by its log-probabilities ``logp`` (an n-dimensional array); the max is over the y with both y and y
    − v in the cube. It is the privacy loss of x ↦ x + U between x and x + v (U ~ p), exact on the cube when the law's
    normalisation cancels.
    """
    sl_y, sl_shift = [], []
    for vi in v:
        vi = int(vi)
        sl_y.append(slice(max(vi, 0), logp.shape[0] + min(vi, 0)))
        sl_shift.append(slice(max(-vi, 0), logp.shape[0] - max(vi, 0)))
    return float(np.max(logp[tuple(sl_y)] - logp[tuple(sl_shift)]))


def unbiased_dp_exists(total: int, eps: float, nonnegative: bool, margin: int) -> bool:
    """Return whether a mechanism releasing (y, total − y) for two counts can be unbiased and ε-DP (HiGHS LP).

    The counts are (x, total − x), x = 0…total; unbiased means E y = x for every x, ε-DP for one person moving between
    them means P(y | x) ≤ e^{2ε} P(y | x ± 1) (the two counts change by 1 each, ℓ1 distance 2). Here y is in {0..total}
    (both releases non-negative) or, without ``nonnegative``, in {−margin..total + margin}; the answer is the
    feasibility of a linear programme.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_array

    ys = np.arange(0, total + 1) if nonnegative else np.arange(-margin, total + margin + 1)
    nx, ny = total + 1, len(ys)
    var = lambda x, j: x * ny + j  # noqa: E731
    rows, cols, vals, r = [], [], [], 0
    bound = np.exp(2 * eps)
    for x, j in itertools.product(range(total), range(ny)):
        for lo, hi in ((x, x + 1), (x + 1, x)):  # p(y | lo) − e^{2ε} p(y | hi) ≤ 0
            rows += [r, r]
            cols += [var(lo, j), var(hi, j)]
            vals += [1.0, -bound]
            r += 1
    A_ub = coo_array((vals, (rows, cols)), shape=(r, nx * ny)).tocsr()
    eq_rows, eq_cols, eq_vals = [], [], []
    for x in range(nx):  # Σ_y p(y | x) = 1 and Σ_y y p(y | x) = x
        eq_rows += [2 * x] * ny + [2 * x + 1] * ny
        eq_cols += [var(x, j) for j in range(ny)] * 2
        eq_vals += [1.0] * ny + ys.astype(float).tolist()
    A_eq = coo_array((eq_vals, (eq_rows, eq_cols)), shape=(2 * nx, nx * ny)).tocsr()
    b_eq = np.ravel(np.column_stack([np.ones(nx), np.arange(nx, dtype=float)]))
    res = linprog(
        np.zeros(nx * ny), A_ub=A_ub, b_ub=np.zeros(r), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs"
    )
    if res.status not in (0, 2):
        raise RuntimeError(f"HiGHS ended with status {res.status}: {res.message}")
    return res.status == 0


def joint_update_matrix(lattice, target, proposal_eps: float, radius: int, tilt: float = 0.0):
    """Return the dense one-step transition matrix of §4's simultaneous update on a box, and the box's points.

    The box is |w|_∞ ≤ ``radius`` of the lattice's coordinates: all k pre-jumps z_j i.i.d. double geometric at
    ``proposal_eps`` at once (``tilt`` tilts each towards +1, ∝ e^{−ε|z| + tilt·z}: an asymmetric proposal), one
    Metropolis test min(1, π(w + z)/π(w)) with no Hastings term. Moves that would leave the box stay at w
    (row-stochastic): against the true kernel, π P on the box then misses the inflow from outside and keeps the outflow,
    each at most π(outside). Returns (P, w).
    """
    from isdp.mcmc import DoubleGeometric

    k = lattice.dim
    w = np.array(list(itertools.product(range(-radius, radius + 1), repeat=k)), dtype=np.int64)
    logp = target.log_density(w @ lattice.basis.T)
    jumps = np.arange(-2 * radius, 2 * radius + 1)  # every move inside the box
    logq1 = DoubleGeometric(proposal_eps).logpmf(jumps) + tilt * jumps
    if tilt:  # normalise the tilted law on the integers (its mass beyond the box's jumps included)
        far = np.arange(-2 * radius - 400, 2 * radius + 401)
        logq1 -= np.log(np.exp(DoubleGeometric(proposal_eps).logpmf(far) + tilt * far).sum())
    diff = w[None, :, :] - w[:, None, :]  # w' − w for every pair
    P = np.exp(logq1[diff + 2 * radius].sum(axis=2) + np.minimum(0.0, logp[None, :] - logp[:, None]))
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices_from(P)] = 1.0 - P.sum(axis=1)
    return P, w
