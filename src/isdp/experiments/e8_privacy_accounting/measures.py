"""Measures of E8: the accounting tables of the Swapping slides and the TopDown talk."""

from __future__ import annotations

import itertools
import math
import string

import numpy as np
import pandas as pd
from scipy import optimize

from isdp.accounting import dp_to_zcdp, zcdp_to_dp
from isdp.experiments import nhgis
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
    """For every b of the printed tables, whether the slides' formula has a smallest budget ε_b > 0 over p ∈ (0, 1):
    the numerical minimum over logit p (a bounded search over ±``LOG_ODDS_BOUND``) is positive and attained strictly
    inside the search interval (a budget falling towards p = 0 or 1 would end on its edge). The closed form
    ln(b + 1)/2 goes into the note."""
    from scipy import special

    from isdp.experiments.e8_privacy_accounting.tables import LOG_ODDS_BOUND

    t = run.table("e8_swap_min")
    with np.errstate(divide="ignore"):  # a minimiser at p = 0 or 1 in floating point: logit ±inf
        t_min = special.logit(t["argmin_swap_rate_numeric"].to_numpy(float))
    value = {"positive": bool((t["min_epsilon_numeric"] > 0).all()),
             "attained_inside": bool(np.all(np.abs(t_min) < LOG_ODDS_BOUND - 1))}
    dev = float((t["min_epsilon_numeric"] - t["min_epsilon"]).abs().max())
    parts = [f"b = {int(r.b):,}: ε_b = {r.min_epsilon_numeric:.3f} at logit p = {lt:.4f} (p = "
             f"{r.argmin_swap_rate_numeric:.6f})" for r, lt in zip(t.itertuples(), t_min, strict=True)]
    return Measurement(value, "; ".join(parts) + f" (search over logit p in ±{LOG_ODDS_BOUND:g})",
                       note=f"the numerical minimum is within {dev:.1e} of ln(b + 1)/2 at p* with odds √(b + 1)")


def two_rates(run: Run, paper) -> Measurement:
    """Whether each budget ε_b + offset (every b of the printed tables, every configured offset) is reached by exactly
    two swap rates: the numerical root count of the slides' formula over logit p. The distance of the roots from the
    closed-form pair goes into the note."""
    t = run.table("e8_swap_min")
    counts = t.filter(like="n_rates_").to_numpy()
    gaps = t.filter(like="log_odds_gap_").to_numpy()
    offsets = t.filter(like="offset_").iloc[0].tolist()
    listed = ", ".join(f"{o:g}" for o in offsets)
    return Measurement(bool(np.all(counts == 2)),
                       f"{counts.size} budgets ε_b + {{{listed}}} for {len(t)} values of b: root counts "
                       f"{sorted(set(counts.ravel().tolist()))}",
                       note=f"largest log-odds distance of the roots from the closed-form pair (ln(b + 1) − ε, ε): "
                            f"{np.max(gaps):.1e}")


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


def census2020_strata_nesting(run: Run, paper, *, printed: str, geography: list[str]) -> Measurement:
    """The 2020 what-if table's b are largest strata of nested partitions: a matching key V' refines V when its
    geography is V's or finer (``geography``, coarsest first) and it crosses every variable V crosses (household
    size), and then every V' stratum lies inside a V stratum, so b(V') ≤ b(V). The value is the number of refining
    pairs of printed rows that break it."""
    b = pd.read_csv(run.data(printed)).drop_duplicates("v_match").set_index("v_match")["b"]

    def key(v):
        geo, *crossed = [part.strip() for part in v.split(" x ")]
        return geography.index(geo), set(crossed)

    pairs = [(fine, coarse) for fine, coarse in itertools.permutations(b.index, 2)
             if key(fine)[0] >= key(coarse)[0] and key(fine)[1] >= key(coarse)[1]]
    broken = [(f, c) for f, c in pairs if b[f] > b[c]]
    return Measurement(len(broken), f"{len(broken)} of {len(pairs)} refining pairs of matching keys with a larger "
                                    "printed b than the key they refine"
                                    + "".join(f"; {f} {b[f]:,} > {c} {b[c]:,}" for f, c in broken),
                       n=len(pairs))


def census2020_largest_strata(run: Run, paper, *, printed: str, housing: str, strata: dict) -> Measurement:
    """The 2020 what-if table's state and county strata against the 2010 SF1 housing counts of the committed county
    extract (H3: total and occupied housing units; occupied units are households): whether the named stratum
    (``strata``: V_Match → state abbreviation, or 'state abbreviation county FIPS') has the most households at its
    level, and whether the printed b is exactly its total housing units (vacant units included) and not its
    households."""
    from isdp.experiments.nhgis import load_housing

    b = pd.read_csv(run.data(printed)).drop_duplicates("v_match").set_index("v_match")["b"]
    t = load_housing(run.data(housing))
    columns = ["sf1_housing_units", "sf1_occupied_units"]
    levels = {"state": t.groupby("state_abbr")[columns].sum(),
              "county": t.set_index(t["state_abbr"] + " " + t["county_fips"])[columns]}
    value, parts = {}, []
    for v_match, key in strata.items():
        counts = levels[v_match]
        units, households = (int(counts.loc[key, c]) for c in columns)
        top = counts["sf1_occupied_units"].idxmax()
        value[f"{v_match}_largest_by_households"] = bool(top == key)
        value[f"{v_match}_b_is_housing_units"] = bool(b[v_match] == units != households)
        parts.append(f"V_Match {v_match}: printed b = {b[v_match]:,}; {key} in 2010: {units:,} housing units, "
                     f"{households:,} households (b / households = {b[v_match] / households:.4f}, ε lower by "
                     f"{math.log((b[v_match] + 1) / (households + 1)):.3f} with households); most households: {top}")
    return Measurement(value, "; ".join(parts), note="the 2020 counts (DHC) are not reachable offline; 2010 SF1 H3 "
                                                    "from the NHGIS county extract, vintage v20210608")


def variance_gap(run: Run, paper, *, mechanism: str, delta: float | None = None, conversion: str | None = None,
                 beside: str | None = None) -> Measurement:
    """Largest |this run − printed| over the noise variances of one mechanism (and δ) of the talk's tables.

    Gaussian rows use the zCDP → (ε, δ) ``conversion`` (default: the configured one); the conversion ``beside`` (a
    competing reading) is set beside it in the text, with whether its gap is within the same half unit of the last
    digit; the other conversions' gaps go into the note.
    """
    t = run.table("e8_tda_variance")
    t = t[t["mechanism"] == mechanism]
    if delta is not None:
        t = t[np.isclose(t["delta"], delta, rtol=1e-9, atol=0)]
    beside_text = ""
    if mechanism == "gaussian":
        method = conversion or run.config["e8"]["tda"]["conversion"]
        gaps = t.groupby("conversion")["gap"].agg(lambda g: g.abs().max())
        note = "largest gaps of the other conversions: " + ", ".join(f"{m} {g:.3f}" for m, g in gaps.items()
                                                                      if m not in (method, beside))
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


