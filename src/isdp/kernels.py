"""Compiled building blocks of the component-wise Metropolis sampler and its couplings.

Public so that kernels built outside the package (the coupling designs of
benchmarks/coupling_designs.py) use the same pieces, and the same random streams, as
:func:`isdp.sample`; the stream primitives are defined in :mod:`isdp._rng` and listed here.

Kernels take their inputs grouped as built once per run:

- ``csr`` = (ptr, idx, val), the lattice basis stored column-wise (:func:`basis_csr`): column j
  touches cells ``idx[ptr[j]:ptr[j+1]]``;
- ``law`` = (code, param, dg, exp_l1), the target and the proposal (:func:`sweep_law`).

Chain state is the noise vector u (int64) and, for ℓ2/Gaussian targets, its exact integer
squared norm, so no floating-point drift builds up.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from ._rng import dg_draw, dg_table, next_u64, seed_states, uniform_pos
from .targets import LAPLACE_L1, LAPLACE_L2, Target

__all__ = [
    "acceptance_ratio",
    "apply_move",
    "basis_csr",
    "component_sweep",
    "copy_into",
    "dg_draw",
    "dg_table",
    "exp_table",
    "joint_sweep",
    "next_u64",
    "norm_change",
    "seed_states",
    "sweep_law",
    "uniform_pos",
]


def basis_csr(basis: np.ndarray):
    """Column-wise sparse form (ptr, idx, val) of an integer basis (n × k): SciPy's CSC layout."""
    cols = sp.csc_array(np.asarray(basis, dtype=np.int64))
    return cols.indptr.astype(np.int64), cols.indices.astype(np.int64), cols.data.astype(np.int64)


def sweep_law(target: Target, proposal_eps: float) -> tuple:
    """(code, param, dg, exp_l1): the target's code and parameter, the proposal's :func:`dg_table` at
    ``proposal_eps`` and the target's :func:`exp_table` — the ``law`` argument of the kernels."""
    return target.code, target.param, dg_table(proposal_eps), exp_table(target.code, target.param)


def exp_table(target_code: int, param: float) -> np.ndarray:
    """exp(-ε d) for d = 0, 1, ... until it is below 2**-60, for the ℓ1 target (else empty).

    The ℓ1 acceptance ratio is exp(-ε d) with d the integer change of ‖u‖₁, so the test
    reads it here instead of computing a logarithm per proposal; larger d fall back to exp.
    """
    if target_code != LAPLACE_L1:
        return np.empty(0)
    return np.exp(-param * np.arange(int(min(42.0 / param + 2, 4096))))  # 42/ε may overflow to inf


@njit(inline="always")
def norm_change(u, idx, val, start, end, z, code):
    """The integer change of the target's norm statistic under the move u → u + z b_j.

    Δ‖u‖₁ for the ℓ1 target, Δ‖u‖₂² otherwise (the chain caches ‖u‖₂², so no drift builds up).
    """
    d = 0
    if code == LAPLACE_L1:
        for p in range(start, end):
            old = u[idx[p]]
            d += abs(old + z * val[p]) - abs(old)
    else:
        for p in range(start, end):
            step = z * val[p]
            d += step * (2 * u[idx[p]] + step)
    return d


@njit(inline="always")
def acceptance_ratio(change, norm, new_norm, code, param, exp_l1):
    """min(1, π(u')/π(u)) for a move with ``norm_change`` ``change``; accept iff U <= it, U ~ U(0, 1].

    ``norm`` and ``new_norm`` are ‖u‖₂ before and after the move (used by the ℓ2 target only),
    so an ℓ2 proposal costs one square root. U <= exp(δ) is the event log U <= δ of the
    textbook test, up to floating-point rounding.
    """
    if code == LAPLACE_L1:
        if change < exp_l1.shape[0]:
            return exp_l1[max(change, 0)]  # exp_l1[0] = 1: a move that does not grow ‖u‖₁
        return np.exp(-param * change)
    delta = -param * (new_norm - norm) if code == LAPLACE_L2 else -param * change
    return 1.0 if delta >= 0.0 else np.exp(delta)


@njit(inline="always")
def apply_move(u, idx, val, start, end, z):
    for p in range(start, end):
        u[idx[p]] += z * val[p]


@njit
def component_sweep(u, sumsq, rng, csr, law, wdiff, sign):
    """One Gibbs-within-Metropolis iteration: a Metropolis update along every basis column.

    Returns (accepted proposals, new squared norm). If ``sign`` is ±1 the accepted moves are
    also added, times ``sign``, to ``wdiff`` (the coupled sampler's coordinate difference).
    """
    ptr, idx, val = csr
    code, param, dg, exp_l1 = law
    accepted = 0
    norm = np.sqrt(sumsq)
    for j in range(ptr.shape[0] - 1):
        z = dg_draw(rng, dg)
        if z == 0:
            accepted += 1
            continue
        start, end = ptr[j], ptr[j + 1]
        change = norm_change(u, idx, val, start, end, z, code)
        new_norm = np.sqrt(sumsq + change) if code == LAPLACE_L2 else 0.0
        ratio = acceptance_ratio(change, norm, new_norm, code, param, exp_l1)
        # The accept/reject coin flip defeats branch prediction: draw U even when the ratio is 1
        # and apply the move times 0 or 1 instead of branching on the outcome.
        take = np.int64(uniform_pos(rng) <= ratio)
        z *= take
        apply_move(u, idx, val, start, end, z)
        accepted += take
        if code != LAPLACE_L1:
            sumsq += change * take
            norm = new_norm if take else norm
        if sign != 0:
            wdiff[j] += sign * z
    return accepted, sumsq


@njit
def copy_into(dst, src):
    """``dst[:] = src`` for vectors of one length, as a loop: numba's slice assignment compiles a
    shape-mismatch error path with string formatting that costs seconds of cold compile time."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit
def joint_sweep(u, sumsq, rng, csr, law, scratch, z):
    """The 'joint' variant: all k pre-jumps at once, one accept/reject. Returns (0 or 1, sumsq)."""
    ptr, idx, val = csr
    code, param, dg, _ = law
    copy_into(scratch, u)
    for j in range(ptr.shape[0] - 1):
        z[j] = dg_draw(rng, dg)
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
        copy_into(u, scratch)
        return 1, new_sumsq
    return 0, sumsq
