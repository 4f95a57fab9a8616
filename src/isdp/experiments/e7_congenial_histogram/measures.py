"""Measures of E7: Congenial DP Example 4.1 (Table 2, the noise laws, privacy levels) and §3, §5.1, App. B."""

from __future__ import annotations

import itertools
import math
from functools import partial

import numpy as np
from scipy import stats

import isdp.experiments.e7_congenial_histogram.congenial as cg
from isdp.double_geometric import dg_cdf, dg_variance
from isdp.experiments.claims import Measurement, Run, fmt_se


def _symbols(run: Run) -> dict[str, float]:
    """The values of Table 2's symbols at the configured histogram: s1, s2 and their average s̄."""
    x1, x2 = run.config["e7"]["x"]
    sym = {"s1": float(x1), "s2": float(x2), "sbar": (x1 + x2) / 2.0}
    if len(set(sym.values())) < len(sym):
        raise ValueError(f"e7.x = {[x1, x2]} makes two of s1, s2, s̄ equal: Table 2's expectations cannot be told apart")
    return sym


def _rows(run: Run, mechanism: str):
    sim = run.table("e7_simulation")
    return sim[sim["mechanism"] == mechanism]


def expectation(run: Run, paper, *, mechanism: str) -> Measurement:
    """Which of s1, s2, s̄ each exact E(m_i) equals, and the simulation's distance from the paper's expression."""
    sym = _symbols(run)
    t2 = run.table("e7_table2").set_index("mechanism").loc[mechanism]
    exact = {"m1": float(t2["mean_m1"]), "m2": float(t2["mean_m2"])}
    value = {k: next((s for s, v in sym.items() if np.isclose(v, exact[k], rtol=0, atol=1e-9)), f"{exact[k]:g}")
             for k in exact}
    rows = _rows(run, mechanism)
    z_paper = np.abs(rows["mean_m1"] - sym[paper["m1"]]) / rows["se_mean_m1"]
    return Measurement(value, f"exact E(m1, m2) = ({exact['m1']:g}, {exact['m2']:g}) = ({value['m1']}, {value['m2']}) "
                              f"at x = ({sym['s1']:g}, {sym['s2']:g}); simulated E(m1) vs exact: max |z| = "
                              f"{rows['z_mean'].abs().max():.1f}, vs the paper's {paper['m1']}: max |z| = "
                              f"{z_paper.max():.1f} ({len(rows)} settings)")


def variance_coefficient(run: Run, paper, *, mechanism: str) -> Measurement:
    """ε² Var(m1) from the exact formula (f_L1: its range over β ∈ [0, 1]), with the simulated values."""
    t2 = run.table("e7_table2").set_index("mechanism").loc[mechanism]
    lo, hi = float(t2["var_coef_low"]), float(t2["var_coef_high"])
    value = lo if np.isclose(lo, hi) else [lo, hi]
    rows = _rows(run, mechanism)
    sims = []
    for b, g in rows.groupby(rows["beta"].fillna(-1.0), sort=True):  # β is empty for M* and f_L2
        span = f"{g['var_coef'].min():.3f}–{g['var_coef'].max():.3f}"
        sims.append(f"{f'β = {b:g}' if b >= 0 else 'all ε'}: {span}")
    exact = f"{lo:g}" if value == lo else f"[{lo:g}, {hi:g}] (β = 1/2 and β ∈ {{0, 1}})"
    return Measurement(value, f"exact ε² Var(m1) = {exact}; simulated over ε ({rows['n_draws'].iloc[0]:,} draws "
                              f"each): " + "; ".join(sims) + f"; max |z| vs exact {rows['z_var'].abs().max():.1f}")


def simulation_zscores(run: Run, paper) -> Measurement:
    """z-scores of the simulated mean and variance of m1 against the exact formulas, every setting."""
    sim = run.table("e7_simulation")
    z = np.concatenate([sim["z_mean"], sim["z_var"]])
    exact_ok = (sim["max_total_error"] < 1e-9).all() and (sim["max_optimality_gap"].fillna(0) < 1e-9).all()
    return Measurement(z, f"max |z| = {np.abs(z).max():.2f} over {len(sim)} (mechanism, β, ε) settings × (mean, "
                          f"variance); every release sums to n and every projection is optimal: {bool(exact_ok)}",
                       note="" if exact_ok else "SOME RELEASES BREAK THE TOTAL OR ARE NOT NEAREST POINTS")


def variance_order(run: Run, paper) -> Measurement:
    """Exact ε² Var(m1) of M* and the smallest of the post-processed releases (any β)."""
    t2 = run.table("e7_table2").set_index("mechanism")
    post = float(min(t2.loc["l2", "var_coef_low"], t2.loc["l1", "var_coef_low"]))
    value = {"conditional": float(t2.loc["conditional", "var_coef_low"]), "post_processing_smallest": post}
    gaps = []  # simulated: smallest post-processed variance minus M*'s, in SE, per ε
    for _, g in run.table("e7_simulation").groupby("eps"):
        c = g[g["mechanism"] == "conditional"].iloc[0]
        o = g.loc[g.loc[g["mechanism"] != "conditional", "var_m1"].idxmin()]
        gaps.append((o["var_m1"] - c["var_m1"]) / np.hypot(o["se_var_m1"], c["se_var_m1"]))
    return Measurement(value, f"ε² Var(m1): M* {value['conditional']:g} < smallest post-processed "
                              f"{post:g} (f_L2 = f_L1 at β = 1/2); simulated gap ≥ {min(gaps):.0f} SE at every ε")


def _components(paper) -> list[dict]:
    return [dict(c) for c in paper["components"]]


def l2_mixture_ks(run: Run, paper) -> Measurement:
    """KS p-values of the simulated f_L2 noise (in units of 1/ε) against the paper's mixture, per ε."""
    comps = _components(paper)
    noise = np.load(run.path("e7/noise.npz"))
    p = [stats.kstest(v.astype(float), lambda t: cg.mixture(t, comps, cdf=True)).pvalue for v in noise["l2"]]
    t = np.linspace(-40, 40, 8001)
    gap = np.abs(cg.mixture(t, comps) - cg.noise_pdf(t, "l2", 1.0)).max()
    return Measurement(p, f"KS p = {', '.join(f'{v:.2f}' for v in p)} at ε = "
                          f"{', '.join(f'{e:g}' for e in noise['eps'])} ({noise['l2'].shape[1]:,} draws each); "
                          f"sup |paper mixture − exact density (A.2)| = {gap:.1e} (units of ε)")


def signed_gamma_is_laplace_sum(run: Run, paper, *, shape: float) -> Measurement:
    """Whether a signed Gamma(shape, b) has the law of the sum of two i.i.d. Lap(b) (b = 1)."""
    sg = [{"law": "signed_gamma", "weight": 1.0, "shape": shape, "scale": 1.0}]
    t = np.linspace(-40, 40, 8001)
    gap = float(np.abs(cg.mixture(t, sg) - cg.laplace_sum_pdf(t, 1.0)).max())
    var_sg, var_sum = cg.mixture_variance(sg), 2 * cg.laplace_variance_of_scale(1.0)
    noise = np.load(run.path("e7/noise.npz"))
    p = stats.kstest(noise["l2"][0].astype(float), lambda v: cg.mixture(v, sg, cdf=True)).pvalue
    return Measurement(bool(gap < 1e-9 and np.isclose(var_sg, var_sum)),
                       f"variances {var_sg:g} b² (signed Gamma) vs {var_sum:g} b² (sum of two Lap(b)); sup density "
                       f"gap {gap:.3f}/b; f_L2 noise (a sum of two Lap(1/ε)) against the signed Gamma: KS p = {p:.1e}",
                       note="the conclusion drawn from it holds: ũ, itself a sum of two i.i.d. Lap(1/ε), has "
                            "variance 4/ε² > 2/ε²")