def table_at_other_delta(run: Run, paper, *, table_delta: float, delta: float, conversion: str) -> Measurement:
    """The talk's Gaussian variance table printed for δ = ``table_delta``, recomputed at another δ the talk gives
    for the same label (the first 'RDP/zCDP' slide's conservative 10⁻¹⁴/4 against the table's 10⁻¹⁴): the largest
    |variance − printed| under ``conversion``, the table's own δ beside it."""
    from isdp.experiments.e8_privacy_accounting.tables import per_level_gaussian_variance

    tda = run.config["e8"]["tda"]
    printed = pd.read_csv(run.data(run.config["e8"]["printed"]["tda_variance"]))
    printed = printed[np.isclose(printed["delta"], table_delta, rtol=1e-9, atol=0)]
    if printed.empty:
        raise ValueError(f"no printed table at δ = {table_delta}")

    def variances(d):
        return np.array([per_level_gaussian_variance(e, d, tda["levels"], math.sqrt(tda["changed_cells"]), conversion)
                         for e in printed["epsilon"]])

    at, own = variances(delta), variances(table_delta)
    gap = float(np.abs(at - printed["gaussian_variance"]).max())
    return Measurement(gap, f"{conversion}, δ = {delta:g}: max |variance − printed| = {gap:.3f} over {len(at)} cells "
                            f"(ε = {', '.join(f'{e:g}' for e in printed['epsilon'])}): "
                            + _cells_text(at, printed["gaussian_variance"], 1)
                            + f"; at the table's own δ = {table_delta:g}: max gap "
                              f"{np.abs(own - printed['gaussian_variance']).max():.3f}")


def consistency_accuracy(run: Run, paper, *, eps: float, draws: int, seed: int, total_offset: int = 0) -> Measurement:
    """The talk's 'making published data consistent with the invariants could increase accuracy', in its frame: for
    each state of the committed county file with at least two counties, ``draws`` releases of i.i.d. DG(ε) noisy
    county counts, and the same made consistent with the state total (+ ``total_offset``: a wrong invariant) by
    TopDown's L2 step, the nonnegative least-squares fit (:func:`isdp.baselines.nonnegative_total_projection`).
    The value is the smallest z over the states of the paired drop in squared error (noisy − consistent), SE from
    the draws; the text gives the error ratios beside the exact (k − 1)/k of the projection without s ≥ 0."""
    from isdp.baselines import nonnegative_total_projection
    from isdp.double_geometric import dg_rvs

    counties = nhgis.load_counties(run.data(run.config["data"]["embedded"]))
    rng = np.random.default_rng(seed)
    zs, ratios = {}, {}
    for state, g in counties.groupby("state_abbr"):
        x = g["sf1_pop"].to_numpy(dtype=float)
        if x.size < 2:
            continue
        noisy = x + dg_rvs(eps, (draws, x.size), rng)
        consistent = nonnegative_total_projection(noisy, x.sum() + total_offset)
        before, after = ((noisy - x) ** 2).sum(axis=1), ((consistent - x) ** 2).sum(axis=1)
        drop = before - after
        zs[state] = drop.mean() / (drop.std(ddof=1) / np.sqrt(draws))
        ratios[state] = (after.mean() / before.mean(), (x.size - 1) / x.size)
    worst = min(zs, key=zs.get)
    extremes = sorted(ratios, key=lambda s: ratios[s][0])
    better = sum(r < 1 for r, _ in ratios.values())
    return Measurement(float(zs[worst]), f"{len(zs)} states with ≥ 2 counties, {draws} releases each at ε = {eps:g}"
                                         f"{f', the total off by {total_offset:+d}' if total_offset else ''}: "
                                         f"consistent counts more accurate in {better}; "
                                         f"squared error of the consistent counts over the noisy ones from "
                                         f"{ratios[extremes[0]][0]:.3f} ({extremes[0]}; (k − 1)/k = "
                                         f"{ratios[extremes[0]][1]:.3f}) to {ratios[extremes[-1]][0]:.4f} "
                                         f"({extremes[-1]}; {ratios[extremes[-1]][1]:.4f}); smallest z of the drop "
                                         f"{zs[worst]:.1f} ({worst})", n=len(zs))


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


def random_record_delta(run: Run, paper, *, release_probability: float, people: float, records: list[int],
                        eps: list[float]) -> Measurement:
    """The δ of the talk's yardstick algorithm, which with probability ``release_probability`` publishes one record
    chosen uniformly at random (its index and value) and otherwise nothing: the exact hockey-stick divergence over
    every pair of neighbouring binary datasets (one record changed) of each size in ``records``, at each ε in
    ``eps``, against ``release_probability`` / n (equal within 1e-9, relative); then that δ at ``people``
    records."""
    from isdp.privacy_audit import hockey_stick_divergence

    def law(data):  # outputs: nothing, then (i, v) for every index i and value v
        out = np.zeros(1 + 2 * len(data))
        out[0] = 1 - release_probability
        out[1 + 2 * np.arange(len(data)) + np.asarray(data)] = release_probability / len(data)
        return out

    worst = 0.0
    for n in records:
        for data in itertools.product((0, 1), repeat=n):
            for i in range(n):
                other = list(data)
                other[i] = 1 - other[i]
                for e in eps:
                    delta = hockey_stick_divergence(law(data), law(other), e)
                    worst = max(worst, abs(delta / (release_probability / n) - 1))
    delta = release_probability / people
    value = {"delta": delta, "delta_is_p_over_n": worst <= 1e-9}
    verb = "equals" if value["delta_is_p_over_n"] else "DIFFERS FROM"
    return Measurement(value, f"exact: the algorithm's δ {verb} p/n for every pair of neighbouring datasets of "
                              f"{min(records)} to {max(records)} binary records at ε = "
                              f"{', '.join(f'{e:g}' for e in eps)} (largest relative deviation {worst:.1e}); at p = "
                              f"{release_probability:g} and n = {people:.0e} people, δ = {delta:.3g}",
                       note="δ does not fall with ε: the published record has probability 0 under the neighbour")


