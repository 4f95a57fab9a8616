"""Coupling certificates: a confidence statement about how close a chain is to π, from its own
starting law (docs/method.md §4, "Certificates").

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
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ._runner import check_count
from .coupling import MeetingTimes, meeting_times, tv_upper_bound
from .errors import UncertifiableError
from .lattice import IntegerLattice
from .samplers import tune_proposal
from .targets import Target

#: default confidence level of every certificate
LEVEL = 0.95
#: default threshold on the total variation distance
THRESHOLD = 0.01
#: quantiles of τ − L reported in a certificate
QUANTILES = (0.5, 0.9, 0.99)


class CertificationError(RuntimeError):
    """Nothing certified: the confidence bound never reached the threshold. The message says why."""


def clopper_pearson_upper(k, n: int, alpha: float) -> np.ndarray:
    """Exact one-sided (1 − ``alpha``) upper confidence bound on a binomial p from k successes in n:
    the p with P(Bin(n, p) ≤ k) = alpha, i.e. the (1 − alpha) quantile of Beta(k + 1, n − k); 1 at k = n."""
    from scipy.stats import beta

    k = np.asarray(k, dtype=np.int64)
    unique, where = np.unique(k, return_inverse=True)  # the lag route sums many terms of equal count
    with np.errstate(invalid="ignore", divide="ignore"):
        upper = np.where(unique >= n, 1.0, beta.ppf(1 - alpha, unique + 1, np.maximum(n - unique, 1)))
    return upper[where].reshape(k.shape)


def pairs_needed(threshold: float = THRESHOLD, level: float = LEVEL) -> int:
    """The fewest pairs whose bound can reach ``threshold`` at all: 1 − (1 − level)^{1/n} ≤ threshold
    (every pair met, one term)."""
    threshold, level = _check_threshold(threshold), _check_level(level)
    return math.ceil(math.log(1 - level) / math.log1p(-threshold))


def _check_unit(name: str, value, low: float) -> float:
    """A number in [low, 1): thresholds in (0, 1) (TV never exceeds 1), levels in [0.5, 1)."""
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
    """Meeting times of coupled pairs and what they certify (see the module docstring).

    ``lag`` None: Y started from π by exact draws (one term); else the L-lag bound. ``tau`` is each
    pair's meeting time (``max_iter`` where ``met`` is False)."""

    basis: str  # the sampler's basis, or the sampler where it has none
    lag: int | None
    n_pairs: int
    max_iter: int
    level: float
    threshold: float
    tau: np.ndarray
    met: np.ndarray
    seconds: float

    # ------------------------------------------------------------------ the bound
    @property
    def horizon(self) -> int:
        """H: the most coupled iterations a pair is given (τ − L ≤ H, else censored)."""
        return self.max_iter - (self.lag or 0)

    @property
    def n_censored(self) -> int:
        return int((~self.met).sum())

    @property
    def alpha(self) -> float:
        return 1.0 - self.level

    def _excess(self) -> np.ndarray:
        """τ − L of the pairs that met (censored pairs are handled as exceeding the horizon)."""
        return np.sort(self.tau[self.met] - (self.lag or 0))

    def _exceed(self, excess_sorted: np.ndarray, s: np.ndarray) -> np.ndarray:
        """#{pairs with τ − L > s} for each s (censored pairs exceed every s < H; counted always)."""
        return len(excess_sorted) - np.searchsorted(excess_sorted, s, side="right") + self.n_censored

    def _terms(self, t: int) -> np.ndarray:
        """The thresholds t + (j − 1)L of the terms short of the horizon (at least one)."""
        if self.lag is None:
            return np.array([t], dtype=np.int64)
        n_terms = max(1, -(-(self.horizon - t) // self.lag))
        return t + self.lag * np.arange(n_terms, dtype=np.int64)

    def bound(self, t) -> np.ndarray:
        """The (``level``) upper confidence bound on the coupling bound at iterations ``t``."""
        excess = self._excess()
        out = []
        for ti in _check_t(t):
            s = self._terms(int(ti))
            out.append(float(clopper_pearson_upper(self._exceed(excess, s), self.n_pairs, self.alpha / len(s)).sum()))
        return np.array(out)

    def estimate(self, t) -> np.ndarray:
        """The point estimate of the coupling bound at ``t`` (the papers' curve): the mean over pairs
        of max(0, ⌈(τ − L − t)/L⌉), or the share of pairs not met by t with an exact start. Censored
        pairs count as met at the horizon, so it is a lower end where any pair was censored."""
        t = _check_t(t)
        excess = np.where(self.met, self.tau - (self.lag or 0), self.horizon)
        if self.lag is None:
            return (excess[:, None] > t[None, :]).mean(axis=0)
        return tv_upper_bound(excess + self.lag, self.lag, t)

    @cached_property
    def t_cert(self) -> int | None:
        """The first t with :meth:`bound` ≤ ``threshold``; None if no t short of the horizon gets there."""
        if self.horizon < 1 or self.bound(self.horizon - 1)[0] > self.threshold:
            return None
        return _first_at_most(self.bound, self.horizon - 1, self.threshold)

    @cached_property
    def t_estimate(self) -> int | None:
        """The first t at which the point estimate drops below ``threshold`` — the papers' reading of
        their curves, not a bound (None where a censored pair leaves the estimate undetermined)."""
        if self.n_censored:
            return None
        return _first_at_most(self.estimate, int((self.tau - (self.lag or 0)).max()), self.threshold, strict=True)

    @property
    def certified(self) -> bool:
        return self.t_cert is not None

    # ------------------------------------------------------------------ words and records
    @property
    def coupling(self) -> str:
        return ("Y started from pi (exact draws); bound P(tau > t)" if self.lag is None
                else f"L-lag, L = {self.lag}; bound E[max(0, ceil((tau - L - t)/L))]")

    @property
    def status(self) -> str:
        """One line: what is certified, or why nothing is."""
        pct = f"{self.level:.0%}"
        if self.certified:
            return (f"certified: the {pct} upper confidence bound on the TV bound is <= {self.threshold:g} "
                    f"from iteration {self.t_cert} ({self.n_pairs} pairs)")
        floor = clopper_pearson_upper(self.n_censored, self.n_pairs, self.alpha)
        why = (f"{self.n_censored} of {self.n_pairs} pairs did not meet within {self.horizon} coupled iterations"
               if self.n_censored else f"{self.n_pairs} pairs cannot resolve {self.threshold:g}")
        return (f"not certified: {why}; the {pct} upper confidence bound stays above {self.threshold:g} "
                f"(at least {float(floor):.3g}; {pairs_needed(self.threshold, self.level)} pairs are the fewest "
                "that can reach it)")

    def require(self) -> Certificate:
        """Itself if certified, else a :class:`CertificationError` with :attr:`status`."""
        if not self.certified:
            raise CertificationError(self.status)
        return self

    def burn_in(self, floor: int = 0, margin: float = 0.0) -> int:
        """max(``floor``, ⌈t_cert · (1 + ``margin``)⌉): a burn-in at or past the certified iteration
        (a :class:`CertificationError` when nothing is certified)."""
        return max(int(floor), math.ceil(self.require().t_cert * (1 + float(margin))))

    def verdict(self, burn_in: int) -> str:
        """One line on the burn-in actually used: the bound there, and whether it is certified."""
        bound = float(self.bound(burn_in)[0])
        ok = bound <= self.threshold
        return (f"{'certified' if ok else 'not certified'} at burn-in {burn_in}: the {self.level:.0%} upper "
                f"confidence bound on the TV bound there is {bound:.3g} ({'<=' if ok else '>'} {self.threshold:g}; "
                f"{self.n_pairs} pairs, {self.coupling}); the point estimate is {float(self.estimate(burn_in)[0]):.3g}")

    def quantiles(self) -> dict[str, float]:
        """Quantiles of τ − L over the pairs (censored pairs count as +∞, never dropped)."""
        excess = np.where(self.met, self.tau - (self.lag or 0), np.inf).astype(float)
        out = {f"tau_minus_lag_q{round(q * 100)}": float(np.quantile(excess, q, method="higher"))
               for q in QUANTILES}
        out["tau_minus_lag_max"] = float(excess.max())
        return out

    def curve(self, n_points: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """(t, point estimate) on an even grid from 0 to past the last meeting, for figures (the
        confidence bound at any t is :meth:`bound`)."""
        hi = max(int(np.where(self.met, self.tau - (self.lag or 0), self.horizon).max()), 1)
        t = np.unique(np.linspace(0, hi, n_points).astype(np.int64))
        return t, self.estimate(t)

    def to_dict(self) -> dict:
        """Everything the certificate rests on, JSON-able (:meth:`from_dict` rebuilds it exactly)."""
        return {"basis": self.basis, "lag": self.lag, "n_pairs": self.n_pairs, "max_iter": self.max_iter,
                "level": self.level, "threshold": self.threshold, "tau": self.tau.tolist(),
                "met": self.met.tolist(), "seconds": self.seconds}

    @classmethod
    def from_dict(cls, d: dict) -> Certificate:
        """The certificate of :meth:`to_dict`'s record."""
        tau, met = np.asarray(d["tau"], dtype=np.int64), np.asarray(d["met"], dtype=bool)
        if tau.shape != met.shape or len(tau) != d["n_pairs"]:
            raise ValueError(f"a certificate record needs n_pairs = {d['n_pairs']} meeting times and flags, "
                             f"got {tau.shape} and {met.shape}")
        return cls(basis=str(d["basis"]), lag=None if d["lag"] is None else int(d["lag"]), n_pairs=int(d["n_pairs"]),
                   max_iter=int(d["max_iter"]), level=_check_level(d["level"]),
                   threshold=_check_threshold(d["threshold"]), tau=tau, met=met, seconds=float(d["seconds"]))

    def summary(self, burn_in: int | None = None) -> dict:
        """Flat JSON-able record (tables, netCDF attributes); ``t_star`` is :attr:`t_estimate`. With
        ``burn_in``, the bound there and the :meth:`verdict` as the status."""
        t_cert = self.t_cert
        out = {"basis": self.basis, "coupling": self.coupling, "lag": -1 if self.lag is None else self.lag,
               "pairs": self.n_pairs, "censored": self.n_censored, "max_iter": self.max_iter,
               "confidence_level": self.level, "threshold": self.threshold,
               "t_cert": -1 if t_cert is None else t_cert,
               "t_star": -1 if self.t_estimate is None else self.t_estimate, "status": self.status, **self.quantiles(),
               "certify_seconds": round(self.seconds, 3)}
        if burn_in is not None:
            bound = float(self.bound(burn_in)[0])
            out.update(burn_in=int(burn_in), tv_bound_at_burn_in=bound,
                       certified_at_burn_in=int(bound <= self.threshold),
                       tv_estimate_at_burn_in=float(self.estimate(burn_in)[0]), status=self.verdict(burn_in))
        return out


def _first_at_most(curve, hi: int, threshold: float, strict: bool = False) -> int:
    """The first t in [0, hi] with curve(t) ≤ threshold (< with ``strict``), for a curve that never
    increases in t and meets the condition at hi: bisection."""
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


def from_meetings(mt: MeetingTimes, basis: str, *, exact_start: bool, max_iter: int,
                  level: float = LEVEL, threshold: float = THRESHOLD) -> Certificate:
    """The :class:`Certificate` of measured meeting times (``exact_start``: Y was started from π, lag 0)."""
    if exact_start and mt.lag != 0:
        raise ValueError(f"an exact start couples at lag 0, got lag {mt.lag}")
    return Certificate(basis=basis, lag=None if exact_start else int(mt.lag), n_pairs=len(mt.tau),
                       max_iter=int(max_iter), level=_check_level(level), threshold=_check_threshold(threshold),
                       tau=np.asarray(mt.tau, dtype=np.int64), met=np.asarray(mt.met, dtype=bool),
                       seconds=float(mt.seconds))


def draw_states(start, n: int, what: str):
    """``n`` states from a starting law given as an array, a callable of n, or None (u = 0)."""
    if start is None or not callable(start):
        return start
    out = start(n)
    if out is None:
        raise ValueError(f"the {what} callable returned None; return an array of {n} states")
    return out


def certify(lattice: IntegerLattice, target: Target, *, proposal_eps: float,
            start: np.ndarray | Callable[[int], np.ndarray] | None, n_pairs: int, seed: int,
            lag: int | None = None, exact: np.ndarray | Callable[[int], np.ndarray] | None = None,
            level: float = LEVEL, threshold: float = THRESHOLD, max_iter: int = 1_000_000) -> Certificate:
    """Certify the sampler :func:`isdp.sample` on ``lattice`` (its basis), ``target`` and ``proposal_eps``.

    ``start`` is the chains' starting law: ``n_pairs`` states drawn from it (an array), a callable
    returning them given ``n_pairs``, or None for the point mass at 0; pair p's chain X starts at
    start[p]. With ``exact`` (draws from π itself, or a callable returning them) Y starts there and
    the pair is coupled at once (lag 0, one term); otherwise Y starts where X does and X runs
    ``lag`` iterations first. The pairs move under the coupled kernel until they meet or
    ``max_iter`` (:func:`isdp.coupling.meeting_times`). The returned certificate is certified when
    its ``level`` upper confidence bound reaches ``threshold``; see :class:`Certificate`.
    """
    n_pairs = check_count("n_pairs", n_pairs, 1)
    if (exact is None) == (lag is None):
        raise ValueError("give either exact (draws from pi: Y starts there, lag 0) or a lag, not both or neither")
    level, threshold = _check_level(level), _check_threshold(threshold)
    starts = draw_states(start, n_pairs, "start")
    mt = meeting_times(lattice, target, lag=0 if exact is not None else lag, n_pairs=n_pairs,
                       proposal_eps=proposal_eps, seed=seed, max_iter=max_iter, init=starts,
                       init_y=draw_states(exact, n_pairs, "exact"))
    return from_meetings(mt, lattice.basis_name,
                         exact_start=exact is not None, max_iter=max_iter, level=level, threshold=threshold)


def certify_searching_lag(lattice: IntegerLattice, target: Target, *, proposal_eps: float,
                          start: np.ndarray | Callable[[int], np.ndarray] | None, n_pairs: int, seed: int,
                          level: float = LEVEL, threshold: float = THRESHOLD,
                          max_iter: int = 1_000_000) -> Certificate:
    """:func:`certify` on the lag route with one term: each pair may take L coupled iterations after
    its lag L (``max_iter`` = 2L per pair, horizon L), with L = 16 × the longest meeting time of a
    16-pair pilot (lag 1, from ``start``, its own seed), at most ``max_iter`` / 2. The lag is fixed
    before the certifying pairs run and they run once: retrying with longer lags until one
    certifies would spend the confidence level once per try. Returns the certificate (certified
    or not); raises :class:`CertificationError` when a pilot pair does not meet within ``max_iter``."""
    pilot_start = start if start is None or callable(start) else np.asarray(start)[:16]
    pilot = meeting_times(lattice, target, lag=1, n_pairs=16, proposal_eps=proposal_eps, seed=seed,
                          max_iter=max_iter, init=draw_states(pilot_start, 16, "start"))
    if not pilot.met.all():
        raise CertificationError(f"{int((~pilot.met).sum())} of 16 pilot pairs did not meet within {max_iter} "
                                 "iterations")
    lag = max(1, min(max(16 * int(pilot.tau.max()), 50), max_iter // 2))
    return certify(lattice, target, proposal_eps=proposal_eps, start=start, lag=lag, n_pairs=n_pairs,
                   seed=seed + 1, level=level, threshold=threshold, max_iter=2 * lag)


def certify_augmented(lattice: IntegerLattice, target: Target, *,
                      start: np.ndarray | Callable[[int], np.ndarray] | None, lag: int, n_pairs: int, seed: int,
                      level: float = LEVEL, threshold: float = THRESHOLD, max_iter: int = 100_000) -> Certificate:
    """Certify :func:`augmented_sample` from the chains' starting law ``start`` (as :func:`isdp.certify`:
    an array of ``n_pairs`` states, a callable returning them, or None for u = 0), L-lag: the
    ``level`` upper confidence bound of :class:`isdp.Certificate`."""
    from .augmented import CHAIN_NAME, augmented_meeting_times

    mt = augmented_meeting_times(lattice, target, lag=lag, n_pairs=check_count("n_pairs", n_pairs, 1), seed=seed,
                                 max_iter=max_iter, init=draw_states(start, n_pairs, "start"))
    return from_meetings(mt, CHAIN_NAME, exact_start=False, max_iter=max_iter, level=level, threshold=threshold)


def certify_heat_bath(eps: float, *, start: np.ndarray | Callable[[int], np.ndarray], n_pairs: int, seed: int,
                      level: float = LEVEL, threshold: float = THRESHOLD, max_iter: int = 100_000) -> Certificate:
    """Certify the pair heat-bath chain (:func:`isdp.heat_bath_sweeps`) for exp(−ε‖u‖₁) on {Σu = 0} from
    its starting law ``start`` (``n_pairs`` states, or a callable returning them): Y starts at exact
    draws from π (:func:`isdp.sample_sum_constraint_l1`, own seed), the pairs move under the monotone
    coupling (:func:`isdp.heat_bath_meeting_times`), and the bound is the one term P(τ > t), t in sweeps."""
    from ._rng import derive_seed
    from .exact_laws import sample_sum_constraint_l1
    from .heat_bath import NAME, heat_bath_meeting_times

    n_pairs = check_count("n_pairs", n_pairs, 1)
    level, threshold = _check_level(level), _check_threshold(threshold)
    tick = time.perf_counter()
    starts = np.asarray(draw_states(start, n_pairs, "start"))
    if starts.ndim != 2 or len(starts) != n_pairs:
        raise ValueError(f"start must give {n_pairs} states as a (n_pairs, n) array, got shape {starts.shape}")
    exact = sample_sum_constraint_l1(starts.shape[1], eps, n_pairs, derive_seed(seed, "exact start"))
    mt = heat_bath_meeting_times(starts, exact, eps=eps, seed=seed, max_iter=max_iter)
    mt = replace(mt, seconds=time.perf_counter() - tick)  # the exact draws are part of the cost
    return from_meetings(mt, NAME, exact_start=True, max_iter=max_iter, level=level, threshold=threshold)


def certify_mis(A, a, center, *, eps: float, proposal_eps: float, index_set, n_pairs: int, seed: int,
                lag: int | None = None, B=None, b=None, init=None, level: float = LEVEL, threshold: float = THRESHOLD,
                max_iter: int = 1_000_000) -> Certificate:
    """Certify the Metropolized independence sampler (:func:`isdp.mis_sample`, same arguments) from its
    starting law (``init``, default s*, as the chains start). The pairs share every proposal and one
    uniform and meet when both accept (:func:`isdp.mis.mis_meeting_times`). ``lag`` None (default):
    Y starts at exact draws of the target (:func:`isdp.mis.mis_exact_sample`, own seed), lag 0, one
    term P(τ > t); else the L-lag route with both chains started at ``init``."""
    from ._rng import derive_seed
    from .mis import mis_exact_sample, mis_meeting_times

    level, threshold = _check_level(level), _check_threshold(threshold)
    n_pairs = check_count("n_pairs", n_pairs, 1)
    tick = time.perf_counter()
    exact = None if lag is not None else mis_exact_sample(A, a, center, eps=eps, index_set=index_set, size=n_pairs,
                                                          seed=derive_seed(seed, "exact start"), B=B, b=b)
    mt = mis_meeting_times(A, a, center, eps=eps, proposal_eps=proposal_eps, index_set=index_set,
                           lag=0 if lag is None else lag, n_pairs=n_pairs, seed=seed, B=B, b=b, init=init,
                           init_y=exact, max_iter=max_iter)
    mt = replace(mt, seconds=time.perf_counter() - tick)  # the exact draws are part of the cost
    return from_meetings(mt, "independence proposal (MIS)", exact_start=lag is None, max_iter=max_iter,
                         level=level, threshold=threshold)


#: proposal scales the release chain is tuned over (:func:`certify_chain`)
_CHAIN_PROPOSAL_GRID = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)


def certify_chain(lattice: IntegerLattice, target: Target, *, threshold: float, n_pairs: int, max_iter: int,
                  seed: int, on_step: Callable[[], object] | None = None) -> tuple[float, Certificate]:
    """The release chain's (:mod:`isdp.release`) proposal scale and its certified :class:`Certificate`.

    The proposal is tuned on :data:`_CHAIN_PROPOSAL_GRID`; the pairs start at u = 0, as the release
    chain does (:func:`certify_searching_lag`: one term, the lag fixed by a pilot before the pairs
    run, within ``max_iter``). The chain runs ``certificate.burn_in(1)`` iterations, where the bound
    is at most ``threshold``. Raises :class:`~isdp.errors.UncertifiableError` when ``n_pairs``
    cannot resolve ``threshold`` at all, when a pilot pair has not met within ``max_iter``
    iterations, or when the bound never reaches ``threshold``. ``on_step`` is called after the
    tuning and after the pairs (progress that says nothing about the counts).
    """
    step = on_step or (lambda: None)
    if n_pairs < pairs_needed(threshold):
        raise UncertifiableError(f"a TV bound of {threshold:.3g} is below what {n_pairs} coupled pairs can resolve at "
                                 f"95 % ({pairs_needed(threshold)} are needed): raise --pairs")
    _, proposal_eps = tune_proposal(lattice, target, _CHAIN_PROPOSAL_GRID, n_chains=2, n_iter=1000, seed=seed)
    step()
    try:
        cert = certify_searching_lag(lattice, target, proposal_eps=proposal_eps, start=None, n_pairs=n_pairs,
                                     seed=seed + 1, threshold=threshold, max_iter=max_iter)
    except CertificationError as err:
        raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {err}; raise "
                                 "--max-iter, use the l1 norm (exact sampler) or fewer cells") from None
    step()
    if not cert.certified:
        raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {cert.status}; raise "
                                 "--max-iter, use the l1 norm (exact sampler) or fewer cells")
    return float(proposal_eps), cert
