"""Measures of the Swapping slides' printed tables.

The swap rate → ε formula and its figure, the 1940 Census county table, and the 2020 what-if table with its strata.

Statements: the ε tables of the 1940 demonstration and the 2020 what-if (``swap_table_gap``, ``swap_range``,
``swap_rate_gap``); the figure's notes (a smallest ε_b, two rates per budget, larger b larger ε: ``min_epsilon``,
``two_rates``, ``larger_b``); the 1940 county table (invariants, MAPE, largest stratum, the implied swap rate:
``ma1940_*``); the 2020 what-if strata (``census2020_*``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e8_privacy_accounting.measures._common import _cells_text

SWAP_TABLES = ("e8_swap_ma1940", "e8_swap_2020")
#: the columns that name a cell of each printed swap-rate table (and of the run's table reproducing it)
SWAP_KEYS = {"e8_swap_ma1940": ["b", "swap_rate"], "e8_swap_2020": ["v_match", "v_swap", "swap_rate"]}


def _printed_swap(run: Run, table: str) -> tuple[pd.DataFrame, str]:
    """Return the committed printed table that ``table`` reproduces (config ``e8.printed``), checked.

    Every cell named once, b a positive count, the swap rate in (0, 1), ε positive; with its path.
    """
    rel = run.config["e8"]["printed"][table.removeprefix("e8_")]
    t = ec.committed_csv(run, rel, key=SWAP_KEYS[table], count=["b"], positive=["b", "epsilon"], rate=["swap_rate"])
    return t, str(run.data(rel))


def _swap_results(run: Run, table: str, printed: pd.DataFrame) -> pd.DataFrame:
    """Return this run's table ``table``, refused unless it holds exactly the printed cells.

    Each cell with the printed ε, the slides' formula ε(p, b) at its b and swap rate, and gap = ε − printed (recomputed,
    never trusted).
    """
    from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon

    key = SWAP_KEYS[table]
    t = ec.table(
        run,
        table,
        key=key,
        keys=list(printed[key].itertuples(index=False, name=None)),
        count=["b"],
        positive=["b", "epsilon"],
        rate=["swap_rate"],
        finite=["epsilon_printed", "gap"],
    )
    where = str(run.path(f"tables/{table}.csv"))
    cell = {
        ec.row_key(k): r
        for k, r in zip(printed[key].itertuples(index=False, name=None), printed.itertuples(index=False), strict=True)
    }
    own = [cell[ec.row_key(k)] for k in t[key].itertuples(index=False, name=None)]
    ec.check_consistent(
        t["epsilon_printed"],
        [r.epsilon for r in own],
        where,
        "epsilon_printed = the committed printed ε of the same cell",
        rtol=0,
        atol=1e-9,
    )
    ec.check_consistent(
        t["b"], [r.b for r in own], where, "b = the committed printed b of the same cell", rtol=0, atol=0
    )
    ec.check_consistent(
        t["epsilon"],
        swapping_epsilon(t["swap_rate"].to_numpy(float), t["b"].to_numpy(float)),
        where,
        "epsilon = the slides' formula max{ln o, ln(b + 1) − ln o} at the row's b and swap rate",
    )
    ec.check_consistent(t["gap"], t["epsilon"] - t["epsilon_printed"], where, "gap = epsilon − epsilon_printed")
    return t


@ec.reads_committed
def swap_table_gap(run: Run, paper, *, table: str) -> Measurement:
    """Largest |this run − printed| over the ε cells of one printed swap-rate table.

    Every printed cell (as many as the paper value says, e.g. "4 values"), each once, the gap recomputed from its
    columns.
    """
    printed, where = _printed_swap(run, table)
    ec.check_count(len(printed), ec.claimed_count(paper), where, "printed cells")
    t = _swap_results(run, table, printed)
    gap = float((t["epsilon"] - t["epsilon_printed"]).abs().max())
    return Measurement(
        gap,
        f"max |ε − printed| = {gap:.5f} over {len(t)} cells; ε at the printed precision: "
        + _cells_text(t["epsilon"], t["epsilon_printed"], 2),
    )


@ec.reads_committed
def swap_range(run: Run, paper) -> Measurement:
    """Smallest and largest ε of the 2020 what-if table, this run."""
    t = _swap_results(run, "e8_swap_2020", _printed_swap(run, "e8_swap_2020")[0])
    lo, hi = t.loc[t["epsilon"].idxmin()], t.loc[t["epsilon"].idxmax()]
    return Measurement(
        [float(lo["epsilon"]), float(hi["epsilon"])],
        f"{lo['epsilon']:.4f} ({lo['v_match']}, p = {lo['swap_rate']:g}) to {hi['epsilon']:.4f} "
        f"({hi['v_match']}, p = {hi['swap_rate']:g})",
    )


@ec.reads_committed
def swap_rate_gap(run: Run, paper, *, table: str, low: float, high: float) -> Measurement:
    """Largest |ε(p = low) − ε(p = high) − ln(o_high / o_low)| over the rows of a printed what-if table.

    For p ≤ 1/2 the slides' formula gives ε = ln(b + 1) − ln o, so the difference between two
    columns is ln(o_high/o_low) whatever b: a check of the printed columns that needs no b. Every row must print
    both rates.
    """
    t, where = _printed_swap(run, f"e8_{table}")
    wide = t.pivot_table(index=["v_match", "v_swap"], columns="swap_rate", values="epsilon", sort=False)
    if low not in wide or high not in wide or wide[[low, high]].isna().any().any():
        raise ec.EvidenceError(f"{where}: not every row prints ε at both swap rates {low:g} and {high:g}")
    expected = math.log(high / (1 - high)) - math.log(low / (1 - low))
    diff = wide[low] - wide[high]
    gap = float((diff - expected).abs().max())
    return Measurement(
        gap,
        f"ε({100 * low:g} %) − ε({100 * high:g} %) per row: {', '.join(f'{d:.2f}' for d in diff)}; "
        f"ln(o_high/o_low) = {expected:.4f}; largest gap {gap:.4f}",
    )


def _printed_b(run: Run) -> list[int]:
    """Every b of the printed swap-rate tables: the values of b the run's minima and curves must cover."""
    return sorted({int(b) for table in SWAP_TABLES for b in _printed_swap(run, table)[0]["b"]})