def privacy_loss_tail(run: Run, paper, *, delta: float) -> Measurement:
    """The chance that one person's privacy loss exceeds ε under the talk's Gaussian mechanism at δ, for each ε of
    its printed table: the printed per-query variance σ² at each of the configured levels (``e8.tda.levels``),
    neighbours changing ``e8.tda.changed_cells`` cells by one (Δ₂² = that count), so ρ = levels·Δ₂²/(2σ²) and the
    privacy loss of the composed Gaussian mechanism is N(ρ, 2ρ) exactly: P(L > ε) = Φ̄((ε − ρ)/√(2ρ)). The value
    is the largest."""
    from scipy.stats import norm

    levels, changed_cells = (run.config["e8"]["tda"][k] for k in ("levels", "changed_cells"))
    printed = pd.read_csv(run.data(run.config["e8"]["printed"]["tda_variance"]))
    rows = printed[np.isclose(printed["delta"], delta, rtol=1e-9, atol=0)]
    if rows.empty:
        raise ValueError(f"no printed Gaussian variances at δ = {delta}")
    rho = levels * changed_cells / (2 * rows["gaussian_variance"].to_numpy())
    tail = norm.sf((rows["epsilon"].to_numpy() - rho) / np.sqrt(2 * rho))
    return Measurement(float(tail.max()), "P(privacy loss > ε) at δ = " + f"{delta:g}: " + ", ".join(
        f"ε = {e:g}: {p:.2e} ({p / delta:.3f} δ)" for e, p in zip(rows["epsilon"], tail, strict=True)),
                       note=f"the printed variances, {levels} levels, Δ₂² = {changed_cells} per level: the privacy "
                            "loss is Gaussian, N(ρ, 2ρ), so the probabilities are exact")


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


def _support_table(run: Run, file: str) -> tuple[pd.Series, pd.DataFrame]:
    """The nation's row and the states' rows (the 50 states and DC) of the committed per-state support table of the
    252-cell histogram; Puerto Rico is outside the nation's hierarchy."""
    t = pd.read_csv(run.data(file)).set_index("state_abbr").drop(index="PR")
    return t.loc[nhgis.NATION], t.drop(index=nhgis.NATION)


def problem_sizes(run: Run, paper, *, file: str, size: str = "variables") -> Measurement:
    """Size of the TopDown talk's optimisation problems at the nation→state step and at each state→county step, from
    the committed per-state support of the 2010 ethnicity × race × voting-age histogram (252 cells):
    ``variables`` = children × cells nonzero at the parent (the talk drops the variables that are 0 at the parent);
    ``people`` = the parent's population. Puerto Rico is outside the nation's hierarchy."""
    nation, states = _support_table(run, file)
    sizes = {"variables": lambda children, r: children * r["nonzero_cells"], "people": lambda children, r: r["sf1_pop"]}
    if size not in sizes:
        raise ValueError(f"size must be one of {sorted(sizes)}, got {size!r}")
    per_state = sizes[size](states["counties"], states)
    top = per_state.idxmax()
    value = {"largest_state_county": int(per_state.max()), "median_state_county": float(per_state.median()),
             "nation_state": int(sizes[size](len(states), nation))}
    above = int((per_state >= value["nation_state"]).sum())
    cells = nhgis.HISTOGRAM_CELLS
    nation_detail, top_detail = "the 50 states and DC", top
    if size == "variables":
        nation_detail = f"{len(states)} states × {nation['nonzero_cells']} nonzero cells"
        top_detail = f"{top}: {states.loc[top, 'counties']} counties × {states.loc[top, 'nonzero_cells']} cells"
    return Measurement(
        value,
        f"{size} per problem: nation→state {value['nation_state']:,} ({nation_detail}); state→county median "
        f"{value['median_state_county']:,.0f}, largest {value['largest_state_county']:,} ({top_detail}); "
        f"{above} of {len(states)} state problems not smaller",
        note=f"people per problem: nation→state {int(nation['sf1_pop']):,}, state→county median "
             f"{states['sf1_pop'].median():,.0f}, largest {int(states['sf1_pop'].max()):,} "
             f"({states['sf1_pop'].idxmax()}); variables without dropping the zeros (children × {cells}): "
             f"nation→state {len(states) * cells:,}, state→county median {states['counties'].median() * cells:,.0f}",
        n=len(states) + 1,
    )


def national_zero_cells(run: Run, paper, *, file: str) -> Measurement:
    """The cells of the nation's DAS histogram (ethnicity × race × voting age, 252 cells; the 50 states and DC) that
    are 0, which the talk's state level ignores, from the committed per-state support table; the variables this
    drops from the nation→state problem (51 states per cell) beside those the states' own zero cells drop at the
    state→county step."""
    nation, states = _support_table(run, file)
    cells = nhgis.HISTOGRAM_CELLS
    zero, sf1_zero = cells - int(nation["dp_nonzero_cells"]), cells - int(nation["nonzero_cells"])
    state_zero = cells - states["dp_nonzero_cells"]
    return Measurement(
        zero,
        f"{zero} of the nation's {cells} DAS cells are 0 ({sf1_zero} in SF1), so ignoring them drops "
        f"{zero * len(states):,} of the nation→state problem's {cells * len(states):,} variables",
        note=f"one level down the same rule drops variables: {int((state_zero > 0).sum())} of {len(states)} states' "
             f"DAS histograms have zero cells ({int(state_zero.sum()):,} in all, {int(state_zero.median())} in the "
             f"median state; {int(((states['counties']) * state_zero).sum()):,} county variables)",
        n=1,
    )


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
    """The implied GQ constraints counted. For ``small`` numbers of types, how many combinations' constraints are
    needed (not implied by the others, one HiGHS LP each) when every combination shares a block, and when no block
    holds two types. At ``types`` itself, where 2^types LPs are out of reach, whether all 2^types − 1 are needed,
    by Edmonds' facet criterion (:func:`~isdp.experiments.e8_privacy_accounting.implied.gq_every_combination_needed`),
    on blocks holding every single type and every pair, and on one type per block."""
    import string

    from isdp.experiments.e8_privacy_accounting import implied

    every, apart = {}, {}
    for k in small:
        names = list(string.ascii_uppercase[:k])
        every[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "every-combination"), names))
        apart[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "one-type-per-block"), names))
    names = [f"type {i + 1}" for i in range(types)]
    all_needed = implied.gq_every_combination_needed(implied.gq_blocks(names, "singles-and-pairs"), names)
    all_needed_apart = implied.gq_every_combination_needed(implied.gq_blocks(names, "one-type-per-block"), names)
    value = {"one_per_combination": all(every[k] == 2**k - 1 for k in small) and all_needed,
             "smaller_on_other_data": all(apart[k] < 2**k - 1 for k in small if k > 1) and not all_needed_apart}
    return Measurement(value, "needed constraints for k types (LP), every combination sharing a block: "
                              + ", ".join(f"k = {k}: {every[k]} (2^k − 1 = {2**k - 1})" for k in small)
                              + "; no block with two types: " + ", ".join(f"{apart[k]}" for k in small)
                              + f". At {types} types (Edmonds' criterion): blocks holding every type alone and every "
                                f"pair need {'all' if all_needed else 'NOT all'} 2^{types} − 1 = {2**types - 1:,} "
                                f"≈ 2^{types}; one type per block needs "
                              + ("all" if all_needed_apart else "fewer"))


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


