"""Pair heat-bath kernel for ℓ1 generalized Laplace noise under one sum constraint, and its monotone coupling.

See docs/method.md §4, "A chain that couples fast".

Target π(u) ∝ exp(−ε‖u‖₁) on {u ∈ Z^n : Σu = 0} (one invariant total, as E3's states). An update
picks two cells i ≠ j uniformly and redraws u_i from its exact conditional law given
s = u_i + u_j (then u_j = s − u_i):

    π(u_i = a | s) ∝ exp(−ε(|a| + |s − a|)) ∝ r^{dist(a, [min(0, s), max(0, s)])},  r = e^{−2ε},

flat on the integers between 0 and s, with geometric tails. A Gibbs step leaves π invariant, and
the moves e_i − e_j connect the lattice. One iteration (a *sweep*) is n updates.

Coupling: two copies take the same pair and the same uniform U, each drawing a = F_s⁻¹(U) by
inversion. This conditional law is stochastically increasing in s, and so is s − a (the law is
symmetric under a ↦ s − a), so F_{s+δ}⁻¹(U) − F_s⁻¹(U) lies between 0 and δ: both new differences
at i and j take the sign of d_i + d_j (d = X − Y) and sum to it. Hence ‖X − Y‖₁ never grows and
falls whenever a pair carries differences of opposite sign; once X = Y the copies move together.
Each copy's moves are the single-chain kernel's, so the coupling inequality applies whatever the
coupling does: with Y₀ drawn from π, d_TV(law of X_t, π) ≤ P(τ > t). Measured on E3's
over-dispersed starts (docs/experiments/e3.md): Illinois (102 counties) meets within a few
hundred sweeps, where the path-basis Metropolis pairs need tens of thousands.
"""

from __future__ import annotations

import logging
import time

import numpy as np
from numba import njit

from .. import _validate as check
from .._rng import seed_states, uniform_pos
from .._runner import check_positive, over_streams, run_chunked
from ..errors import InvariantError
from ._meeting_times import MeetingTimes

log = logging.getLogger(__name__)

#: the sampler's name in certificates and records
NAME = "pair heat-bath"


@njit(inline="always")
def conditional_inverse(u, s, r, log_r):
    """F_s⁻¹(u) = min{a : F_s(a) ≥ u} for the conditional law of u_i given u_i + u_j = s, u ∈ (0, 1].

    Masses (before normalising): r^k at lo − k and hi + k (k ≥ 1), 1 at each of lo..hi, where
    lo = min(0, s), hi = max(0, s); each tail weighs T = r / (1 − r).
    """
    lo, hi = min(0, s), max(0, s)
    tail = r / (1.0 - r)
    width = hi - lo + 1
    v = u * (width + 2.0 * tail)
    if v <= tail:  # left tail: F(lo − k) ∝ r^k / (1 − r) ≥ v  ⟺  k ≤ log(v (1 − r)) / log r
        return lo - np.int64(np.floor(np.log(v * (1.0 - r)) / log_r))
    v -= tail
    if v <= width:  # flat part: F(lo + m) ∝ T + m + 1
        return lo + max(np.int64(np.ceil(v)) - 1, 0)
    v -= width  # right tail: F(hi + k) − F(hi) ∝ r (1 − r^k) / (1 − r) ≥ v  ⟺  r^k ≤ 1 − v (1 − r) / r
    rest = max(1.0 - v * (1.0 - r) / r, 1e-300)  # u = 1 exactly: the far end of the tail, not infinity
    return hi + max(np.int64(np.ceil(np.log(rest) / log_r)), 1)


@njit(inline="always")
def _pick_pair(rng, n):
    i = min(np.int64(uniform_pos(rng) * n), n - 1)
    j = min(np.int64(uniform_pos(rng) * (n - 1)), n - 2)
    return i, j + (j >= i)


@njit(cache=True)
def _sweeps(u, rng, ratio, n_sweeps):
    r, log_r = ratio
    n = u.shape[0]
    for _ in range(n_sweeps * n):
        i, j = _pick_pair(rng, n)
        s = u[i] + u[j]
        a = conditional_inverse(uniform_pos(rng), s, r, log_r)
        u[i] = a
        u[j] = s - a