def _swap_min(run: Run) -> pd.DataFrame:
    """``e8_swap_min``.

    One row per b of the printed tables, ε_b and its minimiser by closed form and numerically, and per budget offset the
    root count and log-odds gap (inf only where the count is not 2).
    """
    t = ec.table(
        run,
        "e8_swap_min",
        key="b",
        keys=_printed_b(run),
        positive=["b", "min_epsilon"],
        count=["b"],
        finite=["min_epsilon_numeric"],
        rate=["argmin_swap_rate"],
        probability=["argmin_swap_rate_numeric"],
    )
    where = str(run.path("tables/e8_swap_min.csv"))
    ec.check_consistent(t["min_epsilon"], np.log1p(t["b"].to_numpy(float)) / 2, where, "min_epsilon = ln(b + 1)/2")
    offsets = [c.removeprefix("offset_") for c in t.columns if c.startswith("offset_")]
    if not offsets:
        raise ec.EvidenceError(f"{where}: no budget offset (columns offset_k, n_rates_k, log_odds_gap_k)")
    for k in offsets:
        ec.check_frame(t, where, finite=[f"offset_{k}"], count=[f"n_rates_{k}"], columns=[f"log_odds_gap_{k}"])
        if t[f"offset_{k}"].nunique() != 1:
            raise ec.EvidenceError(f"{where}: column offset_{k} differs between rows")
        two = t[f"n_rates_{k}"] == 2
        if two.any():
            ec.check_values(
                t.loc[two, f"log_odds_gap_{k}"].to_numpy(),
                where,
                f"column 'log_odds_gap_{k}' (two roots)",
                "nonnegative",
            )
        if np.isnan(t.loc[~two, f"log_odds_gap_{k}"].to_numpy(float)).any():
            raise ec.EvidenceError(f"{where}: column log_odds_gap_{k} is NaN")
    return t


