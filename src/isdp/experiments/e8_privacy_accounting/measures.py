"""Measures of E8: the accounting tables of the Swapping slides and the TopDown talk."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import optimize

from isdp.accounting import dp_to_zcdp, zcdp_to_dp
from isdp.experiments.claims import Measurement, Run

SWAP_TABLES = ("e8_swap_ma1940", "e8_swap_2020")


def _cells_text(values, printed, digits: int) -> str:
    """This run's values at the printed precision, with the printed value beside any that differs."""
    out = []
    for v, p in zip(values, printed, strict=True):
        s = f"{v:.{digits}f}"
        out.append(s if math.isclose(float(s), p, abs_tol=10 ** -(digits + 3)) else f"{s} (printed {p:.{digits}f})")
    return ", ".join(out)


def swap_table_gap(run: Run, paper, *, table: str) -> Measurement:
    """Largest |this run − printed| over the ε cells of one printed swap-rate table."""
    t = run.table(table)
    gap = float(t["gap"].abs().max())
    return Measurement(gap, f"max |ε − printed| = {gap:.5f} over {len(t)} cells; ε at the printed precision: "
                            + _cells_text(t["epsilon"], t["epsilon_printed"], 2))


def swap_range(run: Run, paper) -> Measurement:
    """Smallest and largest ε of the 2020 what-if table, this run."""
    t = run.table("e8_swap_2020")
    lo, hi = t.loc[t["epsilon"].idxmin()], t.loc[t["epsilon"].idxmax()]
    return Measurement([float(lo["epsilon"]), float(hi["epsilon"])],
                       f"{lo['epsilon']:.4f} ({lo['v_match']}, p = {lo['swap_rate']:g}) to {hi['epsilon']:.4f} "
                       f"({hi['v_match']}, p = {hi['swap_rate']:g})")


def min_epsilon(run: Run, paper) -> Measurement:
    """Every b has a smallest budget ε_b > 0: numerical minimisation agrees with ln(b + 1)/2."""
    t = run.table("e8_swap_min")
    dev = float((t["min_epsilon_numeric"] - t["min_epsilon"]).abs().max())
    ok = bool((t["min_epsilon"] > 0).all() and dev < 1e-6)
    parts = [f"b = {int(r.b):,}: ε_b = {r.min_epsilon:.3f} at p* = {r.argmin_swap_rate:.6f}" for r in t.itertuples()]
    return Measurement(ok, "; ".join(parts) + f" (numerical minimum within {dev:.1e} of ln(b + 1)/2)")


def two_rates(run: Run, paper) -> Measurement:
    """Each ε above ε_b is reached by exactly two swap rates (numerical root count, every b and offset)."""
    t = run.table("e8_swap_min")
    counts = t.filter(like="n_rates_").to_numpy()
    gaps = t.filter(like="log_odds_gap_").to_numpy()
    offsets = t.filter(like="offset_").iloc[0].tolist()
    ok = bool(np.all(counts == 2) and np.all(gaps < 1e-8))
    listed = ", ".join(f"{o:g}" for o in offsets)
    return Measurement(ok, f"{counts.size} budgets ε_b + {{{listed}}} for {len(t)} values of b: root counts "
                           f"{sorted(set(counts.ravel().tolist()))}, largest log-odds distance from the closed-form "
                           f"pair {np.max(gaps):.1e}")


def larger_b(run: Run, paper) -> Measurement:
    """For the same swap rate ≤ 1/2, ε is strictly larger for every larger b (on the figure's grid)."""
    c = run.table_at("e8/swap_curves.csv").pivot(index="swap_rate", columns="b", values="epsilon").sort_index(axis=1)
    diffs = np.diff(c.to_numpy(), axis=1)
    left = c.index.to_numpy() <= 0.5
    strict_left = bool(np.all(diffs[left] > 0))
    strict_all = float(np.mean(np.all(diffs > 0, axis=1)))
    return Measurement(strict_left and bool(np.all(diffs >= 0)),
                       f"{len(c.columns)} values of b, {int(left.sum())} swap rates ≤ 1/2: strictly increasing in b at "
                       f"every one; over all {len(c)} rates strictly increasing at {100 * strict_all:.1f} %, equal "
                       "elsewhere",
                       note="above p*(b) the budget is ln o, the same for every larger b: 'larger' holds weakly there")


