"""The exponential rate of the ℓ1 noise's tail (ISDP §3.2 Thm 12 (7), with Lemma 11's point count).

Under the ℓ1 generalized Laplace law π(u) ∝ exp(−ε‖u‖₁) on a lattice of rank r, the norm k = ‖u‖₁
has P(k) ∝ N_k e^{−εk}, where N_k, the number of lattice points of norm k, grows like k^{r−1}
(Lemma 11: the points in a ball of radius k number about its volume, ∝ k^r). So the tail is
sub-exponential with rate ε: P(k) ∝ k^{r−1} e^{−λk} with λ = ε, on the norms the lattice attains
(multiples of their greatest common divisor, e.g. even norms when the cells sum to 0).

:func:`tail_rate` estimates λ from draws by maximum likelihood in that family, restricted to the
norms at or above a threshold (the tail; the k^{r−1} count is an approximation that improves with
k). The family is exponential in λ with sufficient statistic k, so the estimate solves
E_λ[k | k ≥ threshold] = the draws' mean there, and its variance is 1 / (n Var_λ(k)) for n
independent tail draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

_SUPPORT_SPAN = 50  # the family's support reaches this many times the tail draws' range past the threshold
_RATE_RANGE = (1e-6, 20.0)  # λ · step bracket for the root


@dataclass(frozen=True)
class TailRate:
    """The fitted rate, its standard error for ``n_effective`` independent tail draws, and the fit's inputs."""

    rate: float
    se: float
    threshold: int
    step: int
    n_tail: int
    n_effective: float


def tail_rate(norms, rank: int, threshold: int, *, ess_fraction: float = 1.0) -> TailRate:
    """Maximum-likelihood λ of P(k) ∝ k^{rank−1} e^{−λk} on the attained norms k ≥ ``threshold``.

    ``norms``: ‖u‖₁ of each draw (integers); ``ess_fraction``: effective sample size over the number of
    draws (1 for independent draws; the chains' ESS ratio for MCMC draws), which scales the standard
    error. Raises ValueError when fewer than two distinct tail norms leave the rate undetermined.
    """
    norms = np.asarray(norms, dtype=np.int64).ravel()
    if rank < 1 or not 0 < ess_fraction <= 1:
        raise ValueError(f"rank must be >= 1 and ess_fraction in (0, 1], got {rank}, {ess_fraction}")
    step = int(np.gcd.reduce(norms)) or 1
    threshold = max(int(threshold), step)
    threshold += -threshold % step  # the first attained norm at or above it
    tail = norms[norms >= threshold]
    if np.unique(tail).size < 2:
        raise ValueError(f"{tail.size} draws at or above {threshold} with fewer than two distinct norms")
    # truncated far beyond the draws: at the fitted rate the mass left out is about e^-(span · λ · range)
    k = threshold + step * np.arange(_SUPPORT_SPAN * (int(tail.max()) - threshold) // step + 2, dtype=float)
    log_count = (rank - 1) * np.log(k)

    def moments(lam: float) -> tuple[float, float]:
        w = log_count - lam * k
        p = np.exp(w - logsumexp(w))
        mean = float(p @ k)
        return mean, float(p @ (k - mean) ** 2)

    target = float(tail.mean())
    rate = brentq(lambda lam: moments(lam)[0] - target, _RATE_RANGE[0] / step, _RATE_RANGE[1] / step, xtol=1e-12)
    n_eff = tail.size * ess_fraction
    return TailRate(
        rate=rate,
        se=1 / math.sqrt(n_eff * moments(rate)[1]),
        threshold=threshold,
        step=step,
        n_tail=int(tail.size),
        n_effective=n_eff,
    )


__all__ = ["TailRate", "tail_rate"]
