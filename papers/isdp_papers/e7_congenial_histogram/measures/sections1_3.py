"""Measures of Congenial DP §1–§3 outside Example 4.1.

The definitions and noise laws of §1.3–1.4 with App. B's Double Geometric, and §3's simulation law.

Statements: Def 1.1's sensitivity (``binary_sensitivity``); the Double Geometric (1.3) as printed, its level
(``dg_level``, Def 1.2), its pmf against App. B's CDF (``dg_pmf_printed_checks``), App. B's CDF
(``dg_cdf_printed_gap``) and quantile function (``dg_quantile_exact``); the noise variance in ε
(``noise_variance_in_eps``, :data:`NOISE_VARIANCE`) and the vanishing mass of bounded sets (``noise_mass_vanishes``,
§1.4); Theorem 1.3's posterior bound (``posterior_bound``) and (1.6)'s limit (``posterior_shift_limit``); §3's
negative binomial moments (``negbin_moments``, ``negbin_printed_moments``).
"""

from __future__ import annotations

import math

import numpy as np

from isdp.mcmc import DoubleGeometric
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e7_congenial_histogram import neighbours as nbr
from isdp_papers.e7_congenial_histogram import printed_dg as pdg
from isdp_papers.e7_congenial_histogram import privacy_levels as pl
from isdp_papers.e7_congenial_histogram import releases as rel


def dg_quantile_exact(run: Run, paper) -> Measurement:
    """Whether the App. B quantile is the generalized inverse of the DG CDF for every uniform drawn."""
    dg = ec.table(
        run,
        "e7_dg_quantile",
        key="eps",
        keys=run.config["e7"]["dg_check"]["eps"],
        positive=["eps"],
        count=["n_inverse_ok", "n_draws"],
        probability=["p_value"],
    )
    if (dg["n_inverse_ok"] > dg["n_draws"]).any() or (dg["n_draws"] == 0).any():
        raise ec.EvidenceError(f"{run.path('tables/e7_dg_quantile.csv')}: n_inverse_ok not within 0..n_draws > 0")
    ok = bool((dg["n_inverse_ok"] == dg["n_draws"]).all())
    return Measurement(
        ok,
        f"{int(dg['n_inverse_ok'].sum()):,} of {int(dg['n_draws'].sum()):,} uniforms mapped to "
        f"q with F(q − 1) < v ≤ F(q) at ε = {', '.join(f'{e:g}' for e in dg['eps'])}; chi-square "
        f"p = {', '.join(f'{p:.2f}' for p in dg['p_value'])}",
    )


def negbin_moments(run: Run, paper) -> Measurement:
    """Mean and variance of the §3 cell law in the parametrisation E5 uses (numpy/scipy: successes, p)."""
    from scipy import stats

    sim = run.config["e5"]["simulation"]
    law = stats.nbinom(sim["nb_n"], sim["nb_p"])
    value = {"mean": float(law.mean()), "variance": float(law.var())}
    other = stats.nbinom(sim["nb_n"], 1 - sim["nb_p"])
    return Measurement(
        value,
        f"NegativeBinomial({sim['nb_n']}, {sim['nb_p']:g}): mean {value['mean']:.4f}, variance {value['variance']:.4f}",
        note=f"the other reading (success probability {1 - sim['nb_p']:g}) has mean "
        f"{other.mean():.0f}: the printed moments fix the parametrisation",
    )


def posterior_bound(run: Run, paper, *, priors, linked: int = 1) -> Measurement:
    """Measure Theorem 1.3: the largest |log(posterior/prior)| / ε of one record over releases, priors and ε.

    With ``linked`` records moving together (:func:`privacy_levels.posterior_shift`); the note: a prior under which a
    second record always equals x_i.
    """

    def worst(k):
        return max(pl.posterior_shift(e, priors, linked=k) / e for e in run.config["e7"]["eps_grid"])

    value = worst(linked)
    return Measurement(
        value,
        f"max |log(posterior/prior)| = {value:.6f} ε over {len(priors)} priors and "
        f"{len(run.config['e7']['eps_grid'])} ε (the bound is 1 ε)",
        note=f"a prior on the whole database in which a second record always equals x_i (the records "
        f"not independent): {worst(2):.4f} ε",
    )


def dg_level(run: Run, paper, *, sensitivities) -> Measurement:
    """Measure Def 1.2: the attained level / ε of the Double Geometric mechanism (1.3), a = exp(−ε/∇).

    On integer queries of sensitivity ∇, worst over ∇ and the ε grid.
    """
    levels = [pdg.dg_level(e, d) / e for e in run.config["e7"]["eps_grid"] for d in sensitivities]
    return Measurement(
        max(levels),
        f"level / ε from {min(levels):.12f} to {max(levels):.12f} over ∇ ∈ "
        f"{list(sensitivities)} and {len(run.config['e7']['eps_grid'])} ε",
    )