def l1_law_ks(run: Run, paper) -> Measurement:
    """KS p-values of the simulated f_L1 noise against (A.1) (every β and ε)."""
    rows = _rows(run, "l1")
    lo, hi = cg.signed_weights(0.75)
    return Measurement(rows["ks_p"].to_numpy(), f"min KS p = {rows['ks_p'].min():.3f} over {len(rows)} (β, ε) "
                                                f"settings; (A.1) weights at β = 3/4: {lo:g} and {hi:g} (sum "
                                                f"{lo + hi:g})")


def conditioning_ks(run: Run, paper) -> Measurement:
    """KS p-value of base noise conditioned on a thin slab |u1 + u2| < w/ε against Lap(1/ε)."""
    r = run.table("e7_conditioning").iloc[0]
    return Measurement([float(r["ks_p"])], f"KS p = {r['ks_p']:.2f} ({int(r['n_accepted']):,} kept pairs, slab "
                                            f"{r['window']:g}/ε, ε = {r['eps']:g}); ε² Var = "
                                            f"{fmt_se(r['var_coef'], r['se_var_coef'])} (exact "
                                            f"{r['exact_var_coef']:g}); vs the base law Lap(2/ε): p = "
                                            f"{r['ks_p_base_law']:.1e}")


def _privacy(run: Run):
    return run.table("e7_privacy")


def privacy_levels(run: Run, paper) -> Measurement:
    """Numerical level / ε of each named release, at the ε where it is farthest from the paper's value."""
    pr = _privacy(run)
    value, parts = {}, []
    for mech, claimed in paper.items():
        g = pr[pr["mechanism"] == mech]
        r = g.loc[(g["level_over_eps"] - claimed).abs().idxmax()]
        value[mech] = float(r["level_over_eps"])
        parts.append(f"{mech} {r['level_over_eps']:.6f} ε (worst over ε; largest ratio found at |t| ≈ "
                     f"{r['t_at_sup_times_eps']:.0e}/ε)")
    return Measurement(value, "; ".join(parts))


def l1_privacy_gap(run: Run, paper) -> Measurement:
    """Largest |numerical level − ε/(2 max(β, 1 − β))| / ε over the β and ε grids."""
    pr = _privacy(run)
    g = pr[pr["mechanism"] == "l1"]
    gap = float((g["level_over_eps"] - g["closed_form_over_eps"]).abs().max())
    per_beta = g.groupby("beta")["level_over_eps"].min()
    return Measurement(gap, "numerical level / ε: " + ", ".join(f"β = {b:g}: {v:.6f}" for b, v in per_beta.items())
                       + f"; largest gap to the formula {gap:.1e} ε over {len(g)} (β, ε) settings")


def gamma_example41(run: Run, paper, *, n_max: int) -> Measurement:
    """Theorem 2.1's γ for M* of Example 4.1 at the nearest-neighbour distance k of its X* under §1.3's
    neighbours, found by enumeration: γ = M*'s level / (k ε) − 1, the one farthest from the paper's over ε."""
    k = min(cg.example41_nearest(n) for n in range(1, n_max + 1))
    k_other = min(cg.example41_nearest(n, "add/remove") for n in range(1, n_max + 1))
    g = _privacy(run)
    level = g.loc[g["mechanism"] == "conditional", "level_over_eps"]
    gammas = level / k - 1.0
    worst = float(gammas.loc[(gammas - paper).abs().idxmax()])
    m_half = max(cg.unconstrained_level(e, bins_moved=1) / e for e in run.config["e7"]["eps_grid"])
    return Measurement(worst, f"k = {k} (bounded neighbours, enumerated on n = 1..{n_max}); M*'s level "
                              f"{level.min():.6f} ε, so γ = {worst:.6f}",
                       note=f"with add/remove neighbours k = {k_other} and γ = {level.max() / k_other - 1:.6f} "
                            f"against the nominal ε, but M's own level is then {m_half:.6f} ε (one bin moves), "
                            f"and against it γ = {level.max() / (k_other * m_half) - 1:.6f}")


def rounding_secrecy(run: Run, paper, *, lo: int, hi: int, group: int) -> Measurement:
    """Example 5.2: S* and the largest γ over the configured ε grid."""
    res = [cg.rounding_secrecy(lo, hi, group, e) for e in run.config["e7"]["eps_grid"]]
    s_star = res[0]["s_star"]
    gamma = max(r["gamma"] for r in res)
    return Measurement({"s_star": s_star, "gamma": gamma},
                       f"S* = {set(s_star)}; largest conditional level {max(r['level'] for r in res):g}, so "
                       f"γ = {gamma:g} at every ε of {run.config['e7']['eps_grid']}")


def rounding_sensitivity(run: Run, paper, *, group: int, n: int) -> Measurement:
    """Example 5.2: ∇(⌈Σx / group⌉) under §1.3's neighbours, on binary databases of up to ``n`` records."""
    value = cg.rounding_sensitivity(group, n)
    return Measurement(value, f"largest change of ⌈Σx/{group}⌉ when one record changes: {value} (Σx = 0..{n})")


def rounding_neighbours(run: Run, paper, *, lo: int, hi: int, group: int) -> Measurement:
    """Example 5.2: pairs of distinct databases in X* (Σx ∈ [lo, hi], n = hi records, the fewest that admit
    the whole range), with the pairs one record apart and M*'s level on them."""
    pairs = cg.invariant_pairs(lo, hi, hi)
    level = max(cg.rounding_secrecy(lo, hi, group, e)["level"] for e in run.config["e7"]["eps_grid"])
    return Measurement(float(pairs["distinct"]),
                       f"{pairs['distinct']:.3e} pairs of distinct databases in X* ({pairs['size']:,} databases of "
                       f"n = {hi} records), {pairs['d1']:,} of them one record apart (d = 1); M*'s level on "
                       f"them {level:g}")


def dg_quantile_exact(run: Run, paper) -> Measurement:
    """Whether the App. B quantile is the generalized inverse of the DG CDF for every uniform drawn."""
    dg = run.table("e7_dg_quantile")
    ok = bool((dg["n_inverse_ok"] == dg["n_draws"]).all())
    return Measurement(ok, f"{int(dg['n_inverse_ok'].sum()):,} of {int(dg['n_draws'].sum()):,} uniforms mapped to "
                           f"q with F(q − 1) < v ≤ F(q) at ε = {', '.join(f'{e:g}' for e in dg['eps'])}; chi-square "
                           f"p = {', '.join(f'{p:.2f}' for p in dg['p_value'])}")


