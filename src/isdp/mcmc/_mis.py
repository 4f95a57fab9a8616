"""Metropolized independence sampler (MIS) for congenial privacy (Congenial DP Algorithm 1; docs/method.md §6).

Target: the unconstrained double-geometric (DG) mechanism centred on the confidential query
``s*``, ``p(s) = Π_i DG(s_i − s*_i | ε)``, restricted to the integer points of

    S* = { s ∈ Z^d : A s = a, B s ≥ b }.

Proposal: an index set ``I`` of size ``d − m`` (``m`` = rows of ``A``, which must be linearly
independent) with ``A[:, I^c]`` invertible; draw ``s̃_I ~ q = Π_{i∈I} DG(s̃_i − s*_i | ε̃)``
independently of the current state, solve ``A[:, I] s̃_I + A[:, I^c] s̃_{I^c} = a`` for the rest,
and accept with probability

    min{1, p(s̃) 1(B s̃ ≥ b) q(s_I) / (p(s) q(s̃_I))}.

**Integrality.** ``s̃_{I^c} = A[:, I^c]^{-1} (a − A[:, I] s̃_I)`` is computed exactly in integer
arithmetic as ``adj(M) r / det(M)`` (``M = A[:, I^c]``, adjugate from sympy). When
``det(M) = ±1`` (``M`` unimodular) every proposal is integral. Otherwise some proposals are not;
by default that set-up is refused (:class:`~isdp.errors.InvariantError`). With
``allow_nonunimodular=True`` a non-integral proposal is *rejected*: it is a point where the
integer target has mass 0, so rejecting it is the ordinary Metropolis–Hastings step and the
chain still targets ``p`` on the integer points of ``S*`` (every such point is reachable: its
``I`` coordinates are integers the proposal can draw). Those rejections are counted.

The kernel is compiled with numba; chains run in parallel, each with its own xoshiro256**
stream (:func:`isdp._rng.seed_states`), so a seed fixes the draws whatever the thread count.
One iteration = one proposal. Every retained draw is checked in NumPy against ``A s = a`` and
``B s ≥ b`` before it is returned.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import _validate as check
from .._rng import seed_states, uniform_pos
from .._runner import check_dg_eps, over_streams, run_chunked
from ..errors import InvariantError
from ._kernels import copy_into
from ._mis_proposal import _kernel_inputs, _next_point

log = logging.getLogger(__name__)


_B_TOL = 1e-9  # slack on B s >= b for real-valued B (integer B: exact)


@dataclass
class MISResult:
    """The draws and bookkeeping of one :func:`mis_sample` run.

    Parameters
    ----------
    draws : numpy.ndarray
        An int64 array of shape (n_chains, n_draws, d): the retained states s — releases in
        S*, not noise.
    acceptance : numpy.ndarray
        A float array of shape (n_chains,): accepted proposals / proposals per chain.
    infeasible : numpy.ndarray
        A float array of shape (n_chains,): the share of proposals rejected because B s̃ < b.
    nonintegral : numpy.ndarray
        A float array of shape (n_chains,): the share of proposals rejected because the solve for
        s̃_(I^c) was not integral (0 unless ``allow_nonunimodular``).
    final_state : numpy.ndarray
        An int64 array of shape (n_chains, d): the state of each chain after the last proposal.
    burn_in : int
        Proposals before the first retained draw.
    thin : int
        Proposals between retained draws.
    n_iterations : int
        Proposals per chain, ``burn_in + n_draws · thin``.
    seed : int
        The seed of the run.
    epsilon : float
        ε of the target DG mechanism.
    proposal_eps : float
        ε̃ of the proposal.
    index_set : tuple of int
        The proposal index set I, 0-based and sorted.
    determinant : int
        det A[:, I^c] (±1 when every proposal is integral).
    seconds : float
        Wall-clock time of the run.

    See Also
    --------
    mis_sample : The run that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import mis_sample
    >>> x = np.array([3, 0, 1])
    >>> A = np.ones((1, 3), dtype=np.int64)
    >>> result = mis_sample(A, A @ x, x, epsilon=1.0, proposal_eps=0.5, index_set=[0, 1], n_draws=200,
    ...                     n_chains=2, B=np.eye(3), b=np.zeros(3), burn_in=100, seed=0, progress=False)
    >>> result.draws.shape, result.n_iterations, result.index_set, result.determinant
    ((2, 200, 3), 300, (0, 1), 1)
    >>> [round(v, 3) for v in result.acceptance.tolist()]
    [0.13, 0.13]
    >>> [round(v, 3) for v in result.infeasible.tolist()]  # proposals with a negative cell
    [0.727, 0.737]
    """

    draws: np.ndarray  # int64 (chains, n_draws, d): retained states s (not noise)
    acceptance: np.ndarray  # per chain: accepted proposals / proposals
    infeasible: np.ndarray  # per chain: share of proposals with B s̃ < b (rejected)
    nonintegral: np.ndarray  # per chain: share of proposals with a non-integer solve (rejected)
    final_state: np.ndarray  # int64 (chains, d)
    burn_in: int
    thin: int
    n_iterations: int  # proposals per chain
    seed: int
    epsilon: float
    proposal_eps: float
    index_set: tuple[int, ...]  # 0-based I
    determinant: int  # det A[:, I^c]
    seconds: float


# --------------------------------------------------------------------------- set-up


def _index_set(index_set, d: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    I = np.asarray(index_set)  # noqa: E741 — the paper's name
    if I.ndim != 1 or not np.issubdtype(I.dtype, np.integer):
        raise InvariantError(f"index_set must be a 1-D sequence of integer indices, got {I!r}")
    if len(np.unique(I)) != len(I) or (len(I) and (I.min() < 0 or I.max() >= d)):
        raise InvariantError(f"index_set must hold distinct 0-based indices in [0, {d}), got {I.tolist()}")
    if len(I) != d - m:
        raise InvariantError(
            f"index_set has {len(I)} indices; it needs d - m = {d} - {m} = {d - m} (A has {m} rows, "
            "which must be linearly independent)"
        )
    complement = np.setdiff1d(np.arange(d), I)
    return np.sort(I).astype(np.int64), complement.astype(np.int64)


def _solver(A: np.ndarray, complement: np.ndarray, allow_nonunimodular: bool):
    """Integer adjugate and determinant of M = A[:, I^c]; raises when M is singular or not unimodular."""
    M = np.ascontiguousarray(A[:, complement], dtype=np.int64)
    try:  # sympy is slow; certificates and studies solve one M many times
        adj, det = _adjugate(M.tobytes(), M.shape)
    except InvariantError as err:
        raise InvariantError(f"{err} (I^c = columns {complement.tolist()})") from None
    if abs(det) != 1 and not allow_nonunimodular:
        raise InvariantError(
            f"A[:, I^c] has determinant {det}, not ±1: solving for s_(I^c) can give non-integers. "
            "Choose I so that A[:, I^c] is unimodular, or pass allow_nonunimodular=True to reject "
            "the non-integral proposals (target mass 0)"
        )
    assert np.array_equal(M @ adj, det * np.eye(len(complement), dtype=np.int64))
    return adj.copy(), det


@functools.lru_cache(maxsize=64)
def _adjugate(data: bytes, shape: tuple[int, int]) -> tuple[np.ndarray, int]:
    """(adjugate, determinant) of the integer matrix with these bytes; raises when it is singular."""
    import sympy  # deferred: 0.4 s at import, and only the MIS's set-up needs it (not `import isdp.mcmc`)

    M = sympy.Matrix(np.frombuffer(data, dtype=np.int64).reshape(shape).tolist())
    det = int(M.det())
    if det == 0:
        raise InvariantError(
            f"A[:, I^c] is singular over the rationals (rank {M.rank()} < {M.shape[0]}): choose an index "
            "set I whose complement columns are independent, and drop redundant rows of A"
        )
    return np.array(M.adjugate().tolist(), dtype=np.int64), det


def mis_log_weight(s, center, index_set, eps: float, proposal_eps: float) -> np.ndarray:
    """Log p(s) − log q(s_I) up to a constant: −ε Σ_i |s_i − s*_i| + ε̃ Σ_{i∈I} |s_i − s*_i|.

    The MIS accepts a proposal s̃ from s with probability min{1, exp(w(s̃) − w(s))}, w this weight
    (and 1(B s̃ ≥ b)), so the weights of two states give the chain's acceptance ratio.

    Parameters
    ----------
    s : array_like of int
        One state of shape (d,) or a stack of them, cells on the last axis.
    center : array_like of int
        The confidential query s*, shape (d,).
    index_set : sequence of int
        The proposal index set I, 0-based.
    eps : float
        ε of the target DG mechanism.
    proposal_eps : float
        ε̃ of the DG proposal.

    Returns
    -------
    numpy.ndarray
        float, the shape of ``s`` without its last axis.

    See Also
    --------
    mis_sample : The sampler these weights drive.

    Examples
    --------
    >>> from isdp.mcmc._mis import mis_log_weight
    >>> mis_log_weight([[3, 0, 1], [2, 1, 1]], [3, 0, 1], [0, 1], 1.0, 0.5).tolist()  # −1·2 + 0.5·2
    [0.0, -1.0]
    """
    dev = np.abs(np.asarray(s, dtype=np.int64) - np.asarray(center, dtype=np.int64))
    return -eps * dev.sum(axis=-1) + proposal_eps * dev[..., np.asarray(index_set)].sum(axis=-1)


def _in_set(S: np.ndarray, A, a, B, b) -> np.ndarray:
    """Rows of S (k × d) that meet A s = a and B s >= b."""
    ok = np.all(S @ A.T == a, axis=1)
    if B is not None:
        ok &= np.all(S @ B.T >= b - _B_TOL, axis=1)
    return ok


# --------------------------------------------------------------------------- compiled kernel


@njit(nogil=True, cache=True)
def _mis_run(
    lo,
    hi,
    state,
    logw,
    rng,
    equalities,
    inequalities,
    law,
    t0,
    n_iter,
    burn_in,
    thin,
    out,
    accepted,
    infeasible,
    nonintegral,
):
    """Run iterations t0..t0+n_iter of chains lo..hi − 1, adding to the per-chain counts in place.

    Iteration t (counted from 1) stores the state when t = burn_in + k·thin, k ≥ 1; between two such iterations the
    chain only moves at the points of S* :func:`_next_point` finds.
    """
    m = equalities[-1].shape[0]
    d = state.shape[1]
    end = t0 + n_iter
    for c in range(lo, hi):
        s = state[c]
        lw = logw[c]
        prop = np.empty(d, dtype=np.int64)
        r = np.empty(m, dtype=np.int64)
        rejected = np.zeros(2, dtype=np.int64)
        acc = 0
        t = t0
        while t < end:
            stored = burn_in + thin * max(1, (t - burn_in) // thin + 1)  # the next iteration that stores
            n, found, lw_new = _next_point(
                rng[c], prop, r, equalities, inequalities, law, min(stored, end) - t, rejected
            )
            t += n
            if found:  # the Metropolis-Hastings ratio
                diff = lw_new - lw
                if diff >= 0.0 or uniform_pos(rng[c]) < np.exp(diff):
                    for i in range(d):
                        s[i] = prop[i]
                    lw = lw_new
                    acc += 1
            if t == stored:
                copy_into(out[c, (stored - burn_in) // thin - 1], s)
        logw[c] = lw
        accepted[c] += acc
        nonintegral[c] += rejected[0]
        infeasible[c] += rejected[1]


# --------------------------------------------------------------------------- public entry point


@dataclass
class _Problem:
    """A validated MIS set-up: the start states and the compiled kernel's arguments."""

    A: np.ndarray
    a: np.ndarray
    B: np.ndarray | None
    b: np.ndarray | None
    state: np.ndarray  # int64 (chains, d)
    logw: np.ndarray  # float (chains,)
    kernel: tuple  # (equalities, inequalities, law) of _kernel_inputs
    idx_i: np.ndarray
    det: int


