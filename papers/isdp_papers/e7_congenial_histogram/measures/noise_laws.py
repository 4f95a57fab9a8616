"""Measures of the noise m1 − s1 of Congenial DP Example 4.1's releases.

The laws are those of :mod:`isdp_papers.e7_congenial_histogram.noise_laws`: M*'s (4.6), f_L2's printed mixture (4.7),
f_L1's (A.1) with App. A's Remarks I–II.

Statements: M*'s noise by conditioning on a thin slab (``conditioning_ks``); the simulated f_L2 noise against the
printed mixture (``l2_mixture_ks``), whose signed Gamma is no sum of two Laplaces (``signed_gamma_is_laplace_sum``)
and whose variance is that of more than one Laplace (``mixture_over_laplace_variance``); the f_L1 noise against
(A.1) (``l1_law_ks``), its printed weights (``remark1_weights``), and App. A's joint density and integrals I₁–I₃
behind it (``a1_region_integrals``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run, fmt_se
from isdp_papers.e7_congenial_histogram import noise_laws as nl
from isdp_papers.e7_congenial_histogram import releases as rel
from isdp_papers.e7_congenial_histogram.measures.table2 import _rows


def _noise(run: Run) -> dict[str, np.ndarray]:
    """``e7/noise.npz``: the simulated f_L2 noise, one row of finite draws per ε > 0 of ``eps``."""
    path = run.path("e7/noise.npz")

    def read(p):
        with np.load(p) as f:
            return {k: f[k] for k in ("l2", "eps")}

    noise, where = ec.load(path, read, "noise file"), str(path)
    ec.check_values(noise["eps"], where, "eps", "positive")
    ec.check_values(noise["l2"], where, "l2")
    if noise["l2"].ndim != 2 or noise["eps"].ndim != 1 or noise["l2"].shape[0] != noise["eps"].size:
        raise ec.EvidenceError(f"{where}: l2 {noise['l2'].shape} is not one row of draws per ε of {noise['eps'].shape}")
    return noise


def _components(paper) -> list[dict]:
    return [dict(c) for c in paper["components"]]


def l2_mixture_ks(run: Run, paper) -> Measurement:
    """KS p-values of the simulated f_L2 noise (in units of 1/ε) against the paper's mixture, per ε."""
    from scipy import stats

    comps = _components(paper)
    noise = _noise(run)
    p = [stats.kstest(v.astype(float), lambda t: nl.mixture(t, comps, cdf=True)).pvalue for v in noise["l2"]]
    t = np.linspace(-40, 40, 8001)
    gap = np.abs(nl.mixture(t, comps) - nl.noise_pdf(t, "l2", 1.0)).max()
    return Measurement(
        p,
        f"KS p = {', '.join(f'{v:.2f}' for v in p)} at ε = "
        f"{', '.join(f'{e:g}' for e in noise['eps'])} ({noise['l2'].shape[1]:,} draws each); "
        f"sup |paper mixture − exact density (A.2)| = {gap:.1e} (units of ε)",
    )


def signed_gamma_is_laplace_sum(run: Run, paper, *, shape: float) -> Measurement:
    """Whether a signed Gamma(shape, b) has the law of the sum of two i.i.d. Lap(b) (b = 1)."""
    from scipy import stats

    sg = [{"law": "signed_gamma", "weight": 1.0, "shape": shape, "scale": 1.0}]
    t = np.linspace(-40, 40, 8001)
    gap = float(np.abs(nl.mixture(t, sg) - nl.laplace_sum_pdf(t, 1.0)).max())
    var_sg, var_sum = nl.mixture_variance(sg), 2 * rel.laplace_variance_of_scale(1.0)
    noise = _noise(run)
    p = stats.kstest(noise["l2"][0].astype(float), lambda v: nl.mixture(v, sg, cdf=True)).pvalue
    return Measurement(
        bool(gap < 1e-9 and np.isclose(var_sg, var_sum)),
        f"variances {var_sg:g} b² (signed Gamma) vs {var_sum:g} b² (sum of two Lap(b)); sup density "
        f"gap {gap:.3f}/b; f_L2 noise (a sum of two Lap(1/ε)) against the signed Gamma: KS p = {p:.1e}",
        note="the conclusion drawn from it holds: ũ, itself a sum of two i.i.d. Lap(1/ε), has variance 4/ε² > 2/ε²",
    )


def l1_law_ks(run: Run, paper) -> Measurement:
    """KS p-values of the simulated f_L1 noise against (A.1) (every β and ε)."""
    rows = _rows(run, "l1", probability=["ks_p"])
    lo, hi = nl.signed_weights(0.75)
    return Measurement(
        rows["ks_p"].to_numpy(),
        f"min KS p = {rows['ks_p'].min():.3f} over {len(rows)} (β, ε) "
        f"settings; (A.1) weights at β = 3/4: {lo:g} and {hi:g} (sum "
        f"{lo + hi:g})",
    )


