"""Measures of the TopDown talk's counts from the committed 2010 data.

The 'Goal' slide's histogram, population and workload, the state-level measurements, the GQ codes, and the sizes of the
optimisation problems.

Statements: cells, identity queries and attribute sizes (``histogram_cells``, ``attribute_sizes``); the population
(``us_population``); the workload (``workload_queries``, ``workload_consistency``); one measurement per state and DC
(``state_units``); 28 GQ types (``gq_type_count``); problem sizes down the hierarchy and the national zero cells
(``problem_sizes``, ``national_zero_cells``).
"""

from __future__ import annotations

import math

import pandas as pd

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.nhgis.histograms import HISTOGRAM_CELLS, NATION

#: the checks of the committed county extract's columns these measures read (people counted, each county once)
_COUNTY_CHECKS = {"key": "gisjoin", "filled": ["state_fips", "state_abbr"], "count": ["sf1_pop"]}


def _county_file(run: Run, rel) -> pd.DataFrame:
    """Return the committed county extract ``rel`` (verified against its published SHA-256), its columns checked."""
    return ec.committed_csv(run, rel, dtype={"state_fips": str}, **_COUNTY_CHECKS)


def histogram_cells(run: Run, paper, *, blocks: float, attributes: dict) -> Measurement:
    """Cells of the block-level histogram: blocks × the product of the attribute sizes."""
    per_block = math.prod(attributes.values())
    n = blocks * per_block
    return Measurement(
        n,
        f"{blocks:.0e} blocks × {' × '.join(f'{v} ({k})' for k, v in attributes.items())} = "
        f"{per_block:,} cells per block → {n / 1e9:.2f} billion cells",
        note="one identity query per cell: the talk's '+12 billion identity queries' is the same count",
    )


@ec.reads_committed
def attribute_sizes(run: Run, paper, *, races: list[str], gq_codes: str) -> Measurement:
    """Return the histogram's attribute sizes from their categories.

    A race is any nonempty combination of ``races`` (alone or in combination), a residence type a household or one of
    the major group-quarters types of the committed 2010 GQ code list ``gq_codes``.
    """
    major_types = ec.committed_csv(run, gq_codes, dtype={"code": str}, key="code", filled=["major_type"])[
        "major_type"
    ].unique()
    value = {"race": 2 ** len(races) - 1, "residence_type": 1 + len(major_types)}
    return Measurement(
        value,
        f"race: 2^{len(races)} − 1 = {value['race']} nonempty combinations of "
        f"{len(races)} categories; residence type: household + {len(major_types)} major "
        f"group-quarters types of the 2010 code list = {value['residence_type']}",
    )


@ec.reads_committed
def us_population(run: Run, paper) -> Measurement:
    """2010 Census population of the 50 states and DC, summed from the committed county extract."""
    path = run.data(run.config["data"]["embedded"])
    t = _county_file(run, run.config["data"]["embedded"])
    us = t[t["state_fips"] != "72"]  # Puerto Rico is outside the national total
    n = int(us["sf1_pop"].sum())
    return Measurement(
        n,
        f"{n:,} (2010 Summary File 1, {len(us):,} counties of the 50 states and DC)",
        note=f"from {path.name}: the confidential 2010 counts, the same in every NHGIS vintage",
    )


def workload_queries(run: Run, paper, *, per_unit: int, blocks: float) -> Measurement:
    """Geographic units the printed query total implies, beside the number of blocks."""
    implied = float(paper) / per_unit
    return Measurement(
        implied,
        f"{float(paper):.1e} / {per_unit} = {implied / 1e6:.1f} million geographic units "
        f"implied; {per_unit} × {blocks / 1e6:g} million blocks alone would be "
        f"{per_unit * blocks / 1e9:.2f} billion",
    )


@ec.reads_committed
def workload_consistency(
    run: Run,
    paper,
    *,
    per_unit: int,
    blocks: float,
    queries_rounding: float,
    blocks_rounding: float,
    tallies: dict,
    exclude: list[str],
) -> Measurement:
    """Measure whether the printed query total, queries per unit and number of blocks fit together.

    Over the talk's six geographic levels: the units U the total allows (641 U rounding to it) against the fewest units
    the levels need — the nation (1), the states and counties of the committed county extract (states ``exclude`` left
    out), the tracts and block groups of the published 2010 ``tallies``, and the blocks, rounding to the printed number.
    The value is the largest allowed U minus the smallest needed. The tallies' own states and counties are set beside
    the extract's, and their blocks beside the printed number.
    """
    t = _county_file(run, run.config["data"]["embedded"])
    t = t[~t["state_fips"].isin(exclude)]
    levels = {
        "nation": 1,
        "state": t["state_fips"].nunique(),
        "county": len(t),
        "tract": int(tallies["tract"]),
        "block group": int(tallies["block_group"]),
    }
    lo, hi = (float(paper) - queries_rounding) / per_unit, (float(paper) + queries_rounding) / per_unit
    fewest, most = blocks - blocks_rounding, blocks + blocks_rounding
    needed = fewest + sum(levels.values())
    text = (
        f"{float(paper):.2g} queries (±{queries_rounding:.2g}) / {per_unit} allow {lo / 1e6:.3f} to "
        f"{hi / 1e6:.3f} million units; ≈ {blocks / 1e6:g} million blocks (at least {fewest / 1e6:g}) + "
        + ", ".join(f"{n:,} {k}" for k, n in levels.items())
        + f" need at least {needed / 1e6:.3f} million"
    )
    agree = all(levels[k] == int(tallies[k]) for k in ("state", "county"))
    note = (
        f"the extract's {levels['state']} states and {levels['county']:,} counties "
        f"{'agree with' if agree else 'differ from'} the tallies' {int(tallies['state'])} and "
        f"{int(tallies['county']):,}; counted alone, the blocks ({fewest / 1e6:g} to {most / 1e6:g} million) "
        f"{'fit' if fewest <= hi and most >= lo else 'do not fit'} the total; the tallies count "
        f"{int(tallies['block']):,} tabulation blocks, not the talk's ≈ {blocks / 1e6:g} million; at "
        f"{blocks / 1e6:g} million blocks exactly, {per_unit} queries per unit over the six levels would be "
        f"{per_unit * (blocks + sum(levels.values())) / 1e9:.2f} billion"
    )
    return Measurement(hi - needed, text, note=note)