@njit(nogil=True, cache=True)
def _run(lo, hi, states, rng, ratio, n_sweeps):
    for c in range(lo, hi):
        _sweeps(states[c], rng[c], ratio, n_sweeps)


@njit(nogil=True, cache=True)
def _meeting_times(lo, hi, init_x, init_y, rng, ratio, max_iter, tau, met):
    r, log_r = ratio
    n = init_x.shape[1]
    for p in range(lo, hi):
        x = init_x[p].copy()
        y = init_y[p].copy()
        s = rng[p]
        gap = np.abs(x - y).sum()
        t = 0
        while gap > 0 and t < max_iter:
            t += 1
            for _ in range(n):
                i, j = _pick_pair(s, n)
                sx, sy = x[i] + x[j], y[i] + y[j]
                before = abs(x[i] - y[i]) + abs(x[j] - y[j])
                u = uniform_pos(s)  # common to both copies
                a, b = conditional_inverse(u, sx, r, log_r), conditional_inverse(u, sy, r, log_r)
                x[i], x[j], y[i], y[j] = a, sx - a, b, sy - b
                gap += abs(a - b) + abs(sx - a - sy + b) - before
        tau[p] = t
        met[p] = gap == 0


def _check_states(states, name: str) -> np.ndarray:
    """``states`` as int64 (m, n), n ≥ 2, each row summing to 0, or an InvariantError naming ``name``."""
    arr = np.asarray(states)
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.shape[0] < 1:
        raise InvariantError(f"{name} must be a (rows, n) array with n >= 2 cells, got shape {arr.shape}")
    if arr.dtype.kind not in "iu" and not (
        arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.rint(arr))
    ):
        raise InvariantError(f"{name} must be integer-valued")
    out = np.ascontiguousarray(arr, dtype=np.int64)
    if np.any(out.sum(axis=1) != 0):
        raise InvariantError(
            f"{name}: every row must sum to 0 (the invariant total), "
            f"{int(np.count_nonzero(out.sum(axis=1)))} rows do not"
        )
    return out


def _ratio(eps) -> tuple[float, float]:
    """(r, log r), r = e^(−2ε): the kernels' ``ratio`` argument."""
    eps = check_positive("epsilon", eps)
    r = float(np.exp(-2.0 * eps))
    if not 0.0 < r < 1.0:
        raise ValueError(f"eps = {eps!r} leaves e^(-2 eps) outside (0, 1): the conditional law degenerates")
    return r, float(np.log(r))


def heat_bath_sweeps(init, *, epsilon: float, n_sweeps: int, seed: int, progress: bool = False) -> np.ndarray:
    """Run one pair heat-bath chain per row of ``init`` for ``n_sweeps`` sweeps and return the final states.

    The chain targets π(u) ∝ exp(−ε‖u‖₁) on {u ∈ Z^n : Σu = 0}. An update picks two cells i ≠ j
    uniformly and redraws u_i from its exact conditional law given u_i + u_j; a sweep is n updates.
    Each chain has its own random stream, so a seed fixes the states whatever the number of threads.
    Certify the number of sweeps with :func:`isdp.convergence.certify_heat_bath`.

    Parameters
    ----------
    init : array_like of int
        Starts, shape (chains, n) with n ≥ 2; every row must sum to 0. It is not modified.
    epsilon : float
        ε of the target, > 0.
    n_sweeps : int
        Number of sweeps (≥ 0).
    seed : int
        Non-negative seed.
    progress : bool, default False
        Log progress of long runs.

    Returns
    -------
    numpy.ndarray
        int64, shape (chains, n): the states after ``n_sweeps`` sweeps (rows still sum to 0).

    Raises
    ------
    isdp.errors.InvariantError
        If ``init`` is not a 2-D integer array of rows summing to 0 with at least 2 cells.
    ValueError
        If ``epsilon`` or ``n_sweeps`` is out of range.

    See Also
    --------
    heat_bath_meeting_times : the monotone coupling of this chain.
    isdp.exact.sample_sum_constraint_l1 : exact draws of the same target.

    Notes
    -----
    π(u_i = a | s) ∝ r^{dist(a, [min(0, s), max(0, s)])} with s = u_i + u_j and r = e^{−2ε}: flat
    between 0 and s, geometric tails, drawn by inversion. A Gibbs step leaves π invariant and the
    moves e_i − e_j connect the lattice (docs/method.md §4, "A chain that couples fast").

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import heat_bath_sweeps
    >>> heat_bath_sweeps(np.array([[6, -3, -3], [0, 0, 0]]), epsilon=1.0, n_sweeps=10, seed=0).tolist()
    [[-1, 0, 1], [0, 1, -1]]
    """
    states = _check_states(init, "init").copy()
    ratio = _ratio(epsilon)
    n_sweeps = check.size("n_sweeps", n_sweeps, 0)
    rng = seed_states(seed, states.shape[0])
    run_chunked(
        lambda t, k: over_streams(_run, len(states), states, rng, ratio, k),
        n_sweeps,
        log=log,
        label=f"{NAME} sweeps",
        progress=progress,
    )
    return states