def conditioning_ks(run: Run, paper) -> Measurement:
    """KS p-value of base noise conditioned on a thin slab |u1 + u2| < w/ε against Lap(1/ε)."""
    r = ec.table(
        run,
        "e7_conditioning",
        rows=1,
        probability=["ks_p", "ks_p_base_law"],
        count=["n_accepted"],
        positive=["window", "eps", "se_var_coef", "exact_var_coef"],
        nonnegative=["var_coef"],
    ).iloc[0]
    return Measurement(
        [float(r["ks_p"])],
        f"KS p = {r['ks_p']:.2f} ({int(r['n_accepted']):,} kept pairs, slab "
        f"{r['window']:g}/ε, ε = {r['eps']:g}); ε² Var = "
        f"{fmt_se(r['var_coef'], r['se_var_coef'])} (exact "
        f"{r['exact_var_coef']:g}); vs the base law Lap(2/ε): p = "
        f"{r['ks_p_base_law']:.1e}",
    )


def mixture_over_laplace_variance(run: Run, paper, *, components) -> Measurement:
    """Var of the printed f_L2 noise mixture over Var of one Laplace of the same scale (units of 1/ε)."""
    comps = [dict(c) for c in components]
    ratio = nl.mixture_variance(comps) / rel.laplace_variance_of_scale(1.0)
    return Measurement(
        ratio,
        f"Var ũ = {nl.mixture_variance(comps):g}/ε² against Var Lap(1/ε) = "
        f"{rel.laplace_variance_of_scale(1.0):g}/ε²: ratio {ratio:g}",
    )


def remark1_weights(run: Run, paper, *, n_beta: int) -> Measurement:
    """App. A Remark I.

    The printed weights of (A.1) on a grid of β in (0, 1) without 1/2: the sum farthest from 1 and whether the two
    weights have opposite signs at every β.
    """
    betas = np.linspace(0.0, 1.0, n_beta + 2)[1:-1]
    betas = betas[np.abs(betas - 0.5) > 1e-9]
    w = np.array([nl.a1_weights(b) for b in betas])
    total = w.sum(axis=1)
    worst = float(total[np.abs(total - 1).argmax()])
    return Measurement(
        {"sum": worst, "opposite_signs": bool(np.all(w[:, 0] * w[:, 1] < 0))},
        f"weight sums from {total.min():.15f} to {total.max():.15f}; opposite signs at "
        f"{int(np.sum(w[:, 0] * w[:, 1] < 0))} of {len(betas)} β",
        n=len(betas),
    )


def a1_region_integrals(run: Run, paper, *, betas, points) -> Measurement:
    """Measure App. A: the printed joint density and I₁, I₂, I₃ against the two Laplace densities and integration.

    The printed joint density p_ε(ũ, u2) against the two Laplace densities through the change of variables (Jacobian
    1/β), and the printed I₁, I₂, I₃ against numerical integration of that density over u2 < 0, 0 ≤ u2 ≤ ũ/(1 − β), u2 >
    ũ/(1 − β), at ũ = ``points``/ε, β ∈ ``betas`` (≠ 1/2) and the ε grid: the largest relative gap (ũ > 0: at 0, I₂ is
    0).
    """
    from scipy import integrate, stats

    joint_gap, region_gap = [], []
    for e in run.config["e7"]["eps_grid"]:
        lap = stats.laplace(scale=rel.base_scale(e))
        for beta in betas:
            for u in np.asarray(points, dtype=float) / e:
                u2 = np.linspace(-30.0, 30.0, 121) / e
                direct = lap.pdf((u - (1.0 - beta) * u2) / beta) * lap.pdf(u2) / beta
                joint_gap.append(np.abs(nl.a1_joint_density(u, u2, e, beta) / direct - 1).max())
                f = partial(nl.a1_joint_density, u, eps=e, beta=beta)
                knot = u / (1.0 - beta)
                numeric = (
                    integrate.quad(f, -np.inf, 0.0, epsabs=0, epsrel=1e-12)[0],
                    integrate.quad(f, 0.0, knot, epsabs=0, epsrel=1e-12)[0],
                    integrate.quad(f, knot, np.inf, epsabs=0, epsrel=1e-12)[0],
                )
                printed = nl.a1_region_integrals(u, e, beta)
                region_gap.append(np.abs(np.asarray(printed) / numeric - 1).max())
    joint_gap, region_gap = float(np.max(joint_gap)), float(np.max(region_gap))  # a NaN stays NaN: an error
    value = max(joint_gap, region_gap)
    return Measurement(
        value,
        f"largest relative gap: joint density {joint_gap:.1e} (against the Laplace pair, "
        f"Jacobian 1/β), I₁–I₃ {region_gap:.1e} (against quadrature) at β ∈ {list(betas)}, "
        f"ũ ε ∈ {list(points)} and {len(run.config['e7']['eps_grid'])} ε",
    )