def tda_epsilon(run: Run, paper, *, rho: float, delta: float, rho_rounding: float, eps_rounding: float) -> Measurement:
    """ε of the printed ρ at δ under the configured conversion: the point of ε([ρ − r, ρ + r]) nearest the paper's.

    ``rho_rounding`` and ``eps_rounding`` are half a unit of the last printed digit of ρ and ε.
    """
    t = run.table("e8_tda_conversion").set_index("conversion")
    method = run.config["e8"]["tda"]["conversion"]
    lo, hi = float(t.loc[method, "epsilon_rho_low"]), float(t.loc[method, "epsilon_rho_high"])
    value = min(max(float(paper), lo), hi)
    rho_needed = dp_to_zcdp(float(paper) - eps_rounding, delta, method)  # smallest ρ whose ε rounds to the paper's
    others = "; ".join(f"{m} {r.epsilon:.3f}" for m, r in t.iterrows() if m != method)
    text = (f"{method}: ε({rho:g}) = {t.loc[method, 'epsilon']:.4f}, over ρ ∈ [{rho - rho_rounding:g}, "
            f"{rho + rho_rounding:g}] ε ∈ [{lo:.4f}, {hi:.4f}]; nearest to the paper: {value:.4f}. Other "
            f"conversions at ρ = {rho:g}: {others}")
    note = (f"at ρ = {rho:g} exactly the {method} conversion gives {zcdp_to_dp(rho, delta, method):.2f}; the printed "
            f"ε needs an unrounded ρ ≥ {rho_needed:.4f}, inside ρ's printed rounding")
    return Measurement(value, text, note=note)


def ma1940_invariants(run: Run, paper, *, file: str) -> Measurement:
    """The printed county table keeps its invariants: county totals and the state's owned/rented totals."""
    t = pd.read_csv(run.data(file)).set_index("county")
    counties, total = t.drop(index="total"), t.loc["total"]
    checks = {
        "owned + rented = total (both tables)": bool((counties["owned"] + counties["rented"] == counties["total"]).all()
                                                     and (counties["owned_swapped"] + counties["rented_swapped"]
                                                          == counties["total_swapped"]).all()),
        "county totals unchanged": bool((counties["total"] == counties["total_swapped"]).all()),
        "printed total row = column sums": bool((counties.sum() == total).all()),
        "state owned and rented unchanged": bool(total["owned"] == total["owned_swapped"]
                                                 and total["rented"] == total["rented_swapped"]),
    }
    moved = int((counties["owned"] - counties["owned_swapped"]).abs().sum())
    listed = "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())
    return Measurement(all(checks.values()),
                       f"{len(counties)} counties: {listed}; {moved:,} owned dwellings moved between counties")


def ma1940_swapped_mape(run: Run, paper, *, file: str) -> Measurement:
    """MAPE of the printed p = 50 % instance (owned and rented by county), to set beside the paper's boxplots."""
    t = pd.read_csv(run.data(file)).set_index("county").drop(index="total")
    ape = pd.concat([(t[f"{c}_swapped"] - t[c]).abs() / t[c] for c in ("owned", "rented")])
    mape = 100 * float(ape.mean())
    return Measurement(mape, f"the printed p = 50 % instance: MAPE {mape:.1f} % over {len(ape)} owned/rented cells "
                             f"(largest county error {100 * ape.max():.0f} %)")


def ma1940_stratum(run: Run, paper, *, file: str) -> Measurement:
    """The largest stratum beside the dwellings of the printed county table (the count itself needs microdata)."""
    total = int(pd.read_csv(run.data(file)).set_index("county").loc["total", "total"])
    return Measurement(float(paper) / total, f"b = {int(paper):,} is {100 * float(paper) / total:.1f} % of the "
                       f"{total:,} dwellings of the printed county table; ε depends on b only through ln(b + 1)")


