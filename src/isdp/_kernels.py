"""Compiled building blocks shared by the single-chain sampler and the coupled kernel.

The lattice basis is stored column-wise in CSR form (``ptr``, ``idx``, ``val``): column j
touches cells ``idx[ptr[j]:ptr[j+1]]``. Chain state is the noise vector u (int64) and, for
ℓ2/Gaussian targets, its exact integer squared norm, so no floating-point drift builds up.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from ._rng import double_geometric, uniform_pos
from .targets import LAPLACE_L1, LAPLACE_L2


def basis_csr(basis: np.ndarray):
    """Column-wise sparse form (ptr, idx, val) of an integer basis (n × k): SciPy's CSC layout."""
    cols = sp.csc_array(np.asarray(basis, dtype=np.int64))
    return cols.indptr.astype(np.int64), cols.indices.astype(np.int64), cols.data.astype(np.int64)


@njit(inline="always")
def log_ratio(u, sumsq, norm, idx, val, start, end, z, code, param):
    """(log π(u + z b_j) - log π(u), new squared norm) for the move z along column j.

    ``norm`` is the cached sqrt(sumsq), so an ℓ2 proposal costs one square root, not two.
    """
    if code == LAPLACE_L1:
        d = 0
        for p in range(start, end):
            old = u[idx[p]]
            d += abs(old + z * val[p]) - abs(old)
        return -param * d, sumsq
    ds = 0
    for p in range(start, end):
        step = z * val[p]
        ds += step * (2 * u[idx[p]] + step)
    new = sumsq + ds
    if code == LAPLACE_L2:
        return -param * (np.sqrt(new) - norm), new
    return -param * ds, new


@njit(inline="always")
def apply_move(u, idx, val, start, end, z):
    for p in range(start, end):
        u[idx[p]] += z * val[p]


@njit
def component_sweep(u, sumsq, rng, ptr, idx, val, code, param, a, p_zero, log_a, wdiff, sign):
    """One Gibbs-within-Metropolis iteration: a Metropolis update along every basis column.

    Returns (accepted proposals, new squared norm). If ``sign`` is ±1 the accepted moves are
    also added, times ``sign``, to ``wdiff`` (the coupled sampler's coordinate difference).
    """
    accepted = 0
    norm = np.sqrt(sumsq)
    for j in range(ptr.shape[0] - 1):
        z = double_geometric(rng, a, p_zero, log_a)
        if z == 0:
            accepted += 1
            continue
        start, end = ptr[j], ptr[j + 1]
        delta, new_sumsq = log_ratio(u, sumsq, norm, idx, val, start, end, z, code, param)
        if delta >= 0.0 or np.log(uniform_pos(rng)) <= delta:
            apply_move(u, idx, val, start, end, z)
            if new_sumsq != sumsq:
                sumsq = new_sumsq
                norm = np.sqrt(sumsq)
            accepted += 1
            if sign != 0:
                wdiff[j] += sign * z
    return accepted, sumsq


@njit
def joint_sweep(u, sumsq, rng, ptr, idx, val, code, param, a, p_zero, log_a, scratch, z):
    """The 'joint' variant: all k pre-jumps at once, one accept/reject. Returns (0 or 1, sumsq)."""
    scratch[:] = u
    for j in range(ptr.shape[0] - 1):
        z[j] = double_geometric(rng, a, p_zero, log_a)
        if z[j] != 0:
            apply_move(scratch, idx, val, ptr[j], ptr[j + 1], z[j])
    if code == LAPLACE_L1:
        delta = -param * (np.abs(scratch).sum() - np.abs(u).sum())
        new_sumsq = sumsq
    else:
        new_sumsq = (scratch * scratch).sum()
        if code == LAPLACE_L2:
            delta = -param * (np.sqrt(new_sumsq) - np.sqrt(sumsq))
        else:
            delta = -param * (new_sumsq - sumsq)
    if delta >= 0.0 or np.log(uniform_pos(rng)) <= delta:
        u[:] = scratch
        return 1, new_sumsq
    return 0, sumsq