def negbin_moments(run: Run, paper) -> Measurement:
    """Mean and variance of the §3 cell law in the parametrisation E5 uses (numpy/scipy: successes, p)."""
    sim = run.config["e5"]["simulation"]
    law = stats.nbinom(sim["nb_n"], sim["nb_p"])
    value = {"mean": float(law.mean()), "variance": float(law.var())}
    other = stats.nbinom(sim["nb_n"], 1 - sim["nb_p"])
    return Measurement(value, f"NegativeBinomial({sim['nb_n']}, {sim['nb_p']:g}): mean {value['mean']:.4f}, variance "
                              f"{value['variance']:.4f}",
                       note=f"the other reading (success probability {1 - sim['nb_p']:g}) has mean "
                            f"{other.mean():.0f}: the printed moments fix the parametrisation")


def trivial_invariant_gamma(run: Run, paper) -> Measurement:
    """Example 5.1: with no restricting invariant M* is M, so γ = level/ε − 1 of the unconstrained
    two-bin release (k = 1); worst over the configured ε grid."""
    gammas = [cg.unconstrained_level(e) / e - 1.0 for e in run.config["e7"]["eps_grid"]]
    worst = max(gammas, key=abs)
    return Measurement(worst, f"γ = {worst:.2e} (level of the unconstrained release / ε − 1, worst over "
                              f"{len(gammas)} ε)")


def mixture_over_laplace_variance(run: Run, paper, *, components) -> Measurement:
    """Var of the printed f_L2 noise mixture over Var of one Laplace of the same scale (units of 1/ε)."""
    comps = [dict(c) for c in components]
    ratio = cg.mixture_variance(comps) / cg.laplace_variance_of_scale(1.0)
    return Measurement(ratio, f"Var ũ = {cg.mixture_variance(comps):g}/ε² against Var Lap(1/ε) = "
                              f"{cg.laplace_variance_of_scale(1.0):g}/ε²: ratio {ratio:g}")


def theorem21_bound(run: Run, paper, *, settings, ks) -> Measurement:
    """Theorem 2.1 exactly, on Example 5.2's query s = ⌈Σx/group⌉ with DG(ε) noise and the invariant
    Σx ∈ [lo, hi]: whether γ* of (2.5) lies in [0, 1] and M*'s attained level is at most (1 + γ*) k ε, over
    the (lo, hi, group) settings, k-neighbours and the ε grid."""
    res = [(k, e, cg.rounding_secrecy(lo, hi, group, e, k)) for lo, hi, group in settings for k in ks
           for e in run.config["e7"]["eps_grid"]]
    gamma = np.array([r["gamma_star"] for _, _, r in res])
    ratio = np.array([r["level"] / ((1.0 + r["gamma_star"]) * k * e) for k, e, r in res])
    value = {"gamma_star_in_0_1": bool(np.all((gamma >= 0) & (gamma <= 1))),
             "level_within_bound": bool(np.all(ratio <= 1.0 + 1e-9))}
    return Measurement(value, f"γ* from {gamma.min():.4f} to {gamma.max():.4f}; M*'s level / ((1 + γ*) k ε) at most "
                              f"{ratio.max():.9f} over {len(res)} (setting, k, ε) (k ∈ {list(ks)}); the bound is "
                              f"attained (ratio 1 within 1e-9) in {int(np.sum(np.abs(ratio - 1) < 1e-9))}",
                       n=len(res))


def posterior_bound(run: Run, paper, *, priors, linked: int = 1) -> Measurement:
    """Theorem 1.3: the largest |log(posterior/prior)| / ε of one record over releases, priors and the ε grid, with
    ``linked`` records moving together (:func:`.congenial.posterior_shift`); the note: a prior under which a second
    record always equals x_i."""
    def worst(k):
        return max(cg.posterior_shift(e, priors, linked=k) / e for e in run.config["e7"]["eps_grid"])

    value = worst(linked)
    return Measurement(value, f"max |log(posterior/prior)| = {value:.6f} ε over {len(priors)} priors and "
                              f"{len(run.config['e7']['eps_grid'])} ε (the bound is 1 ε)",
                       note=f"a prior on the whole database in which a second record always equals x_i (the records "
                            f"not independent): {worst(2):.4f} ε")


def dg_level(run: Run, paper, *, sensitivities) -> Measurement:
    """Def 1.2: the attained level / ε of the Double Geometric mechanism (1.3), a = exp(−ε/∇), on integer
    queries of sensitivity ∇, worst over ∇ and the ε grid."""
    levels = [cg.dg_level(e, d) / e for e in run.config["e7"]["eps_grid"] for d in sensitivities]
    return Measurement(max(levels), f"level / ε from {min(levels):.12f} to {max(levels):.12f} over ∇ ∈ "
                                    f"{list(sensitivities)} and {len(run.config['e7']['eps_grid'])} ε")


def binary_sensitivity(run: Run, paper, *, n_max: int) -> Measurement:
    """Def 1.1: ∇ of the counting and the histogram query on binary databases, by enumeration (n = 1..n_max),
    under §1.3's bounded neighbours and the L1 norm."""
    value = {q: cg.sensitivity(q, n_max) for q in ("count", "histogram")}
    other = {q: (cg.sensitivity(q, n_max, norm=2), cg.sensitivity(q, n_max, norm=np.inf),
                 cg.sensitivity(q, n_max, neighbours="add/remove")) for q in value}
    return Measurement(value, f"L1, bounded neighbours: count {value['count']:g}, histogram {value['histogram']:g} "
                              f"(n = 1..{n_max})",
                       note="; ".join(f"{q}: L2 {v[0]:.4g}, L∞ {v[1]:g}, add/remove neighbours (L1) {v[2]:g}"
                                      for q, v in other.items()))


def example41_nearest_distance(run: Run, paper, *, n_max: int) -> Measurement:
    """Example 4.1: the smallest d(x, x′) between distinct databases of X* (histogram total n), by
    enumeration for n = 1..n_max, under §1.3's neighbours (the add/remove distance in the note)."""
    bounded = [cg.example41_nearest(n) for n in range(1, n_max + 1)]
    other = [cg.example41_nearest(n, "add/remove") for n in range(1, n_max + 1)]
    return Measurement(min(bounded), f"smallest d between distinct databases of X*: {min(bounded)} for every "
                                     f"n = 1..{n_max} (one record changed keeps the total n)",
                       note=f"counting records added or deleted (the add/remove neighbours §1.3 sets aside): "
                            f"{min(other)}")


def _base_grid(run: Run, n_grid: int):
    """(x, n, ε, base releases on the Laplace quantile grid) for each ε of the grid."""
    x = np.asarray(run.config["e7"]["x"], dtype=float)
    for e in run.config["e7"]["eps_grid"]:
        yield x, float(x.sum()), e, x + cg.laplace_quantile_grid(e, n_grid)


def _l1_excess(m: np.ndarray, first: np.ndarray, n: float) -> np.ndarray:
    """L1 distance from each base release to (first, n − first) minus the minimum |m1 + m2 − n|."""
    return np.abs(m[:, 0] - first) + np.abs(m[:, 1] - (n - first)) - np.abs(m.sum(axis=1) - n)