def census2020_strata(run: Run, paper) -> Measurement:
    """The 2020 strata sizes as used; how much ε moves if one were off."""
    t = run.table("e8_swap_2020").drop_duplicates("b")
    return Measurement(len(t), f"{len(t)} sizes from {t['b'].min():,} to {t['b'].max():,}, used as printed; ε "
                       "depends on b only through ln(b + 1), so a size off by 1 % moves ε by 0.01")


def variance_gap(run: Run, paper, *, mechanism: str, delta: float | None = None) -> Measurement:
    """Largest |this run − printed| over the noise variances of one mechanism (and δ) of the talk's tables.

    Gaussian rows use the configured conversion; the other conversions' gaps go into the note.
    """
    t = run.table("e8_tda_variance")
    t = t[t["mechanism"] == mechanism]
    if delta is not None:
        t = t[np.isclose(t["delta"], delta, rtol=1e-9, atol=0)]
    if mechanism == "gaussian":
        method = run.config["e8"]["tda"]["conversion"]
        others = t[t["conversion"] != method].groupby("conversion")["gap"].agg(lambda g: g.abs().max())
        t = t[t["conversion"] == method]
        note = "largest gaps of the other conversions: " + ", ".join(f"{m} {g:.3f}" for m, g in others.items())
    else:
        method, note = "basic composition", ""
    if t.empty:
        raise ValueError(f"no {mechanism} rows at δ = {delta} in e8_tda_variance")
    gap = float(t["gap"].abs().max())
    return Measurement(gap, f"{method}: max |variance − printed| = {gap:.3f} over {len(t)} cells (ε = "
                            f"{', '.join(f'{e:g}' for e in t['epsilon'])}): "
                            + _cells_text(t["variance"], t["printed"], 1), note=note)


def gaussian_over_laplace(run: Run, paper) -> Measurement:
    """Every Gaussian variance exceeds the Laplace variance at the same (ε, δ) (this run's values)."""
    t = run.table("e8_tda_variance")
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    ratio = gau / lap
    return Measurement(bool((ratio > 1).all()), f"Gaussian / Laplace variance from {ratio.min():.2f} to "
                                                f"{ratio.max():.2f} over {len(ratio)} (ε, δ) cells")


def gaussian_outliers(run: Run, paper, *, k: float) -> Measurement:
    """At every (ε, δ) of the tables, the chance of an error beyond ``k`` Laplace SDs: Gaussian 2Φ(−k sd_L/sd_G)
    against Laplace exp(−k√2) (this run's variances); whether the Gaussian's is the smaller everywhere."""
    from scipy import stats

    t = run.table("e8_tda_variance")
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    p_gau = pd.Series(2 * stats.norm.sf(k * np.sqrt(lap / gau)), index=lap.index)
    p_lap = float(np.exp(-k * np.sqrt(2.0)))
    value = bool((p_gau < p_lap).all())
    worst = float((gau / lap).max())
    # beyond this many Laplace SDs the widest table's Gaussian tail is the lighter one: the far-tail reading
    cross = optimize.brentq(lambda x: np.log(2 * stats.norm.sf(x / np.sqrt(worst))) + x * np.sqrt(2.0), 1e-3, 50)
    more = [f"δ {d:g}" for (d, _), g in (p_gau > p_lap).items() if g]
    return Measurement(value, f"P(|error| > {k:g} Laplace SDs): Gaussian {p_gau.min():.4f}–{p_gau.max():.4f} against "
                              f"Laplace {p_lap:.4f} over {len(p_gau)} (ε, δ) cells (variance ratio "
                              f"{(gau / lap).min():.2f}–{worst:.2f}; the Gaussian has more beyond {k:g} Laplace SDs "
                              f"once the ratio exceeds {(k / stats.norm.isf(p_lap / 2)) ** 2:.2f}"
                              + (f": at {', '.join(dict.fromkeys(more))}" if more else "") + ")",
                       note=f"the far-tail reading: beyond {cross:.1f} Laplace SDs the Gaussian's tail is the lighter "
                            f"one in every table (there the Laplace puts {np.exp(-cross * np.sqrt(2.0)):.1e} of its "
                            "errors)")