@ec.reads_committed
def state_units(run: Run, paper, *, exclude: list[str]) -> Measurement:
    """Count the state-level geographic units (states and DC) of the committed 2010 county extract.

    ``exclude`` is left out.
    """
    t = _county_file(run, run.config["data"]["embedded"])
    states = sorted(set(t["state_fips"]) - set(exclude))
    return Measurement(
        len(states),
        f"{len(states)} state FIPS codes in the 2010 county extract (left out: {', '.join(exclude) or 'none'})",
    )


@ec.reads_committed
def gq_type_count(run: Run, paper, *, file: str, counted: str) -> Measurement:
    """Count the distinct values of the column ``counted`` in the committed list of 2010 Census group-quarters codes.

    ``code``: the 3-digit GQ type codes; ``major_type``: the major types they group into.
    """
    t = ec.committed_csv(run, file, dtype={"code": str}, key="code", filled=["major_type", counted])
    n = int(t[counted].nunique())
    per_major = ", ".join(f"{k} {len(g)}" for k, g in t.groupby("major_type", sort=False))
    return Measurement(
        n,
        f"{n} distinct {counted} values among {len(t)} 3-digit codes ({t['code'].min()} to "
        f"{t['code'].max()}; per major type: {per_major})",
    )


def _support_table(run: Run, file: str) -> tuple[pd.Series, pd.DataFrame]:
    """Return the nation's row and the states' rows of the committed per-state support table.

    The table is that of the 252-cell histogram; the states are the 50 states and DC; Puerto Rico is outside the
    nation's hierarchy.
    """
    t = ec.committed_csv(
        run, file, key="state_abbr", count=["counties", "nonzero_cells", "sf1_pop", "dp_nonzero_cells"]
    ).set_index("state_abbr")
    where = str(run.data(file))
    for column in ("nonzero_cells", "dp_nonzero_cells"):
        ec.check_values(t[column], where, f"column {column!r}", "count", hi=HISTOGRAM_CELLS)
    missing = [s for s in ("PR", NATION) if s not in t.index]
    if missing or len(t) < 3:
        raise ec.EvidenceError(f"{where}: no row of {missing or 'the states'}")
    t = t.drop(index="PR")
    return t.loc[NATION], t.drop(index=NATION)


@ec.reads_committed
def problem_sizes(run: Run, paper, *, file: str, size: str = "variables") -> Measurement:
    """Measure the size of the TopDown talk's optimisation problems at the nation→state and state→county steps.

    From the committed per-state support of the 2010 ethnicity × race × voting-age histogram (252 cells): ``variables``
    = children × cells nonzero at the parent (the talk drops the variables that are 0 at the parent); ``people`` = the
    parent's population. Puerto Rico is outside the nation's hierarchy.
    """
    nation, states = _support_table(run, file)
    sizes = {"variables": lambda children, r: children * r["nonzero_cells"], "people": lambda children, r: r["sf1_pop"]}
    if size not in sizes:
        raise ValueError(f"size must be one of {sorted(sizes)}, got {size!r}")
    per_state = sizes[size](states["counties"], states)
    top = per_state.idxmax()
    value = {
        "largest_state_county": int(per_state.max()),
        "median_state_county": float(per_state.median()),
        "nation_state": int(sizes[size](len(states), nation)),
    }
    above = int((per_state >= value["nation_state"]).sum())
    cells = HISTOGRAM_CELLS
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


@ec.reads_committed
def national_zero_cells(run: Run, paper, *, file: str) -> Measurement:
    """Count the cells of the nation's DAS histogram that are 0, which the talk's state level ignores.

    The histogram is ethnicity × race × voting age, 252 cells, over the 50 states and DC, read from the committed
    per-state support table; the variables this drops from the nation→state problem (51 states per cell) beside those
    the states' own zero cells drop at the state→county step.
    """
    nation, states = _support_table(run, file)
    cells = HISTOGRAM_CELLS
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
