"""L-lag coupling of the Gibbs-within-Metropolis sampler (Biswas, Jacob & Vanetti 2019;
ISDP Algorithms 2–3; docs/method.md §4).

Chain X runs L iterations alone; then (X_t, Y_{t-L}) move together under a coupled kernel
whose two marginals are the single-chain kernel: for each basis column j the two pre-jumps
come from a maximal coupling of w_X[j] + DG and w_Y[j] + DG, and one common uniform decides
both accept/reject steps. Once the chains meet they move identically. The meeting time
τ = inf{t > L : X_t = Y_{t-L}} gives the total-variation bound

    d_TV(π_t, π) ≤ E[max(0, ⌈(τ - L - t) / L⌉)],

estimated by averaging over independent coupled pairs; :mod:`isdp.convergence` turns the same
pairs into a 95 % upper confidence bound.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._rng import seed_states, uniform_pos
from .._runner import check_count, check_dg_eps, check_positive, check_state, over_streams
from ..lattice._integer_lattice import IntegerLattice
from ..lattice._targets import LAPLACE_L1, LAPLACE_L2, Target
from ._double_geometric import maximal_coupling_dg
from ._kernels import acceptance_ratio, apply_move, basis_csr, component_sweep, copy_into, norm_change, sweep_law
from ._samplers import starting_states

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


@dataclass
class MeetingTimes:
    """Meeting times of independent coupled pairs, as every coupling routine returns them.

    :func:`meeting_times`, :func:`isdp.mcmc.augmented_meeting_times`, :func:`isdp.mcmc.heat_bath_meeting_times`
    and :func:`isdp.mcmc.mis_meeting_times` report their pairs this way; :mod:`isdp.convergence`
    turns them into a :class:`isdp.convergence.Certificate`.

    Parameters
    ----------
    tau : numpy.ndarray
        int64, shape (pairs,): each pair's meeting time in iterations, τ = inf{t > L : X_t = Y_{t−L}}
        (t ≥ 0 at lag 0), or ``max_iter`` for a pair that did not meet.
    met : numpy.ndarray
        bool, shape (pairs,): whether the pair met; False marks a pair censored at ``max_iter``.
    lag : int
        The lag L: the iterations chain X ran alone before the pair was coupled (0 when Y started
        from its own states, e.g. exact draws from π).
    seconds : float
        Wall time of the coupled run, in seconds.

    See Also
    --------
    meeting_times : coupled pairs of the Gibbs-within-Metropolis sampler.
    isdp.convergence.certify : the 95 % upper confidence bound built from such pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import MeetingTimes
    >>> mt = MeetingTimes(tau=np.array([3, 5, 8]), met=np.array([True, True, True]), lag=2, seconds=0.0)
    >>> mt.tv_bound([0, 3]).round(3).tolist()
    [2.0, 0.667]
    >>> mt.convergence_iteration(0.5)
    4
    """

    tau: np.ndarray  # int64 (pairs,)
    met: np.ndarray  # bool (pairs,): False = censored at max_iter
    lag: int
    seconds: float

    def tv_bound(self, t) -> np.ndarray:
        """The point estimate of the L-lag bound on d_TV(π_t, π) at iterations ``t``.

        Parameters
        ----------
        t : int or array_like of int
            Non-negative iteration numbers.

        Returns
        -------
        numpy.ndarray
            float, one value per t: :func:`tv_upper_bound` of these pairs (an estimate, not a
            confidence bound; censored pairs enter at τ = ``max_iter``). Needs ``lag`` ≥ 1.
        """
        return tv_upper_bound(self.tau, self.lag, t)

    def convergence_iteration(self, threshold: float = 0.01) -> int:
        """First iteration t at which the estimated bound is below ``threshold``.

        Parameters
        ----------
        threshold : float, default 0.01
            The level the point estimate must drop below.

        Returns
        -------
        int
            :func:`convergence_iteration` of these pairs (the papers' reading, not a certified
            iteration; censored pairs enter at τ = ``max_iter``). Needs ``lag`` ≥ 1.
        """
        return convergence_iteration(self.tau, self.lag, threshold)


def tv_upper_bound(tau, lag: int, t) -> np.ndarray:
    """Point estimate of the L-lag coupling bound on d_TV(π_t, π), at each iteration t.

    The mean over pairs of max(0, ⌈(τ − L − t)/L⌉): the papers' estimated curve. It estimates an
    upper bound and is not one itself — :func:`isdp.convergence.certify` gives the 95 % upper confidence bound
    from the same meeting times.

    Parameters
    ----------
    tau : array_like of int
        Meeting times τ of independent L-lag pairs, shape (pairs,).
    lag : int
        The lag L ≥ 1 the pairs ran with.
    t : int or array_like of int
        Non-negative iteration numbers.

    Returns
    -------
    numpy.ndarray
        float, shape (len(t),): the estimate at each t; it never increases in t.

    Raises
    ------
    ValueError
        If ``lag`` is not a positive integer, some t is negative or not a whole number, or some τ is
        not a whole number above ``lag`` (a pair meets after its lag).

    See Also
    --------
    convergence_iteration : the first t where this estimate drops below a threshold.
    isdp.convergence.Certificate.bound : the 95 % upper confidence bound on the same quantity.

    Notes
    -----
    Biswas, Jacob & Vanetti (2019), Theorem 2.5: for two chains with the same initial law, X run L
    iterations ahead and τ = inf{t > L : X_t = Y_{t−L}}, d_TV(π_t, π) ≤ E[max(0, ⌈(τ − L − t)/L⌉)]
    (ISDP Algorithms 2–3; docs/method.md §4). Averaging over independent pairs estimates it.

    Examples
    --------
    >>> from isdp.mcmc import tv_upper_bound
    >>> tv_upper_bound([3, 5, 8], 2, [0, 1, 3, 6]).round(3).tolist()
    [2.0, 1.333, 0.667, 0.0]
    """
    return tv_bound_terms(tau, lag, t).mean(axis=0)


def tv_bound_terms(tau, lag: int, t) -> np.ndarray:
    """Each pair's term max(0, ⌈(τ - L - t)/L⌉) of :func:`tv_upper_bound`: pairs by rows, iterations ``t`` by
    columns (their spread over pairs gives the estimate's Monte Carlo error)."""
    lag = check_count("lag", lag, 1)
    tau = np.asarray(tau)
    if tau.ndim != 1 or tau.dtype.kind not in "iuf" or not np.all(np.isfinite(tau)) or np.any(np.rint(tau) != tau):
        raise ValueError(f"tau must be one meeting time per pair, whole numbers, got shape {tau.shape} "
                         f"of {tau.dtype}")
    if np.any(tau <= lag):  # τ = inf{t > L : X_t = Y_{t−L}}: a pair meets after its lag, never at or before it
        raise ValueError(f"a meeting time of {int(tau.min())} is impossible at lag {lag}: every τ exceeds its lag")
    tau = tau.astype(np.int64)[:, None]
    t = np.atleast_1d(np.asarray(t))
    # a cast would truncate 1.5 and fail on inf with a bare OverflowError
    if t.dtype.kind not in "iuf" or not np.all(np.isfinite(t)) or np.any(np.rint(t) != t) or np.any(t < 0):
        raise ValueError(f"t must be non-negative whole iteration numbers, got {t.tolist()!r}")
    t = t.astype(np.int64)[None, :]
    # ceil(m / L) for integer m via -((-m) // L)
    return np.maximum(0, -((-(tau - lag - t)) // lag))


def convergence_iteration(tau, lag: int, threshold: float = 0.01) -> int:
    """The smallest t at which the point estimate :func:`tv_upper_bound` is below ``threshold``.

    The papers' reading of their curves (t*): a point estimate, found on the grid 0 … max(τ) − L
    (the estimate never increases in t). A certified iteration is
    :attr:`isdp.convergence.Certificate.t_cert`, where the 95 % upper confidence bound reaches the threshold.

    Parameters
    ----------
    tau : array_like of int
        Meeting times τ of independent L-lag pairs, shape (pairs,).
    lag : int
        The lag L ≥ 1.
    threshold : float, default 0.01
        A finite positive level; the estimate must fall strictly below it.

    Returns
    -------
    int
        The first such t; at most max(τ) − L, where every pair's term is 0.

    Raises
    ------
    ValueError
        If ``lag`` is not a positive integer or ``threshold`` not a finite positive number.

    See Also
    --------
    tv_upper_bound : the estimated curve.

    Examples
    --------
    >>> from isdp.mcmc import convergence_iteration
    >>> convergence_iteration([3, 5, 8], 2, threshold=0.5)
    4
    >>> convergence_iteration([3, 5, 8], 2)
    6
    """
    lag = check_count("lag", lag, 1)
    threshold = check_positive("threshold", threshold)  # the bound is never below 0: 0 or nan never converge
    tau = np.asarray(tau, dtype=np.int64)
    hi = int(max(tau.max() - lag, 0))
    ts = np.arange(0, hi + 1)
    below = np.flatnonzero(tv_upper_bound(tau, lag, ts) < threshold)
    return int(ts[below[0]]) if below.size else hi


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
    isdp.lattice.InvariantError
        If a start is not an integer vector of Λ(A) of the right shape.

    See Also
    --------
    isdp.convergence.certify : the 95 % upper confidence bound from such pairs.
    tv_upper_bound : the point estimate of the L-lag bound.

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
    max_iter, proposal_eps = check_count("max_iter", max_iter, 1), check_dg_eps("proposal_eps", proposal_eps)
    lag = check_count("lag", lag, 0 if init_y is not None else 1, high=max_iter)
    n_pairs = check_count("n_pairs", n_pairs, 1)
    start_x = starting_states(lattice, init, n_pairs)
    start_y = start_x if init_y is None else starting_states(lattice, init_y, n_pairs)
    tau = np.zeros(n_pairs, dtype=np.int64)
    met = np.zeros(n_pairs, dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(_meeting_times, n_pairs, start_x, start_y, lattice.coordinates(start_y - start_x),
                 seed_states(seed, n_pairs), basis_csr(lattice.basis), sweep_law(target, proposal_eps), int(lag),
                 int(max_iter), tau, met)
    seconds = time.perf_counter() - tick
    log.info("%s, lag %d: %d of %d pairs met, median τ - L = %d, %.1f s", target.label, lag, met.sum(), n_pairs,
             int(np.median(tau - lag)), seconds)
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


def coupled_kernel_draws(
    lattice: IntegerLattice, target: Target, x, y, *, proposal_eps: float, n_rep: int, seed: int
):
    """``n_rep`` independent applications of one coupled iteration to the fixed pair (x, y).

    For validation: each returned margin must follow the single-chain one-iteration law.
    """
    x, y = check_state(lattice, x, "x"), check_state(lattice, y, "y")
    n_rep, proposal_eps = check_count("n_rep", n_rep, 1), check_dg_eps("proposal_eps", proposal_eps)
    wdiff = lattice.coordinates(y) - lattice.coordinates(x)
    out_x = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_y = np.empty((n_rep, lattice.n), dtype=np.int64)
    _coupled_steps(x, y, wdiff, seed_states(seed, 1)[0], basis_csr(lattice.basis), sweep_law(target, proposal_eps),
                   out_x, out_y)
    return out_x, out_y