def failure_probability(run: Run, paper, *, people: float, delta: float) -> Measurement:
    """Chance that some record is released: people × δ (δ per person of an algorithm that leaks a record)."""
    p = people * delta
    return Measurement(p, f"{people:.0e} people × δ = {delta:.2e} → {p:.2e}",
                       note="the tables use δ = 1e-14, four times this δ")


def histogram_cells(run: Run, paper, *, blocks: float, attributes: dict) -> Measurement:
    """Cells of the block-level histogram: blocks × the product of the attribute sizes."""
    per_block = math.prod(attributes.values())
    n = blocks * per_block
    return Measurement(n, f"{blocks:.0e} blocks × {' × '.join(f'{v} ({k})' for k, v in attributes.items())} = "
                          f"{per_block:,} cells per block → {n / 1e9:.2f} billion cells",
                       note="one identity query per cell: the talk's '+12 billion identity queries' is the same count")


def us_population(run: Run, paper) -> Measurement:
    """2010 Census population of the 50 states and DC, summed from the committed county extract."""
    path = run.data(run.config["data"]["embedded"])
    t = pd.read_csv(path, dtype={"state_fips": str})
    us = t[t["state_fips"] != "72"]  # Puerto Rico is outside the national total
    n = int(us["sf1_pop"].sum())
    return Measurement(n, f"{n:,} (2010 Summary File 1, {len(us):,} counties of the 50 states and DC)",
                       note=f"from {path.name}: the confidential 2010 counts, the same in every NHGIS vintage")


def workload_queries(run: Run, paper, *, per_unit: int, blocks: float) -> Measurement:
    """Geographic units the printed query total implies, beside the number of blocks."""
    implied = float(paper) / per_unit
    return Measurement(implied, f"{float(paper):.1e} / {per_unit} = {implied / 1e6:.1f} million geographic units "
                                f"implied; {per_unit} × {blocks / 1e6:g} million blocks alone would be "
                                f"{per_unit * blocks / 1e9:.2f} billion")


def dorm_constraints(run: Run, paper) -> Measurement:
    """The tight bounds of the talk's linear forms by enumeration, and whether the stated set is exactly the
    feasible one.

    ``paper`` maps ``F_min, C_min, M_min, F_max, CF_min, total, sufficient`` (the talk's inequalities).
    """
    b = run.table("e8_dorm_bounds").set_index("form")
    feas = run.table_at("e8/dorm_feasible_totals.csv")
    total = int(b.loc["F+C+M", "min"]) if b.loc["F+C+M", "min"] == b.loc["F+C+M", "max"] else None
    value = {"F_min": int(b.loc["F", "min"]), "C_min": int(b.loc["C", "min"]), "M_min": int(b.loc["M", "min"]),
             "F_max": int(b.loc["F", "max"]), "CF_min": int(b.loc["C+F", "min"]), "total": total}
    # sufficiency: every integer point satisfying the talk's inequalities has a feasible extension
    F, C = np.meshgrid(np.arange(paper["total"] + 1), np.arange(paper["total"] + 1), indexing="ij")
    M = paper["total"] - F - C
    stated = ((F >= paper["F_min"]) & (C >= paper["C_min"]) & (M >= paper["M_min"]) & (F <= paper["F_max"])
              & (C + F >= paper["CF_min"]))
    stated_points = set(zip(F[stated].tolist(), C[stated].tolist(), M[stated].tolist(), strict=True))
    feasible_points = set(map(tuple, feas[["F", "C", "M"]].to_numpy().tolist()))
    value["sufficient"] = stated_points == feasible_points
    text = (", ".join(f"{k} {v}" for k, v in value.items() if k != "sufficient")
            + f"; the stated inequalities hold {len(stated_points):,} integer points, the feasible set "
              f"{len(feasible_points):,}: " + ("the same set" if value["sufficient"] else "DIFFERENT sets"))
    return Measurement(value, text)


