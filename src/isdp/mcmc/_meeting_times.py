"""Meeting times of coupled pairs, as every sampler's coupling returns them.

And the point estimate of the L-lag bound on d_TV they give (Biswas, Jacob & Vanetti 2019; docs/method.md §4).

:class:`MeetingTimes` is the record of :func:`isdp.mcmc.meeting_times`, :func:`isdp.mcmc.augmented_meeting_times`,
:func:`isdp.mcmc.heat_bath_meeting_times` and :func:`isdp.mcmc.mis_meeting_times`; it sits below all of them.
:func:`tv_upper_bound` and :func:`convergence_iteration` (read through :class:`MeetingTimes`) are the papers'
estimated curve and its crossing;
:mod:`isdp.convergence` turns the same pairs into a 95 % upper confidence bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as check
from .._runner import check_positive


@dataclass
class MeetingTimes:
    """Meeting times of independent coupled pairs, as every coupling routine returns them.

    :func:`isdp.mcmc.meeting_times`, :func:`isdp.mcmc.augmented_meeting_times`,
    :func:`isdp.mcmc.heat_bath_meeting_times` and :func:`isdp.mcmc.mis_meeting_times` report their pairs this
    way; :mod:`isdp.convergence` turns them into a :class:`isdp.convergence.Certificate`.

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
    chain : str, default ""
        The coupled chain's name, as its certificate states it, for the samplers that move on no lattice
        basis (the data-augmentation and pair heat-bath samplers); empty for the others, whose
        certificate names their basis.

    See Also
    --------
    isdp.mcmc.meeting_times : coupled pairs of the Gibbs-within-Metropolis sampler.
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
    chain: str = ""

    def tv_bound(self, t) -> np.ndarray:
        """Return the point estimate of the L-lag bound on d_TV(π_t, π) at iterations ``t``.

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

    def tv_bound_terms(self, t) -> np.ndarray:
        """Return each pair's term max(0, ⌈(τ − L − t)/L⌉) of the estimated bound, at iterations ``t``.

        Parameters
        ----------
        t : int or array_like of int
            Non-negative iteration numbers.

        Returns
        -------
        numpy.ndarray
            int64, shape (pairs, len(t)): pairs by rows, iterations by columns; the column means are
            :meth:`tv_bound`, their spread over pairs gives its Monte Carlo error. Needs ``lag`` ≥ 1.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.mcmc import MeetingTimes
        >>> mt = MeetingTimes(tau=np.array([3, 5, 8]), met=np.array([True, True, True]), lag=2, seconds=0.0)
        >>> mt.tv_bound_terms([0, 1, 3, 6]).tolist()
        [[1, 0, 0, 0], [2, 1, 0, 0], [3, 3, 2, 0]]
        """
        return tv_bound_terms(self.tau, self.lag, t)

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
    >>> from isdp.mcmc._meeting_times import tv_upper_bound
    >>> tv_upper_bound([3, 5, 8], 2, [0, 1, 3, 6]).round(3).tolist()
    [2.0, 1.333, 0.667, 0.0]
    """
    return tv_bound_terms(tau, lag, t).mean(axis=0)


def tv_bound_terms(tau, lag: int, t) -> np.ndarray:
    """Each pair's term max(0, ⌈(τ - L - t)/L⌉) of :func:`tv_upper_bound`.

    Pairs by rows, iterations ``t`` by columns (their spread over pairs gives the estimate's Monte Carlo error).

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
        int64, shape (pairs, len(t)); the column means are :func:`tv_upper_bound`.

    Raises
    ------
    ValueError
        As :func:`tv_upper_bound`.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc._meeting_times import tv_bound_terms
    >>> terms = tv_bound_terms([3, 5, 8], 2, [0, 1, 3, 6])
    >>> terms.tolist()
    [[1, 0, 0, 0], [2, 1, 0, 0], [3, 3, 2, 0]]
    >>> (terms.std(axis=0, ddof=1) / np.sqrt(3)).round(3).tolist()  # the estimate's standard error
    [0.577, 0.882, 0.667, 0.0]
    """
    lag = check.size("lag", lag, 1)
    tau = np.asarray(tau)
    if tau.ndim != 1 or tau.dtype.kind not in "iuf" or not np.all(np.isfinite(tau)) or np.any(np.rint(tau) != tau):
        raise ValueError(f"tau must be one meeting time per pair, whole numbers, got shape {tau.shape} of {tau.dtype}")
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
    """Return the smallest t at which the point estimate :func:`tv_upper_bound` is below ``threshold``.

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
    >>> from isdp.mcmc._meeting_times import convergence_iteration
    >>> convergence_iteration([3, 5, 8], 2, threshold=0.5)
    4
    >>> convergence_iteration([3, 5, 8], 2)
    6
    """
    lag = check.size("lag", lag, 1)
    threshold = check_positive("threshold", threshold)  # the bound is never below 0: 0 or nan never converge
    tau = np.asarray(tau, dtype=np.int64)
    hi = int(max(tau.max() - lag, 0))
    ts = np.arange(0, hi + 1)
    below = np.flatnonzero(tv_upper_bound(tau, lag, ts) < threshold)
    return int(ts[below[0]]) if below.size else hi
