"""Compiled building blocks of the component-wise Metropolis sampler and its couplings.

Private to :mod:`isdp.mcmc`. The coupling designs of benchmarks/coupling_designs.py are built from the same
pieces and the same random streams (:mod:`isdp._rng`) as :func:`isdp.mcmc.sample`, so that their design of the
library's coupling reproduces :func:`isdp.mcmc.meeting_times` draw for draw.

Kernels take their inputs grouped as built once per run:

- ``csr`` = (ptr, idx, val), the lattice basis stored column-wise (:func:`basis_csr`): column j
  touches cells ``idx[ptr[j]:ptr[j+1]]``;
- ``law`` = (code, param, dg, exp_l1), the target and the proposal (:func:`sweep_law`).

Chain state is the noise vector u (int64) and, for ℓ2/Gaussian targets, its exact integer
squared norm, so no floating-point drift builds up.

The functions decorated with ``numba.njit`` are numba dispatchers: their docstrings are the
Python functions' (numba copies them), and they can be called from Python as well as from
compiled code — the first call of each argument-type signature compiles it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._rng import dg_draw, dg_table, uniform_pos
from ..lattice import Target

#: the compiled kernels' codes of the targets (:attr:`isdp.lattice.Target.code`)
LAPLACE_L1, LAPLACE_L2, GAUSSIAN = (
    Target(*law, 1.0).code for law in (("laplace", "l1"), ("laplace", "l2"), ("gaussian", "l2"))
)
#: the samplers keep ‖u‖₂² as an exact int64; a state must leave a factor-2 margin below 2**63
SUMSQ_LIMIT = 2**62


def squared_norm(u) -> np.ndarray:
    """Return the exact ‖u‖₂² of integer vectors (last axis = cells) as int64.

    A ValueError names the limit when it would exceed :data:`SUMSQ_LIMIT` (int64 arithmetic would wrap around
    silently).
    """
    u = np.asarray(u)
    if u.dtype == object or not np.issubdtype(u.dtype, np.integer):
        raise ValueError(f"squared_norm needs integer vectors, got dtype {u.dtype}")
    if u.size and float(np.square(u.astype(float)).sum(axis=-1).max()) >= SUMSQ_LIMIT / 2:
        exact = max(sum(int(x) ** 2 for x in row) for row in u.reshape(-1, u.shape[-1]))
        if exact >= SUMSQ_LIMIT:
            raise ValueError(
                f"‖u‖₂² = {exact} is beyond the exact int64 range the samplers use "
                f"(< 2**62): entries this large are not supported"
            )
    return (u.astype(np.int64) ** 2).sum(axis=-1)


def basis_csr(basis: np.ndarray):
    """Column-wise sparse form (ptr, idx, val) of an integer basis (n × k): SciPy's CSC layout.

    The kernels' ``csr`` argument: column j of the basis touches the cells ``idx[ptr[j]:ptr[j+1]]``
    with the entries ``val[ptr[j]:ptr[j+1]]`` (zeros are not stored).

    Parameters
    ----------
    basis : array_like of int
        The lattice basis B, shape (n, k) (``IntegerLattice.basis``).

    Returns
    -------
    ptr : numpy.ndarray
        int64, shape (k + 1,): column j's entries are ``ptr[j]:ptr[j+1]``.
    idx : numpy.ndarray
        int64: the cells (row indices) of the non-zero entries.
    val : numpy.ndarray
        int64: the non-zero entries.

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, sum_constraint
    >>> from isdp.mcmc._kernels import basis_csr
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> lattice.basis.tolist()
    [[-1, -1], [1, 0], [0, 1]]
    >>> [a.tolist() for a in basis_csr(lattice.basis)]
    [[0, 2, 4], [0, 1, 0, 2], [-1, 1, -1, 1]]
    """
    cols = sp.csc_array(np.asarray(basis, dtype=np.int64))
    return cols.indptr.astype(np.int64), cols.indices.astype(np.int64), cols.data.astype(np.int64)


def sweep_law(target: Target, proposal_eps: float) -> tuple:
    """Return the kernels' ``law`` argument: the target and the proposal, built once per run.

    Parameters
    ----------
    target : Target
        The target π (its ``code`` and ``param``).
    proposal_eps : float
        ε̃ of the double geometric pre-jumps.

    Returns
    -------
    tuple
        (code, param, dg, exp_l1): the target's kernel code (``LAPLACE_L1``,
        ``LAPLACE_L2`` or ``GAUSSIAN``) and parameter (ε, or 1/(2σ²) for the Gaussian), the
        proposal's :func:`dg_table` at ``proposal_eps`` and the target's :func:`exp_table`.

    Examples
    --------
    >>> from isdp.lattice import generalized_gaussian, generalized_laplace
    >>> from isdp.mcmc._kernels import sweep_law
    >>> code, param, dg, exp_l1 = sweep_law(generalized_laplace(1.0), 0.5)
    >>> code, param, exp_l1[:3].round(4).tolist()
    (0, 1.0, [1.0, 0.3679, 0.1353])
    >>> code, param, dg, exp_l1 = sweep_law(generalized_gaussian(2.0), 0.5)
    >>> code, param, exp_l1.size
    (2, 0.125, 0)
    """
    return target.code, target.param, dg_table(proposal_eps), exp_table(target.code, target.param)


def exp_table(target_code: int, param: float) -> np.ndarray:
    """exp(-ε d) for d = 0, 1, ... until it is below 2**-60, for the ℓ1 target (else empty).

    The ℓ1 acceptance ratio is exp(-ε d) with d the integer change of ‖u‖₁, so the test
    reads it here instead of computing a logarithm per proposal; larger d fall back to exp.

    Parameters
    ----------
    target_code : int
        The target's kernel code (``Target.code``).
    param : float
        The target's parameter (``Target.param``; ε for the ℓ1 Laplace).

    Returns
    -------
    numpy.ndarray
        float, exp(−ε d) for d = 0 … ⌊42/ε⌋ + 1 (at most 4,096 entries) for the ℓ1 target; empty for
        the others.

    Examples
    --------
    >>> from isdp.mcmc._kernels import exp_table
    >>> from isdp.mcmc._kernels import LAPLACE_L1, LAPLACE_L2
    >>> table = exp_table(LAPLACE_L1, 1.0)
    >>> table.size, table[:3].round(4).tolist()
    (44, [1.0, 0.3679, 0.1353])
    >>> exp_table(LAPLACE_L2, 1.0).size
    0
    """
    if target_code != LAPLACE_L1:
        return np.empty(0)
    return np.exp(-param * np.arange(int(min(42.0 / param + 2, 4096))))  # 42/ε may overflow to inf


@njit(inline="always")
def norm_change(u, idx, val, start, end, z, code):
    """Return the integer change of the target's norm statistic under the move u → u + z b_j.

    Δ‖u‖₁ for the ℓ1 target, Δ‖u‖₂² otherwise (the chain caches ‖u‖₂², so no drift builds up).
    Compiled (numba); inlined into the kernels.

    Parameters
    ----------
    u : numpy.ndarray
        int64, shape (n,): the state.
    idx : numpy.ndarray
        int64: the ``idx`` array of :func:`basis_csr`.
    val : numpy.ndarray
        int64: the ``val`` array of :func:`basis_csr`.
    start : int
        ``ptr[j]``: where column j's entries start.
    end : int
        ``ptr[j + 1]``: where they end.
    z : int
        The pre-jump: the move is z times column j.
    code : int
        The target's kernel code.

    Returns
    -------
    int
        Δ‖u‖₁ (``LAPLACE_L1``) or Δ‖u‖₂² (the other targets).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, sum_constraint
    >>> from isdp.mcmc._kernels import basis_csr, norm_change
    >>> from isdp.mcmc._kernels import LAPLACE_L1, LAPLACE_L2
    >>> ptr, idx, val = basis_csr(IntegerLattice.from_constraints(sum_constraint(3)).basis)
    >>> u = np.array([2, -1, -1])  # column 0 is e_2 - e_1: the move gives (1, 0, -1)
    >>> norm_change(u, idx, val, ptr[0], ptr[1], 1, LAPLACE_L1)
    -2
    >>> norm_change(u, idx, val, ptr[0], ptr[1], 1, LAPLACE_L2)
    -4
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
    textbook test, up to floating-point rounding. Compiled (numba); inlined into the kernels.

    Parameters
    ----------
    change : int
        The move's :func:`norm_change`.
    norm : float
        ‖u‖₂ before the move (ℓ2 target only; any value otherwise).
    new_norm : float
        ‖u'‖₂ after the move (ℓ2 target only).
    code : int
        The target's kernel code.
    param : float
        The target's parameter (ε, or 1/(2σ²) for the Gaussian).
    exp_l1 : numpy.ndarray
        The target's :func:`exp_table` (read for the ℓ1 target).

    Returns
    -------
    float
        The acceptance probability, in (0, 1].

    Examples
    --------
    >>> from isdp.mcmc._kernels import acceptance_ratio, exp_table
    >>> from isdp.mcmc._kernels import LAPLACE_L1
    >>> table = exp_table(LAPLACE_L1, 1.0)
    >>> round(acceptance_ratio(2, 0.0, 0.0, LAPLACE_L1, 1.0, table), 4)  # ‖u‖₁ grows by 2: e^(-2)
    0.1353
    >>> acceptance_ratio(-2, 0.0, 0.0, LAPLACE_L1, 1.0, table)
    1.0
    """
    if code == LAPLACE_L1:
        if change < exp_l1.shape[0]:
            return exp_l1[max(change, 0)]  # exp_l1[0] = 1: a move that does not grow ‖u‖₁
        return np.exp(-param * change)
    delta = -param * (new_norm - norm) if code == LAPLACE_L2 else -param * change
    return 1.0 if delta >= 0.0 else np.exp(delta)


@njit(inline="always")
def apply_move(u, idx, val, start, end, z):
    """Apply the move u → u + z b_j in place, b_j being the basis column stored at ``start:end``.

    Compiled (numba); inlined into the kernels.

    Parameters
    ----------
    u : numpy.ndarray
        int64, shape (n,): the state, modified in place.
    idx : numpy.ndarray
        int64: the ``idx`` array of :func:`basis_csr`.
    val : numpy.ndarray
        int64: the ``val`` array of :func:`basis_csr`.
    start : int
        ``ptr[j]``.
    end : int
        ``ptr[j + 1]``.
    z : int
        The multiple of column j to add.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, sum_constraint
    >>> from isdp.mcmc._kernels import apply_move, basis_csr
    >>> ptr, idx, val = basis_csr(IntegerLattice.from_constraints(sum_constraint(3)).basis)
    >>> u = np.array([2, -1, -1])
    >>> apply_move(u, idx, val, ptr[0], ptr[1], 1)
    >>> u.tolist()
    [1, 0, -1]
    """
    for p in range(start, end):
        u[idx[p]] += z * val[p]


@njit
def component_sweep(u, sumsq, rng, csr, law, wdiff, sign):
    """One Gibbs-within-Metropolis iteration: a Metropolis update along every basis column.

    ISDP Algorithm 1: for j = 1..k draw a pre-jump z ~ DG(ε̃), propose u + z b_j and accept with
    probability min(1, π(u')/π(u)). ``u`` is updated in place. If ``sign`` is ±1 the accepted moves
    are also added, times ``sign``, to ``wdiff`` (the coupled sampler's coordinate difference).
    Compiled (numba).

    Parameters
    ----------
    u : numpy.ndarray
        int64, shape (n,): the state, modified in place.
    sumsq : int
        ‖u‖₂², kept exactly for the ℓ2 and Gaussian targets (ignored and returned unchanged for ℓ1).
    rng : numpy.ndarray
        uint64, shape (4,): the chain's xoshiro256** state (a row of :func:`seed_states`), advanced
        in place.
    csr : tuple
        (ptr, idx, val) of :func:`basis_csr`.
    law : tuple
        (code, param, dg, exp_l1) of :func:`sweep_law`.
    wdiff : numpy.ndarray
        int64, shape (k,): lattice-coordinate differences, updated when ``sign`` is non-zero.
    sign : int
        −1, 0 or 1.

    Returns
    -------
    accepted : int
        The number of the k proposals accepted (a zero pre-jump counts as accepted).
    sumsq : int
        The new ‖u‖₂² (ℓ2 and Gaussian targets).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_gaussian, sum_constraint
    >>> from isdp._rng import seed_states
    >>> from isdp.mcmc._kernels import basis_csr, component_sweep, sweep_law
    >>> csr = basis_csr(IntegerLattice.from_constraints(sum_constraint(3)).basis)
    >>> law = sweep_law(generalized_gaussian(2.0), 1.0)
    >>> u, wdiff = np.array([2, -1, -1]), np.zeros(2, dtype=np.int64)
    >>> component_sweep(u, 6, seed_states(1, 1)[0], csr, law, wdiff, 0)
    (2, 2)
    >>> u.tolist()
    [1, 0, -1]
    """
    ptr, idx, val = csr
    code, param, dg, exp_l1 = law
    accepted = np.int64(0)  # the count of accepted moves adds the int64 coin flips below
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
    """``dst[:] = src`` for vectors of one length, as a loop.

    Numba's slice assignment compiles a shape-mismatch error path with string formatting that
    costs seconds of cold compile time; this loop does not. Compiled (numba).

    Parameters
    ----------
    dst : numpy.ndarray
        1-D, at least as long as ``src``; overwritten in place.
    src : numpy.ndarray
        1-D, the values to copy.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc._kernels import copy_into
    >>> dst = np.zeros(3, dtype=np.int64)
    >>> copy_into(dst, np.array([2, -1, -1]))
    >>> dst.tolist()
    [2, -1, -1]
    """
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit
def joint_sweep(u, sumsq, rng, csr, law, scratch, z):
    """Return the 'joint' variant of :func:`component_sweep`: all k pre-jumps at once, one accept/reject.

    Proposes u + Σ_j z_j b_j with every z_j ~ DG(ε̃) and accepts it with probability
    min(1, π(u')/π(u)); ``u`` is updated in place. Compiled (numba).

    Parameters
    ----------
    u : numpy.ndarray
        int64, shape (n,): the state, modified in place.
    sumsq : int
        ‖u‖₂² (used for the ℓ2 and Gaussian targets; returned unchanged for ℓ1).
    rng : numpy.ndarray
        uint64, shape (4,): the chain's xoshiro256** state, advanced in place.
    csr : tuple
        (ptr, idx, val) of :func:`basis_csr`.
    law : tuple
        (code, param, dg, exp_l1) of :func:`sweep_law`.
    scratch : numpy.ndarray
        int64, shape (n,): work space for the proposal.
    z : numpy.ndarray
        int64, shape (k,): receives the pre-jumps.

    Returns
    -------
    accepted : int
        1 if the proposal was accepted, else 0.
    sumsq : int
        The new ‖u‖₂² (ℓ2 and Gaussian targets).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_gaussian, sum_constraint
    >>> from isdp._rng import seed_states
    >>> from isdp.mcmc._kernels import basis_csr, joint_sweep, sweep_law
    >>> csr = basis_csr(IntegerLattice.from_constraints(sum_constraint(3)).basis)
    >>> law = sweep_law(generalized_gaussian(2.0), 1.0)
    >>> u, scratch, z = np.array([2, -1, -1]), np.empty(3, dtype=np.int64), np.empty(2, dtype=np.int64)
    >>> joint_sweep(u, 6, seed_states(1, 1)[0], csr, law, scratch, z)
    (1, 2)
    >>> u.tolist(), z.tolist()
    ([1, 0, -1], [1, 0])
    """
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
