"""L-lag coupling of the Gibbs-within-Metropolis sampler.

Biswas, Jacob & Vanetti 2019; ISDP Algorithms 2–3; docs/method.md §4.

Chain X runs L iterations alone; then (X_t, Y_{t-L}) move together under a coupled kernel
whose two marginals are the single-chain kernel: for each basis column j the two pre-jumps
come from a maximal coupling of w_X[j] + DG and w_Y[j] + DG, and one common uniform decides
both accept/reject steps. Once the chains meet they move identically. The meeting time
τ = inf{t > L : X_t = Y_{t-L}} gives the total-variation bound

    d_TV(π_t, π) ≤ E[max(0, ⌈(τ - L - t) / L⌉)],

estimated by averaging over independent coupled pairs (:meth:`isdp.mcmc.MeetingTimes.tv_bound`);
:mod:`isdp.convergence` turns the same pairs into a 95 % upper confidence bound.
"""

from __future__ import annotations

import logging
import time

import numpy as np
from numba import njit

from .. import _validate as check
from .._rng import seed_states, uniform_pos
from .._runner import check_dg_eps, over_streams
from ..lattice import IntegerLattice, Target
from ._double_geometric import maximal_coupling_dg
from ._kernels import (
    LAPLACE_L1,
    LAPLACE_L2,
    acceptance_ratio,
    apply_move,
    basis_csr,
    component_sweep,
    copy_into,
    norm_change,
    sweep_law,
)
from ._meeting_times import MeetingTimes
from ._samplers import check_state, starting_states

log = logging.getLogger(__name__)


@njit
def _coupled_sweep(x, y, sx, sy, wdiff, n_diff, rng, csr, law):
    """One coupled iteration. ``wdiff`` = w_Y - w_X (lattice coordinates); returns (sx, sy, n_diff)."""
    ptr, idx, val = csr
    code, param, dg, exp_l1 = law
    nx = np.sqrt(sx)
    ny = np.sqrt(sy)
    for j in range(ptr.shape[0] - 1):
        d_old = wdiff[j]
        # Proposed coordinates relative to w_X[j]: X' - w_X[j] = px, Y' - w_X[j] = py.
        px, py = maximal_coupling_dg(rng, 0, d_old, dg)
        zx = px
        zy = py - d_old
        unif = uniform_pos(rng)  # common to both chains
        start, end = ptr[j], ptr[j + 1]
        if zx != 0:
            change = norm_change(x, idx, val, start, end, zx, code)
            new_norm = np.sqrt(sx + change) if code == LAPLACE_L2 else 0.0
            if unif <= acceptance_ratio(change, nx, new_norm, code, param, exp_l1):
                apply_move(x, idx, val, start, end, zx)
                wdiff[j] -= zx
                if code != LAPLACE_L1:
                    sx += change
                    nx = new_norm
        if zy != 0:
            change = norm_change(y, idx, val, start, end, zy, code)
            new_norm = np.sqrt(sy + change) if code == LAPLACE_L2 else 0.0
            if unif <= acceptance_ratio(change, ny, new_norm, code, param, exp_l1):
                apply_move(y, idx, val, start, end, zy)
                wdiff[j] += zy
                if code != LAPLACE_L1:
                    sy += change
                    ny = new_norm
        if d_old == 0 and wdiff[j] != 0:
            n_diff += 1
        elif d_old != 0 and wdiff[j] == 0:
            n_diff -= 1
    return sx, sy, n_diff


@njit(nogil=True, cache=True)
def _meeting_times(lo, hi, init_x, init_y, wdiff0, rng, csr, law, lag, max_iter, tau, met):
    k = csr[0].shape[0] - 1
    for p in range(lo, hi):
        x = init_x[p].copy()
        y = init_y[p].copy()
        sx = (x * x).sum()
        sy = (y * y).sum()
        wdiff = wdiff0[p].copy()
        for _ in range(lag):
            _, sx = component_sweep(x, sx, rng[p], csr, law, wdiff, -1)
        n_diff = 0
        for j in range(k):
            if wdiff[j] != 0:
                n_diff += 1
        t = lag
        # τ = inf{t > L : X_t = Y_{t-L}} (Biswas et al.); at lag 0 the pair may start together (τ = 0)
        met[p] = lag == 0 and n_diff == 0
        while not met[p] and t < max_iter:
            t += 1
            sx, sy, n_diff = _coupled_sweep(x, y, sx, sy, wdiff, n_diff, rng[p], csr, law)
            met[p] = n_diff == 0
        tau[p] = t