def binary_sensitivity(run: Run, paper, *, n_max: int) -> Measurement:
    """Measure Def 1.1: ∇ of the counting and the histogram query on binary databases, by enumeration.

    With n = 1..n_max, under §1.3's bounded neighbours and the L1 norm.
    """
    value = {q: nbr.sensitivity(q, n_max) for q in ("count", "histogram")}
    other = {
        q: (
            nbr.sensitivity(q, n_max, norm=2),
            nbr.sensitivity(q, n_max, norm=np.inf),
            nbr.sensitivity(q, n_max, neighbours="add/remove"),
        )
        for q in value
    }
    return Measurement(
        value,
        f"L1, bounded neighbours: count {value['count']:g}, histogram {value['histogram']:g} (n = 1..{n_max})",
        note="; ".join(
            f"{q}: L2 {v[0]:.4g}, L∞ {v[1]:g}, add/remove neighbours (L1) {v[2]:g}" for q, v in other.items()
        ),
    )


def dg_cdf_printed_gap(run: Run, paper, *, reach: int) -> Measurement:
    """Measure App. B: the largest |printed F(u) − P(U ≤ u)| for u = −reach..reach.

    Over the ε of the App. B check and the grid (P from SciPy's discrete Laplace, isdp.mcmc.DoubleGeometric.cdf).
    """
    u = np.arange(-reach, reach + 1)
    eps = sorted({*run.config["e7"]["dg_check"]["eps"], *run.config["e7"]["eps_grid"]})
    gap = max(float(np.abs(pdg.dg_cdf_printed(u, e) - DoubleGeometric(e).cdf(u)).max()) for e in eps)
    return Measurement(
        gap,
        f"largest |printed F − CDF| = {gap:.1e} for u = −{reach}..{reach} at ε = {', '.join(f'{e:g}' for e in eps)}",
        n=len(eps) * len(u),
    )


# Var of each §1.3 noise law at (ε, ∇): Laplace scale ∇/ε, Double Geometric (1.3) with a = exp(−ε/∇).
NOISE_VARIANCE = {
    "Laplace": lambda eps, sensitivity: rel.laplace_variance_of_scale(sensitivity / eps),
    "Double Geometric": lambda eps, sensitivity: DoubleGeometric(eps / sensitivity).variance(),
}


def noise_variance_in_eps(
    run: Run, paper, *, sensitivities, eps_min: float, eps_max: float, n_grid: int
) -> Measurement:
    """Measure §1.3-1.4: how the closed-form noise variance of each law in :data:`NOISE_VARIANCE` moves with ε.

    Per ∇ in ``sensitivities``, on ``n_grid`` geometric ε from ``eps_min`` to ``eps_max``: ``decreasing in ε`` —
    strictly at every step; ``unbounded as ε → 0`` — ε² Var / ∇² at least 1 at every ε ≤ ∇ of the grid, i.e. Var ≥
    ∇²/ε², which no bounded variance meets as ε → 0.
    """
    eps = np.geomspace(eps_min, eps_max, n_grid)
    steepest, floor, parts = 0.0, np.inf, []
    for law, variance in NOISE_VARIANCE.items():
        for d in sensitivities:
            v = np.array([variance(e, d) for e in eps])
            steepest = max(steepest, float((v[1:] / v[:-1]).max()))
            near_zero = eps <= d
            floor = min(floor, float((eps[near_zero] ** 2 * v[near_zero]).min() / d**2))
            parts.append(f"{law} ∇ = {d:g}: Var {v[0]:.3g} at ε = {eps[0]:g}, {v[-1]:.3g} at {eps[-1]:g}")
    value = {"decreasing in ε": steepest < 1, "unbounded as ε → 0": floor >= 1}
    return Measurement(
        value,
        f"largest Var(ε')/Var(ε) over grid steps ε < ε' {steepest:.4g}; smallest ε² Var/∇² at "
        f"ε ≤ ∇ {floor:.4g} (the limit is 2) — " + "; ".join(parts),
        note=f"{n_grid} ε from {eps_min:g} to {eps_max:g}, geometric",
    )


