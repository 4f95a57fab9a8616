"""Coupling certificates.

A confidence statement about how close a chain is to π, from its own starting law (docs/method.md §4, "Certificates").

A certificate runs n coupled pairs of the chain that will produce the draws — the same basis,
target and proposal — each started the way the chains start, and turns their meeting times into
a **95 % upper confidence bound** on a coupling bound of d_TV(law of X_t, π). The certified
iteration t_cert is the first t at which that confidence bound is at most the threshold (0.01).
It is a statistical statement, not a proof: with probability at least 95 % over the pairs, the
coupling bound — and so the total variation distance — is at most the threshold from t_cert on.

Two couplings, one formula. With lag L, chain X runs L iterations alone, then X_t and Y_{t-L}
move together; Biswas, Jacob & Vanetti (2019) give

    d_TV(π_t, π) ≤ Σ_{j≥1} P(τ − L > t + (j−1)L) = E[max(0, ⌈(τ − L − t)/L⌉)].

When Y starts from π itself (an exact draw; ``lag`` None), Y_t ~ π for every t and the coupling
inequality gives the single term d_TV(π_t, π) ≤ P(τ > t) — the L → ∞ limit of the same bound.

The upper confidence bound sums exact one-sided Clopper–Pearson bounds on the terms' counts
k_j(t) = #{pairs with τ − L > t + (j−1)L}, at level α/J each (Bonferroni over the J terms short of
the horizon H = max_iter − L, the most coupled iterations a pair is given). Pairs censored at H
count as exceeding every such t + (j−1)L, which they do. The terms beyond the horizon (pairs
that would need more than H coupled iterations) cannot be seen by any finite run: with an exact
start there are none before t reaches H, with a lag they are the one stated assumption (docs). The
bound never falls below 1 − α^{1/n} ≈ ln(1/α)/n, so the number of pairs follows from the
threshold (:func:`pairs_needed`: 299 for 0.01 at 95 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from ..errors import CertificationError
from ..mcmc import MeetingTimes

#: default confidence level of every certificate
LEVEL = 0.95
#: default threshold on the total variation distance
THRESHOLD = 0.01
#: quantiles of τ − L reported in a certificate
QUANTILES = (0.5, 0.9, 0.99)


def clopper_pearson_upper(k, n: int, alpha: float) -> np.ndarray:
    """Exact one-sided (1 − ``alpha``) upper confidence bound on a binomial p from k successes in n.

    The p with P(Bin(n, p) ≤ k) = alpha, i.e. the (1 − alpha) quantile of Beta(k + 1, n − k); 1 at k = n. SciPy's
    inverse regularised incomplete beta function is that quantile (``scipy.stats.beta.ppf`` calls it) without the 1 s
    import of ``scipy.stats``, which a certificate job would pay for this one call.
    """
    from scipy.special import betaincinv  # deferred: scipy.special costs 0.2 s at import, for this one call

    k = np.asarray(k, dtype=np.int64)
    unique, where = np.unique(k, return_inverse=True)  # the lag route sums many terms of equal count
    with np.errstate(invalid="ignore", divide="ignore"):
        upper = np.where(unique >= n, 1.0, betaincinv(unique + 1, np.maximum(n - unique, 1), 1 - alpha))
    return upper[where].reshape(k.shape)


def pairs_needed(threshold: float = THRESHOLD, level: float = LEVEL) -> int:
    """Return the fewest pairs whose bound can reach ``threshold`` at all: 1 − (1 − level)^{1/n} ≤ threshold.

    With every pair met and one term, the certificate's bound is the Clopper–Pearson upper bound
    on a probability estimated as 0 from n pairs, 1 − (1 − level)^{1/n}; fewer pairs than this can
    never certify, whatever the chain.

    Parameters
    ----------
    threshold : float, default 0.01
        The total variation the certificate must reach, in (0, 1).
    level : float, default 0.95
        The confidence level of the upper bound, in [0.5, 1).

    Returns
    -------
    int
        The smallest n with 1 − (1 − level)^{1/n} ≤ threshold.

    See Also
    --------
    certify : Certifies a chain from ``n_pairs`` coupled pairs.

    Examples
    --------
    >>> from isdp.convergence import Certificate
    >>> Certificate.pairs_needed(0.01, 0.95)
    299
    """
    threshold, level = _check_threshold(threshold), _check_level(level)
    return math.ceil(math.log(1 - level) / math.log1p(-threshold))


def _check_unit(name: str, value, low: float) -> float:
    """Return a number in [low, 1): thresholds in (0, 1) (TV never exceeds 1), levels in [0.5, 1)."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    if not ok or not (low <= float(value) < 1) or float(value) == 0:
        raise ValueError(f"{name} must be a number in {'(0' if low == 0 else f'[{low:g}'}, 1), got {value!r}")
    return float(value)