@ec.reads_committed
def min_epsilon(run: Run, paper) -> Measurement:
    """For every b of the printed tables, whether the slides' formula has a smallest budget ε_b > 0 over p ∈ (0, 1).

    The numerical minimum over logit p (a bounded search over ±``LOG_ODDS_BOUND``) is positive and attained strictly
    inside the search interval (a budget falling towards p = 0 or 1 would end on its edge). The closed form ln(b + 1)/2
    goes into the note.
    """
    from scipy import special

    from isdp_papers.e8_privacy_accounting.tables import LOG_ODDS_BOUND

    t = _swap_min(run)
    with np.errstate(divide="ignore"):  # a minimiser at p = 0 or 1 in floating point: logit ±inf
        t_min = special.logit(t["argmin_swap_rate_numeric"].to_numpy(float))
    value = {
        "positive": bool((t["min_epsilon_numeric"] > 0).all()),
        "attained_inside": bool(np.all(np.abs(t_min) < LOG_ODDS_BOUND - 1)),
    }
    dev = float((t["min_epsilon_numeric"] - t["min_epsilon"]).abs().max())
    parts = [
        f"b = {int(r.b):,}: ε_b = {r.min_epsilon_numeric:.3f} at logit p = {lt:.4f} (p = "
        f"{r.argmin_swap_rate_numeric:.6f})"
        for r, lt in zip(t.itertuples(), t_min, strict=True)
    ]
    return Measurement(
        value,
        "; ".join(parts) + f" (search over logit p in ±{LOG_ODDS_BOUND:g})",
        note=f"the numerical minimum is within {dev:.1e} of ln(b + 1)/2 at p* with odds √(b + 1)",
    )


@ec.reads_committed
def two_rates(run: Run, paper) -> Measurement:
    """Measure whether each budget ε_b + offset is reached by exactly two swap rates.

    Every b of the printed tables and every configured offset; the count is the numerical root count of the slides'
    formula over logit p. The distance of the roots from the closed-form pair goes into the note.
    """
    t = _swap_min(run)
    counts = t.filter(like="n_rates_").to_numpy()
    gaps = t.filter(like="log_odds_gap_").to_numpy()
    offsets = t.filter(like="offset_").iloc[0].tolist()
    listed = ", ".join(f"{o:g}" for o in offsets)
    return Measurement(
        bool(np.all(counts == 2)),
        f"{counts.size} budgets ε_b + {{{listed}}} for {len(t)} values of b: root counts "
        f"{sorted(set(counts.ravel().tolist()))}",
        note=f"largest log-odds distance of the roots from the closed-form pair (ln(b + 1) − ε, ε): {np.max(gaps):.1e}",
    )


@ec.reads_committed
def larger_b(run: Run, paper) -> Measurement:
    """Measure whether, for the same swap rate, ε is non-decreasing in b.

    It must also be strictly larger for the larger b wherever that b's budget is on its left branch ln(b + 1) − ln o,
    i.e. p < p*(b) (on the figure's grid, adjacent b's). The curves must cover every b of the printed tables on one grid
    of swap rates.
    """
    from isdp_papers.e8_privacy_accounting.accounting import swapping_min_epsilon

    curves = ec.table_at(
        run, "e8/swap_curves.csv", key=["b", "swap_rate"], count=["b"], positive=["b", "epsilon"], rate=["swap_rate"]
    )
    where = str(run.path("e8/swap_curves.csv"))
    ec.check_frame(curves.drop_duplicates("b"), where, key="b", keys=_printed_b(run))
    c = curves.pivot(index="swap_rate", columns="b", values="epsilon").sort_index(axis=1)
    if c.isna().any().any():
        raise ec.EvidenceError(f"{where}: the values of b are not on one grid of swap rates (some (b, rate) missing)")
    diffs = np.diff(c.to_numpy(), axis=1)
    p = c.index.to_numpy()[:, None]
    left = p < swapping_min_epsilon(c.columns.to_numpy()[1:])[1][None, :]  # the larger b's left branch
    strict_left, non_decreasing = bool(np.all(diffs[left] > 0)), bool(np.all(diffs >= 0))
    strict_all = float(np.mean(diffs > 0))
    return Measurement(
        strict_left and non_decreasing,
        f"{len(c.columns)} values of b × {len(c)} swap rates: strictly larger for the larger b on "
        f"{'every' if strict_left else 'NOT every'} one of the {int(left.sum())} (rate, b) pairs on "
        f"the larger b's left branch, {'non-decreasing' if non_decreasing else 'DECREASING'} at the "
        f"others (equal, ln o); strictly larger at {100 * strict_all:.1f} % of all pairs",
        note="read strictly everywhere the note would fail on the right branches (p ≥ p*(b) of "
        "the larger b), where the slides' own formula gives ln o whatever b",
    )


#: the columns of the printed 1940 county table: the counts before and after swapping
COUNTY_COUNTS = ["owned", "rented", "total", "owned_swapped", "rented_swapped", "total_swapped"]