def dorm_point(run: Run, paper, *, point: dict) -> Measurement:
    """Whether a town-wide (F, C, M) meets the single-type bounds and the total, and whether it is feasible."""
    b = run.table("e8_dorm_bounds").set_index("form")
    feas = run.table_at("e8/dorm_feasible_totals.csv")
    first_pass = bool(all(point[t] >= b.loc[t, "min"] for t in ("F", "C", "M"))
                      and sum(point.values()) == b.loc["F+C+M", "min"] == b.loc["F+C+M", "max"])
    feasible = bool(((feas["F"] == point["F"]) & (feas["C"] == point["C"]) & (feas["M"] == point["M"])).any())
    return Measurement({"first_pass": first_pass, "feasible": feasible},
                       f"(F, C, M) = ({point['F']}, {point['C']}, {point['M']}): single-type bounds and total "
                       f"{'met' if first_pass else 'NOT met'}; {'feasible' if feasible else 'infeasible'} "
                       f"(M ≤ {int(b.loc['M', 'max'])})")


def gq_combinations(run: Run, paper, *, types: int, small: list[int]) -> Measurement:
    """The implied GQ constraints counted: for ``small`` numbers of types, how many combinations' constraints are
    needed (not implied by the others, HiGHS LP) when every combination shares a block, and when no block holds
    two types; whether the first is one per combination (2^k − 1) and the second smaller. The count at ``types``
    follows: at most 2^types − 1, attained by data in which every combination shares a block."""
    import string

    from isdp.experiments.e8_privacy_accounting import implied

    every, apart = {}, {}
    for k in small:
        names = list(string.ascii_uppercase[:k])
        every[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "every-combination"), names))
        apart[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "one-type-per-block"), names))
    value = {"one_per_combination": all(every[k] == 2**k - 1 for k in small),
             "smaller_on_other_data": all(apart[k] < 2**k - 1 for k in small if k > 1)}
    return Measurement(value, "needed constraints for k types, every combination sharing a block: "
                              + ", ".join(f"k = {k}: {every[k]} (2^k − 1 = {2**k - 1})" for k in small)
                              + "; no block with two types: " + ", ".join(f"{apart[k]}" for k in small)
                              + f". So at {types} types at most 2^{types} − 1 = {2**types - 1:,} ≈ 2^{types}, attained "
                                "when every combination shares a block")