def _check_threshold(threshold) -> float:
    return _check_unit("threshold", threshold, 0.0)


def _check_level(level) -> float:
    return _check_unit("level", level, 0.5)


@dataclass(frozen=True)
class Certificate:
    """Meeting times of coupled pairs and what they certify: a 95 % upper confidence bound on the TV bound.

    One class serves every sampler (:func:`certify`, :func:`certify_mis`, :func:`certify_augmented`,
    :func:`certify_heat_bath`): it holds the pairs' meeting times and computes from them
    :meth:`bound`, the ``level`` upper confidence bound on the coupling bound of
    d_TV(law of X_t, π), and :attr:`t_cert`, the first iteration where that bound is at most
    ``threshold``. :meth:`estimate` is the papers' point estimate of the same curve; it is never
    called a bound. The ``certify*`` functions build it from the pairs they run; the constructor
    takes recorded meeting times, and :meth:`to_dict` and :meth:`from_dict` store and rebuild it.

    Parameters
    ----------
    basis : str
        The sampler's basis (``IntegerLattice.basis_name``), or the sampler's name where it has none.
    lag : int or None
        The lag L of the L-lag bound; None when Y started from π by exact draws (lag 0, one term).
    n_pairs : int
        Number of independent coupled pairs.
    max_iter : int
        The censoring time the pairs ran with (lag included).
    level : float
        Confidence level in [0.5, 1), 0.95 by default in the ``certify*`` functions.
    threshold : float
        The TV level in (0, 1) to certify, 0.01 by default in the ``certify*`` functions.
    tau : numpy.ndarray
        int64, shape (n_pairs,): each pair's meeting time, ``max_iter`` where ``met`` is False.
    met : numpy.ndarray
        bool, shape (n_pairs,): False for a pair censored at ``max_iter``.
    seconds : float
        Wall time of the pairs (and of the exact draws, where there are any), in seconds.

    See Also
    --------
    certify : the certificate of :func:`isdp.mcmc.sample`'s chain.
    pairs_needed : the fewest pairs that can certify a threshold.

    Notes
    -----
    With lag L, Biswas, Jacob & Vanetti (2019, Thm 2.5) bound d_TV(π_t, π) ≤ Σ_{j≥1} p_j(t),
    p_j(t) = P(τ − L > t + (j−1)L); with an exact start (Y₀ ~ π, lag 0) the coupling inequality gives
    the single term P(τ > t). With H = ``max_iter`` − L the horizon and J(t) = ⌈(H − t)/L⌉ terms short
    of it (J = 1 with an exact start), :meth:`bound` is Σ_j U(k_j(t); n, α/J(t)), where k_j(t) counts
    the pairs with τ − L > t + (j−1)L (censored pairs included), U is the exact one-sided
    Clopper–Pearson bound and α = 1 − ``level``. By the union bound it covers the coupling bound with
    probability at least ``level`` at every fixed t, and since it never increases in t, also from
    the random :attr:`t_cert` on. It never falls below 1 − α^{1/n}, so 0.01 at 95 % needs at least
    299 pairs. With a lag, the terms beyond the horizon are not seen and are the one assumption.
    docs/method.md §4, "Certificates".

    Examples
    --------
    Ten groups of 30 pairs met at t = 0, …, 9 after an exact start:

    >>> import numpy as np
    >>> from isdp.convergence import Certificate
    >>> cert = Certificate(basis="smith", lag=None, n_pairs=300, max_iter=100, level=0.95, threshold=0.01,
    ...                    tau=np.arange(300) % 10, met=np.ones(300, dtype=bool), seconds=0.0)
    >>> cert.certified, cert.t_cert
    (True, 9)
    >>> cert.bound([0, 5, 9]).round(4).tolist()
    [0.9271, 0.4488, 0.0099]
    >>> cert.estimate([0, 5, 9]).round(3).tolist()
    [0.9, 0.4, 0.0]
    >>> cert.status
    'certified: the 95% upper confidence bound on the TV bound is <= 0.01 from iteration 9 (300 pairs)'
    >>> cert.burn_in(floor=5, margin=0.5)
    14
    >>> Certificate.from_dict(cert.to_dict()).t_cert
    9
    """

    basis: str  # the sampler's basis, or the sampler where it has none
    lag: int | None
    n_pairs: int
    max_iter: int
    level: float
    threshold: float
    tau: np.ndarray
    met: np.ndarray
    seconds: float

    #: the confidence level of the upper bound, unless a caller states another (0.95)
    LEVEL: ClassVar[float] = LEVEL
    pairs_needed = staticmethod(pairs_needed)

    def __post_init__(self) -> None:
        # meeting times no coupling could make are refused: a pair of lag L meets after L iterations and
        # within max_iter, else it is censored (a τ at or below L once read as perfect convergence)
        tau, met = np.asarray(self.tau), np.asarray(self.met)
        if tau.shape != (self.n_pairs,) or met.shape != (self.n_pairs,) or met.dtype != bool:
            raise ValueError(
                f"a certificate needs n_pairs = {self.n_pairs} meeting times and met flags, got "
                f"shapes {tau.shape} and {met.shape}"
            )
        low = (self.lag or 0) + (self.lag is not None)
        bad = met & ((tau < low) | (tau > self.max_iter))
        if bad.any():
            raise ValueError(
                f"a meeting time of {int(tau[bad][0])} is impossible at lag {self.lag} with max_iter "
                f"{self.max_iter}: a pair that met has {low} ≤ τ ≤ max_iter"
            )

    # ------------------------------------------------------------------ the bound
    @property
    def horizon(self) -> int:
        """H = ``max_iter`` − L: the most coupled iterations a pair is given (τ − L ≤ H, else censored)."""
        return self.max_iter - (self.lag or 0)

    @property
    def n_censored(self) -> int:
        """Number of pairs that did not meet within ``max_iter`` iterations."""
        return int((~self.met).sum())

    @property
    def alpha(self) -> float:
        """α = 1 − ``level``: the error probability the confidence bound allows."""
        return 1.0 - self.level

    def _excess(self) -> np.ndarray:
        """τ − L of the pairs that met (censored pairs are handled as exceeding the horizon)."""
        return np.sort(self.tau[self.met] - (self.lag or 0))

    def _exceed(self, excess_sorted: np.ndarray, s: np.ndarray) -> np.ndarray:
        """#{pairs with τ − L > s} for each s (censored pairs exceed every s < H; counted always)."""
        return len(excess_sorted) - np.searchsorted(excess_sorted, s, side="right") + self.n_censored

    def _terms(self, t: int) -> np.ndarray:
        """Return the thresholds t + (j − 1)L of the terms short of the horizon (at least one)."""
        if self.lag is None:
            return np.array([t], dtype=np.int64)
        n_terms = max(1, -(-(self.horizon - t) // self.lag))
        return t + self.lag * np.arange(n_terms, dtype=np.int64)

    def bound(self, t) -> np.ndarray:
        """Return the ``level`` upper confidence bound on the coupling bound of d_TV(law of X_t, π) at iterations ``t``.

        Parameters
        ----------
        t : int or array_like of int
            Non-negative iteration numbers of the chain (t = 0 is its start).

        Returns
        -------
        numpy.ndarray
            float, one value per t: Σ_j U(k_j(t); n, α/J(t)) over the J(t) terms short of the horizon
            (one with an exact start; see the class Notes). It never increases in t.

        Raises
        ------
        ValueError
            If some t is negative or not a whole number.
        """
        excess = self._excess()
        out = []
        for ti in _check_t(t):
            s = self._terms(int(ti))
            out.append(float(clopper_pearson_upper(self._exceed(excess, s), self.n_pairs, self.alpha / len(s)).sum()))
        return np.array(out)

    def estimate(self, t) -> np.ndarray:
        """Return the point estimate of the coupling bound at ``t`` (the papers' curve), not a bound.

        The mean over pairs of max(0, ⌈(τ − L − t)/L⌉), or the share of pairs not met by t with an
        exact start. Censored pairs count as met at the horizon, so it is a lower end where any pair
        was censored.

        Parameters
        ----------
        t : int or array_like of int
            Non-negative iteration numbers.

        Returns
        -------
        numpy.ndarray
            float, one value per t.
        """
        t = _check_t(t)
        excess = np.where(self.met, self.tau - (self.lag or 0), self.horizon)
        if self.lag is None:
            return (excess[:, None] > t[None, :]).mean(axis=0)
        return MeetingTimes(tau=excess + self.lag, met=self.met, lag=self.lag, seconds=0.0).tv_bound(t)

    @cached_property
    def t_cert(self) -> int | None:
        """The certified iteration: the first t with :meth:`bound` ≤ ``threshold``.

        None if no t short of the horizon gets there (too few pairs, or pairs censored).
        """
        if self.horizon < 1 or self.bound(self.horizon - 1)[0] > self.threshold:
            return None
        return _first_at_most(self.bound, self.horizon - 1, self.threshold)

    @cached_property
    def t_estimate(self) -> int | None:
        """The first t at which the point estimate drops below ``threshold`` (the papers' t*).

        The papers' reading of their curves, not a bound; None where a censored pair leaves the
        estimate undetermined.
        """
        if self.n_censored:
            return None
        return _first_at_most(self.estimate, int((self.tau - (self.lag or 0)).max()), self.threshold, strict=True)

    @property
    def certified(self) -> bool:
        """Whether some t short of the horizon is certified (:attr:`t_cert` is not None)."""
        return self.t_cert is not None

    # ------------------------------------------------------------------ words and records
    @property
    def coupling(self) -> str:
        """One phrase naming the coupling and the bound it gives (exact start, or L-lag with its L)."""
        return (
            "Y started from pi (exact draws); bound P(tau > t)"
            if self.lag is None
            else f"L-lag, L = {self.lag}; bound E[max(0, ceil((tau - L - t)/L))]"
        )

    @property
    def status(self) -> str:
        """One line: what is certified, or why nothing is."""
        pct = f"{self.level:.0%}"
        if self.certified:
            return (
                f"certified: the {pct} upper confidence bound on the TV bound is <= {self.threshold:g} "
                f"from iteration {self.t_cert} ({self.n_pairs} pairs)"
            )
        floor = clopper_pearson_upper(self.n_censored, self.n_pairs, self.alpha)
        why = (
            f"{self.n_censored} of {self.n_pairs} pairs did not meet within {self.horizon} coupled iterations"
            if self.n_censored
            else f"{self.n_pairs} pairs cannot resolve {self.threshold:g}"
        )
        return (
            f"not certified: {why}; the {pct} upper confidence bound stays above {self.threshold:g} "
            f"(at least {float(floor):.3g}; {pairs_needed(self.threshold, self.level)} pairs are the fewest "
            "that can reach it)"
        )

    def require(self) -> Certificate:
        """Return the certificate itself if it certifies some t, else an error.

        Returns
        -------
        Certificate
            ``self``, for chaining (``certify(...).require().t_cert``).

        Raises
        ------
        CertificationError
            If nothing is certified; the message is :attr:`status`.
        """
        if not self.certified:
            raise CertificationError(self.status)
        return self

    def burn_in(self, floor: int = 0, margin: float = 0.0) -> int:
        """Return a burn-in at or past the certified iteration: max(``floor``, ⌈t_cert · (1 + ``margin``)⌉).

        Parameters
        ----------
        floor : int, default 0
            The smallest burn-in to return.
        margin : float, default 0.0
            Relative margin past :attr:`t_cert` (0.5: 1.5 × t_cert).

        Returns
        -------
        int
            The burn-in, in iterations.

        Raises
        ------
        CertificationError
            If nothing is certified.
        """
        if (t_cert := self.t_cert) is None:  # as require(): nothing is certified
            raise CertificationError(self.status)
        return max(int(floor), math.ceil(t_cert * (1 + float(margin))))

    def verdict(self, burn_in: int) -> str:
        """One line on the burn-in actually used: the bound there, and whether it is certified.

        Parameters
        ----------
        burn_in : int
            The burn-in the chains ran, in iterations.

        Returns
        -------
        str
            The bound at ``burn_in`` against ``threshold``, the pairs, the coupling and the point
            estimate there.
        """
        bound = float(self.bound(burn_in)[0])
        ok = bound <= self.threshold
        return (
            f"{'certified' if ok else 'not certified'} at burn-in {burn_in}: the {self.level:.0%} upper "
            f"confidence bound on the TV bound there is {bound:.3g} ({'<=' if ok else '>'} {self.threshold:g}; "
            f"{self.n_pairs} pairs, {self.coupling}); the point estimate is {float(self.estimate(burn_in)[0]):.3g}"
        )

    def quantiles(self) -> dict[str, float]:
        """Quantiles of τ − L over the pairs (censored pairs count as +∞, never dropped).

        Returns
        -------
        dict[str, float]
            ``tau_minus_lag_q50``, ``_q90``, ``_q99`` (the quantiles of :data:`QUANTILES`, each an
            observed value) and ``tau_minus_lag_max``.
        """
        excess = np.where(self.met, self.tau - (self.lag or 0), np.inf).astype(float)
        out = {f"tau_minus_lag_q{round(q * 100)}": float(np.quantile(excess, q, method="higher")) for q in QUANTILES}
        out["tau_minus_lag_max"] = float(excess.max())
        return out

    def curve(self, n_points: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """Return the point estimate on an even grid from 0 to the last meeting (or the horizon), for figures.

        Parameters
        ----------
        n_points : int, default 200
            Grid size before rounding to whole iterations (duplicates are dropped).

        Returns
        -------
        t : numpy.ndarray
            int64 iterations.
        estimate : numpy.ndarray
            float, :meth:`estimate` at each t. The confidence bound at any t is :meth:`bound`.
        """
        hi = max(int(np.where(self.met, self.tau - (self.lag or 0), self.horizon).max()), 1)
        t = np.unique(np.linspace(0, hi, n_points).astype(np.int64))
        return t, self.estimate(t)

    def to_dict(self) -> dict:
        """Everything the certificate rests on, JSON-able (:meth:`from_dict` rebuilds it exactly).

        Returns
        -------
        dict
            The constructor's arguments, ``tau`` and ``met`` as lists.
        """
        return {
            "basis": self.basis,
            "lag": self.lag,
            "n_pairs": self.n_pairs,
            "max_iter": self.max_iter,
            "level": self.level,
            "threshold": self.threshold,
            "tau": self.tau.tolist(),
            "met": self.met.tolist(),
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Certificate:
        """Return the certificate of :meth:`to_dict`'s record.

        Parameters
        ----------
        d : dict
            A record written by :meth:`to_dict`.

        Returns
        -------
        Certificate
            The same certificate.

        Raises
        ------
        ValueError
            If ``tau`` and ``met`` do not hold ``n_pairs`` entries each, or the level or threshold
            is out of range.
        """
        tau, met = np.asarray(d["tau"], dtype=np.int64), np.asarray(d["met"], dtype=bool)
        if tau.shape != met.shape or len(tau) != d["n_pairs"]:
            raise ValueError(
                f"a certificate record needs n_pairs = {d['n_pairs']} meeting times and flags, "
                f"got {tau.shape} and {met.shape}"
            )
        return cls(
            basis=str(d["basis"]),
            lag=None if d["lag"] is None else int(d["lag"]),
            n_pairs=int(d["n_pairs"]),
            max_iter=int(d["max_iter"]),
            level=_check_level(d["level"]),
            threshold=_check_threshold(d["threshold"]),
            tau=tau,
            met=met,
            seconds=float(d["seconds"]),
        )

    def summary(self, burn_in: int | None = None) -> dict:
        """Flat JSON-able record of the certificate, for tables and netCDF attributes.

        Parameters
        ----------
        burn_in : int, optional
            The burn-in used; adds ``burn_in``, ``tv_bound_at_burn_in``, ``certified_at_burn_in``
            and ``tv_estimate_at_burn_in``, and makes the :meth:`verdict` the status.

        Returns
        -------
        dict
            Basis, coupling, lag (−1 for an exact start), pairs, censored, max_iter, level,
            threshold, ``t_cert`` (−1 if none), ``t_star`` (:attr:`t_estimate`, −1 if none), status,
            the :meth:`quantiles` and ``certify_seconds``.
        """
        t_cert = self.t_cert
        out = {
            "basis": self.basis,
            "coupling": self.coupling,
            "lag": -1 if self.lag is None else self.lag,
            "pairs": self.n_pairs,
            "censored": self.n_censored,
            "max_iter": self.max_iter,
            "confidence_level": self.level,
            "threshold": self.threshold,
            "t_cert": -1 if t_cert is None else t_cert,
            "t_star": -1 if self.t_estimate is None else self.t_estimate,
            "status": self.status,
            **self.quantiles(),
            "certify_seconds": round(self.seconds, 3),
        }
        if burn_in is not None:
            bound = float(self.bound(burn_in)[0])
            out.update(
                burn_in=int(burn_in),
                tv_bound_at_burn_in=bound,
                certified_at_burn_in=int(bound <= self.threshold),
                tv_estimate_at_burn_in=float(self.estimate(burn_in)[0]),
                status=self.verdict(burn_in),
            )
        return out


def _first_at_most(curve, hi: int, threshold: float, strict: bool = False) -> int:
    """Return the first t in [0, hi] with curve(t) ≤ threshold (< with ``strict``), by bisection.

    For a curve that never increases in t and meets the condition at hi.
    """
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        value = curve(mid)[0]
        if value < threshold or (not strict and value == threshold):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _check_t(t) -> np.ndarray:
    t = np.atleast_1d(np.asarray(t))
    # a cast would truncate 1.5 and fail on inf with a bare OverflowError
    if t.dtype.kind not in "iuf" or not np.all(np.isfinite(t)) or np.any(np.rint(t) != t) or np.any(t < 0):
        raise ValueError(f"t must be non-negative whole iteration numbers, got {t.tolist()!r}")
    return t.astype(np.int64)