def l1_solution_set(run: Run, paper, *, n_grid: int) -> Measurement:
    """§4: the L1-nearest points of {a1 + a2 = n} form the segment between m1 and n − m2, never a single point.

    The run's f_L1 releases (every β, ε: their optimality gap and total error) and, on a deterministic grid of
    base noise (``n_grid``² quantile pairs per ε), 11 points of each segment (largest L1 excess over the
    minimum), points 1 % of its length beyond either end (share that are still nearest) and the share of
    segments of length 0 (a unique solution)."""
    sim = run.table("e7_simulation")
    l1 = sim[sim["mechanism"] == "l1"]
    gap = max(float(l1["max_optimality_gap"].max()), float(l1["max_total_error"].max()))
    outside, unique, total = 0, 0, 0
    for _, n, _, m in _base_grid(run, n_grid):
        lo, hi = np.minimum(m[:, 0], n - m[:, 1]), np.maximum(m[:, 0], n - m[:, 1])
        for t in np.linspace(0.0, 1.0, 11):
            gap = max(gap, float(_l1_excess(m, lo + t * (hi - lo), n).max()))
        beyond = np.minimum(_l1_excess(m, lo - 0.01 * (hi - lo), n), _l1_excess(m, hi + 0.01 * (hi - lo), n))
        outside += int((beyond <= 1e-9).sum())
        unique += int((hi - lo <= 1e-9).sum())
        total += len(m)
    value = {"segment_gap": gap, "outside_optimal": outside / total, "unique": unique / total}
    return Measurement(value, f"largest L1 excess at points of the segment {gap:.1e} (the run's releases at "
                              f"{len(l1)} (β, ε) and 11 points per segment); beyond its ends nearest in "
                              f"{outside} of {total:,} grid pairs; a single solution in {unique}", n=total)


def l1_printed_point(run: Run, paper, *, n_grid: int) -> Measurement:
    """§4: the share of base releases for which the printed point s1 + β u1 + (1 − β) u2 is not an L1-nearest
    point of {a1 + a2 = n}, per configured β, on a deterministic grid of base noise (``n_grid``²
    quantile pairs per ε); the largest share over β and ε.

    The exact share is (3 − β)/4 for β < 1: the point is nearest iff u2/u1 ∈ [−β/(2 − β), 1], and the ratio R of
    two i.i.d. Laplace variables is symmetric with P(|R| ≤ t) = t/(1 + t)."""
    betas = run.config["e7"]["betas"]
    shares, fixed = {b: [] for b in betas}, 0.0
    for x, n, _, m in _base_grid(run, n_grid):
        u = m - x
        for b in betas:
            shares[b].append(float(np.mean(_l1_excess(m, x[0] + b * u[:, 0] + (1 - b) * u[:, 1], n) > 1e-9)))
            fixed = max(fixed, float(np.mean(_l1_excess(m, cg.project_l1(m, n, b)[:, 0], n) > 1e-9)))
    worst = max(max(v) for v in shares.values())
    return Measurement(worst, "share not nearest: " + ", ".join(
        f"β = {b:g}: {max(v):.4f} (exact {(3 - b) / 4 if b < 1 else 0:g})" for b, v in shares.items())
        + f"; with the sign of u2 reversed (the segment's own point, f_L1 here): {fixed:g}")


def remark1_weights(run: Run, paper, *, n_beta: int) -> Measurement:
    """App. A Remark I: the printed weights of (A.1) on a grid of β in (0, 1) without 1/2: the sum farthest from 1
    and whether the two weights have opposite signs at every β."""
    betas = np.linspace(0.0, 1.0, n_beta + 2)[1:-1]
    betas = betas[np.abs(betas - 0.5) > 1e-9]
    w = np.array([cg.a1_weights(b) for b in betas])
    total = w.sum(axis=1)
    worst = float(total[np.abs(total - 1).argmax()])
    return Measurement({"sum": worst, "opposite_signs": bool(np.all(w[:, 0] * w[:, 1] < 0))},
                       f"weight sums from {total.min():.15f} to {total.max():.15f}; opposite signs at "
                       f"{int(np.sum(w[:, 0] * w[:, 1] < 0))} of {len(betas)} β", n=len(betas))


def a1_g_ratio_gap(run: Run, paper, *, betas, shifts) -> Measurement:
    """App. A proof of Thm A.1: the largest |log(printed g_α ratio, rate τ) − log(ratio from the (A.1) density)|
    over x, β > 1/2, the (a, b) pairs and the ε grid (α = ε/(2β)); the note shows the gap at rate τ ε."""
    gaps, with_eps = {}, 0.0
    for e in run.config["e7"]["eps_grid"]:
        x = np.linspace(-30.0, 30.0, 1201) / e
        for b in betas:
            for a, c in shifts:
                true = cg.a1_g_log_ratio(x, a, c, b, e)
                printed = cg.a1_g_log_ratio_closed(x, a, c, b, cg.a1_tau(b))
                gaps[e] = max(gaps.get(e, 0.0), float(np.abs(printed - true).max()))
                with_eps = max(with_eps, float(np.abs(cg.a1_g_log_ratio_closed(x, a, c, b, cg.a1_tau(b) * e)
                                                      - true).max()))
    worst = max(gaps.values())
    return Measurement(worst, "largest |log printed ratio − log ratio of (A.1)|: " + ", ".join(
        f"ε = {e:g}: {g:.1e}" for e, g in gaps.items()),
        note=f"with τ ε in place of τ: {with_eps:.1e}; the ratio tends to 1 as |x| → ∞ either way, so Thm A.1's "
             f"conclusion stands")


def dg_cdf_printed_gap(run: Run, paper, *, reach: int) -> Measurement:
    """App. B: the largest |printed F(u) − P(U ≤ u)| for u = −reach..reach over the ε of the App. B check and
    the grid (P from SciPy's discrete Laplace, isdp.double_geometric.dg_cdf)."""
    u = np.arange(-reach, reach + 1)
    eps = sorted({*run.config["e7"]["dg_check"]["eps"], *run.config["e7"]["eps_grid"]})
    gap = max(float(np.abs(cg.dg_cdf_printed(u, e) - dg_cdf(u, e)).max()) for e in eps)
    return Measurement(gap, f"largest |printed F − CDF| = {gap:.1e} for u = −{reach}..{reach} at ε = "
                            f"{', '.join(f'{e:g}' for e in eps)}", n=len(eps) * len(u))