def meeting_times(
    lattice: IntegerLattice,
    target: Target,
    *,
    lag: int,
    n_pairs: int,
    proposal_eps: float,
    seed: int,
    max_iter: int = 1_000_000,
    init=None,
    init_y=None,
) -> MeetingTimes:
    """Meeting times of ``n_pairs`` independent coupled pairs of :func:`isdp.mcmc.sample` (run in parallel).

    Chain X starts at ``init`` (default u = 0) and runs ``lag`` iterations alone; then X and Y move
    under the coupled kernel, and τ is the first t > ``lag`` with X_t = Y_{t-lag} (they stay
    together from then on; at lag 0, the first t ≥ 0). Y starts where X does, or at ``init_y`` — with
    ``init_y`` drawn from π itself and ``lag`` 0, P(τ > t) bounds d_TV(law of X_t, π) directly (the
    coupling inequality). A pair that has not met by ``max_iter`` is reported with ``met = False`` and
    τ = ``max_iter``. :func:`isdp.convergence.certify` calls this and turns the result into a certificate.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A); the chain sweeps its ``basis``, so the meeting times depend on the basis.
    target : Target
        The target π (:func:`isdp.lattice.generalized_laplace` or :func:`isdp.lattice.generalized_gaussian`).
    lag : int
        The lag L in iterations: at least 1 (0 allowed when ``init_y`` is given), at most ``max_iter``.
    n_pairs : int
        Number of independent pairs (≥ 1).
    proposal_eps : float
        ε̃ of the double geometric pre-jumps, as in :func:`isdp.mcmc.sample`.
    seed : int
        Non-negative seed. Each pair has its own random stream, so the result does not depend on
        the number of threads.
    max_iter : int, default 1_000_000
        Censoring time: the most iterations a pair runs, lag included.
    init : array_like of int, optional
        Start of chain X: one lattice vector for every pair, shape (n,), or one per pair,
        (n_pairs, n). Default u = 0.
    init_y : array_like of int, optional
        Start of chain Y, same shapes. Default: where X starts.

    Returns
    -------
    MeetingTimes
        τ and ``met`` per pair, the lag and the wall time.

    Raises
    ------
    ValueError
        If a count, ``lag`` or ``proposal_eps`` is out of range.
    isdp.errors.InvariantError
        If a start is not an integer vector of Λ(A) of the right shape.

    See Also
    --------
    isdp.convergence.certify : the 95 % upper confidence bound from such pairs.
    isdp.mcmc.MeetingTimes.tv_bound : the point estimate of the L-lag bound.

    Notes
    -----
    The coupled kernel is ISDP Algorithms 2–3 (docs/method.md §4): for each basis column j the two
    pre-jumps come from a maximal coupling of w_X[j] + DG and w_Y[j] + DG, and one common uniform
    decides both Metropolis tests, so each chain moves by the single-chain kernel. With lag L,
    Biswas, Jacob & Vanetti (2019) bound d_TV(π_t, π) ≤ E[max(0, ⌈(τ − L − t)/L⌉)].

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import meeting_times
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> mt = meeting_times(lattice, generalized_laplace(1.0), lag=5, n_pairs=4, proposal_eps=1.0, seed=0)
    >>> mt.tau.tolist(), mt.met.tolist()
    ([6, 18, 6, 6], [True, True, True, True])
    >>> mt.tv_bound([0, 2]).tolist()
    [1.5, 0.75]
    """
    max_iter, proposal_eps = check.size("max_iter", max_iter, 1), check_dg_eps("proposal_eps", proposal_eps)
    lag = check.size("lag", lag, 0 if init_y is not None else 1, high=max_iter)
    n_pairs = check.size("n_pairs", n_pairs, 1)
    start_x = starting_states(lattice, init, n_pairs)
    start_y = start_x if init_y is None else starting_states(lattice, init_y, n_pairs)
    tau = np.zeros(n_pairs, dtype=np.int64)
    met = np.zeros(n_pairs, dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(
        _meeting_times,
        n_pairs,
        start_x,
        start_y,
        lattice.coordinates(start_y - start_x),
        seed_states(seed, n_pairs),
        basis_csr(lattice.basis),
        sweep_law(target, proposal_eps),
        int(lag),
        int(max_iter),
        tau,
        met,
    )
    seconds = time.perf_counter() - tick
    log.info(
        "%s, lag %d: %d of %d pairs met, median τ - L = %d, %.1f s",
        target.label,
        lag,
        met.sum(),
        n_pairs,
        int(np.median(tau - lag)),
        seconds,
    )
    return MeetingTimes(tau=tau, met=met, lag=int(lag), seconds=seconds)


@njit(cache=True)
def _coupled_steps(x0, y0, wdiff0, rng, csr, law, out_x, out_y):
    for r in range(out_x.shape[0]):
        x = x0.copy()
        y = y0.copy()
        wdiff = wdiff0.copy()
        n_diff = 0
        for j in range(wdiff.shape[0]):
            if wdiff[j] != 0:
                n_diff += 1
        _coupled_sweep(x, y, (x * x).sum(), (y * y).sum(), wdiff, n_diff, rng, csr, law)
        copy_into(out_x[r], x)
        copy_into(out_y[r], y)


def coupled_kernel_draws(lattice: IntegerLattice, target: Target, x, y, *, proposal_eps: float, n_rep: int, seed: int):
    """``n_rep`` independent applications of one coupled iteration to the fixed pair (x, y).

    For validation: each returned margin must follow the single-chain one-iteration law.
    """
    x, y = check_state(lattice, x, "x"), check_state(lattice, y, "y")
    n_rep, proposal_eps = check.size("n_rep", n_rep, 1), check_dg_eps("proposal_eps", proposal_eps)
    wdiff = lattice.coordinates(y) - lattice.coordinates(x)
    out_x = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_y = np.empty((n_rep, lattice.n), dtype=np.int64)
    _coupled_steps(
        x, y, wdiff, seed_states(seed, 1)[0], basis_csr(lattice.basis), sweep_law(target, proposal_eps), out_x, out_y
    )
    return out_x, out_y