def _problem(A, a, center, B, b, *, epsilon, proposal_eps, index_set, n_chains, init, allow_nonunimodular) -> _Problem:
    A = check.integer_matrix("A", A)
    m, d = A.shape
    if m >= d:
        raise InvariantError(f"A has {m} rows and {d} columns; the MIS needs m < d")
    a = check.vector("a", a, length=m, integer=True)
    center = check.vector("center", center, length=d, integer=True)
    if (B is None) != (b is None):
        raise InvariantError("give both B and b, or neither")
    if B is not None:
        B = np.asarray(B, dtype=float)
        if B.ndim != 2 or B.shape[1] != d or not np.all(np.isfinite(B)):
            raise InvariantError(f"B must be a finite 2-D matrix with {d} columns, got shape {B.shape}")
        b = check.vector("b", b, length=B.shape[0])
    eps, proposal_eps = check_dg_eps("epsilon", epsilon), check_dg_eps("proposal_eps", proposal_eps)
    idx_i, idx_c = _index_set(index_set, d, m)
    adj, det = _solver(A, idx_c, allow_nonunimodular)

    start_state = center if init is None else np.asarray(init)
    if start_state.ndim == 1 and start_state.shape == (d,):
        start_state = np.broadcast_to(start_state, (n_chains, d))
    if start_state.shape != (n_chains, d):
        raise InvariantError(f"init has shape {start_state.shape}, expected ({n_chains}, {d}) or ({d},)")
    if np.any(np.rint(start_state) != start_state):
        raise InvariantError("the start must be integer-valued")
    state = np.array(np.rint(start_state), dtype=np.int64)
    if not _in_set(state, A, a, B, b).all():
        what = "the confidential query s* (the default start)" if init is None else "init"
        raise InvariantError(f"{what} is outside S* = {{s : A s = a, B s >= b}}: the MIS must start inside it")

    logw = np.asarray(mis_log_weight(state, center, idx_i, eps, proposal_eps), dtype=float).copy()
    kernel = _kernel_inputs(A, a, B, b, center, idx_i, idx_c, adj, det, eps, proposal_eps)
    return _Problem(A=A, a=a, B=B, b=b, state=state, logw=logw, kernel=kernel, idx_i=idx_i, det=det)