def negbin_printed_moments(run: Run, paper, *, size: float, prob: float) -> Measurement:
    """Measure §3: the mean and variance of NegativeBinomial(``size``, ``prob``).

    In SciPy's nbinom and R's dnbinom convention (failures before the ``size``-th success, success probability
    ``prob``); the other convention in the note.
    """
    from scipy import stats

    law, swapped = stats.nbinom(size, prob), stats.nbinom(size, 1 - prob)
    value = {"mean": float(law.mean()), "variance": float(law.var())}
    return Measurement(
        value,
        f"nbinom({size:g}, {prob:g}): mean {value['mean']:.6g}, variance {value['variance']:.6g}",
        note=f"with {prob:g} the failure probability (nbinom({size:g}, {1 - prob:g}), what E5 "
        f"simulates): mean {swapped.mean():.4f}, variance {swapped.var():.4f}",
    )


def dg_pmf_printed_checks(run: Run, paper, *, sensitivities) -> Measurement:
    """(1.3) as printed, a = exp(−ε/∇).

    Its total mass over u = −R..R, R = ⌈40 ∇/ε⌉ (the rest is below e^{−40}), farthest from 1 over ∇ ∈ ``sensitivities``
    and the E7 ε grid; and its largest gap to the differences F(u) − F(u − 1) of App. B's printed CDF (a = exp(−ε), ∇ =
    1) on u = −R..R.
    """
    eps_grid = run.config["e7"]["eps_grid"]
    mass, diff_gap = 1.0, 0.0
    for e in eps_grid:
        for d in sensitivities:
            u = np.arange(-math.ceil(40 * d / e), math.ceil(40 * d / e) + 1)
            total = float(np.exp(pdg.dg_logpmf_printed(u, e, d)).sum())
            mass = total if abs(total - 1.0) > abs(mass - 1.0) else mass
        u = np.arange(-math.ceil(40 / e), math.ceil(40 / e) + 1)
        diff = pdg.dg_cdf_printed(u, e) - pdg.dg_cdf_printed(u - 1, e)
        diff_gap = max(diff_gap, float(np.abs(np.exp(pdg.dg_logpmf_printed(u, e)) - diff).max()))
    value = {"total mass": mass, "F(u) − F(u − 1) gap": diff_gap}
    return Measurement(
        value,
        f"total mass farthest from 1: {mass:.15f} (∇ ∈ {list(sensitivities)}); largest "
        f"|p(u) − (F(u) − F(u − 1))| {diff_gap:.1e}; {len(eps_grid)} ε",
    )


def noise_mass_vanishes(
    run: Run, paper, *, sensitivities, window: int, eps_min: float, eps_max: float, n_grid: int
) -> Measurement:
    """Measure §1.4: the probability each §1.3 noise law gives a bounded window, over (2 ``window`` + 1) ε.

    The laws are Lap(∇/ε) and (1.3) with a = exp(−ε/∇); the window is |u| ≤ ``window``; the largest over ∇ ∈
    ``sensitivities`` and ``n_grid`` geometric ε from ``eps_min`` to ``eps_max``: at most 1 means no point carries more
    than ε of mass, so every bounded set's mass vanishes with ε (no proper limit).
    """
    from scipy import stats

    eps = np.geomspace(eps_min, eps_max, n_grid)
    u = np.arange(-window, window + 1)
    worst, parts = 0.0, []
    for d in sensitivities:
        lap = np.array([stats.laplace.cdf(window, scale=d / e) - stats.laplace.cdf(-window, scale=d / e) for e in eps])
        dg = np.array([np.exp(pdg.dg_logpmf_printed(u, e, d)).sum() for e in eps])
        for law, mass in (("Laplace", lap), ("Double Geometric", dg)):
            worst = max(worst, float((mass / ((2 * window + 1) * eps)).max()))
            parts.append(f"{law} ∇ = {d:g}: {mass[0]:.2e} at ε = {eps[0]:g}")
    return Measurement(
        worst,
        f"largest P(|U| ≤ {window}) / ({2 * window + 1} ε) {worst:.4f} — " + "; ".join(parts),
        note=f"{n_grid} ε from {eps_min:g} to {eps_max:g}, geometric",
        n=n_grid,
    )


def posterior_shift_limit(run: Run, paper, *, priors, eps_values, n_grid: int) -> Measurement:
    """Measure (1.6): the largest |log(posterior/prior)| of one record at each ε of ``eps_values``.

    The release is Example 4.1's unconstrained two-bin release, as in CDP-E7-posterior-bound, with ``n_grid`` points per
    coordinate; the value is the shift at the smallest ε.
    """
    shifts = {float(e): pl.posterior_shift(e, priors, n_grid=n_grid) for e in eps_values}
    e_min = min(shifts)
    return Measurement(
        shifts[e_min],
        "max |log(posterior/prior)|: "
        + ", ".join(f"ε = {e:g}: {v:.3g}" for e, v in sorted(shifts.items(), reverse=True))
        + f" ({len(priors)} priors)",
    )