def heat_bath_meeting_times(init_x, init_y, *, epsilon: float, seed: int, max_iter: int = 1_000_000) -> MeetingTimes:
    """Meeting times, in sweeps, of monotone-coupled pairs of :func:`heat_bath_sweeps` chains.

    Pair p starts at row p of ``init_x`` and of ``init_y`` (lag 0: τ = the first sweep t ≥ 0 with
    X_t = Y_t; ``met`` False and τ = ``max_iter`` for a pair that has not met by then). With
    ``init_y`` drawn from π, P(τ > t) bounds d_TV(law of X_t, π); :func:`isdp.convergence.certify_heat_bath` does
    that and returns the certificate.

    Parameters
    ----------
    init_x : array_like of int
        Starts of chain X, shape (pairs, n), n ≥ 2, rows summing to 0.
    init_y : array_like of int
        Starts of chain Y, the same shape (e.g. exact draws from :func:`isdp.exact.sample_sum_constraint_l1`).
    epsilon : float
        ε of the target π(u) ∝ exp(−ε‖u‖₁), > 0.
    seed : int
        Non-negative seed; one random stream per pair.
    max_iter : int, default 1_000_000
        Censoring time of a pair, in sweeps.

    Returns
    -------
    MeetingTimes
        τ in sweeps and ``met`` per pair, ``lag`` 0 and the wall time.

    Raises
    ------
    isdp.errors.InvariantError
        If a start is not a 2-D integer array of rows summing to 0, or the shapes differ.
    ValueError
        If ``epsilon`` or ``max_iter`` is out of range.

    Notes
    -----
    Both copies take the same pair of cells and the same uniform and draw by inversion. The
    conditional law is stochastically increasing in s, so ‖X − Y‖₁ never grows, falls whenever the
    pair carries differences of opposite sign, and once X = Y the copies move together. Each copy
    moves by the single-chain kernel, so the coupling inequality applies (docs/method.md §4).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import heat_bath_meeting_times
    >>> from isdp.exact import sample_sum_constraint_l1
    >>> x0 = np.tile([6, -3, -3], (4, 1))
    >>> y0 = sample_sum_constraint_l1(3, 1.0, 4, seed=1)
    >>> mt = heat_bath_meeting_times(x0, y0, epsilon=1.0, seed=0, max_iter=100)
    >>> mt.tau.tolist(), mt.met.tolist()
    ([3, 2, 1, 3], [True, True, True, True])
    """
    x, y = _check_states(init_x, "init_x"), _check_states(init_y, "init_y")
    if x.shape != y.shape:
        raise InvariantError(f"init_x and init_y must have the same shape, got {x.shape} and {y.shape}")
    ratio = _ratio(epsilon)
    max_iter = check.size("max_iter", max_iter, 1)
    tau = np.zeros(len(x), dtype=np.int64)
    met = np.zeros(len(x), dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(_meeting_times, len(x), x, y, seed_states(seed, len(x)), ratio, max_iter, tau, met)
    seconds = time.perf_counter() - tick
    log.info(
        "%s, %d cells: %d of %d pairs met, median τ = %d sweeps, %.2f s",
        NAME,
        x.shape[1],
        met.sum(),
        len(x),
        int(np.median(tau)),
        seconds,
    )
    return MeetingTimes(tau=tau, met=met, lag=0, seconds=seconds, chain=NAME)