def mis_sample(
    A,
    a,
    center,
    *,
    epsilon: float,
    proposal_eps: float,
    index_set,
    n_draws: int,
    seed: int,
    n_chains: int = 1,
    B=None,
    b=None,
    burn_in: int = 0,
    thin: int = 1,
    init=None,
    allow_nonunimodular: bool = False,
    progress: bool = True,
) -> MISResult:
    """Draw releases of the DG mechanism restricted to S* by a Metropolized independence sampler.

    The target is p(s) = Π_i DG(s_i − s*_i | ε) restricted to the integer points of
    S* = {s : A s = a, B s ≥ b} — equalities (the invariants) and optional inequalities such as
    non-negativity (Congenial DP Algorithm 1). Each iteration is one proposal, independent of the
    current state: s̃_I ~ Π_{i∈I} DG(s̃_i − s*_i | ε̃), the other cells solved from A s̃ = a, and
    acceptance with probability min{1, p(s̃)·1(B s̃ ≥ b)·q(s_I) / (p(s)·q(s̃_I))}. Runs
    ``n_chains`` independent chains and keeps every ``thin``-th state after ``burn_in``.

    Parameters
    ----------
    A : array_like of int
        The equality constraints, shape (m, d), m < d, with linearly independent rows.
    a : array_like of int
        Their values, shape (m,): the invariants A s* of the confidential query.
    center : array_like of int
        The confidential query s*, shape (d,); target and proposal are DG laws centred on it.
    epsilon : float
        ε of the target DG mechanism, in [1e-9, 700].
    proposal_eps : float
        ε̃ of the DG proposal, in [1e-9, 700]; a tuning parameter (smaller values propose farther
        from s*).
    index_set : sequence of int
        The proposal index set I as **0-based** cell indices (the paper's are 1-based),
        d − m distinct ones, with A[:, I^c] invertible; its determinant must be ±1 unless
        ``allow_nonunimodular``.
    n_draws : int
        The states kept per chain, at least 0.
    seed : int
        A non-negative integer; each chain gets its own xoshiro256** stream, so a seed fixes
        the draws whatever the thread count.
    n_chains : int, default 1
        The number of independent chains.
    B : array_like of float, optional
        Inequality constraints B s ≥ b, shape (p, d), e.g. ``np.eye(d)`` for non-negativity.
        Give both ``B`` and ``b`` or neither.
    b : array_like of float, optional
        Their bounds, shape (p,).
    burn_in : int, default 0
        Proposals before the first kept state.
    thin : int, default 1
        Proposals between kept states: draw j is the state after proposal burn_in + j·thin.
    init : array_like of int, optional
        The start: one state of shape (d,) for every chain, or one per chain, shape
        (n_chains, d); it must lie in S*. Default ``center`` (the paper starts at s*).
    allow_nonunimodular : bool, default False
        Accept an index set whose det A[:, I^c] is non-zero but not ±1. A proposal whose solve
        is not integral is then rejected (the integer target has mass 0 there), which keeps the
        target exact; such rejections are counted in :attr:`MISResult.nonintegral`.
    progress : bool, default True
        Log the progress about every 5 s on the ``isdp.mcmc`` logger.

    Returns
    -------
    MISResult
        ``draws`` int64 of shape (n_chains, n_draws, d) — states in S* — with the per-chain
        acceptance rate over all ``burn_in + n_draws · thin`` proposals and the shares rejected
        as infeasible or non-integral.

    Raises
    ------
    InvariantError
        For inconsistent shapes, m ≥ d, an unusable index set (wrong size, singular or — without
        ``allow_nonunimodular`` — non-unimodular A[:, I^c]), or a start outside S*.
    ValueError
        If a count, ``epsilon``, ``proposal_eps`` or ``seed`` is out of range.

    Notes
    -----
    The solve s̃_(I^c) = A[:, I^c]⁻¹ (a − A[:, I] s̃_I) is computed exactly in integers (the
    adjugate over the determinant). Every retained draw is checked against A s = a and B s ≥ b
    before it is returned. :func:`isdp.convergence.certify_mis` certifies a burn-in for the same chain.

    Examples
    --------
    Three non-negative cells whose total (4) is invariant; I = {0, 1}, so the last cell is solved
    from the total:

    >>> import numpy as np
    >>> from isdp.mcmc import mis_sample
    >>> x = np.array([3, 0, 1])
    >>> A = np.ones((1, 3), dtype=np.int64)
    >>> result = mis_sample(A, A @ x, x, epsilon=1.0, proposal_eps=0.5, index_set=[0, 1], n_draws=200,
    ...                     n_chains=2, B=np.eye(3), b=np.zeros(3), burn_in=100, seed=0, progress=False)
    >>> result.draws[0, ::50].tolist()  # every 50th stored state of the first chain
    [[3, 0, 1], [3, 0, 1], [2, 1, 1], [3, 0, 1]]
    >>> bool((result.draws @ A.T == A @ x).all()), bool((result.draws >= 0).all())
    (True, True)
    """
    n_chains, n_draws = check.size("n_chains", n_chains, 1), check.size("n_draws", n_draws, 0)
    thin, burn_in = check.size("thin", thin, 1), check.size("burn_in", burn_in, 0)
    pb = _problem(
        A,
        a,
        center,
        B,
        b,
        epsilon=epsilon,
        proposal_eps=proposal_eps,
        index_set=index_set,
        n_chains=n_chains,
        init=init,
        allow_nonunimodular=allow_nonunimodular,
    )
    A, a, B, b, state, logw, d = pb.A, pb.a, pb.B, pb.b, pb.state, pb.logw, pb.A.shape[1]
    rng = seed_states(seed, n_chains)
    n_iter = int(burn_in + n_draws * thin)
    out = np.zeros((n_chains, int(n_draws), d), dtype=np.int64)
    accepted = np.zeros(n_chains, dtype=np.int64)
    infeasible = np.zeros(n_chains, dtype=np.int64)
    nonintegral = np.zeros(n_chains, dtype=np.int64)

    def step(t, n):
        over_streams(
            _mis_run,
            n_chains,
            state,
            logw,
            rng,
            *pb.kernel,
            t,
            n,
            burn_in,
            thin,
            out,
            accepted,
            infeasible,
            nonintegral,
        )

    seconds = run_chunked(step, n_iter, log=log, label="MIS proposals per chain", progress=progress, min_chunk=1000)

    flat = out.reshape(-1, d)
    if n_draws and not _in_set(flat, A, a, B, b).all():  # holds by construction; check anyway
        raise InvariantError("the MIS produced a draw outside S*; this is a bug in isdp")
    if not _in_set(state, A, a, B, b).all():
        raise InvariantError("the MIS ended outside S*; this is a bug in isdp")
    denom = max(n_iter, 1)
    return MISResult(
        draws=out,
        acceptance=accepted / denom,
        infeasible=infeasible / denom,
        nonintegral=nonintegral / denom,
        final_state=state,
        burn_in=int(burn_in),
        thin=int(thin),
        n_iterations=n_iter,
        seed=seed,
        epsilon=float(epsilon),
        proposal_eps=float(proposal_eps),
        index_set=tuple(int(i) for i in pb.idx_i),
        determinant=pb.det,
        seconds=seconds,
    )