def _county_table(run: Run, file: str) -> pd.DataFrame:
    """Return the printed 1940 county table (``file``), indexed by county.

    Every count a non-negative integer, each county once, the printed ``total`` row present, and more than one county
    beside it.
    """
    t = ec.committed_csv(run, file, key="county", count=COUNTY_COUNTS).set_index("county")
    where = str(run.data(file))
    if "total" not in t.index:
        raise ec.EvidenceError(f"{where}: no printed 'total' row")
    if len(t) < 3:
        raise ec.EvidenceError(f"{where}: {len(t) - 1} county rows; the table has several counties")
    return t


@ec.reads_committed
def ma1940_invariants(run: Run, paper, *, file: str) -> Measurement:
    """Return the printed county table keeps its invariants: county totals and the state's owned/rented totals."""
    t = _county_table(run, file)
    counties, total = t.drop(index="total"), t.loc["total"]
    checks = {
        "owned + rented = total (both tables)": bool(
            (counties["owned"] + counties["rented"] == counties["total"]).all()
            and (counties["owned_swapped"] + counties["rented_swapped"] == counties["total_swapped"]).all()
        ),
        "county totals unchanged": bool((counties["total"] == counties["total_swapped"]).all()),
        "printed total row = column sums": bool((counties.sum() == total).all()),
        "state owned and rented unchanged": bool(
            total["owned"] == total["owned_swapped"] and total["rented"] == total["rented_swapped"]
        ),
    }
    moved = int((counties["owned"] - counties["owned_swapped"]).abs().sum())
    listed = "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())
    return Measurement(
        all(checks.values()), f"{len(counties)} counties: {listed}; {moved:,} owned dwellings moved between counties"
    )


@ec.reads_committed
def ma1940_swapped_mape(run: Run, paper, *, file: str) -> Measurement:
    """MAPE of the printed p = 50 % instance (owned and rented by county), to set beside the paper's boxplots."""
    t = _county_table(run, file).drop(index="total")
    ape = pd.concat([(t[f"{c}_swapped"] - t[c]).abs() / t[c] for c in ("owned", "rented")])
    mape = 100 * float(ape.mean())
    return Measurement(
        mape,
        f"the printed p = 50 % instance: MAPE {mape:.1f} % over {len(ape)} owned/rented cells "
        f"(largest county error {100 * ape.max():.0f} %)",
    )


@ec.reads_committed
def ma1940_stratum(run: Run, paper, *, file: str) -> Measurement:
    """Return the largest stratum beside the dwellings of the printed county table.

    The count itself needs microdata.
    """
    total = int(_county_table(run, file).loc["total", "total"])
    return Measurement(
        float(paper) / total,
        f"b = {int(paper):,} is {100 * float(paper) / total:.1f} % of the "
        f"{total:,} dwellings of the printed county table; ε depends on b only through ln(b + 1)",
    )


@ec.reads_committed
def ma1940_swap_rate(run: Run, paper, *, file: str) -> Measurement:
    """Return the swap rate the printed 1940 instance implies.

    A selected dwelling keeps its ownership and receives the county of another selected one of its stratum; ignoring the
    household-size strata, a county's owned count moves towards total × s (s the state's owned share) by the fraction p:
    E[owned' − owned] = p (total s − owned). p̂ is the least-squares slope through the origin over the counties, its SE
    from the residuals.
    """
    t = _county_table(run, file)
    state, c = t.loc["total"], t.drop(index="total")
    s = state["owned"] / state["total"]
    a = (c["total"] * s - c["owned"]).to_numpy(float)
    d = (c["owned_swapped"] - c["owned"]).to_numpy(float)
    p_hat = float(a @ d / (a @ a))
    resid = d - p_hat * a
    se = float(np.sqrt(resid @ resid / (len(a) - 1) / (a @ a)))
    ratio = d / a
    # the expected instance moves each county by p (total s − owned): its MAPE over the owned and rented cells
    mape = {
        p: 100 * float(np.mean(np.r_[np.abs(p * a) / c["owned"], np.abs(p * a) / c["rented"]])) for p in (p_hat, 0.5)
    }
    return Measurement(
        p_hat,
        f"p̂ = {p_hat:.4f} (SE {se:.4f} from the residuals of {len(a)} counties; per county "
        f"(owned' − owned)/(total s − owned) from {ratio.min():.2f} to {ratio.max():.2f}, "
        f"s = {s:.4f}); expected MAPE of the owned/rented cells {mape[0.5]:.1f} % at p = 0.5, "
        f"{mape[p_hat]:.1f} % at p̂",
        se=se,
        note="the model leaves out the household-size strata (the swap key), whose counts by county "
        "and tenure are not in the slides",
    )


