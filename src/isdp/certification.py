"""Coupling certificates: how many iterations a chain needs, from its own starting law
(docs/method.md §4, "Certificates").

:func:`certify` runs ``n_pairs`` L-lag coupled pairs of the chain that will produce the draws —
the same lattice basis, target and proposal — each pair started the way the chains start
(X₀ = Y₀ drawn from the chains' starting law, a valid coupling of the two initial laws), and
returns a :class:`Certificate`: the iteration t* from which the estimated bound on
d_TV(law of X_t, π) is below the threshold, the meeting-time quantiles and the bound curve. When
any pair is censored the bound cannot be computed and the certificate says so (``t_star`` None).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._runner import check_count, check_positive
from .coupling import MeetingTimes, convergence_iteration, meeting_times, tv_upper_bound
from .lattice import IntegerLattice
from .targets import Target

#: quantiles of τ − L reported in a certificate
QUANTILES = (0.5, 0.9, 0.99)


class CertificationError(RuntimeError):
    """No certificate: some coupled pair did not meet. The message names what was certified."""


@dataclass(frozen=True)
class Certificate:
    """The outcome of :func:`certify` (see the module docstring)."""

    basis: str
    lag: int
    n_pairs: int
    n_censored: int
    max_iter: int
    threshold: float
    t_star: int | None  # None: some pair was censored, nothing is certified
    tau: np.ndarray  # int64 (pairs,): meeting times (censored ones = max_iter)
    seconds: float

    @property
    def certified(self) -> bool:
        return self.t_star is not None

    @property
    def status(self) -> str:
        """One line: what is certified, or why nothing is."""
        if self.certified:
            return f"certified: TV bound < {self.threshold:g} from iteration {self.t_star}"
        return (f"not certified: {self.n_censored} of {self.n_pairs} pairs did not meet within "
                f"{self.max_iter} iterations, so the TV bound cannot be computed")

    def quantiles(self) -> dict[str, float]:
        """Quantiles of τ − L over the pairs (censored pairs count as +∞, never dropped)."""
        excess = np.where(self.tau < self.max_iter, self.tau - self.lag, np.inf).astype(float)
        out = {f"tau_minus_lag_q{round(q * 100)}": float(np.quantile(excess, q, method="higher"))
               for q in QUANTILES}
        out["tau_minus_lag_max"] = float(excess.max())
        return out

    def tv_bound(self, t) -> np.ndarray:
        """The estimated bound at iterations ``t``; raises when pairs were censored."""
        self.require()
        return tv_upper_bound(self.tau, self.lag, t)

    def curve(self, n_points: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """(t, bound) on an even grid from 0 to past t*, for figures."""
        hi = max(int((self.tau - self.lag).max()), 1)
        t = np.unique(np.linspace(0, hi, n_points).astype(np.int64))
        return t, self.tv_bound(t)

    def require(self) -> Certificate:
        """Itself if certified, else a :class:`CertificationError` with :attr:`status`."""
        if not self.certified:
            raise CertificationError(self.status)
        return self

    def burn_in(self, floor: int, margin: float) -> int:
        """max(``floor``, ⌈t* · (1 + ``margin``)⌉): the burn-in the certificate supports."""
        self.require()
        return max(int(floor), math.ceil(self.t_star * (1 + float(margin))))

    def summary(self) -> dict:
        """Flat JSON-able record (for tables and netCDF attributes); no arrays."""
        return {"basis": self.basis, "lag": self.lag, "pairs": self.n_pairs, "censored": self.n_censored,
                "max_iter": self.max_iter, "threshold": self.threshold,
                "t_star": -1 if self.t_star is None else self.t_star, "status": self.status,
                **self.quantiles(), "certify_seconds": round(self.seconds, 3)}


def certify(lattice: IntegerLattice, target: Target, *, proposal_eps: float,
            start: np.ndarray | Callable[[int], np.ndarray] | None, lag: int, n_pairs: int, seed: int,
            threshold: float = 0.01, max_iter: int = 1_000_000) -> Certificate:
    """Certify the sampler :func:`isdp.sample` on ``lattice`` (its basis), ``target`` and ``proposal_eps``.

    ``start`` is the chains' starting law: ``n_pairs`` states drawn from it (an array), a callable
    returning them given ``n_pairs``, or None for the point mass at 0. Pair p starts at
    X₀ = Y₀ = start[p]; chain X runs ``lag`` iterations alone, then the pair moves under the coupled
    kernel until it meets or ``max_iter`` (:func:`isdp.coupling.meeting_times`). t* is the smallest t
    with the estimated bound E[max(0, ⌈(τ − L − t)/L⌉)] below ``threshold``. With n pairs the bound
    is a multiple of 1/n, so a threshold of at most 1/n makes t* the largest τ − L of the sample.
    """
    n_pairs = check_count("n_pairs", n_pairs, 1)
    threshold = check_positive("threshold", threshold)
    starts = start(n_pairs) if callable(start) else start
    mt = meeting_times(lattice, target, lag=lag, n_pairs=n_pairs, proposal_eps=proposal_eps, seed=seed,
                       max_iter=max_iter, init=starts)
    return certificate_from_meetings(mt, lattice.basis_name, threshold=threshold, max_iter=max_iter)


def certify_mis(A, a, center, *, eps: float, proposal_eps: float, index_set, lag: int, n_pairs: int, seed: int,
                B=None, b=None, init=None, threshold: float = 0.01, max_iter: int = 1_000_000) -> Certificate:
    """Certify the Metropolized independence sampler (:func:`isdp.mis_sample`, same arguments) from its
    starting law (``init``, default s*, as the chains start): pairs share every proposal and one uniform
    and meet when both accept (:func:`isdp.mis.mis_meeting_times`)."""
    from .mis import mis_meeting_times

    threshold = check_positive("threshold", threshold)
    mt = mis_meeting_times(A, a, center, eps=eps, proposal_eps=proposal_eps, index_set=index_set, lag=lag,
                           n_pairs=n_pairs, seed=seed, B=B, b=b, init=init, max_iter=max_iter)
    return certificate_from_meetings(mt, "independence proposal (MIS)", threshold=threshold, max_iter=max_iter)


def certificate_from_meetings(mt: MeetingTimes, basis: str, *, threshold: float, max_iter: int) -> Certificate:
    """The :class:`Certificate` of measured meeting times (no t* when a pair is censored)."""
    censored = int((~mt.met).sum())
    t_star = None if censored else convergence_iteration(mt.tau, mt.lag, threshold)
    return Certificate(basis=basis, lag=mt.lag, n_pairs=len(mt.tau), n_censored=censored, max_iter=int(max_iter),
                       threshold=float(threshold), t_star=t_star, tau=mt.tau, seconds=mt.seconds)
