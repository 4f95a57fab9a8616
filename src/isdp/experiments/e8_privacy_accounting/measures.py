"""Measures of E8: the accounting tables of the Swapping slides and the TopDown talk."""

from __future__ import annotations

import itertools
import math
import string

import numpy as np
import pandas as pd
from scipy import optimize

from isdp.accounting import dp_to_zcdp, zcdp_to_dp
from isdp.experiments.claims import Measurement, Run

SWAP_TABLES = ("e8_swap_ma1940", "e8_swap_2020")
HALF_PRINTED_UNIT = 0.05  # the talk prints the variances to one decimal


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
    """For the same swap rate, ε is non-decreasing in b, and strictly larger for the larger b wherever that b's
    budget is on its left branch ln(b + 1) − ln o, i.e. p < p*(b) (on the figure's grid, adjacent b's)."""
    from isdp.accounting import swapping_min_epsilon

    c = run.table_at("e8/swap_curves.csv").pivot(index="swap_rate", columns="b", values="epsilon").sort_index(axis=1)
    diffs = np.diff(c.to_numpy(), axis=1)
    p = c.index.to_numpy()[:, None]
    left = p < swapping_min_epsilon(c.columns.to_numpy()[1:])[1][None, :]  # the larger b's left branch
    strict_left, non_decreasing = bool(np.all(diffs[left] > 0)), bool(np.all(diffs >= 0))
    strict_all = float(np.mean(diffs > 0))
    return Measurement(strict_left and non_decreasing,
                       f"{len(c.columns)} values of b × {len(c)} swap rates: strictly larger for the larger b on "
                       f"{'every' if strict_left else 'NOT every'} one of the {int(left.sum())} (rate, b) pairs on "
                       f"the larger b's left branch, {'non-decreasing' if non_decreasing else 'DECREASING'} at the "
                       f"others (equal, ln o); strictly larger at {100 * strict_all:.1f} % of all pairs",
                       note="read strictly everywhere the note would fail on the right branches (p ≥ p*(b) of "
                            "the larger b), where the slides' own formula gives ln o whatever b")


def tda_epsilon(run: Run, paper, *, rho: float, delta: float, rho_rounding: float, eps_rounding: float,
                conversion: str | None = None) -> Measurement:
    """ε of the printed ρ at δ under ``conversion`` (default: the configured one): the point of ε([ρ − r, ρ + r])
    nearest the paper's.

    ``rho_rounding`` and ``eps_rounding`` are half a unit of the last printed digit of ρ and ε.
    """
    t = run.table("e8_tda_conversion").set_index("conversion")
    method = conversion or run.config["e8"]["tda"]["conversion"]
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


def variance_gap(run: Run, paper, *, mechanism: str, delta: float | None = None,
                 beside: str | None = None) -> Measurement:
    """Largest |this run − printed| over the noise variances of one mechanism (and δ) of the talk's tables.

    Gaussian rows use the configured conversion; the conversion ``beside`` (a competing reading) is set beside it
    in the text, with whether its gap is within the same half unit of the last digit; the other conversions' gaps
    go into the note.
    """
    t = run.table("e8_tda_variance")
    t = t[t["mechanism"] == mechanism]
    if delta is not None:
        t = t[np.isclose(t["delta"], delta, rtol=1e-9, atol=0)]
    beside_text = ""
    if mechanism == "gaussian":
        method = run.config["e8"]["tda"]["conversion"]
        gaps = t.groupby("conversion")["gap"].agg(lambda g: g.abs().max())
        note = "largest gaps of the other conversions: " + ", ".join(f"{m} {g:.3f}" for m, g in gaps.items()
                                                                      if m != method)
        if beside is not None and beside not in gaps:
            beside_text = f"; beside it, {beside}: not in this run's table"
        elif beside is not None:
            other = t[t["conversion"] == beside]
            beside_text = (f"; beside it, {beside}: max gap {gaps[beside]:.3f} ("
                           f"{'within' if gaps[beside] <= HALF_PRINTED_UNIT else 'OUTSIDE'} half a unit of the last "
                           "digit): " + _cells_text(other["variance"], other["printed"], 1))
        t = t[t["conversion"] == method]
    else:
        method, note = "basic composition", ""
    if t.empty:
        raise ValueError(f"no {mechanism} rows at δ = {delta} in e8_tda_variance")
    gap = float(t["gap"].abs().max())
    return Measurement(gap, f"{method}: max |variance − printed| = {gap:.3f} over {len(t)} cells (ε = "
                            f"{', '.join(f'{e:g}' for e in t['epsilon'])}): "
                            + _cells_text(t["variance"], t["printed"], 1) + beside_text, note=note)


