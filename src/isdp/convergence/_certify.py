"""Certifying each sampler.

Coupled pairs of the chain that will produce the draws, run from its own starting law (docs/method.md §4,
"Certificates").

:func:`certify` (with :func:`certify_searching_lag` and :func:`certify_chain` for the release chain) certifies
the Gibbs-within-Metropolis sampler, :func:`certify_augmented` the ℓ2 data-augmentation chain,
:func:`certify_heat_bath` the pair heat-bath chain and :func:`certify_mis` the independence sampler. Each runs
the coupling its sampler has (a lag, or Y started from exact draws of π) and hands the meeting times to
:func:`from_meetings`, which makes them a :class:`~isdp.convergence.Certificate`.

Long because it holds one certificate per sampler (five entry points, each with its arguments checked, its
docstring and a running example), which share :func:`from_meetings` and the starting-state checks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .. import _validate as check
from .._rng import derive_seed
from ..errors import CertificationError
from ..lattice import IntegerLattice, Target
from ..mcmc import (
    MeetingTimes,
    augmented_meeting_times,
    heat_bath_meeting_times,
    meeting_times,
    mis_exact_sample,
    mis_meeting_times,
)
from ._certificate import LEVEL, THRESHOLD, Certificate, _check_level, _check_threshold


def from_meetings(
    mt: MeetingTimes,
    basis: str,
    *,
    exact_start: bool,
    max_iter: int,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
) -> Certificate:
    """Return the :class:`Certificate` of measured meeting times (``exact_start``: Y was started from π, lag 0)."""
    if exact_start and mt.lag != 0:
        raise ValueError(f"an exact start couples at lag 0, got lag {mt.lag}")
    return Certificate(
        basis=basis,
        lag=None if exact_start else int(mt.lag),
        n_pairs=len(mt.tau),
        max_iter=int(max_iter),
        level=_check_level(level),
        threshold=_check_threshold(threshold),
        tau=np.asarray(mt.tau, dtype=np.int64),
        met=np.asarray(mt.met, dtype=bool),
        seconds=float(mt.seconds),
    )


def draw_states(start, n: int, what: str):
    """``n`` states from a starting law given as an array, a callable of n, or None (u = 0)."""
    if start is None or not callable(start):
        return start
    out = start(n)
    if out is None:
        raise ValueError(f"the {what} callable returned None; return an array of {n} states")
    return out


def certify(
    lattice: IntegerLattice,
    target: Target,
    *,
    proposal_eps: float,
    start: np.ndarray | Callable[[int], np.ndarray] | None,
    n_pairs: int,
    seed: int,
    lag: int | None = None,
    exact: np.ndarray | Callable[[int], np.ndarray] | None = None,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
    max_iter: int = 1_000_000,
) -> Certificate:
    """Certify the sampler :func:`isdp.mcmc.sample` on ``lattice`` (its basis), ``target`` and ``proposal_eps``.

    Runs ``n_pairs`` coupled pairs of the chain that produces the draws and returns their
    :class:`Certificate`: the ``level`` upper confidence bound on the TV bound, and t_cert, the first
    iteration where it is at most ``threshold``. ``start`` is the chains' starting law: ``n_pairs``
    states drawn from it (an array), a callable returning them given ``n_pairs``, or None for the
    point mass at 0; pair p's chain X starts at start[p]. With ``exact`` (draws from π itself, or a
    callable returning them) Y starts there and the pair is coupled at once (lag 0, one term);
    otherwise Y starts where X does and X runs ``lag`` iterations first. The pairs move under the
    coupled kernel until they meet or ``max_iter`` (:func:`isdp.mcmc.meeting_times`).

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) on the basis the chains sweep (e.g. :func:`isdp.lattice.with_mixing_basis`).
    target : Target
        The target π.
    proposal_eps : float
        ε̃ of the chains' double geometric pre-jumps.
    start : numpy.ndarray or callable or None
        The chains' starting law: an (n_pairs, n) array of states (or one state for all), a callable
        ``start(n_pairs)`` returning them, or None for u = 0. A certificate holds only for chains
        started this way.
    n_pairs : int
        Number of coupled pairs; 0.01 at 95 % needs at least 299 (:func:`pairs_needed`).
    seed : int
        Non-negative seed of the pairs' random streams.
    lag : int, optional
        The lag L ≥ 1 of the L-lag route. Give exactly one of ``lag`` and ``exact``.
    exact : numpy.ndarray or callable, optional
        Exact draws from π, (n_pairs, n), or a callable ``exact(n_pairs)`` returning them: Y starts
        there, lag 0, one term P(τ > t).
    level : float, default 0.95
        Confidence level, in [0.5, 1).
    threshold : float, default 0.01
        The TV level to certify, in (0, 1).
    max_iter : int, default 1_000_000
        Censoring time of a pair, lag included; the horizon is ``max_iter`` − L.

    Returns
    -------
    Certificate
        Certified when its bound reaches ``threshold`` short of the horizon; check
        :attr:`Certificate.certified` or call :meth:`Certificate.require`.

    Raises
    ------
    ValueError
        If both or neither of ``lag`` and ``exact`` are given, or a count, level or threshold is out
        of range, or a ``start``/``exact`` callable returns None.
    isdp.errors.InvariantError
        If a start is not an integer vector of Λ(A) of the right shape.

    See Also
    --------
    certify_heat_bath, certify_mis, certify_augmented : the same certificate for the other samplers.
    isdp.exact.sample_sum_constraint_l1 : exact draws of the ℓ1 target on one sum constraint.

    Notes
    -----
    The certificate is a statistical statement, not a proof: with probability at least ``level``
    over the pairs, the coupling bound of d_TV(law of X_t, π) — Biswas, Jacob & Vanetti (2019) with
    a lag, the coupling inequality with an exact start — is at most ``threshold`` for every
    t ≥ t_cert. docs/method.md §4, "Certificates".

    Examples
    --------
    Chains started at u = (4, −2, −2), against exact draws from π (one sum over three cells):

    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.convergence import certify
    >>> from isdp.exact import sample_sum_constraint_l1
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> target = generalized_laplace(1.0)
    >>> cert = certify(lattice, target, proposal_eps=1.0, start=np.array([4, -2, -2]), n_pairs=300, seed=2,
    ...                exact=lambda n: sample_sum_constraint_l1(3, 1.0, n, seed=1), max_iter=1000)
    >>> cert.certified, cert.t_cert
    (True, 52)

    The L-lag route from u = 0, with a horizon of one lag (one term):

    >>> cert = certify(lattice, target, proposal_eps=1.0, start=None, n_pairs=300, seed=2, lag=100, max_iter=200)
    >>> cert.t_cert, cert.n_censored
    (53, 0)
    """
    n_pairs = check.size("n_pairs", n_pairs, 1)
    if (exact is None) == (lag is None):
        raise ValueError("give either exact (draws from pi: Y starts there, lag 0) or a lag, not both or neither")
    level, threshold = _check_level(level), _check_threshold(threshold)
    starts = draw_states(start, n_pairs, "start")
    mt = meeting_times(
        lattice,
        target,
        lag=0 if lag is None else lag,  # exact draws: Y starts at π, lag 0
        n_pairs=n_pairs,
        proposal_eps=proposal_eps,
        seed=seed,
        max_iter=max_iter,
        init=starts,
        init_y=draw_states(exact, n_pairs, "exact"),
    )
    return from_meetings(
        mt, lattice.basis_name, exact_start=exact is not None, max_iter=max_iter, level=level, threshold=threshold
    )


def certify_searching_lag(
    lattice: IntegerLattice,
    target: Target,
    *,
    proposal_eps: float,
    start: np.ndarray | Callable[[int], np.ndarray] | None,
    n_pairs: int,
    seed: int,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
    max_iter: int = 1_000_000,
) -> Certificate:
    """:func:`certify` on the lag route with one term, the lag chosen by a pilot run.

    Each pair may take L coupled iterations after its lag L (``max_iter`` = 2L per pair, horizon
    L), with L = 16 × the longest meeting time of a 16-pair pilot (lag 1, from ``start``, its own
    seed), at least 50 and at most ``max_iter`` / 2. The lag is fixed before the certifying pairs
    run and they run once: retrying with longer lags until one certifies would spend the
    confidence level once per try.

    Parameters
    ----------
    lattice : IntegerLattice
        The chain's lattice (and basis).
    target : Target
        The law the chain targets.
    proposal_eps : float
        The proposal's ε, as the chain runs it.
    start : numpy.ndarray, callable or None
        The chains' starting states, as :func:`certify` takes them (None: 0).
    n_pairs : int
        Certifying pairs (at least :func:`pairs_needed` to certify at all).
    seed : int
        The pilot's seed; the certifying pairs use ``seed + 1``.
    level, threshold : float
        The confidence level and the total variation to reach.
    max_iter : int
        The most iterations of a pilot pair; the lag is at most half of it.

    Returns
    -------
    Certificate
        The certificate, certified or not.

    Raises
    ------
    isdp.errors.CertificationError
        When a pilot pair does not meet within ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.convergence import certify_searching_lag
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> cert = certify_searching_lag(lattice, generalized_laplace(1.0), proposal_eps=1.0,
    ...                              start=np.array([4, -2, -2]), n_pairs=300, seed=5)
    >>> cert.certified, cert.lag, cert.t_cert
    (True, 256, 60)
    """
    pilot_start = start if start is None or callable(start) else np.asarray(start)[:16]
    pilot = meeting_times(
        lattice,
        target,
        lag=1,
        n_pairs=16,
        proposal_eps=proposal_eps,
        seed=seed,
        max_iter=max_iter,
        init=draw_states(pilot_start, 16, "start"),
    )
    if not pilot.met.all():
        raise CertificationError(
            f"{int((~pilot.met).sum())} of 16 pilot pairs did not meet within {max_iter} iterations"
        )
    lag = max(1, min(max(16 * int(pilot.tau.max()), 50), max_iter // 2))
    return certify(
        lattice,
        target,
        proposal_eps=proposal_eps,
        start=start,
        lag=lag,
        n_pairs=n_pairs,
        seed=seed + 1,
        level=level,
        threshold=threshold,
        max_iter=2 * lag,
    )


def certify_augmented(
    lattice: IntegerLattice,
    target: Target,
    *,
    start: np.ndarray | Callable[[int], np.ndarray] | None,
    lag: int,
    n_pairs: int,
    seed: int,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
    max_iter: int = 100_000,
) -> Certificate:
    """Certify :func:`isdp.mcmc.augmented_sample` (the ℓ2 data-augmentation chain) from the chains' starting law.

    ``start`` is as in :func:`isdp.convergence.certify`: an array of ``n_pairs`` states, a callable returning
    them, or None for u = 0. The pairs run the L-lag coupling of :func:`isdp.mcmc.augmented_meeting_times`,
    and the result is the ``level`` upper confidence bound of :class:`isdp.convergence.Certificate`.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) for one sum constraint or one sum per block of cells.
    target : Target
        An ℓ2 generalized Laplace target (``generalized_laplace(eps, "l2")``).
    start : numpy.ndarray or callable or None
        The chains' starting law: (n_pairs, n) states (or one for all), a callable
        ``start(n_pairs)`` returning them, or None for u = 0.
    lag : int
        The lag L ≥ 1, in iterations.
    n_pairs : int
        Number of coupled pairs (at least 299 for 0.01 at 95 %).
    seed : int
        Non-negative seed of the pairs' random streams.
    level : float, default 0.95
        Confidence level, in [0.5, 1).
    threshold : float, default 0.01
        The TV level to certify, in (0, 1).
    max_iter : int, default 100_000
        Censoring time of a pair, lag included.

    Returns
    -------
    Certificate
        ``basis`` is the chain's name (:attr:`isdp.mcmc.MeetingTimes.chain`); it certifies draws of
        :func:`isdp.mcmc.augmented_sample`, not of the Metropolis sampler.

    Raises
    ------
    ValueError
        If the target is not the ℓ2 Laplace, ``A`` is not a set of block sums, or a count, level or
        threshold is out of range.

    See Also
    --------
    certify : the certificate of the Metropolis sampler.

    Notes
    -----
    The two t-draws are maximally coupled and both u-draws read one common stream, so a met pair
    stays met and each chain keeps its own kernel; the L-lag bound of Biswas, Jacob & Vanetti
    (2019) applies (docs/method.md §4, "ℓ2 by data augmentation").

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.convergence import certify_augmented
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> cert = certify_augmented(lattice, generalized_laplace(1.0, "l2"), start=None, lag=5, n_pairs=300,
    ...                          seed=4, max_iter=20)
    >>> cert.certified, cert.t_cert <= 20
    (True, True)
    """
    mt = augmented_meeting_times(
        lattice,
        target,
        lag=lag,
        n_pairs=check.size("n_pairs", n_pairs, 1),
        seed=seed,
        max_iter=max_iter,
        init=draw_states(start, n_pairs, "start"),
    )
    return from_meetings(mt, mt.chain, exact_start=False, max_iter=max_iter, level=level, threshold=threshold)


def certify_heat_bath(
    epsilon: float,
    *,
    start: np.ndarray | Callable[[int], np.ndarray],
    n_pairs: int,
    seed: int,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
    max_iter: int = 100_000,
) -> Certificate:
    """Certify the pair heat-bath chain (:func:`isdp.mcmc.heat_bath_sweeps`) for exp(−ε‖u‖₁) on {Σu = 0}.

    From its starting law ``start`` (``n_pairs`` states, or a callable returning them): Y starts at
    exact draws from π (:func:`isdp.exact.sample_sum_constraint_l1`, own seed), the pairs move under the
    monotone coupling (:func:`isdp.mcmc.heat_bath_meeting_times`), and the bound is the one term P(τ > t),
    t in sweeps.

    Parameters
    ----------
    epsilon : float
        ε of the target π(u) ∝ exp(−ε‖u‖₁).
    start : numpy.ndarray or callable
        The chains' starting law: an (n_pairs, n) integer array whose rows sum to 0, or a callable
        ``start(n_pairs)`` returning one. n ≥ 2 is the number of cells.
    n_pairs : int
        Number of coupled pairs (at least 299 for 0.01 at 95 %).
    seed : int
        Non-negative seed; the exact draws use a seed derived from it.
    level : float, default 0.95
        Confidence level, in [0.5, 1).
    threshold : float, default 0.01
        The TV level to certify, in (0, 1).
    max_iter : int, default 100_000
        Censoring time of a pair, in sweeps.

    Returns
    -------
    Certificate
        ``lag`` None (exact start), ``basis`` ``"pair heat-bath"``; ``seconds`` includes the exact draws.

    Raises
    ------
    ValueError
        If ``start`` does not give an (n_pairs, n) array, or a count, ``epsilon``, level or threshold is
        out of range (also when the exact sampler's expected cost is too high).
    isdp.errors.InvariantError
        If the start rows are not integer or do not sum to 0.

    See Also
    --------
    certify : the certificate of the Metropolis sampler.

    Notes
    -----
    Each copy moves by the heat-bath kernel and Y_t ~ π for every t, so the coupling inequality
    gives d_TV(law of X_t, π) ≤ P(τ > t) (docs/method.md §4, "A chain that couples fast").

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.convergence import certify_heat_bath
    >>> cert = certify_heat_bath(1.0, start=np.tile([6, -3, -3], (300, 1)), n_pairs=300, seed=3, max_iter=100)
    >>> cert.certified, cert.t_cert, cert.lag
    (True, 8, None)
    """
    # deferred: isdp.exact loads scipy.optimize (0.5 s at import), which only this certificate needs
    from ..exact import sample_sum_constraint_l1

    n_pairs = check.size("n_pairs", n_pairs, 1)
    level, threshold = _check_level(level), _check_threshold(threshold)
    tick = time.perf_counter()
    starts = np.asarray(draw_states(start, n_pairs, "start"))
    if starts.ndim != 2 or len(starts) != n_pairs:
        raise ValueError(f"start must give {n_pairs} states as a (n_pairs, n) array, got shape {starts.shape}")
    exact = sample_sum_constraint_l1(starts.shape[1], epsilon, n_pairs, derive_seed(seed, "exact start"))
    mt = heat_bath_meeting_times(starts, exact, epsilon=epsilon, seed=seed, max_iter=max_iter)
    mt = replace(mt, seconds=time.perf_counter() - tick)  # the exact draws are part of the cost
    return from_meetings(mt, mt.chain, exact_start=True, max_iter=max_iter, level=level, threshold=threshold)


def certify_mis(
    A,
    a,
    center,
    *,
    epsilon: float,
    proposal_eps: float,
    index_set,
    n_pairs: int,
    seed: int,
    lag: int | None = None,
    B=None,
    b=None,
    init=None,
    level: float = LEVEL,
    threshold: float = THRESHOLD,
    max_iter: int = 1_000_000,
) -> Certificate:
    """Certify the Metropolized independence sampler (:func:`isdp.mcmc.mis_sample`, same arguments) from its start.

    The starting law is ``init`` (default s*, as the chains start). The pairs share every proposal
    and one uniform and meet when both accept (:func:`isdp.mcmc.mis_meeting_times`). ``lag`` None
    (default): Y starts at exact draws of the target (:func:`isdp.mcmc.mis_exact_sample`, own seed),
    lag 0, one term P(τ > t); else the L-lag route with both chains started at ``init``.

    Parameters
    ----------
    A : array_like of int
        Equality constraints A s = a, m × d with linearly independent rows.
    a : array_like of int
        Their right-hand side, length m.
    center : array_like of int
        The confidential query s* (length d); target and proposal are DG laws centred on it.
    epsilon : float
        ε of the target DG mechanism.
    proposal_eps : float
        ε̃ of the proposal.
    index_set : array_like of int
        The proposal index set I (0-based, d − m indices) with A[:, Iᶜ] unimodular.
    n_pairs : int
        Number of coupled pairs (at least 299 for 0.01 at 95 %).
    seed : int
        Non-negative seed; the exact draws use a seed derived from it.
    lag : int, optional
        The lag L ≥ 1 of the L-lag route; None (default) for the exact start.
    B : array_like, optional
        Inequalities B s ≥ b (e.g. the identity for non-negativity).
    b : array_like, optional
        Their right-hand side.
    init : array_like of int, optional
        The chains' start(s) in S*: one for all pairs or one per pair; default s*.
    level : float, default 0.95
        Confidence level, in [0.5, 1).
    threshold : float, default 0.01
        The TV level to certify, in (0, 1).
    max_iter : int, default 1_000_000
        Censoring time of a pair, in proposals.

    Returns
    -------
    Certificate
        ``basis`` ``"independence proposal (MIS)"``; t counts proposals.

    Raises
    ------
    ValueError
        If a count, level or threshold is out of range, or an exact draw is not accepted in time.
    isdp.errors.InvariantError
        For an unusable index set or a start outside S*.

    See Also
    --------
    certify : the certificate of the Gibbs-within-Metropolis sampler.

    Notes
    -----
    Congenial DP Algorithm 1; an independence sampler couples by sharing proposals, and with Y₀
    drawn from the target the coupling inequality gives d_TV ≤ P(τ > t) (docs/method.md §6).

    Examples
    --------
    Three non-negative counts with total 6, released around s* = (2, 2, 2):

    >>> import numpy as np
    >>> from isdp.convergence import certify_mis
    >>> cert = certify_mis([[1, 1, 1]], [6], [2, 2, 2], epsilon=1.0, proposal_eps=1.0, index_set=[0, 1], n_pairs=300,
    ...                    seed=5, B=np.eye(3), b=np.zeros(3), max_iter=1000)
    >>> cert.certified, cert.t_cert
    (True, 13)
    """
    level, threshold = _check_level(level), _check_threshold(threshold)
    n_pairs = check.size("n_pairs", n_pairs, 1)
    tick = time.perf_counter()
    exact = (
        None
        if lag is not None
        else mis_exact_sample(
            A,
            a,
            center,
            epsilon=epsilon,
            index_set=index_set,
            size=n_pairs,
            seed=derive_seed(seed, "exact start"),
            B=B,
            b=b,
        )
    )
    mt = mis_meeting_times(
        A,
        a,
        center,
        epsilon=epsilon,
        proposal_eps=proposal_eps,
        index_set=index_set,
        lag=0 if lag is None else lag,
        n_pairs=n_pairs,
        seed=seed,
        B=B,
        b=b,
        init=init,
        init_y=exact,
        max_iter=max_iter,
    )
    mt = replace(mt, seconds=time.perf_counter() - tick)  # the exact draws are part of the cost
    return from_meetings(
        mt, "independence proposal (MIS)", exact_start=lag is None, max_iter=max_iter, level=level, threshold=threshold
    )