def _central_difference(f, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    return (f(x + h) - f(x - h)) / (2.0 * h)


def theorem_a1(run: Run, paper, *, betas, shifts, below: float) -> Measurement:
    """App. A Thm A.1 applied to the f_L1 / f_L2 noise (A.1)-(A.2), b = max(β, 1 − β), α = ε/(2b), on a geometric
    grid of x > 0 reaching 10⁴/ε, for each β and the ε grid: (i) p_ε strictly decreasing; (ii) g_α = e^{α|x|} p_ε
    non-decreasing (log steps ≥ −1e-9); ``below``·α, a smaller constant, makes g decrease somewhere (α is the
    smallest); (A.3) sup_x log p(x − a)/p(x − b) ≤ α|a − b| for |a − b| ∈ ``shifts``; and the printed dp/dx and
    dg/dx (c = 1/(2b), 1, ``below``/(2b)) against central differences, the largest gap over the grid's largest
    |derivative| (printed or numerical)."""
    ok = {"decreasing": True, "g_increasing": True, "g_decreasing_below": True, "a3_within": True}
    gap, a3_worst = 0.0, 0.0
    for e in run.config["e7"]["eps_grid"]:
        x = np.geomspace(1e-3, 1e4, 4001) / e
        t = cg.privacy_grid(1.0 / e, 1e6, 4001)
        fine = np.linspace(0.05, 20.0, 400) / e
        h = 1e-5 * fine
        for beta in betas:
            b = max(beta, 1.0 - beta)
            logp = partial(cg.noise_logpdf, mechanism="l1", eps=e, beta=beta)
            alpha = e / (2.0 * b)
            ok["decreasing"] &= bool(np.all(np.diff(logp(x)) < 0))
            ok["g_increasing"] &= bool(np.all(np.diff(logp(x) + alpha * x) >= -1e-9))
            ok["g_decreasing_below"] &= bool(np.any(np.diff(logp(x) + below * alpha * x) < -1e-9))
            for s in shifts:
                ratio = cg.worst_log_ratio(logp, t, float(s))[0] / (alpha * s)
                a3_worst = max(a3_worst, ratio)
                ok["a3_within"] &= ratio <= 1.0 + 1e-9
            if b == 1.0:  # β ∈ {0, 1}: Lap(2/ε), which the printed derivatives leave out ("trivial")
                continue
            derivs = [(cg.a1_printed_dp(fine, e, beta), _central_difference(lambda v, logp=logp: np.exp(logp(v)),
                                                                            fine, h))]
            if 2.0 * b - 1.0 >= 1e-4:  # the printed dg/dx is for 1/2 < β < 1
                for c in (1.0 / (2.0 * b), 1.0, below / (2.0 * b)):
                    derivs.append((cg.a1_printed_dg(fine, e, b, c), _central_difference(
                        lambda v, rate=c * e, logp=logp: np.exp(rate * v + logp(v)), fine, h)))
            gap = max(gap, *(float(np.abs(p - n).max() / max(np.abs(p).max(), np.abs(n).max())) for p, n in derivs))
    value = {**ok, "derivative_gap": gap}
    return Measurement(value, ", ".join(f"{k} {v}" for k, v in ok.items()) + f"; largest sup log-ratio / (α|a − b|) "
                       f"{a3_worst:.9f}; printed dp/dx, dg/dx against central differences: largest gap {gap:.1e} "
                       f"of the largest |derivative| (β ∈ {list(betas)}, {len(run.config['e7']['eps_grid'])} ε)")


def a1_region_integrals(run: Run, paper, *, betas, points) -> Measurement:
    """App. A: the printed joint density p_ε(ũ, u2) against the two Laplace densities through the change of variables
    (Jacobian 1/β), and the printed I₁, I₂, I₃ against numerical integration of that density over u2 < 0,
    0 ≤ u2 ≤ ũ/(1 − β), u2 > ũ/(1 − β), at ũ = ``points``/ε, β ∈ ``betas`` (≠ 1/2) and the ε grid: the largest
    relative gap (ũ > 0: at 0, I₂ is 0)."""
    from scipy import integrate

    joint_gap, region_gap = [], []
    for e in run.config["e7"]["eps_grid"]:
        lap = stats.laplace(scale=cg.base_scale(e))
        for beta in betas:
            for u in np.asarray(points, dtype=float) / e:
                u2 = np.linspace(-30.0, 30.0, 121) / e
                direct = lap.pdf((u - (1.0 - beta) * u2) / beta) * lap.pdf(u2) / beta
                joint_gap.append(np.abs(cg.a1_joint_density(u, u2, e, beta) / direct - 1).max())
                f = partial(cg.a1_joint_density, u, eps=e, beta=beta)
                knot = u / (1.0 - beta)
                numeric = (integrate.quad(f, -np.inf, 0.0, epsabs=0, epsrel=1e-12)[0],
                           integrate.quad(f, 0.0, knot, epsabs=0, epsrel=1e-12)[0],
                           integrate.quad(f, knot, np.inf, epsabs=0, epsrel=1e-12)[0])
                printed = cg.a1_region_integrals(u, e, beta)
                region_gap.append(np.abs(np.asarray(printed) / numeric - 1).max())
    joint_gap, region_gap = float(np.max(joint_gap)), float(np.max(region_gap))  # a NaN stays NaN: an error
    value = max(joint_gap, region_gap)
    return Measurement(value, f"largest relative gap: joint density {joint_gap:.1e} (against the Laplace pair, "
                              f"Jacobian 1/β), I₁–I₃ {region_gap:.1e} (against quadrature) at β ∈ {list(betas)}, "
                              f"ũ ε ∈ {list(points)} and {len(run.config['e7']['eps_grid'])} ε")


# Var of each §1.3 noise law at (ε, ∇): Laplace scale ∇/ε, Double Geometric (1.3) with a = exp(−ε/∇).
NOISE_VARIANCE = {
    "Laplace": lambda eps, sensitivity: cg.laplace_variance_of_scale(sensitivity / eps),
    "Double Geometric": lambda eps, sensitivity: dg_variance(eps / sensitivity),
}


def noise_variance_in_eps(run: Run, paper, *, sensitivities, eps_min: float, eps_max: float,
                          n_grid: int) -> Measurement:
    """§1.3-1.4: the closed-form noise variance of each law in :data:`NOISE_VARIANCE`, per ∇ in ``sensitivities``, on
    ``n_grid`` geometric ε from ``eps_min`` to ``eps_max``: ``decreasing in ε`` — strictly at every step;
    ``unbounded as ε → 0`` — ε² Var / ∇² at least 1 at every ε ≤ ∇ of the grid, i.e. Var ≥ ∇²/ε², which no
    bounded variance meets as ε → 0."""
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
    return Measurement(value, f"largest Var(ε')/Var(ε) over grid steps ε < ε' {steepest:.4g}; smallest ε² Var/∇² at "
                              f"ε ≤ ∇ {floor:.4g} (the limit is 2) — " + "; ".join(parts),
                       note=f"{n_grid} ε from {eps_min:g} to {eps_max:g}, geometric")


def l2_printed_formula_gap(run: Run, paper, *, n_grid: int) -> Measurement:
    """§4: the printed f_L2 = (x̄ + ũ, x̄ − ũ) against :func:`congenial.project_l2` of the same base releases (the
    Laplace quantile grid, ``n_grid``² pairs per ε): x̄ = n/2 (the printed point sums to 2x̄ = n) and ũ = (u1 − u2)/2,
    the average of u1 and −u2, both Lap(2/ε) (the projection depends on M(x) only through m1 − m2). Value: the
    largest |gap| over coordinates, draws and ε; the note has the other sign and the point with (s1 − s2)/2 added."""
    gaps = {"printed": 0.0, "other sign": 0.0, "with (s1 − s2)/2": 0.0}
    for x, n, _, m in _base_grid(run, n_grid):
        u = m - x
        nearest = cg.project_l2(m, n)
        u_tildes = {"printed": (u[:, 0] - u[:, 1]) / 2, "other sign": (u[:, 0] + u[:, 1]) / 2,
                    "with (s1 − s2)/2": (x[0] - x[1] + u[:, 0] - u[:, 1]) / 2}
        for name, u_tilde in u_tildes.items():
            point = np.column_stack([n / 2 + u_tilde, n / 2 - u_tilde])
            gaps[name] = max(gaps[name], float(np.abs(nearest - point).max()))
    worst = gaps["printed"]
    x1, x2 = run.config["e7"]["x"]
    return Measurement(worst, f"largest |project_l2(M(x)) − (x̄ + ũ, x̄ − ũ)| = {worst:.6g} at x = ({x1:g}, {x2:g}) "
                              f"(|s1 − s2|/2 = {abs(x1 - x2) / 2:g}), {n_grid**2:,} base releases per ε, "
                              f"{len(run.config['e7']['eps_grid'])} ε",
                       note=f"ũ = (u1 + u2)/2 instead: {gaps['other sign']:.3g}; the printed point with (s1 − s2)/2 "
                            f"added to ũ: {gaps['with (s1 − s2)/2']:.1e}")


def negbin_printed_moments(run: Run, paper, *, size: float, prob: float) -> Measurement:
    """§3: mean and variance of NegativeBinomial(``size``, ``prob``) in SciPy's nbinom and R's dnbinom convention
    (failures before the ``size``-th success, success probability ``prob``); the other convention in the note."""
    law, swapped = stats.nbinom(size, prob), stats.nbinom(size, 1 - prob)
    value = {"mean": float(law.mean()), "variance": float(law.var())}
    return Measurement(value, f"nbinom({size:g}, {prob:g}): mean {value['mean']:.6g}, variance {value['variance']:.6g}",
                       note=f"with {prob:g} the failure probability (nbinom({size:g}, {1 - prob:g}), what E5 "
                            f"simulates): mean {swapped.mean():.4f}, variance {swapped.var():.4f}")


def postprocessing_outside_theorem(run: Run, paper, *, n: int, group: int, block,
                                   confidential_total=None, pairs: str = "all") -> Measurement:
    """§4 (4.3)-(4.4): the largest δ = sup_B P(f(x) ∈ B) − e^ε P(f(x′) ∈ B) of invariant-imposing post-processing
    f(M(x); S*(x)) over §1.3 neighbours, on the two instances the passage names, the E7 ε grid: Example 5.2
    (``n`` records, s = ⌈Σx/``group``⌉, DG(ε), the invariant's level sets the blocks of Σx like ``block``; f the
    nearest point of S*(x)), exact, and Example 4.1's f_L1 at every configured β (f_L2 is its β = 1/2, so it is
    covered when ``e7.betas`` holds 0.5, as the paper-fidelity config does; §1.3 neighbours keep the
    total n, so S*(x) = S*(x′) and the pair's δ is that of the noise law for a unit shift), by quadrature.
    ``confidential_total``: project onto one database's S* for every x instead (the theorem's fixed g). ``pairs``:
    "all" §1.3 neighbours, or "within" one invariant level set only (Thm 2.1's frame, x, x′ ∈ X*)."""
    if pairs not in ("all", "within"):
        raise ValueError(f"pairs must be 'all' or 'within', got {pairs!r}")
    eps_grid, betas = run.config["e7"]["eps_grid"], run.config["e7"]["betas"]
    r52 = [cg.rounding_postprocessing_slack(n, group, block, e, confidential_total=confidential_total)
           for e in eps_grid]
    ex41 = max(cg.continuous_slack(partial(cg.noise_logpdf, mechanism="l1", eps=e, beta=b), e, cg.base_scale(e))
               for e in eps_grid for b in betas)
    across, within = max(r["across"] for r in r52), max(r["within"] for r in r52)
    value = max(across, within, ex41) if pairs == "all" else max(within, ex41)
    return Measurement(value, f"largest δ at the nominal ε over {pairs} pairs: {value:.3g}. Example 5.2 ({n} "
                              f"records, blocks like {list(block)}): neighbours across two invariant level sets "
                              f"{across:.3g} ({r52[0]['pairs_across']} pairs), within one {within:.1e} "
                              f"({r52[0]['pairs_within']} pairs); Example 4.1 f_L2/f_L1 (β ∈ {list(betas)}; §1.3 "
                              f"neighbours keep n, all pairs within) {ex41:.1e}; {len(eps_grid)} ε",
                       note=f"the conditional M* across level sets: δ = {max(r['m_star_across'] for r in r52):.3g} "
                            f"as well (its releases lie in S*(x) too); within one level set S*(x) = S*(x′), f is a "
                            f"fixed function of M and the post-processing theorem applies (δ = 0 up to quadrature)")


def l1_interval_law_ks(run: Run, paper, *, n_draws: int, seed: int, printed_scale: float = 2.0) -> Measurement:
    """§4: the L1 solution interval [min{m1, n − m2}, max{m1, n − m2}] of base releases M(x) = s + (u1, u2),
    u_i ~ Lap(2/ε) i.i.d. (``n_draws`` per ε, fixed seed), against the printed law [s1 + min(u1, u2),
    s1 + max(u1, u2)] with u_i ~ Lap(``printed_scale``/ε): KS p-values of its lower end, upper end and length per ε
    against their exact CDFs (1 − (1 − F)², F², and |u1 − u2| the modulus of a sum of two i.i.d. Laplace)."""
    x = np.asarray(run.config["e7"]["x"], dtype=float)
    n, rng, p = float(x.sum()), np.random.default_rng(seed), []
    for e in run.config["e7"]["eps_grid"]:
        m = cg.unconstrained(x, e, n_draws, rng)
        lo, hi = np.minimum(m[:, 0], n - m[:, 1]), np.maximum(m[:, 0], n - m[:, 1])
        b = printed_scale / e
        def f(t, b=b):
            return stats.laplace.cdf(t - x[0], scale=b)
        p += [stats.kstest(lo, lambda t, f=f: 1.0 - (1.0 - f(t)) ** 2).pvalue,
              stats.kstest(hi, lambda t, f=f: f(t) ** 2).pvalue,
              stats.kstest(hi - lo, lambda t, b=b: 1.0 - (1.0 + t / (2.0 * b)) * np.exp(-t / b)).pvalue]
    return Measurement(np.array(p), f"KS p (lower end, upper end, length) per ε: min {min(p):.3f} over "
                                    f"{len(p)} tests, {n_draws:,} base releases per ε of "
                                    f"{run.config['e7']['eps_grid']} at x = {x.tolist()}", n=len(p))


def gamma_one_slack(run: Run, paper, *, settings, ks, gamma: float = 1.0) -> Measurement:
    """§5.1: the share of exact instances whose conditional mechanism's attained level is below Theorem 2.1's
    bound (1 + ``gamma``) k ε by more than 1e-9 of it: CDP-E7-theorem21-gamma's instances (rounded count, DG(ε),
    range invariants ``settings``, k-neighbours ``ks``) and §5.1's Examples 5.1 (no invariant: the two-bin
    Lap(2/ε) release) and 4.1 (M*, k = 1 under §1.3), over the E7 ε grid."""
    eps_grid = run.config["e7"]["eps_grid"]
    ratios = [cg.rounding_secrecy(lo, hi, group, e, k)["level"] / ((1.0 + gamma) * k * e)
              for lo, hi, group in settings for k in ks for e in eps_grid]
    ratios += [cg.unconstrained_level(e) / ((1.0 + gamma) * e) for e in eps_grid]
    ratios += [cg.privacy_level("conditional", e)[0] / ((1.0 + gamma) * e) for e in eps_grid]
    ratios = np.array(ratios)
    share = float(np.mean(ratios < 1.0 - 1e-9))
    return Measurement(share, f"level below (1 + {gamma:g}) k ε in {int(np.sum(ratios < 1 - 1e-9))} of {len(ratios)} "
                              f"instances; level / bound: median {np.median(ratios):.3f}, largest {ratios.max():.6f}",
                       note=f"at most half the bound in {int(np.sum(ratios <= 0.5 + 1e-9))} of {len(ratios)}",
                       n=len(ratios))


def example41_density_gap(run: Run, paper, *, bin_scale: float = 2.0) -> Measurement:
    """§4 Example 4.1: the printed p(m1, m2) = (ε/4)² exp{−ε/2 (|m1 − s1| + |m2 − s2|)} against the product of two
    Laplace densities of scale ``bin_scale``/ε (SciPy) centred at (s1, s2), on a 201² grid reaching ±40/ε around s,
    the E7 ε grid: the largest relative gap."""
    s = np.asarray(run.config["e7"]["x"], dtype=float)
    gap = 0.0
    for e in run.config["e7"]["eps_grid"]:
        m1, m2 = np.meshgrid(*(c + np.linspace(-40.0, 40.0, 201) / e for c in s), indexing="ij")
        printed = (e / 4.0) ** 2 * np.exp(-e / 2.0 * (np.abs(m1 - s[0]) + np.abs(m2 - s[1])))
        lap = stats.laplace(scale=bin_scale / e)
        gap = max(gap, float(np.abs(printed / (lap.pdf(m1 - s[0]) * lap.pdf(m2 - s[1])) - 1.0).max()))
    return Measurement(gap, f"largest relative gap {gap:.1e} against Lap({bin_scale:g}/ε) × Lap({bin_scale:g}/ε) "
                            f"at {len(run.config['e7']['eps_grid'])} ε")


def dg_pmf_printed_checks(run: Run, paper, *, sensitivities) -> Measurement:
    """(1.3) as printed, a = exp(−ε/∇): its total mass over u = −R..R, R = ⌈40 ∇/ε⌉ (the rest is below e^{−40}),
    farthest from 1 over ∇ ∈ ``sensitivities`` and the E7 ε grid; and its largest gap to the differences
    F(u) − F(u − 1) of App. B's printed CDF (a = exp(−ε), ∇ = 1) on u = −R..R."""
    eps_grid = run.config["e7"]["eps_grid"]
    mass, diff_gap = 1.0, 0.0
    for e in eps_grid:
        for d in sensitivities:
            u = np.arange(-math.ceil(40 * d / e), math.ceil(40 * d / e) + 1)
            total = float(np.exp(cg.dg_logpmf_printed(u, e, d)).sum())
            mass = total if abs(total - 1.0) > abs(mass - 1.0) else mass
        u = np.arange(-math.ceil(40 / e), math.ceil(40 / e) + 1)
        diff = cg.dg_cdf_printed(u, e) - cg.dg_cdf_printed(u - 1, e)
        diff_gap = max(diff_gap, float(np.abs(np.exp(cg.dg_logpmf_printed(u, e)) - diff).max()))
    value = {"total mass": mass, "F(u) − F(u − 1) gap": diff_gap}
    return Measurement(value, f"total mass farthest from 1: {mass:.15f} (∇ ∈ {list(sensitivities)}); largest "
                              f"|p(u) − (F(u) − F(u − 1))| {diff_gap:.1e}; {len(eps_grid)} ε")


def noise_mass_vanishes(run: Run, paper, *, sensitivities, window: int, eps_min: float, eps_max: float,
                        n_grid: int) -> Measurement:
    """§1.4: the probability each §1.3 noise law (Lap(∇/ε); (1.3) with a = exp(−ε/∇)) gives the bounded window
    |u| ≤ ``window``, over (2 ``window`` + 1) ε, the largest over ∇ ∈ ``sensitivities`` and ``n_grid`` geometric
    ε from ``eps_min`` to ``eps_max``: at most 1 means no point carries more than ε of mass, so every bounded set's
    mass vanishes with ε (no proper limit)."""
    eps = np.geomspace(eps_min, eps_max, n_grid)
    u = np.arange(-window, window + 1)
    worst, parts = 0.0, []
    for d in sensitivities:
        lap = np.array([stats.laplace.cdf(window, scale=d / e) - stats.laplace.cdf(-window, scale=d / e) for e in eps])
        dg = np.array([np.exp(cg.dg_logpmf_printed(u, e, d)).sum() for e in eps])
        for law, mass in (("Laplace", lap), ("Double Geometric", dg)):
            worst = max(worst, float((mass / ((2 * window + 1) * eps)).max()))
            parts.append(f"{law} ∇ = {d:g}: {mass[0]:.2e} at ε = {eps[0]:g}")
    return Measurement(worst, f"largest P(|U| ≤ {window}) / ({2 * window + 1} ε) {worst:.4f} — " + "; ".join(parts),
                       note=f"{n_grid} ε from {eps_min:g} to {eps_max:g}, geometric", n=n_grid)


def posterior_shift_limit(run: Run, paper, *, priors, eps_values, n_grid: int) -> Measurement:
    """(1.6): the largest |log(posterior/prior)| of one record (Example 4.1's unconstrained two-bin release, as
    CDP-E7-posterior-bound, ``n_grid`` points per coordinate) at each ε of ``eps_values``; the value is the shift at
    the smallest."""
    shifts = {float(e): cg.posterior_shift(e, priors, n_grid=n_grid) for e in eps_values}
    e_min = min(shifts)
    return Measurement(shifts[e_min], "max |log(posterior/prior)|: " + ", ".join(
        f"ε = {e:g}: {v:.3g}" for e, v in sorted(shifts.items(), reverse=True)) + f" ({len(priors)} priors)")


def null_set_conditioning_level(run: Run, paper, *, bins: int, bin_scale: float, reach: float,
                                n_grid: int) -> Measurement:
    """§2.2 after Thm 2.1, a continuous mechanism conditioned on a null set: ``bins`` i.i.d. Lap(``bin_scale``/ε)
    conditioned on their sum being 0 (the total kept), the density restricted to that hyperplane. §1.3 neighbours
    (one record moved from bin i to bin j) keep the total, so both conditional laws share the plane and its
    normaliser; the level is the largest log density ratio for the shift e_j − e_i, on a grid of ``n_grid`` points
    per free coordinate reaching ±``reach`` scales, over every (i, j) and the E7 ε grid, in units of k ε (k = 1)."""
    worst = 0.0
    for e in run.config["e7"]["eps_grid"]:
        b = bin_scale / e
        axes = np.meshgrid(*[np.linspace(-reach * b, reach * b, n_grid)] * (bins - 1), indexing="ij")
        v = np.stack([a.ravel() for a in axes], axis=1)
        v = np.column_stack([v, -v.sum(axis=1)])  # a point of the plane Σu = 0

        def logdens(w, b=b):
            return -np.abs(w).sum(axis=1) / b

        for i in range(bins):
            for j in range(bins):
                if i != j:
                    shift = np.zeros(bins)
                    shift[i], shift[j] = 1.0, -1.0
                    worst = max(worst, float((logdens(v) - logdens(v + shift)).max()) / e)
    return Measurement(worst, f"M*'s level {worst:.9f} ε (γ = {worst - 1:.2e}); Thm 2.1's γ = 1 bound 2 ε; {bins} "
                              f"bins of Lap({bin_scale:g}/ε), {len(run.config['e7']['eps_grid'])} ε")


#: Post-processings of a count y for CDP-E7-post-processing-one-to-one: one-to-one maps and maps that merge outputs.
POST_PROCESSINGS = {
    "shift": lambda y: y + 3, "negate": lambda y: -y, "double": lambda y: 2 * y,
    "parity": lambda y: y % 2, "clamp": lambda y: max(y, 0), "halve": lambda y: y // 2,
    "sign": lambda y: int(np.sign(y)),
}


def post_processing_one_to_one(run: Run, paper, *, eps: float, radius: int, one_to_one: list[str],
                               many_to_one: list[str]) -> Measurement:
    """Congenial DP §4 after (4.2): the privacy level (the largest |log-ratio| over outputs) of g∘M against M's, for
    M the double geometric mechanism at ``eps`` on a count and its neighbour one apart, each g of
    :data:`POST_PROCESSINGS`: exact laws on a box of ``radius`` (mass outside below e^(−ε·radius)). The value: every
    one-to-one g keeps the level, no g raises it, and some g that merges outputs lowers it strictly."""
    from isdp.double_geometric import dg_pmf
    from isdp.privacy_audit import Law, max_privacy_loss, pushforward

    k = np.arange(-radius, radius + 1)
    base = Law(k[:, None], dg_pmf(k, eps), 0.0)
    x, x_prime = base, base.shifted([1])

    def level(g=None):
        p, q = (x, x_prime) if g is None else (pushforward(x, lambda y: [g(int(y[0]))]),
                                                pushforward(x_prime, lambda y: [g(int(y[0]))]))
        return max(max_privacy_loss(p, q), max_privacy_loss(q, p))

    m = level()
    levels = {name: level(POST_PROCESSINGS[name]) for name in [*one_to_one, *many_to_one]}
    value = {"one_to_one_equal": all(abs(levels[n] - m) <= 1e-9 for n in one_to_one),
             "never_exceeds": all(v <= m + 1e-9 for v in levels.values()),
             "some_below": any(levels[n] < m - 1e-6 for n in many_to_one)}
    return Measurement(value, f"M = DG at ε = {eps:g}, neighbours one apart: level {m:.4f}; one-to-one g: "
                              + ", ".join(f"{n} {levels[n]:.4f}" for n in one_to_one) + "; merging g: "
                              + ", ".join(f"{n} {levels[n]:.4f}" for n in many_to_one))


def vacuous_conditioning(run: Run, paper, *, priors: list[float], outputs: int, dependence: str = "none",
                         likelihood: list[float] | None = None) -> Measurement:
    """Congenial DP §5.3: conditioning a precise prior π on one record x_i ∈ {0, 1} on the event M(x) ∈ B when M's
    output law is known only through a lower probability, by the three rules of Gong & Meng (2020). M₀ vacuous on
    ``outputs`` outputs: a belief function with focal sets {x} × Y of masses π(x); as a credal set, any law q of the
    output, the same for every x (``dependence`` "none": M₀ ignores the data) or any kernel q(·|x) (``dependence``
    "kernel"). ``likelihood`` (P(y | x = 0) then P(y | x = 1)) makes M precise instead: singleton focal sets. The
    rules: generalized Bayes (the envelope of Bayes' rule over the credal set's extreme points with P(B) > 0),
    Dempster's (the focal sets intersected with X × B, renormalised) and the geometric (Bel(A ∩ E)/Bel(E), defined
    when Bel(E) > 0), E = X × B, A = {x_i = 1}. Exact, over every prior in ``priors`` and every nonempty proper B.
    The value: whether every rule returns the prior wherever it is defined; the text gives each rule's verdict
    and where the geometric rule is defined."""
    ys = range(outputs)
    events = [set(b) for r in range(1, outputs) for b in itertools.combinations(ys, r)]
    law = None if likelihood is None else np.asarray(likelihood, dtype=float).reshape(2, outputs)
    if law is None:  # the credal set's extreme points: point masses, per x or shared
        points = [(y, y) for y in ys] if dependence == "none" else list(itertools.product(ys, repeat=2))
        members = [(np.eye(outputs)[y0], np.eye(outputs)[y1]) for y0, y1 in points]
    else:
        members = [(law[0], law[1])]
    agree = {"generalized_bayes": True, "dempster": True, "geometric": True}
    geometric_defined, worst = 0, 0.0
    for p1 in priors:
        prior = (1 - p1, p1)
        focal = ([(x, set(ys), prior[x]) for x in (0, 1)] if law is None
                 else [(x, {y}, prior[x] * law[x, y]) for x in (0, 1) for y in ys])
        for b in events:
            idx = sorted(b)
            posts = [prior[1] * q1[idx].sum() / (prior[0] * q0[idx].sum() + prior[1] * q1[idx].sum())
                     for q0, q1 in members if prior[0] * q0[idx].sum() + prior[1] * q1[idx].sum() > 0]
            worst = max(worst, abs(min(posts) - p1), abs(max(posts) - p1))
            agree["generalized_bayes"] &= bool(np.isclose(min(posts), p1) and np.isclose(max(posts), p1))
            kept = [(x, m) for x, ys_f, m in focal if ys_f & b]  # Dempster: focal sets that meet X × B
            agree["dempster"] &= bool(np.isclose(sum(m for x, m in kept if x == 1) / sum(m for _, m in kept), p1))
            within = [(x, m) for x, ys_f, m in focal if ys_f <= b]  # Bel(E): focal sets inside X × B
            if sum(m for _, m in within) > 0:
                geometric_defined += 1
                agree["geometric"] &= bool(np.isclose(sum(m for x, m in within if x == 1)
                                                      / sum(m for _, m in within), p1))
    value = all(agree.values())
    model = ("M precise" if law is not None
             else f"M₀ vacuous, {'the same unknown law for every x' if dependence == 'none' else 'any kernel'}")
    return Measurement(value, f"{model}; priors {priors}, {len(events)} events B on {outputs} outputs: returns the "
                              "prior — " + ", ".join(f"{k.replace('_', ' ')}: {'yes' if v else 'NO'}"
                                                     for k, v in agree.items())
                              + f" (largest deviation of the generalized Bayes envelope {worst:.3f}); the geometric "
                              f"rule defined at {geometric_defined} of {len(priors) * len(events)} (π, B)"
                              + ("" if geometric_defined else ", so its 'yes' is vacuous"))