def gaussian_over_laplace(run: Run, paper) -> Measurement:
    """Every printed Gaussian variance exceeds the printed Laplace variance at the same (ε, δ); this run's
    recomputed ratios (configured conversion) beside them."""
    printed = pd.read_csv(run.data(run.config["e8"]["printed"]["tda_variance"]))
    ratio = printed["gaussian_variance"] / printed["laplace_variance"]
    t = run.table("e8_tda_variance")
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    recomputed = gau / lap
    return Measurement(bool((ratio > 1).all()), f"printed Gaussian / Laplace variance from {ratio.min():.2f} to "
                                                f"{ratio.max():.2f} over {len(ratio)} printed (ε, δ) cells",
                       note=f"recomputed ({method} conversion): {recomputed.min():.2f} to {recomputed.max():.2f}")


def gaussian_outliers(run: Run, paper, *, k: float, scale: str) -> Measurement:
    """At every (ε, δ) of the tables, the chance of an error beyond ``k`` SDs, Gaussian against Laplace, and whether
    the Gaussian's is the smaller everywhere. ``scale``: ``own`` (each mechanism's own SD: 2Φ(−k) against
    exp(−k√2), the tails' shape) or ``laplace`` (the Laplace SD for both: 2Φ(−k sd_L/sd_G), this run's variances);
    the other scale and the far-tail crossover are set beside it."""
    from scipy import stats

    t = run.table("e8_tda_variance")
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    p_lap = float(np.exp(-k * np.sqrt(2.0)))
    p_gau = {"own": pd.Series(2 * stats.norm.sf(k), index=lap.index),
             "laplace": pd.Series(2 * stats.norm.sf(k * np.sqrt(lap / gau)), index=lap.index)}
    fewer = {s: bool((p < p_lap).all()) for s, p in p_gau.items()}
    more = list(dict.fromkeys(f"δ {d:g}" for (d, _), g in (p_gau["laplace"] > p_lap).items() if g))
    worst = float((gau / lap).max())
    # beyond this many Laplace SDs the widest table's Gaussian tail is the lighter one: the far-tail reading
    cross = optimize.brentq(lambda x: np.log(2 * stats.norm.sf(x / np.sqrt(worst))) + x * np.sqrt(2.0), 1e-3, 50)
    words = {"own": f"beyond {k:g} of its own SDs: Gaussian {p_gau['own'].iloc[0]:.4f} against Laplace {p_lap:.4f} "
                    f"(the same at every (ε, δ)): {'fewer' if fewer['own'] else 'NOT fewer'} Gaussian outliers",
             "laplace": f"beyond {k:g} Laplace SDs: Gaussian {p_gau['laplace'].min():.4f} to "
                        f"{p_gau['laplace'].max():.4f} against Laplace {p_lap:.4f} over {len(lap)} (ε, δ) cells "
                        f"(variance ratio {(gau / lap).min():.2f} to {worst:.2f}): "
                        + ("fewer Gaussian outliers in every table" if fewer["laplace"] else
                           f"MORE Gaussian outliers at {', '.join(more)}")}
    other = "laplace" if scale == "own" else "own"
    return Measurement(fewer[scale], f"{words[scale]}; beside it, {words[other]}",
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
    ratio loss / ε(p, b) over the strata and swap rates, where the bound is attained, and how loose it is on the
    branch p ≤ 1/2 (the one every printed table uses)."""
    from isdp.accounting import swapping_epsilon
    from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    ratios, slack = {}, {}
    for h, k in strata:
        for p in rates:
            loss, eps = worst_loss_per_unit(h, k, p), swapping_epsilon(p, len(h))
            ratios[(tuple(h), tuple(k), p)] = loss / eps
            if p <= 0.5:
                slack[(tuple(h), p)] = eps - loss
    worst = max(ratios.values())
    attained = [f"p = {p:g} (h {list(h)})" for (h, _, p), r in ratios.items() if r > 1 - 1e-9]
    (h_min, p_min), least = min(slack.items(), key=lambda kv: kv[1])
    sizes = sorted({len(h) for h, _ in strata})
    return Measurement(worst, f"largest exact loss / ε(p, b) = {worst:.6f} over {len(strata)} strata (b = "
                              f"{', '.join(map(str, sizes))}) × {len(rates)} rates; attained at "
                              + (", ".join(attained) if attained else "none")
                              + f"; smallest ratio {min(ratios.values()):.3f}. On p ≤ 1/2 never attained: ε(p, b) "
                                f"exceeds the exact loss by {least:.3f} to {max(slack.values()):.3f} (least at b = "
                                f"{len(h_min)}, p = {p_min:g})", n=len(ratios),
                       note=f"on p ≤ 1/2 the formula is tested as an upper bound only: a formula up to {least:.3f} "
                            "smaller there would pass too")


def swap_invariant_support(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """Permutation swapping's outputs against its invariants, exactly on small strata: whether every output keeps
    the multisets of h and k, whether the datasets of one universe share their support (finite loss), and whether
    a dataset one record away with another k value (other invariants) shares any output with it (a value of k
    outside the stratum's included)."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import support_audit

    totals: dict[str, int] = {}
    for h, k in strata:
        for p in rates:
            for key, v in support_audit(h, k, p, sorted(set(k)) + [max(k) + 1]).items():
                totals[key] = totals.get(key, 0) + v
    value = {"invariants_kept": totals["outputs_breaking_invariants"] == 0,
             "common_support_within": totals["support_mismatches_within"] == 0,
             "common_support_across": totals["shared_support_across"] > 0}
    return Measurement(value, f"{len(strata)} strata × {len(rates)} rates, {totals['datasets']} datasets: "
                              f"{totals['outputs_breaking_invariants']} outputs break an invariant; "
                              f"{totals['support_mismatches_within']} pairs of one universe differ in support; "
                              f"{totals['shared_support_across']} of {totals['pairs_across']} pairs one record apart "
                              "with different invariants share an output (none: total variation 1, so "
                              "d_MULT = D_nor = ∞)", n=totals["datasets"])


def swap_proof_sketch(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """The steps of the slides' proof sketch that permutation swapping is DP, enumerated exactly on small strata
    (:func:`isdp.experiments.e8_privacy_accounting.swap_audit.proof_sketch_audit`): x = ρ(x') for a derangement ρ of
    m = d_HAM^u(x, x') records; m_σ − m ≤ m_σ' ≤ m_σ + m for σ' = σ ∘ ρ; Pr(σ)/Pr(σ') = o^(m_σ − m_σ') times the
    ratio of the derangement numbers of m_σ' and m_σ records; that ratio at most o^−m (b + 1)^m at the ``rates``."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import proof_sketch_audit

    audits = [proof_sketch_audit(h, k, rates) for h, k in strata]
    total = {key: sum(a[key] for a in audits) for key in ("pairs", "distance_mismatches", "unreachable", "rhos",
                                                           "support_violations")}
    worst = {key: max(a[key] for a in audits) for key in ("identity_deviation", "bound_ratio", "law_deviation")}
    value = {"derangement_of_m_records": total["distance_mismatches"] + total["unreachable"] == 0,
             "m_sigma_within_m": total["support_violations"] == 0,
             "ratio_in_derangement_numbers": worst["identity_deviation"] < 1e-9,
             "ratio_within_bound": worst["bound_ratio"] <= 1 + 1e-9}
    bounds = ", ".join(f"b = {len(h)}: {a['bound_ratio']:.3f}" for (h, _), a in zip(strata, audits, strict=True))
    return Measurement(value, f"{len(strata)} strata (b = {', '.join(str(len(h)) for h, _ in strata)}), "
                              f"{total['pairs']:,} ordered pairs of one universe: the fewest records a permutation "
                              f"moves to turn x' into x differs from d_HAM^u(x, x') at {total['distance_mismatches']} "
                              f"(unreachable datasets {total['unreachable']}); over the {total['rhos']} such ρ and "
                              f"every σ, m_σ − m ≤ m_σ' ≤ m_σ + m fails {total['support_violations']} times; "
                              f"Pr(σ)/Pr(σ') against o^(m_σ − m_σ') D(m_σ')/D(m_σ): largest relative gap "
                              f"{worst['identity_deviation']:.1e}; largest Pr(σ)/Pr(σ') / (o^−m (b + 1)^m) at p = "
                              f"{', '.join(f'{p:g}' for p in rates)}: {bounds}", n=total["pairs"],
                       note=f"the permutation law's image on a dataset agrees with the output law "
                            f"SWAP-E8-permutation-dp audits to {worst['law_deviation']:.0e}")


def swap_more_invariants(run: Run, paper, *, coarse: list, refined: list, rates: list[float]) -> Measurement:
    """Adding a variable to the swap key V_Match (more invariants): the printed 2020 what-if ε with and without
    household size, and the exact worst loss of one stratum against the same records split by the added variable
    (the worst loss of independent strata is the largest of theirs: loss and distance add up)."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    t = pd.read_csv(run.data(run.config["e8"]["printed"]["swap_2020"]))
    eps = t.set_index(["v_match", "v_swap", "swap_rate"])["epsilon"]
    pairs = [(base, r.v_swap, r.swap_rate) for r in t.itertuples()
             if (base := r.v_match.removesuffix(" x household size")) != r.v_match]
    drops = [eps[(base, v_swap, p)] - eps[(f"{base} x household size", v_swap, p)] for base, v_swap, p in pairs]
    before = {p: worst_loss_per_unit(*coarse, p) for p in rates}
    after = {p: max(worst_loss_per_unit(h, k, p) for h, k in refined) for p in rates}
    exact_lower = all(after[p] < before[p] if p <= 0.5 else after[p] <= before[p] + 1e-12 for p in rates)
    value = {"printed_lower": all(d > 0 for d in drops), "exact_lower": exact_lower}
    listed = ", ".join(f"{d:.2f}" for d in drops)
    return Measurement(value, f"printed ε without − with household size in V_Match: {listed} ({len(drops)} pairs); "
                              f"exact worst loss, one stratum of {len(coarse[0])} → strata of "
                              f"{', '.join(str(len(h)) for h, _ in refined)}: "
                              + ", ".join(f"p = {p:g}: {before[p]:.3f} → {after[p]:.3f}" for p in rates),
                       note="above p = 1/2 both are ln o (the same), as the formula's right branch")


def ma1940_swap_rate(run: Run, paper, *, file: str) -> Measurement:
    """The swap rate the printed 1940 instance implies. A selected dwelling keeps its ownership and receives the
    county of another selected one of its stratum; ignoring the household-size strata, a county's owned count
    moves towards total × s (s the state's owned share) by the fraction p: E[owned' − owned] = p (total s − owned).
    p̂ is the least-squares slope through the origin over the counties, its SE from the residuals."""
    t = pd.read_csv(run.data(file)).set_index("county")
    state, c = t.loc["total"], t.drop(index="total")
    s = state["owned"] / state["total"]
    a = (c["total"] * s - c["owned"]).to_numpy(float)
    d = (c["owned_swapped"] - c["owned"]).to_numpy(float)
    p_hat = float(a @ d / (a @ a))
    resid = d - p_hat * a
    se = float(np.sqrt(resid @ resid / (len(a) - 1) / (a @ a)))
    ratio = d / a
    # the expected instance moves each county by p (total s − owned): its MAPE over the owned and rented cells
    mape = {p: 100 * float(np.mean(np.r_[np.abs(p * a) / c["owned"], np.abs(p * a) / c["rented"]]))
            for p in (p_hat, 0.5)}
    return Measurement(p_hat, f"p̂ = {p_hat:.4f} (SE {se:.4f} from the residuals of {len(a)} counties; per county "
                              f"(owned' − owned)/(total s − owned) from {ratio.min():.2f} to {ratio.max():.2f}, "
                              f"s = {s:.4f}); expected MAPE of the owned/rented cells {mape[0.5]:.1f} % at p = 0.5, "
                              f"{mape[p_hat]:.1f} % at p̂", se=se,
                       note="the model leaves out the household-size strata (the swap key), whose counts by county "
                            "and tenure are not in the slides")


def discrete_gaussian_zcdp(run: Run, paper, *, variances: list[float], shifts: list[list[int]],
                           alphas: list[float], radius_sd: float) -> Measurement:
    """The exact sup over α of D_α/α between N_Z(0, σ²) and its shift (cells independent, divergences add), over
    the cited zCDP budget ρ = ‖shift‖₂²/(2σ²) (Canonne, Kamath & Steinke): the ratio farthest from 1 over the
    settings. D_nor of the slides is √(sup D_α/α) = √ρ. The laws live on ±``radius_sd`` SDs (the mass beyond is
    below e^(−radius_sd²/2), and every probability inside stays above floating-point underflow)."""
    from isdp.experiments.e8_privacy_accounting.zcdp_audit import discrete_gaussian_law, renyi_divergence

    ratios = {}
    for sigma2 in variances:
        radius = math.ceil(radius_sd * math.sqrt(sigma2))
        centred = discrete_gaussian_law(sigma2, radius)
        for shift in shifts:
            moved = [discrete_gaussian_law(sigma2, radius, s) for s in shift]  # per cell, on the same box
            sup = max(sum(renyi_divergence(centred, m, a) for m in moved) / a for a in alphas)
            ratios[(sigma2, tuple(shift))] = sup / zcdp_budget(shift, sigma2)
    far = max(ratios.values(), key=lambda r: abs(r - 1))
    return Measurement(far, "sup_α D_α/α over ρ = ‖shift‖₂²/(2σ²): " + ", ".join(
        f"σ² {s2:g}, shift {list(sh)}: {r:.6f}" for (s2, sh), r in ratios.items()), n=len(ratios))


def zcdp_budget(shift, sigma2: float) -> float:
    """The zCDP budget of discrete Gaussian noise N_Z(0, σ²) per cell for a change ``shift`` of the cells."""
    return float(np.sum(np.square(shift))) / (2 * sigma2)


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


def tda_toy_invariants(run: Run, paper, *, x: list[int], within: list[int], across: list[int], kept: list[int],
                       variance: float, radius: int, alphas: list[float]) -> Measurement:
    """A toy TDA on a few cells: discrete Gaussian noise on every cell, then the closest nonnegative integer table
    with the invariants c = (total, the cells ``kept``). For ``within`` (one person moved, same c) the exact
    sup_α D_α/α of the released tables, both ways, over the noise's budget ρ = ‖x − x'‖₂²/(2σ²); for ``across``
    (one person moved, same total, another kept cell: a proper subset of the invariants) whether the released
    tables can coincide."""
    from isdp.experiments.e8_privacy_accounting.zcdp_audit import release_law, renyi_divergence

    law = {name: release_law(v, variance, radius, kept) for name, v in (("x", x), ("within", within),
                                                                        ("across", across))}
    rho = zcdp_budget(np.subtract(within, x), variance)
    ratio = max(renyi_divergence(law[a], law[b], alpha) / alpha / rho
                for a, b in (("x", "within"), ("within", "x")) for alpha in alphas)
    shared = law["x"].keys() & law["across"].keys()
    value = {"within_budget": ratio <= 1 + 1e-9, "common_support_across": bool(shared)}
    return Measurement(value, f"x = {x}, c = (total, cells {kept}), σ² = {variance:g}: sup_α D_α/α of the released "
                              f"tables / ρ = {ratio:.4f} for x' = {within} (ρ = {rho:g}); x'' = {across} (same total "
                              f"only): {len(shared)} released tables in common, so D_nor = ∞",
                       note=f"noise truncated to ±{radius} per cell (mass beyond about "
                            f"{2 * math.exp(-radius**2 / (2 * variance)):.0e} per cell)")


def tum_statements(run: Run, paper, *, cells: int, children: int, child_cells: int, gq_types: list[str]) -> Measurement:
    """Total unimodularity by brute force over every square submatrix: the national rounding's constraint matrix
    (``cells`` cells), the state-level one with each child's total invariant (``children`` × ``child_cells``), and
    the matrix of the GQ implied constraints (every combination of ``gq_types``)."""
    from isdp.experiments.e8_privacy_accounting import implied, rounding

    combos = [S for k in range(1, len(gq_types) + 1) for S in itertools.combinations(gq_types, k)]
    matrices = {"national_tum": (rounding.national_matrix(cells), None),
                "state_tum": (rounding.state_matrix(children, child_cells), None),
                "gq_tum": (implied.gq_matrix(gq_types), ["".join(S) for S in combos])}
    words, value = {}, {}
    for key, (A, row_names) in matrices.items():
        minor = rounding.non_unimodular_minor(A)
        value[key] = minor is None
        rows = ", ".join(row_names[r] if row_names else str(r) for r in minor[0]) if minor else ""
        words[key] = "TUM" if minor is None else f"NOT TUM (rows {rows}: determinant {minor[2]:g})"
    return Measurement(value, f"national ({cells} cells): {words['national_tum']}; state ({children} × {child_cells} "
                              f"cells, child totals invariant): {words['state_tum']}; GQ implied constraints "
                              f"({len(gq_types)} types): {words['gq_tum']}")


def gq_integer_solution(run: Run, paper, *, blocks: list, types: list[str], vertex_types: list[int]) -> Measurement:
    """The GQ implied constraints: whether their (not TUM) matrix with some other integer right-hand side admits a
    fractional point but no integer one; whether every vertex of the polytope they cut out of block data is
    integral (``blocks``, and every-combination data for each size in ``vertex_types``); and whether every integer
    total meeting them extends to an integer block-level table (brute force over ``blocks``)."""
    from scipy.optimize import linprog

    from isdp.experiments.e8_privacy_accounting import implied, rounding

    blocks = [(int(pop), dict(occ)) for pop, occ in blocks]
    # the pair rows of the GQ matrix set to 1: y = (1/2, 1/2, 1/2) but no integer point (an odd cycle)
    pairs = implied.gq_matrix(types[:3])[3:6]
    lp = linprog(np.zeros(3), A_eq=pairs, b_eq=np.ones(3), bounds=[(0, None)] * 3, method="highs")
    integer_points = [y for y in itertools.product((0, 1), repeat=3) if np.all(pairs @ y == 1)]
    fractional_only = lp.status == 0 and not integer_points
    data = [("the blocks", blocks, types)] + [
        (f"every combination of {k} types", implied.gq_blocks(list(string.ascii_uppercase[:k]), "every-combination"),
         list(string.ascii_uppercase[:k])) for k in vertex_types]
    vertices = {name: implied.gq_vertices(b, t) for name, b, t in data}
    integral_by = {name: rounding.is_integral(v) for name, v in vertices.items()}
    extendable = implied.gq_extendable_totals(blocks, types)
    box = itertools.product(range(sum(pop for pop, _ in blocks) + 1), repeat=len(types))
    meeting = {y for y in box if implied.gq_feasible(dict(zip(types, y, strict=True)), blocks)}
    value = {"some_rhs_without_integer_point": fractional_only, "integral_vertices": all(integral_by.values()),
             "integer_extension": meeting == extendable}
    return Measurement(value, f"pair constraints = 1: LP {'feasible' if lp.status == 0 else 'infeasible'}, "
                              f"{len(integer_points)} integer points; vertices of the implied-constraint polytope: "
                              + "; ".join(f"{name}: {len(v)}, "
                                          + ("all integral" if integral_by[name] else "SOME FRACTIONAL")
                                          for name, v in vertices.items())
                              + f"; integer totals meeting the constraints {len(meeting)}, extendable to integer block "
                                f"tables {len(extendable)}, {'the same set' if meeting == extendable else 'DIFFERENT'}")


def zcdp_budget_epsilon(run: Run, paper, *, delta: float, conversion: str) -> Measurement:
    """The printed zCDP ρ as ε at δ (to set beside a budget that cannot be checked here)."""
    eps = zcdp_to_dp(float(paper), delta, conversion)
    return Measurement(eps, f"ρ = {float(paper):g} is ε = {eps:.2f} at δ = {delta:g} ({conversion} conversion)")


def swap_visualisation(run: Run, paper, *, columns: list[str], before: list, after: list, v_match: list[str],
                       v_swap: list[str], table: list[str]) -> Measurement:
    """The slides' swapping visualisation, from its printed records (row i before the swap is row i after): whether
    the records that changed share their swap key ``v_match`` and changed only in ``v_swap`` (their values
    permuted), whether both invariants (the multisets of V_Hold = every column but ``v_swap``, and of
    V_Match × V_Swap) are kept, and the change of the ``table`` contingency table the records give, in every cell that
    changed or for which ``paper["changes"]`` prints a change."""
    b, a = (pd.DataFrame(rows, columns=columns) for rows in (before, after))
    changed = (b != a).any(axis=1)
    hold = [c for c in columns if c not in v_swap]
    only_swap = bool((b.loc[changed, hold] == a.loc[changed, hold]).all(axis=None))
    permuted = sorted(map(tuple, b.loc[changed, v_swap].values)) == sorted(map(tuple, a.loc[changed, v_swap].values))
    share_key = bool(changed.sum() >= 2 and len(b.loc[changed, v_match].drop_duplicates()) == 1)

    def multiset(df, cols):
        return sorted(map(tuple, df[cols].astype(str).values))

    kept = multiset(b, hold) == multiset(a, hold) and multiset(b, v_match + v_swap) == multiset(a, v_match + v_swap)
    counts = [df.groupby(table).size() for df in (b, a)]
    diff = counts[1].sub(counts[0], fill_value=0).astype(int)
    # every cell that changed or that the slides print a change for (0 where the records give none)
    cells = set(diff[diff != 0].index) | {(r, c) for r, cs in paper["changes"].items() for c in cs}
    changes: dict = {}
    for row, col in sorted(cells):
        changes.setdefault(row, {})[col] = int(diff.get((row, col), 0))
    value = {"changes": changes, "swapped_records_share_match_key": share_key,
             "only_swap_variable_changes": only_swap and permuted, "invariants_kept": kept}
    return Measurement(value, f"{int(changed.sum())} of {len(b)} records changed, sharing "
                              f"{'their' if share_key else 'NOT their'} {' × '.join(v_match)}; "
                              f"{'only' if value['only_swap_variable_changes'] else 'NOT only'} {', '.join(v_swap)} "
                              f"changed (permuted); invariants {'kept' if kept else 'BROKEN'}; {' × '.join(table)} "
                              "changes: " + "; ".join(f"{r} {c} {d:+d}" for r, cs in changes.items()
                                                      for c, d in cs.items()))


def slides_distances(c, c2) -> tuple[float, float]:
    """The slides' distances between unordered datasets given as count vectors: d_HAM^u = ½|x ⊖ x'| (∞ across
    sizes) and d_SymDiff^u = |X ⊖ X'|."""
    sym = float(np.abs(np.subtract(c, c2)).sum())
    return (sym / 2 if sum(c) == sum(c2) else math.inf), sym


def hamming_extension(run: Run, paper, *, values: int, max_size: int) -> Measurement:
    """Shortest-path extensions of the bounded (replace one record) and unbounded (add or remove one record)
    neighbour relations, by breadth-first search over every unordered dataset of at most ``max_size`` records
    over ``values`` values, against the slides' closed forms (:func:`slides_distances`); beside them, the distance
    the swapping audit uses (records of x not in x', same size)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import shortest_path

    data = [c for n in range(max_size + 1) for c in itertools.product(range(n + 1), repeat=values) if sum(c) == n]
    index = {c: i for i, c in enumerate(data)}
    edges = {"bounded": [], "unbounded": []}
    for c in data:
        for v in range(values):
            up = c[:v] + (c[v] + 1,) + c[v + 1:]
            if up in index:
                edges["unbounded"].append((index[c], index[up]))
            for w in range(values):
                moved = tuple(x - (i == v) + (i == w) for i, x in enumerate(c))
                if v != w and c[v] > 0:
                    edges["bounded"].append((index[c], index[moved]))
    n = len(data)
    paths = {}
    for name, e in edges.items():
        rows, cols = np.array(e).T
        paths[name] = shortest_path(csr_array((np.ones(len(e)), (rows, cols)), shape=(n, n)), unweighted=True,
                                    directed=False)
    closed = np.array([[slides_distances(c, c2) for c2 in data] for c in data])
    mismatches = {name: int(np.sum(paths[name] != closed[:, :, i])) for i, name in enumerate(("bounded", "unbounded"))}
    counts = np.array(data)
    same = counts.sum(axis=1)[:, None] == counts.sum(axis=1)[None, :]
    audit = counts.sum(axis=1)[:, None] - np.minimum(counts[:, None, :], counts[None, :, :]).sum(axis=2)
    audit_mismatches = int(np.sum(audit[same] != paths["bounded"][same]))
    value = {"bounded_is_half_symmetric_difference": mismatches["bounded"] == 0,
             "unbounded_is_symmetric_difference": mismatches["unbounded"] == 0}
    return Measurement(value, f"{n} unordered datasets of 0 to {max_size} records over {values} values, {n * n:,} "
                              f"ordered pairs: shortest paths over bounded neighbours differ from ½|x ⊖ x'| (∞ across "
                              f"sizes) at {mismatches['bounded']} pairs, over unbounded neighbours from |X ⊖ X'| at "
                              f"{mismatches['unbounded']}; the swapping audit's distance (records of x not in x') "
                              f"differs from the bounded path length at {audit_mismatches} same-size pairs", n=n * n)


def attribute_sizes(run: Run, paper, *, races: list[str], group_quarters_types: list[str]) -> Measurement:
    """The histogram's attribute sizes from their categories: a race is any nonempty combination of ``races``
    (alone or in combination), a residence type a household or one of ``group_quarters_types``."""
    value = {"race": 2 ** len(races) - 1, "residence_type": 1 + len(group_quarters_types)}
    return Measurement(value, f"race: 2^{len(races)} − 1 = {value['race']} nonempty combinations of "
                              f"{len(races)} categories; residence type: household + {len(group_quarters_types)} "
                              f"group-quarters types = {value['residence_type']}")


def state_units(run: Run, paper, *, exclude: list[str]) -> Measurement:
    """The state-level geographic units (states and DC) of the committed 2010 county extract, ``exclude`` left out."""
    t = pd.read_csv(run.data(run.config["data"]["embedded"]), dtype={"state_fips": str})
    states = sorted(set(t["state_fips"]) - set(exclude))
    return Measurement(len(states), f"{len(states)} state FIPS codes in the 2010 county extract (left out: "
                                    f"{', '.join(exclude) or 'none'})")


def region_margins(run: Run, paper) -> Measurement:
    """Whether each printed two-way region table's row and column totals admit a nonnegative integer table
    (northwest-corner rule); the value counts the regions whose margins admit none."""
    def fill(rows, cols):
        rows, cols, table = list(rows), list(cols), np.zeros((len(rows), len(cols)), dtype=int)
        i = j = 0
        while i < len(rows) and j < len(cols):
            table[i, j] = m = min(rows[i], cols[j])
            rows[i] -= m
            cols[j] -= m
            i, j = (i + 1, j) if rows[i] == 0 else (i, j + 1)
        return table if not any(rows) and not any(cols) else None

    tables = {name: fill(m["rows"], m["columns"]) for name, m in paper.items()}
    bad = sum(t is None for t in tables.values())
    return Measurement(bad, "; ".join(f"region {name}: rows {m['rows']} (total {sum(m['rows'])}), columns "
                                      f"{m['columns']} (total {sum(m['columns'])}): "
                                      + (f"e.g. {tables[name].tolist()}" if tables[name] is not None
                                         else "NO nonnegative table") for name, m in paper.items()))


def workload_consistency(run: Run, paper, *, per_unit: int, blocks: float, queries_rounding: float,
                         blocks_rounding: float, exclude: list[str]) -> Measurement:
    """Whether the printed query total, queries per unit and number of blocks fit together: the units U the
    total allows (641 U rounding to it) against the fewest units the blocks allow (the blocks, rounding to the
    printed number, plus the counties, states and nation of the committed county extract; tracts and block
    groups are not in this repository; states ``exclude`` left out). The value is the largest allowed U minus the
    smallest needed."""
    t = pd.read_csv(run.data(run.config["data"]["embedded"]), dtype={"state_fips": str})
    t = t[~t["state_fips"].isin(exclude)]
    higher = len(t) + t["state_fips"].nunique() + 1
    lo, hi = (float(paper) - queries_rounding) / per_unit, (float(paper) + queries_rounding) / per_unit
    needed = blocks - blocks_rounding + higher
    text = (f"{float(paper):.2g} queries (±{queries_rounding:.2g}) / {per_unit} allow {lo / 1e6:.3f} to "
            f"{hi / 1e6:.3f} million units; ≈ {blocks / 1e6:g} million blocks (at least "
            f"{(blocks - blocks_rounding) / 1e6:g}) + {higher:,} counties, states and nation need at least "
            f"{needed / 1e6:.3f} million")
    return Measurement(hi - needed, text,
                       note=f"at {blocks / 1e6:g} million blocks exactly, {per_unit} queries per unit would be at "
                            f"least {per_unit * (blocks + higher) / 1e9:.2f} billion")