def _strata(strata: list) -> list[tuple[tuple, tuple]]:
    """Strata given as [h, k] lists (from the registry) with every record's h hashable."""
    return [(tuple(tuple(v) if isinstance(v, list) else v for v in h), tuple(k)) for h, k in strata]


def swap_varies_needs_budget(run: Run, paper, *, strata: list, rates: list[float],
                             compare: str = "dataset") -> Measurement:
    """The slides' statement (3): a mechanism that varies within a universe (some x, x' of it at finite distance with
    P_x ≠ P_x') has a budget ε > 0 when d_Pr is a metric. Permutation swapping on small strata, exactly: for every
    (stratum, rate) whether it varies (largest total variation between datasets of the universe) and its exact
    budget, the worst loss per unit of distance; the value is the smallest budget where it varies. ``compare``: what
    d_Pr compares, the swapped stratum (``dataset``: d_MULT, a metric) or only its invariants (``invariants``: a
    pseudometric, which the statement excludes)."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import invariants, loss_per_unit, universe_log_laws

    varying, constant = {}, []
    for h, k in _strata(strata):
        for p in rates:
            log_p, distance = universe_log_laws(h, k, p)
            prob = np.exp(log_p)
            tv = 0.5 * float(np.max(np.abs(prob[:, None, :] - prob[None, :, :]).sum(axis=2)))
            if compare == "invariants":
                log_p = universe_log_laws(h, k, p, lambda x, _: {invariants(x): 1.0})[0]
            loss = loss_per_unit(log_p, distance)
            if tv > 1e-12:
                varying[(len(h), p)] = (loss, tv)
            else:
                constant.append(f"b = {len(h)}, p = {p:g} (loss {loss:.1e})")
    (b, p), (least, tv) = min(varying.items(), key=lambda kv: kv[1][0])
    return Measurement(least, f"{len(varying)} of {len(varying) + len(constant)} (stratum, rate) cases vary within "
                              f"their universe; smallest exact budget among them {least:.4f} (b = {b}, p = {p:g}, "
                              f"largest total variation {tv:.3f}); d_Pr compares the {compare}",
                       note="cases that do not vary (every dataset of the universe has the same law, so ε = 0 is "
                            "allowed and the statement says nothing): " + ("; ".join(constant) or "none"),
                       n=len(varying) + len(constant))


def swap_approximate_budget(run: Run, paper, *, strata: list, rates: list[float], deltas: list[float]) -> Measurement:
    """'Use (ε, δ)-DP instead of ε-DP': permutation swapping's exact (ε, δ) budget per unit of distance
    (:func:`~isdp.experiments.e8_privacy_accounting.swap_audit.approximate_loss_per_unit`) against its exact pure
    budget (δ = 0) on small strata, every rate and δ; the value is the largest ratio over the cases with a positive
    pure budget."""
    from isdp.accounting import swapping_epsilon
    from isdp.experiments.e8_privacy_accounting.swap_audit import approximate_loss_per_unit

    ratios, zero = {}, []
    for h, k in _strata(strata):
        for p in rates:
            pure = approximate_loss_per_unit(h, k, p, 0.0)
            if pure == 0:
                zero.append(f"b = {len(h)}, p = {p:g}")
                continue
            for delta in deltas:
                ratios[(len(h), p, delta)] = approximate_loss_per_unit(h, k, p, delta) / pure
    worst = max(ratios.values())
    (b, p, delta), least = min(ratios.items(), key=lambda kv: kv[1])
    by_delta = "; ".join(f"δ = {d:g}: ratio {min(r for (_, _, dd), r in ratios.items() if dd == d):.4f} to "
                         f"{max(r for (_, _, dd), r in ratios.items() if dd == d):.6f}" for d in deltas)
    return Measurement(worst, f"exact (ε, δ) budget / exact pure budget over {len(ratios)} (stratum, rate, δ) cases: "
                              f"{by_delta}; largest fall at b = {b}, p = {p:g}, δ = {delta:g} "
                              f"(to {least:.3f}, the slides' ε(p, b) = {swapping_epsilon(p, b):.3f})",
                       note="pure budget 0 (nothing to shrink) at " + ("; ".join(zero) or "none"), n=len(ratios))


def swap_person_units(run: Run, paper, *, strata: list, rates: list[float], beside: list | None = None) -> Measurement:
    """'Persons instead of households': permutation swapping of household records (h[0] the household's size), its
    exact worst loss per unit of the person-level distance (each household that differs counts its persons) against
    per unit of the household-level one, on small strata and rates. ``beside``: a stratum reported in the note only
    (e.g. one with a single-person household)."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    def ratios(h, k):
        return {p: worst_loss_per_unit(h, k, p, persons=lambda hh: hh[0]) / worst_loss_per_unit(h, k, p)
                for p in rates}

    found = {(h, k): ratios(h, k) for h, k in _strata(strata)}
    flat = [r for rs in found.values() for r in rs.values()]
    value = {"never_higher": max(flat) <= 1 + 1e-9, "lower": max(flat) < 1 - 1e-9}
    parts = []
    for (h, _), rs in found.items():
        sizes = [hh[0] for hh in h]
        scale = f" (× size {sizes[0]}: {max(rs.values()) * sizes[0]:.6f})" if len(set(sizes)) == 1 else ""
        parts.append(f"sizes {sizes}: ε_person/ε_household {min(rs.values()):.4f} to {max(rs.values()):.4f}{scale}")
    note = ""
    if beside:
        (h, k), = _strata([beside])
        rs = ratios(h, k)
        note = (f"beside it, sizes {[hh[0] for hh in h]}: ε_person/ε_household {min(rs.values()):.4f} to "
                f"{max(rs.values()):.4f}")
    return Measurement(value, f"{len(flat)} (stratum, rate) cases at p = {', '.join(f'{p:g}' for p in rates)}: "
                              + "; ".join(parts), note=note, n=len(flat))


def swap_derived_products(run: Run, paper, *, strata: list, rates: list[float], products: list[str],
                          leak: float = 0.0) -> Measurement:
    """'The total PLB for all data products derived from the swapped dataset': the exact worst loss per unit of
    distance of products computed from the swapped stratum (records h = (a, c), swapping variable k) over the slides'
    ε(p, b), the value the largest ratio. ``products``: ``dataset`` (the swapped stratum itself), ``a_by_k`` and
    ``c_by_k`` (the two-way counts with one of h's variables dropped), ``k`` (the k margin). ``leak``: the share of
    releases computed from the unswapped stratum instead (a product not derived from the swapped dataset alone)."""
    from collections import Counter

    from isdp.accounting import swapping_epsilon
    from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    derive = {"dataset": lambda w: w,
              "a_by_k": lambda w: tuple(sorted(Counter((h[0], k) for h, k in w).items())),
              "c_by_k": lambda w: tuple(sorted(Counter((h[1], k) for h, k in w).items())),
              "k": lambda w: tuple(sorted(k for _, k in w))}

    def release(f):
        def law_of(x, law):
            out: dict = {}
            for w, q in law.items():
                out[f(w)] = out.get(f(w), 0.0) + (1 - leak) * q
            out[f(x)] = out.get(f(x), 0.0) + leak
            return out
        return law_of

    ratios = {(len(h), p, name): worst_loss_per_unit(h, k, p, release(derive[name])) / swapping_epsilon(p, len(h))
              for h, k in _strata(strata) for p in rates for name in products}
    worst = max(ratios.values())
    per_product = "; ".join(f"{name} {max(r for (_, _, n), r in ratios.items() if n == name):.4f}" for name in products)
    leaked = f" (a share {leak:g} from the unswapped data)" if leak else ""
    return Measurement(worst, f"largest exact loss / ε(p, b) per product over {len(strata)} strata × {len(rates)} "
                              f"rates: {per_product}{leaked}",
                       n=len(ratios))


def tda_proper_subsets(run: Run, paper, *, cells: list[str], zero_cells: list[str], persons: int,
                       invariants: dict) -> Measurement:
    """'Let c' be any proper subset of TDA's invariants: no finite budget.' A toy census: ``persons`` persons in
    ``cells`` (``zero_cells`` structural zeros, empty in every CEF), the invariants named in ``invariants`` (each the
    sum of its cells). TDA releases c exactly, so two datasets with different c have released tables with no common
    support; a universe of c' gives an infinite budget if and only if two of its datasets at finite d_HAM^p (the same
    number of persons: every pair here) differ on c. The value counts the proper subsets c' left with a finite
    budget; the text names them."""
    index = {c: i for i, c in enumerate(cells)}
    free = [c for c in cells if c not in zero_cells]
    data = []
    for counts in itertools.product(range(persons + 1), repeat=len(free)):
        if sum(counts) == persons:
            x = [0] * len(cells)
            for c, n in zip(free, counts, strict=True):
                x[index[c]] = n
            data.append(x)
    values = np.array([[sum(x[index[c]] for c in members) for members in invariants.values()] for x in data])
    names = list(invariants)
    finite = []
    for size in range(len(names)):
        for subset in itertools.combinations(range(len(names)), size):
            same_sub = np.all(values[:, None, list(subset)] == values[None, :, list(subset)], axis=2)
            differ = np.any(values[:, None, :] != values[None, :, :], axis=2)
            if not np.any(same_sub & differ):
                finite.append("{" + ", ".join(names[i] for i in subset) + "}")
    total = 2 ** len(names) - 1
    return Measurement(len(finite), f"{len(data)} datasets of {persons} persons in cells {', '.join(free)}"
                                    + (f" (structural zeros {', '.join(zero_cells)})" if zero_cells else "")
                                    + f"; {len(finite)} of the {total} proper subsets of the {len(names)} invariants "
                                      "leave a finite budget" + (": " + "; ".join(finite) if finite else ""),
                       n=len(data))


def swap_finer_than_tda(run: Run, paper, *, blocks: list, sizes: list[int], households: int,
                        settings: list) -> Measurement:
    """'Swapping invariants: varies but greater than TDA.' A toy of ``households`` household records (state, county,
    block, size) over ``blocks`` ([state, county, block] each) and ``sizes``. TDA's invariants here: the population
    of each state and the housing units (households) of each block. Permutation swapping's with key V_Match and
    swapped geography V_Swap (each setting [V_Match, V_Swap], lists of state/county/block/size): the multisets of
    V_Hold (every variable but V_Swap) and of V_Match × V_Swap. Whether, in every setting, equal swapping invariants
    imply equal TDA invariants (finer), and some datasets share TDA's but not swapping's (strictly)."""
    fields = ("state", "county", "block", "size")
    records = [(*b, s) for b in map(tuple, blocks) for s in sizes]
    data = list(itertools.combinations_with_replacement(records, households))

    def project(x, keep):
        return tuple(sorted(tuple(r[fields.index(f)] for f in keep) for r in x))

    def tda(x):
        pop = {}
        for r in x:
            pop[r[0]] = pop.get(r[0], 0) + r[3]
        return tuple(sorted(pop.items())), project(x, fields[:3])

    words, finer, strictly = [], True, True
    for match, swap in settings:
        hold = [f for f in fields if f not in swap]
        groups: dict = {}
        for x in data:
            groups.setdefault((project(x, hold), project(x, match + swap)), set()).add(tda(x))
        coarse = {}
        for swap_c, tda_cs in groups.items():
            for c in tda_cs:
                coarse.setdefault(c, set()).add(swap_c)
        is_finer = all(len(cs) == 1 for cs in groups.values())
        is_strict = any(len(s) > 1 for s in coarse.values())
        finer, strictly = finer and is_finer, strictly and is_strict
        words.append(f"V_Match {' × '.join(match) or 'none'}, V_Swap {' × '.join(swap)}: "
                     f"{'finer' if is_finer else 'NOT finer'} ({len(groups)} swapping universes, {len(coarse)} TDA "
                     "ones)")
    return Measurement({"finer": finer, "strictly": strictly},
                       f"{len(data)} datasets of {households} households: " + "; ".join(words), n=len(data))


def invariant_release(run: Run, paper, *, strata: list, release: str, rate: float) -> Measurement:
    """'T(x) = c(x), releasing the invariants exactly, has budget 0': the exact worst loss per unit of distance of
    T over the universes of small strata of permutation swapping (c the multisets of h and k). ``release``:
    ``invariants`` (T = c) or ``swapped`` (the stratum swapped at ``rate``, beside it)."""
    from isdp.experiments.e8_privacy_accounting.swap_audit import invariants, worst_loss_per_unit

    law = {"invariants": lambda x, _: {invariants(x): 1.0}, "swapped": None}[release]
    losses = {len(h): worst_loss_per_unit(h, k, rate, law) for h, k in _strata(strata)}
    worst = max(losses.values())
    return Measurement(worst, f"T releases the {release}: worst loss per unit over the universes of "
                              + ", ".join(f"b = {b}: {v:.4f}" for b, v in losses.items()), n=len(losses))


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


def rounding_lp(run: Run, paper, *, children, parent=None, child_totals: bool = True) -> Measurement:
    """Whether each LP algorithm the talk names (HiGHS's simplex; its barrier with crossover) returns an integer
    solution of the talk's rounding LP as printed, on the instance ``children`` (fractional H*_j adding up to the
    integer ``parent``; ``parent`` None: the national program, one histogram whose total is kept; ``child_totals``:
    each child's total kept, the invariants); beside it the IP's optimum and the offset formulation's LP."""
    from isdp.experiments.e8_privacy_accounting import rounding

    _, ip_obj = rounding.printed_lp(children, parent, integer=True, child_totals=child_totals)
    value, parts = {}, []
    for method in rounding.LP_METHODS:
        lp, lp_obj = rounding.printed_lp(children, parent, child_totals=child_totals, method=method)
        off, off_obj = rounding.offset_lp(children, parent, child_totals=child_totals, method=method)
        value[f"{method}_integral"] = rounding.is_integral(lp)
        parts.append(f"{method}: the printed LP's vertex is {'H* itself' if np.allclose(lp, children) else 'not H*'} "
                     f"({np.round(lp, 3).tolist()}, objective {round(lp_obj, 9) + 0.0:g}): "
                     f"{'integral' if value[f'{method}_integral'] else 'FRACTIONAL'}; in offsets d = H̃ − ⌊H*⌋ ∈ "
                     f"[0, 1] (integer right-hand sides) {'integral' if rounding.is_integral(off) else 'fractional'}"
                     f" with objective {round(off_obj, 9) + 0.0:g}")
    return Measurement(value, "; ".join(parts) + f". The IP's optimum is {ip_obj:g}")


def dorm_flow(run: Run, paper) -> Measurement:
    """The network-flow reduction of the dorm example: the region capacities after moving the
    "≥ 1" constraints out, the uncapacitated dorm → region arcs, and whether max-flow feasibility equals the
    enumerated feasible set for every split of the town total."""
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
    arcs = sum(len(types) for types in cfg["occupied"].values())  # dorm type → region, uncapacitated
    value = {"capacities": caps, "infinite_arcs": arcs, "reduction_exact": disagree == 0}
    return Measurement(value, f"region capacities {caps}; {arcs} uncapacitated dorm → region arcs (one per dorm "
                              f"type a region has); max-flow feasibility against enumeration on all "
                              f"{n_points:,} splits of {total}: {disagree} disagree")


def dorm_fractional_projection(run: Run, paper, *, region_totals: dict | None = None) -> Measurement:
    """The dorm example's constraints as the projection FME computes, over fractional region-level tables: the LP
    bounds of the talk's forms (in ``paper``'s keys), and whether every vertex of the polytope the stated
    inequalities cut out has a fractional extension (then, by convexity, every point of it has one).
    ``region_totals`` replaces the configured populations."""
    from isdp.experiments.e8_privacy_accounting import implied

    cfg = run.config["e8"]["dorm"]
    regions, occupied, types = region_totals or cfg["region_totals"], cfg["occupied"], cfg["types"]

    def ends(form: str) -> tuple[float, float]:
        return implied.dorm_lp_range([t in form.split("+") for t in types], regions, occupied, types)

    lo_total, hi_total = ends("F+C+M")
    value = {"F_min": ends("F")[0], "C_min": ends("C")[0], "M_min": ends("M")[0], "F_max": ends("F")[1],
             "CF_min": ends("C+F")[0], "total": lo_total if math.isclose(lo_total, hi_total) else None}
    # the stated polytope in the totals (order of ``types``): y ≥ minima, F ≤ F_max, C + F ≥ CF_min, Σ y = total
    unit = {t: np.eye(len(types))[types.index(t)] for t in types}
    A = [-unit["F"], -unit["C"], -unit["M"], unit["F"], -(unit["C"] + unit["F"]), np.ones(len(types)),
         -np.ones(len(types))]
    b = [-paper["F_min"], -paper["C_min"], -paper["M_min"], paper["F_max"], -paper["CF_min"], paper["total"],
         -paper["total"]]
    vertices = implied.polytope_vertices(A, b)
    outside = [v for v in vertices if not implied.dorm_lp_extends(v, regions, occupied, types)]
    value["sufficient"] = len(vertices) > 0 and not outside
    return Measurement(value, "over fractional region tables: " + ", ".join(
        f"{k} {v:g}" for k, v in value.items() if k != "sufficient" and v is not None)
        + f"; the stated inequalities' polytope has {len(vertices)} vertices ("
        + ", ".join(str(tuple(int(x) if float(x).is_integer() else round(float(x), 3) for x in v)) for v in vertices)
        + f" as ({', '.join(types)})), {len(outside)} without a fractional extension")


def implied_fractional_extension(run: Run, paper, *, blocks: list, types: list[str], vertex_types: list[int],
                                 max_combination: int | None = None) -> Measurement:
    """The talk's 'implied constraints C0 … imply a fractional feasible extension exists', on the GQ example: every
    vertex of the polytope the implied constraints (combinations of at most ``max_combination`` types, default all)
    cut out of block data extends to a fractional block-level table (HiGHS LP); convexity covers the rest. Data:
    ``blocks``, and every-combination data for each number of types in ``vertex_types``."""
    from isdp.experiments.e8_privacy_accounting import implied

    blocks = [(int(pop), dict(occ)) for pop, occ in blocks]
    data = [("the blocks", blocks, types)] + [
        (f"every combination of {k} types", implied.gq_blocks(list(string.ascii_uppercase[:k]), "every-combination"),
         list(string.ascii_uppercase[:k])) for k in vertex_types]
    counts = {}
    for name, b, t in data:
        vertices = implied.gq_vertices(b, t, max_combination)
        counts[name] = (len(vertices), sum(not implied.gq_lp_extends(v, b, t) for v in vertices))
    value = all(n > 0 and bad == 0 for n, bad in counts.values())
    scope = "every combination" if max_combination is None else f"combinations of at most {max_combination} types"
    return Measurement(value, f"implied constraints over {scope}: " + "; ".join(
        f"{name}: {n} vertices, {bad} without a fractional extension" for name, (n, bad) in counts.items()))


def gq_type_count(run: Run, paper, *, file: str, counted: str) -> Measurement:
    """Distinct values of the column ``counted`` (``code``: the 3-digit GQ type codes; ``major_type``: the major
    types they group into) in the committed list of 2010 Census group-quarters codes."""
    t = pd.read_csv(run.data(file), dtype={"code": str})
    n = int(t[counted].nunique())
    per_major = ", ".join(f"{k} {len(g)}" for k, g in t.groupby("major_type", sort=False))
    return Measurement(n, f"{n} distinct {counted} values among {len(t)} 3-digit codes ({t['code'].min()} to "
                          f"{t['code'].max()}; per major type: {per_major})")


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


def tda_toy_pure_dp(run: Run, paper, *, x: list[int], within: list[int], across: list[int], kept: list[int],
                    epsilon: float, radius: int) -> Measurement:
    """The toy TDA of :func:`tda_toy_invariants` with the talk's pure-DP noise: two-sided geometric noise,
    P(k) ∝ e^(−ε|k|), on every cell, then the closest nonnegative integer table with c = (total, the cells
    ``kept``). For ``within`` (same c) the exact largest |ln P_x(z) − ln P_x'(z)| over the released tables z, over
    the noise's ε‖x − x'‖₁; for ``across`` (another c) whether the released tables can coincide. The release reads
    the noisy cells only where they are not kept, so only those are enumerated (±``radius`` around each count)."""
    from isdp.experiments.e8_privacy_accounting.zcdp_audit import closest_dataset

    steps = np.arange(-radius, radius + 1)
    log_pmf = -epsilon * np.abs(steps) - np.log(np.sum(np.exp(-epsilon * np.abs(steps))))
    free = [i for i in range(len(x)) if i not in kept]

    def law(v) -> dict[tuple, float]:
        out: dict[tuple, float] = {}
        for offsets in itertools.product(range(len(steps)), repeat=len(free)):
            t = list(v)
            for i, o in zip(free, offsets, strict=True):
                t[i] = v[i] + steps[o]
            z = closest_dataset(t, v, kept)
            out[z] = np.logaddexp(out.get(z, -np.inf), sum(log_pmf[o] for o in offsets))
        return out

    laws = {name: law(v) for name, v in (("x", x), ("within", within), ("across", across))}
    budget = epsilon * float(np.abs(np.subtract(within, x)).sum())
    support = laws["x"].keys() | laws["within"].keys()
    loss = max(abs(laws["x"].get(z, -np.inf) - laws["within"].get(z, -np.inf)) for z in support)
    shared = laws["x"].keys() & laws["across"].keys()
    value = {"within_budget": bool(loss <= budget * (1 + 1e-9)), "common_support_across": bool(shared)}
    return Measurement(value, f"x = {x}, c = (total, cells {kept}), two-sided geometric noise at ε = {epsilon:g} per "
                              f"cell: largest |log-ratio| of the released tables for x' = {within} {loss:.4f}, over "
                              f"ε‖x − x'‖₁ = {budget:g}: {loss / budget:.4f}; x'' = {across} (same total only): "
                              f"{len(shared)} released tables in common, so no finite ε",
                       note=f"noise truncated to ±{radius} per cell (mass beyond about "
                            f"{2 * math.exp(-epsilon * radius):.0e} per cell)")


def tda_failsafe(
    run: Run,
    paper,
    *,
    state: str,
    shares: list[float],
    epsilon_parent: float,
    epsilon_children: float,
    draws: int,
    seed: int,
    k: float,
    weaker: str = "total",
) -> Measurement:
    """The talk's failsafe ('Workarounds') on a two-level toy: the parent ``state`` (its population the invariant)
    and its counties as the children, each county's 2010 population split into cells by ``shares`` (the remainder
    of the flooring in the largest); identity queries with double geometric noise at ε per cell on each level
    (``epsilon_parent``, ``epsilon_children``); the regular solve and the failsafe (``weaker``) of
    :func:`rounding.two_level_solve` on the same ``draws`` measurements. Value: whether the final parent's mean L1
    error is larger in the failsafe beyond ``k`` SE of the paired difference, and whether the state total is exact
    in every draw of both."""
    from isdp.baselines import double_geometric_noise
    from isdp.experiments.e8_privacy_accounting.rounding import two_level_solve

    t = pd.read_csv(run.data(run.config["data"]["embedded"]), dtype={"state_fips": str})
    pop = t.loc[t["state_abbr"] == state, "sf1_pop"].to_numpy()
    children = np.floor(np.outer(pop, shares)).astype(int)
    children[:, int(np.argmax(shares))] += pop - children.sum(axis=1)
    parent, total = children.sum(axis=0), int(pop.sum())
    m, c = children.shape
    rng = np.random.default_rng(seed)
    parent_noisy = parent + double_geometric_noise(c, epsilon_parent, draws, rng)
    children_noisy = children + double_geometric_noise(m * c, epsilon_children, draws, rng).reshape(draws, m, c)
    solves = {
        name: two_level_solve(parent_noisy, children_noisy, total, w)
        for name, w in (("regular", None), ("failsafe", weaker))
    }
    parent_err = {n: np.abs(p - parent).sum(axis=1) for n, (p, _) in solves.items()}
    child_err = {n: np.abs(ch - children).sum(axis=(1, 2)).mean() for n, (_, ch) in solves.items()}
    diff = parent_err["failsafe"] - parent_err["regular"]
    se = float(diff.std(ddof=1) / np.sqrt(draws))
    residual = max(float(np.abs(p.sum(axis=1) - total).max()) for p, _ in solves.values())
    value = {"worse": bool(diff.mean() > k * se), "invariants": residual == 0}
    mean = {n: e.mean() for n, e in parent_err.items()}
    return Measurement(
        value,
        f"{state}'s {m} counties × {c} cells, ε = {epsilon_parent:g} (state) and {epsilon_children:g} (counties) per "
        f"cell: mean L1 error of the final state histogram {mean['regular']:.2f} regular, {mean['failsafe']:.2f} "
        f"failsafe (weaker requirement: {weaker}); difference {diff.mean():+.2f} ± {se:.2f} SE "
        f"(z = {diff.mean() / se:.1f}, {draws} paired draws); largest |state total − {total:,}| {residual:g}",
        se=se,
        note=f"the counties' mean L1 error: {child_err['regular']:.2f} regular, {child_err['failsafe']:.2f} "
        f"failsafe; cells split by shares {shares} (this project's toy), seed {seed}",
        n=draws,
    )


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


def tum_integral_vertices(run: Run, paper, *, systems: list[str], cells: int, children: int, child_cells: int,
                          gq_types: list[str], draws: int, seed: int) -> Measurement:
    """The talk's 'linear implied constraints … do [guarantee a feasible integer solution] if the problem constraint
    matrix is TUM': for each of ``systems`` ("national", "state" or "gq": the matrices of
    :func:`tum_statements`), ``draws`` random integer bounds lo ≤ M y ≤ hi (lo in 0…2, hi − lo in 0…2, ``seed``)
    and every vertex of each non-empty polytope (:func:`implied.polytope_vertices`). The value is the number of
    fractional vertices over the systems; the text gives each system's counts."""
    from isdp.experiments.e8_privacy_accounting import implied, rounding

    matrices = {"national": rounding.national_matrix(cells), "state": rounding.state_matrix(children, child_cells),
                "gq": implied.gq_matrix(gq_types)}
    rng = np.random.default_rng(seed)
    total, parts = 0, []
    for name in systems:
        M = matrices[name]
        polytopes = vertices = fractional = 0
        for _ in range(draws):
            lo = rng.integers(0, 3, len(M))
            hi = lo + rng.integers(0, 3, len(M))
            V = implied.polytope_vertices(np.vstack([M, -M]), np.concatenate([hi, -lo]))
            polytopes += len(V) > 0
            vertices += len(V)
            fractional += int(np.any(np.abs(V - np.rint(V)) > 1e-9, axis=1).sum()) if len(V) else 0
        total += fractional
        parts.append(f"{name} ({M.shape[0]} × {M.shape[1]}): {fractional} fractional of {vertices} vertices of "
                     f"{polytopes} non-empty polytopes")
    return Measurement(total, f"{total} fractional vertices; {draws} integer bound vectors per matrix: "
                              + "; ".join(parts))


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


def zcdp_composition_gap(run: Run, paper, *, parts: list[str], total: str) -> Measurement:
    """Printed zCDP budgets against composition: zCDP's ρ adds up over releases of the same persons (Bun & Steinke
    2016, Lemma 2.3), so the budget printed for several products together should be the sum of theirs. The value is
    |ρ(total) − Σ ρ(parts)|, ``paper`` mapping each printed label to its ρ."""
    added = sum(float(paper[p]) for p in parts)
    gap = abs(float(paper[total]) - added)
    return Measurement(gap, f"{total}: ρ = {float(paper[total]):g} printed; "
                            + " + ".join(f"{p} {float(paper[p]):g}" for p in parts)
                            + f" = {added:g} by composition; gap {gap:.2f}")


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


def attribute_sizes(run: Run, paper, *, races: list[str], gq_codes: str) -> Measurement:
    """The histogram's attribute sizes from their categories: a race is any nonempty combination of ``races``
    (alone or in combination), a residence type a household or one of the major group-quarters types of the
    committed 2010 GQ code list ``gq_codes``."""
    major_types = pd.read_csv(run.data(gq_codes))["major_type"].unique()
    value = {"race": 2 ** len(races) - 1, "residence_type": 1 + len(major_types)}
    return Measurement(value, f"race: 2^{len(races)} − 1 = {value['race']} nonempty combinations of "
                              f"{len(races)} categories; residence type: household + {len(major_types)} major "
                              f"group-quarters types of the 2010 code list = {value['residence_type']}")


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
    text = "; ".join(f"region {name}: rows {m['rows']} (total {sum(m['rows'])}), columns {m['columns']} (total "
                     f"{sum(m['columns'])}): " + (f"e.g. {tables[name].tolist()}" if tables[name] is not None
                                                   else "NO nonnegative table") for name, m in paper.items())
    return Measurement(bad, text, note=_region_parents_text(paper) if not bad else "")


def _region_parents_text(paper) -> str:
    """The regions' two one-way marginals against every parent (all regions together) two-way table with their
    totals: how many parents extend fractionally and how many with integer counts (the talk's 'works for fractional
    histograms (often provable for integer histograms)' on its own example)."""
    from isdp.experiments.e8_privacy_accounting import implied

    region_a = np.array([m["rows"] for m in paper.values()])
    region_b = np.array([m["columns"] for m in paper.values()])
    rows, cols = region_a.sum(axis=0), region_b.sum(axis=0)
    parents = [p for p in (np.array([[t, rows[0] - t], [cols[0] - t, cols[1] - rows[0] + t]])
                           for t in range(int(rows[0]) + 1)) if (p >= 0).all()]
    results = [implied.margin_extension(region_a, region_b, p) for p in parents]
    fractional = [int(p[0, 0]) for p, (f, _) in zip(parents, results, strict=True) if f]
    integer = [int(p[0, 0]) for p, (_, n) in zip(parents, results, strict=True) if n]
    return (f"the regions together: of the {len(parents)} parent tables with rows {rows.tolist()} and columns "
            f"{cols.tolist()}, {len(fractional)} extend fractionally and {len(integer)} with integer counts "
            f"({'the same' if fractional == integer else 'NOT the same'} parents: top-left cell "
            f"{min(fractional, default='-')} to {max(fractional, default='-')})")


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


def two_marginals_integer_gap(run: Run, paper, *, instance: str) -> Measurement:
    """The talk's extension with regions that know two one-way marginals each (region × A and region × B fixed, and
    the parent's A × B table): on the committed three-way instance ``instance`` (|B| = 3), whether a fractional
    extension exists and integer ones do not (a hole), and the same with two of B's values merged (|B| = 2, each of
    the three ways), where the problem is a network flow. The value: {size_3_gap, size_2_gap}."""
    from isdp.experiments.e8_privacy_accounting import implied

    region_a, region_b, parent = implied.read_three_way_margins(run.data(instance))
    fractional, integer = implied.margin_extension(region_a, region_b, parent)
    merged = {pair: implied.margin_extension(region_a, *implied.merge_last_values(region_b, parent, pair))
              for pair in itertools.combinations(range(region_b.shape[1]), 2)}
    value = {"size_3_gap": fractional and not integer, "size_2_gap": any(f and not n for f, n in merged.values())}
    return Measurement(value, f"{region_a.shape[0]} regions × A ({region_a.shape[1]} values) × B "
                              f"({region_b.shape[1]} values): fractional extension "
                              f"{'exists' if fractional else 'NONE'}, integer {'exists' if integer else 'NONE'}; B's "
                              "values merged pairwise (|B| = 2): " + "; ".join(
                                  f"{a + 1}+{b + 1}: fractional {'yes' if f else 'no'}, integer {'yes' if n else 'no'}"
                                  for (a, b), (f, n) in merged.items()),
                       note="fractional: HiGHS LP feasibility; integer: HiGHS MILP feasibility")


def day_units(run: Run, paper, *, eps: float, days: list[int], days_present: int | None = None,
              radius: int = 40) -> Measurement:
    """The Swapping slides' 'one day's worth of data, instead of all of an individual's data over time': the same
    mechanism, a daily count released with double geometric noise at ``eps`` each day for T days, judged per
    person over time (neighbours: one person's whole history, present on ``days_present`` days, all T by default)
    and per person-day (neighbours: one day of it). Exact laws of the T releases (products of DG laws on a box of
    ``radius``); the budget is the largest privacy loss. The value: whether the per-day budget is lower for every T."""
    from isdp.double_geometric import dg_pmf
    from isdp.privacy_audit import Law, max_privacy_loss, product

    k = np.arange(-radius, radius + 1)
    daily = Law(k[:, None], dg_pmf(k, eps), 0.0)
    ratios = {}
    for t in days:
        joint = daily
        for _ in range(t - 1):
            joint = product(joint, daily)
        present = t if days_present is None else days_present
        history = [1] * present + [0] * (t - present)
        per_person = max_privacy_loss(joint.shifted(history), joint)
        per_day = max_privacy_loss(joint.shifted([1] + [0] * (t - 1)), joint)
        ratios[t] = per_day / per_person
    value = {"lower": all(r < 1 - 1e-9 for r in ratios.values())}
    return Measurement(value, f"DG at ε = {eps:g} per day: per person-day / per person over T days = "
                              + ", ".join(f"{r:.4f} (T = {t}, 1/T = {1 / t:.4f})" for t, r in ratios.items()))