@ec.reads_committed
def census2020_strata(run: Run, paper) -> Measurement:
    """Return the 2020 strata sizes as used; how much ε moves if one were off."""
    t = _swap_results(run, "e8_swap_2020", _printed_swap(run, "e8_swap_2020")[0]).drop_duplicates("b")
    return Measurement(
        len(t),
        f"{len(t)} sizes from {t['b'].min():,} to {t['b'].max():,}, used as printed; ε "
        "depends on b only through ln(b + 1), so a size off by 1 % moves ε by 0.01",
    )


def _strata_sizes(run: Run, printed: str) -> pd.Series:
    """Return the printed b of each V_Match of a 2020 what-if table (``printed``).

    Every cell named once, b a positive count and the same on every row of its V_Match.
    """
    t = ec.committed_csv(run, printed, key=SWAP_KEYS["e8_swap_2020"], filled=["v_match"], count=["b"], positive=["b"])
    if (t.groupby("v_match")["b"].nunique() > 1).any():
        raise ec.EvidenceError(f"{run.data(printed)}: a V_Match with two values of b")
    return t.drop_duplicates("v_match").set_index("v_match")["b"]


@ec.reads_committed
def census2020_strata_nesting(run: Run, paper, *, printed: str, geography: list[str]) -> Measurement:
    """Return the 2020 what-if table's b are largest strata of nested partitions.

    A matching key V' refines V when its geography is V's or finer (``geography``, coarsest first) and it crosses every
    variable V crosses (household size), and then every V' stratum lies inside a V stratum, so b(V') ≤ b(V). The value
    is the number of refining pairs of printed rows that break it.
    """
    b = _strata_sizes(run, printed)

    def key(v):
        geo, *crossed = [part.strip() for part in v.split(" x ")]
        return geography.index(geo), set(crossed)

    pairs = [
        (fine, coarse)
        for fine, coarse in itertools.permutations(b.index, 2)
        if key(fine)[0] >= key(coarse)[0] and key(fine)[1] >= key(coarse)[1]
    ]
    broken = [(f, c) for f, c in pairs if b[f] > b[c]]
    return Measurement(
        len(broken),
        f"{len(broken)} of {len(pairs)} refining pairs of matching keys with a larger "
        "printed b than the key they refine" + "".join(f"; {f} {b[f]:,} > {c} {b[c]:,}" for f, c in broken),
        n=len(pairs),
    )


@ec.reads_committed
def census2020_largest_strata(run: Run, paper, *, printed: str, housing: str, strata: dict) -> Measurement:
    """Measure the 2020 what-if table's state and county strata against the 2010 SF1 housing counts.

    The counts are those of the committed county extract (H3: total and occupied housing units; occupied units are
    households): whether the named stratum (``strata``: V_Match → state abbreviation, or 'state abbreviation county
    FIPS') has the most households at its level, and whether the printed b is exactly its total housing units (vacant
    units included) and not its households.
    """
    from isdp_papers.nhgis.housing import load_housing

    b = _strata_sizes(run, printed)
    t = load_housing(ec.committed(run, housing))
    columns = ["sf1_housing_units", "sf1_occupied_units"]
    levels = {
        "state": t.groupby("state_abbr")[columns].sum(),
        "county": t.set_index(t["state_abbr"] + " " + t["county_fips"])[columns],
    }
    value, parts = {}, []
    for v_match, key in strata.items():
        counts = levels[v_match]
        units, households = (int(counts.loc[key, c]) for c in columns)
        top = counts["sf1_occupied_units"].idxmax()
        value[f"{v_match}_largest_by_households"] = bool(top == key)
        value[f"{v_match}_b_is_housing_units"] = bool(b[v_match] == units != households)
        parts.append(
            f"V_Match {v_match}: printed b = {b[v_match]:,}; {key} in 2010: {units:,} housing units, "
            f"{households:,} households (b / households = {b[v_match] / households:.4f}, ε lower by "
            f"{math.log((b[v_match] + 1) / (households + 1)):.3f} with households); most households: {top}"
        )
    return Measurement(
        value,
        "; ".join(parts),
        note="the 2020 counts (DHC) are not reachable offline; 2010 SF1 H3 "
        "from the NHGIS county extract, vintage v20210608",
    )
