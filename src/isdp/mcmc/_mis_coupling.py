"""The MIS's coupling and its exact draws.

Meeting times of pairs of Metropolized independence chains (Congenial DP Algorithm 1 coupled), and exact draws of its
target by rejection, which the certificate starts its pairs from (docs/method.md §6, "Certificates").
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from .. import _validate as check
from .._rng import seed_states, uniform_pos
from .._runner import over_streams
from ..errors import InvariantError
from ._kernels import copy_into
from ._meeting_times import MeetingTimes
from ._mis import _in_set, _problem, log
from ._mis_proposal import _next_point


@njit(nogil=True, cache=True)
def _mis_meeting(lo, hi, init_x, init_y, logw_x, logw_y, rng, equalities, inequalities, law, lag, max_iter, tau, met):
    """Meeting times of the MIS.

    X runs ``lag`` proposals alone, then X and Y share every proposal and one uniform; they meet when both accept the
    same proposal (or already agree: τ = 0 at lag 0).
    """
    m = equalities[-1].shape[0]
    d = init_x.shape[1]
    rejected = np.zeros(2, dtype=np.int64)  # not reported
    for p in range(lo, hi):
        x = init_x[p].copy()
        y = init_y[p].copy()
        lx = logw_x[p]
        ly = logw_y[p]
        prop = np.empty(d, dtype=np.int64)
        r = np.empty(m, dtype=np.int64)
        t = 0
        while t < lag:
            n, found, lw_new = _next_point(rng[p], prop, r, equalities, inequalities, law, lag - t, rejected)
            t += n
            if found and (lw_new >= lx or uniform_pos(rng[p]) < np.exp(lw_new - lx)):
                copy_into(x, prop)
                lx = lw_new
        met[p] = False
        same = True
        for i in range(d):
            if x[i] != y[i]:
                same = False
        while t < max_iter and not same:
            n, found, lw_new = _next_point(rng[p], prop, r, equalities, inequalities, law, max_iter - t, rejected)
            t += n
            if found:
                u = uniform_pos(rng[p])  # common to both chains: each accepts with its own min(1, ratio)
                ax = lw_new >= lx or u < np.exp(lw_new - lx)
                ay = lw_new >= ly or u < np.exp(lw_new - ly)
                if ax:
                    copy_into(x, prop)
                    lx = lw_new
                if ay:
                    copy_into(y, prop)
                    ly = lw_new
                same = ax and ay
        if same:
            met[p] = True
            if t == lag and lag > 0:  # X_L = Y_0: the pair is together from the first coupled step (τ > L)
                t = lag + 1
        tau[p] = t


def mis_meeting_times(
    A,
    a,
    center,
    *,
    epsilon: float,
    proposal_eps: float,
    index_set,
    lag: int,
    n_pairs: int,
    seed: int,
    B=None,
    b=None,
    init=None,
    init_y=None,
    max_iter: int = 1_000_000,
    allow_nonunimodular: bool = False,
):
    """Meeting times of coupled pairs of the MIS, for its convergence certificate.

    X runs ``lag`` proposals alone, then X and Y share every proposal and one uniform, each
    accepting with its own min(1, ratio) — so each moves by its own kernel — and they meet when both
    accept the same proposal. Y starts where X does, or at ``init_y`` (one state per pair); with
    ``init_y`` drawn from the target (:func:`mis_exact_sample`) and ``lag`` 0, P(τ > t) bounds
    d_TV(law of X_t, target) directly.

    Parameters
    ----------
    A, a, center, epsilon, proposal_eps, index_set, B, b, allow_nonunimodular
        As :func:`mis_sample`.
    lag : int
        Proposals X runs alone before the pair is coupled: at least 1, or 0 with ``init_y``;
        at most ``max_iter``.
    n_pairs : int
        The number of independent pairs.
    seed : int
        A non-negative integer; one xoshiro256** stream per pair.
    init : array_like of int, optional
        X's start: one state of shape (d,) for every pair, or one per pair; default s*.
    init_y : array_like of int, optional
        Y's start, one state per pair, shape (n_pairs, d); default X's start.
    max_iter : int, default 1_000_000
        Proposals after which a pair that has not met is censored.

    Returns
    -------
    MeetingTimes
        τ per pair; a censored pair has ``met`` False.

    Raises
    ------
    InvariantError
        As :func:`mis_sample`, for the constraints, the index set or a start outside S*.
    ValueError
        If a count, ``epsilon``, ``proposal_eps`` or ``seed`` is out of range.

    See Also
    --------
    isdp.convergence.certify_mis : The certificate built on these meeting times.

    Examples
    --------
    Three non-negative cells whose total is invariant, Y started at exact draws of the target:

    >>> import numpy as np
    >>> from isdp.mcmc import mis_exact_sample, mis_meeting_times
    >>> x = np.array([3, 0, 1])
    >>> A = np.ones((1, 3), dtype=np.int64)
    >>> nonnegative = {"B": np.eye(3), "b": np.zeros(3)}
    >>> exact = mis_exact_sample(A, A @ x, x, epsilon=1.0, index_set=[0, 1], size=5, seed=1, **nonnegative)
    >>> mt = mis_meeting_times(A, A @ x, x, epsilon=1.0, proposal_eps=0.5, index_set=[0, 1], lag=0, n_pairs=5,
    ...                        seed=0, init_y=exact, **nonnegative)
    >>> mt.tau.tolist(), bool(mt.met.all())
    ([0, 0, 1, 4, 0], True)
    """
    max_iter = check.size("max_iter", max_iter, 1)
    lag = check.size("lag", lag, 0 if init_y is not None else 1, high=max_iter)
    n_pairs = check.size("n_pairs", n_pairs, 1)
    pb = _problem(
        A,
        a,
        center,
        B,
        b,
        epsilon=epsilon,
        proposal_eps=proposal_eps,
        index_set=index_set,
        n_chains=n_pairs,
        init=init,
        allow_nonunimodular=allow_nonunimodular,
    )
    py = (
        pb
        if init_y is None
        else _problem(
            A,
            a,
            center,
            B,
            b,
            epsilon=epsilon,
            proposal_eps=proposal_eps,
            index_set=index_set,
            n_chains=n_pairs,
            init=init_y,
            allow_nonunimodular=allow_nonunimodular,
        )
    )
    tau = np.zeros(n_pairs, dtype=np.int64)
    met = np.zeros(n_pairs, dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(
        _mis_meeting,
        n_pairs,
        pb.state,
        py.state,
        pb.logw,
        py.logw,
        seed_states(seed, n_pairs),
        *pb.kernel,
        lag,
        max_iter,
        tau,
        met,
    )
    return MeetingTimes(tau=tau, met=met, lag=lag, seconds=time.perf_counter() - tick)


@njit(nogil=True, cache=True)
def _mis_exact(lo, hi, out, rng, equalities, inequalities, law, max_tries, tries):
    """Draw by rejection from the MIS proposal at ε̃ = ε (``law`` built with both equal).

    A proposal is accepted with probability exp(−ε Σ_{i∈I^c} |s̃_i − s*_i|) ≤ 1 when it lies in S* (see
    :func:`mis_exact_sample`).
    """
    m = equalities[-1].shape[0]
    d = out.shape[1]
    rejected = np.zeros(2, dtype=np.int64)  # not reported
    for k in range(lo, hi):
        prop = np.empty(d, dtype=np.int64)
        r = np.empty(m, dtype=np.int64)
        tries[k] = 0  # 0: not accepted within max_tries
        n = 0
        while n < max_tries:
            # at ε̃ = ε a point's log weight is −ε Σ_{I^c} |s̃_i − s*_i|
            used, found, lw = _next_point(rng[k], prop, r, equalities, inequalities, law, max_tries - n, rejected)
            n += used
            if found and np.log(uniform_pos(rng[k])) <= lw:
                copy_into(out[k], prop)
                tries[k] = n
                break


def mis_exact_sample(
    A,
    a,
    center,
    *,
    epsilon: float,
    index_set,
    size: int,
    seed: int,
    B=None,
    b=None,
    max_tries: int = 10**8,
    allow_nonunimodular: bool = False,
) -> np.ndarray:
    """Exact draws of the MIS target p(s) ∝ Π_i DG(s_i − s*_i | ε) on S*, by rejection.

    The ground truth of :func:`mis_sample` and the exact start of its certificate
    (:func:`isdp.convergence.certify_mis`). Feasible while S* keeps a fair share of the DG mass.

    Parameters
    ----------
    A, a, center, epsilon, index_set, B, b, allow_nonunimodular
        As :func:`mis_sample`.
    size : int
        The number of draws, at least 1.
    seed : int
        A non-negative integer; one xoshiro256** stream per draw.
    max_tries : int, default 10**8
        Proposals after which a draw gives up.

    Returns
    -------
    numpy.ndarray
        int64, shape (size, d): states in S*.

    Raises
    ------
    ValueError
        If some draw is not accepted within ``max_tries`` proposals, or a count, ``epsilon`` or
        ``seed`` is out of range.
    InvariantError
        As :func:`mis_sample`, for the constraints or the index set.

    Notes
    -----
    Proof. Propose s̃_I ~ Π_{i∈I} DG(· − s*_i | ε) — the MIS proposal at ε̃ = ε — and solve for s̃_{I^c};
    accept with probability 1(s̃ ∈ S*) · Π_{i∈I^c} e^{−ε|s̃_i − s*_i|} ≤ 1. The map s_I ↦ s is one-to-one,
    so the accepted law is ∝ Π_{i∈I} DG(s_i − s*_i) Π_{i∈I^c} e^{−ε|s_i − s*_i|} 1(s ∈ S*) ∝ p(s) on S*.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import mis_exact_sample
    >>> x = np.array([3, 0, 1])
    >>> A = np.ones((1, 3), dtype=np.int64)
    >>> nonnegative = dict(B=np.eye(3), b=np.zeros(3))
    >>> mis_exact_sample(A, A @ x, x, epsilon=1.0, index_set=[0, 1], size=4, seed=0, **nonnegative).tolist()
    [[3, 0, 1], [2, 0, 2], [3, 0, 1], [2, 1, 1]]
    """
    size, max_tries = check.size("size", size, 1), check.size("max_tries", max_tries, 1)
    pb = _problem(
        A,
        a,
        center,
        B,
        b,
        epsilon=epsilon,
        proposal_eps=epsilon,
        index_set=index_set,
        n_chains=1,
        init=None,
        allow_nonunimodular=allow_nonunimodular,
    )
    out = np.empty((size, pb.A.shape[1]), dtype=np.int64)
    tries = np.zeros(size, dtype=np.int64)
    over_streams(_mis_exact, size, out, seed_states(seed, size), *pb.kernel, max_tries, tries)
    if np.any(tries == 0):
        raise ValueError(
            f"mis_exact_sample: {int((tries == 0).sum())} of {size} draws were not accepted within "
            f"max_tries = {max_tries} proposals; raise max_tries"
        )
    if not _in_set(out, pb.A, pb.a, pb.B, pb.b).all():  # holds by construction; check anyway
        raise InvariantError("mis_exact_sample produced a draw outside S*; this is a bug in isdp")
    log.info("mis_exact_sample: %d draws, %.0f proposals per draw", size, tries.mean())
    return out