def swap_privacy_audit(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """The slides' budget ε(p, b) against the exact worst privacy loss per unit of Hamming distance of permutation
    swapping, enumerated on small strata (:mod:`isdp.experiments.e8_privacy_accounting.swap_audit`): the largest
    ratio loss / ε(p, b) over the strata and swap rates, and where the bound is attained."""
    from isdp.accounting import swapping_epsilon
    from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    ratios = {}
    for h, k in strata:
        for p in rates:
            ratios[(tuple(h), tuple(k), p)] = worst_loss_per_unit(h, k, p) / swapping_epsilon(p, len(h))
    worst = max(ratios.values())
    attained = [f"p = {p:g} (h {list(h)})" for (h, _, p), r in ratios.items() if r > 1 - 1e-9]
    return Measurement(worst, f"largest exact loss / ε(p, b) = {worst:.6f} over {len(strata)} strata × {len(rates)} "
                              f"rates; attained at " + (", ".join(attained) if attained else "none")
                              + f"; smallest ratio {min(ratios.values()):.3f}", n=len(ratios))


def rounding_lp(run: Run, paper, *, children, parent) -> Measurement:
    """Whether HiGHS's simplex returns an integer solution of the talk's rounding LP as printed, on the
    instance ``children`` (fractional H*_j adding up to the integer ``parent``); beside it the IP's optimum
    and the offset formulation's LP."""
    from isdp.experiments.e8_privacy_accounting import rounding

    lp, lp_obj = rounding.printed_lp(children, parent)
    _, ip_obj = rounding.printed_lp(children, parent, integer=True)
    off, off_obj = rounding.offset_lp(children, parent)
    value = {"lp_integral": rounding.is_integral(lp)}
    return Measurement(value, f"the printed LP's simplex vertex is H* itself ({np.round(lp, 3).tolist()}, objective "
                              f"{lp_obj:g}): {'integral' if value['lp_integral'] else 'FRACTIONAL'}; the IP's optimum "
                              f"is {ip_obj:g}. Written in offsets d = H̃ − ⌊H*⌋ ∈ [0, 1] (integer right-hand sides) the "
                              f"LP's vertex is {'integral' if rounding.is_integral(off) else 'fractional'} with "
                              f"objective {off_obj:g}")


def dorm_flow(run: Run, paper) -> Measurement:
    """The network-flow reduction of the dorm example: the region capacities after moving the
    "≥ 1" constraints out, and whether max-flow feasibility equals the enumerated feasible set
    for every split of the town total."""
    from isdp.experiments.e8_privacy_accounting import implied

    cfg = run.config["e8"]["dorm"]
    caps = implied.flow_network(cfg["region_totals"], cfg["occupied"])
    feas = {tuple(r) for r in implied.feasible_totals(cfg["region_totals"], cfg["occupied"], cfg["types"])
            .itertuples(index=False)}
    total = sum(cfg["region_totals"].values())
    points = np.array([(f, c, total - f - c) for f in range(total + 1) for c in range(total + 1 - f)])
    by_flow = implied.flow_feasible(points, cfg["region_totals"], cfg["occupied"], cfg["types"])
    disagree = int(sum(flow != (tuple(p) in feas) for p, flow in zip(points.tolist(), by_flow, strict=True)))
    n_points = (total + 1) * (total + 2) // 2
    value = {"capacities": caps, "reduction_exact": disagree == 0}
    return Measurement(value, f"region capacities {caps}; max-flow feasibility against enumeration on all "
                              f"{n_points:,} splits of {total}: {disagree} disagree")


def swap_rate_gap(run: Run, paper, *, table: str, low: float, high: float) -> Measurement:
    """Largest |ε(p = low) − ε(p = high) − ln(o_high / o_low)| over the rows of a printed what-if table.

    For p ≤ 1/2 the slides' formula gives ε = ln(b + 1) − ln o, so the difference between two
    columns is ln(o_high/o_low) whatever b: a check of the printed columns that needs no b.
    """
    t = pd.read_csv(run.data(run.config["e8"]["printed"][table]))
    wide = t.pivot_table(index=["v_match", "v_swap"], columns="swap_rate", values="epsilon", sort=False)
    expected = math.log(high / (1 - high)) - math.log(low / (1 - low))
    diff = wide[low] - wide[high]
    gap = float((diff - expected).abs().max())
    return Measurement(gap, f"ε({100 * low:g} %) − ε({100 * high:g} %) per row: {', '.join(f'{d:.2f}' for d in diff)}; "
                            f"ln(o_high/o_low) = {expected:.4f}; largest gap {gap:.4f}")


def laplace_column_delta_free(run: Run, paper) -> Measurement:
    """Whether the printed Laplace variances are the same on every δ slide (pure DP needs no δ)."""
    t = pd.read_csv(run.data(run.config["e8"]["printed"]["tda_variance"]))
    wide = t.pivot_table(index="epsilon", columns="delta", values="laplace_variance")
    spread = float((wide.max(axis=1) - wide.min(axis=1)).max())
    return Measurement(spread == 0.0, f"largest spread of a printed Laplace variance across the {wide.shape[1]} δ "
                                      f"slides: {spread:g} (ε = {', '.join(f'{e:g}' for e in wide.index)})")
