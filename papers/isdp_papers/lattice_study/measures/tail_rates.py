"""The ℓ1 noise's sub-exponential tail (ISDP Thm 12 (7)).

The rate fitted to the run's draws, read two- and one-sidedly, and the rate of the exact law on small lattices.
"""

from __future__ import annotations

import numpy as np

from isdp.convergence import load_draws
from isdp_papers.claims import Measurement, Run

from .sampler_kernel import _small_lattice


def l1_tail_rate(run: Run, paper, *, exp: str, quantile: float) -> Measurement:
    """ISDP Thm 12 (7).

    The exponential rate of the ℓ1 draws' norm above its ``quantile``, fitted in the family k^{r−1} e^{−λk}
    (:func:`~isdp_papers.lattice_study.tails.tail_rate`), over ε: 1 for a sub-exponential tail of rate ε. The SE counts
    the draws at the norm's ESS across chains (ArviZ).
    """
    from isdp.convergence import ess as arviz_ess
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.tails import tail_rate
    from isdp_papers.problems import Problem

    A = Problem.from_json(run.path(f"{exp}/problem.json")).A  # int64, checked when the problem was read
    rank = A.shape[1] - int(np.linalg.matrix_rank(A))
    draws = load_draws(
        run.path(f"{exp}/draws_l1.nc"),
        A=A,  # integer, on Λ(A), of the ℓ1 target
        target=generalized_laplace(run.config[exp]["eps"], "l1").label,
    )
    norms = np.abs(draws).sum(axis=2)  # (chains, draws)
    ess = float(arviz_ess(norms, method="bulk"))
    eps = float(run.config[exp]["eps"])
    fit = tail_rate(norms, rank, int(np.quantile(norms, quantile)), ess_fraction=min(1.0, ess / norms.size))
    return Measurement(
        fit.rate / eps,
        f"λ̂/ε = {fit.rate / eps:.3f} ± {fit.se / eps:.3f} (λ̂ = {fit.rate:.4f}, ε = "
        f"{eps:g}; rank {rank}, norms ≥ {fit.threshold} in steps of {fit.step}: "
        f"{fit.n_tail} of {norms.size} draws, ESS of the norm {ess:.0f})",
        se=fit.se / eps,
        n=int(norms.size),
    )


def l1_tail_rate_floor(run: Run, paper, *, exp: str, quantile: float) -> Measurement:
    """ISDP Thm 12 (7) read one-sidedly: the tail is at least as light as the rate ``paper`` (in units of ε).

    The fitted rate of :func:`l1_tail_rate` as a z-score against it, (λ̂/ε − paper)/SE: a heavier tail is negative.
    """
    fit = l1_tail_rate(run, paper, exp=exp, quantile=quantile)
    z = (fit.value - float(paper)) / fit.se
    return Measurement(z, f"z = {z:+.2f} ({fit.text})", n=fit.n)


def _exact_tail_rate(law, rank: int, window: list[int]) -> tuple[float, int, int, float, float]:
    """Return the exponential rate of P(‖u‖₁ ≥ t)/t^{rank−1} between the two ends of ``window``, conservatively.

    Each end is raised to the next norm the lattice attains (a multiple of the norms' gcd); the rate is computed from
    ``law`` (an :class:`isdp.privacy.TruncatedLaw` on a box), taken conservatively: the box's left-out mass
    (``law.outside``, relative to the mass inside) lowers the tail at the first end by at most the factor 1 + outside
    and raises it at the second by at most outside. Returns (rate, t1, t2, T(t1) lower, T(t2) upper).
    """
    norms = np.abs(law.points).sum(axis=1)
    step = int(np.gcd.reduce(norms))
    t1, t2 = (int(t) + (-int(t) % step) for t in window)
    low = float(law.probs[norms >= t1].sum()) / (1 + law.outside)
    high = float(law.probs[norms >= t2].sum()) + law.outside
    rate = (np.log(low / t1 ** (rank - 1)) - np.log(high / t2 ** (rank - 1))) / (t2 - t1)
    return float(rate), t1, t2, low, high


def l1_tail_exact(
    run: Run, paper, *, lattices: list[str], eps: list[float], window: list[int], radius: int, law_scale: float = 1.0
) -> Measurement:
    """ISDP Thm 12 (7) on the exact law, without draws and without the lost constant.

    P(‖u‖₁ ≥ t) ≤ c t^{r−1} e^{−εt} for large t means T(t) e^{εt}/t^{r−1} does not grow, i.e. the exponential rate of
    T(t)/t^{r−1} over ``window`` is at least ε. The ℓ1 law is the exact route's, from its construction
    (:func:`isdp.privacy.exact_route_noise` on the box |u_free|∞ ≤ ``radius``, which holds every point of norm ≤
    radius), on each of ``lattices`` (:func:`.sampler_kernel._small_lattice`) at each ε of ``eps``; ``law_scale`` < 1
    draws the law at that multiple of ε instead (a heavier tail) while the rate is still divided by ε. The value is the
    smallest rate / ε.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import exact_route_noise

    rates, parts = [], []
    for name in lattices:
        lattice = _small_lattice(name)
        sampler = IntegerL1Sampler.build(lattice.A)
        for e in eps:
            law = exact_route_noise(sampler, Fraction(str(e)) * Fraction(str(law_scale)), radius)
            rate, t1, t2, low, high = _exact_tail_rate(law, lattice.dim, window)
            rates.append(rate / e)
            parts.append(
                f"{name} (r = {lattice.dim}) at ε = {e:g}: λ/ε = {rate / e:.4f} (T({t1}) ≥ {low:.3g}, "
                f"T({t2}) ≤ {high:.3g}, left out ≤ {law.outside:.0e})"
            )
    return Measurement(
        min(rates),
        f"smallest exact tail rate λ/ε = {min(rates):.4f} over t ∈ [{window[0]}, "
        f"{window[1]}] beyond t^(r−1) ({'; '.join(parts)})",
        n=len(rates),
    )
