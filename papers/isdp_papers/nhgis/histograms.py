"""The 252-cell ethnicity (2) × race (63) × voting age (2) histograms of 2010 SF1 and the DAS.

They are derived from the county zip's race tables (P8–P11) as matched in its codebook, and the three extracts made of
them: the per-state support (:func:`extract_histogram_support`), the per-county cell summary
(:func:`extract_histogram_cells`, :func:`load_histogram_cells`) and Illinois's county histograms
(:func:`extract_state_histograms`, :func:`load_state_histograms`).

Used by E3's claims measures (histogram cells and sparsity, the national histogram), E4's measures (the Illinois
histograms) and E8's measures (the TopDown problem sizes: :data:`HISTOGRAM_CELLS`, :data:`NATION`).
"""

from __future__ import annotations

import logging
import os
import re
import zipfile

import numpy as np
import pandas as pd

from isdp.files import atomic_write
from isdp_papers.nhgis.counties import (
    COUNT_IDS,
    N_ILLINOIS,
    DataValidationError,
    _load_county_counts,
    _read_extract,
    _to_int64,
    read_county_csv,
    tidy_extract,
    validate,
)

log = logging.getLogger("isdp_papers.nhgis")  # one logger for the package: tests and runs capture it

#: The committed per-state support of the 2010 SF1 ethnicity × race × voting-age histogram (repository path), made by
#: :func:`extract_histogram_support`.
HISTOGRAM_SUPPORT_EXTRACT = "data/nhgis/state_histogram_support_v20210608.csv"
HISTOGRAM_SUPPORT_COLUMNS = ["state_abbr", "counties", "nonzero_cells", "sf1_pop", "dp_nonzero_cells"]
#: The national row of that table: the 50 states and DC (Puerto Rico is outside the nation's histogram).
NATION = "US"
#: SF1 tables whose leaves give the histogram, by their NHGIS codes: P8 race (H72) and P10 race 18+ (H74), P9 and P11
#: the same races of the not Hispanic or Latino (H73, H75); Hispanic = P8 − P9 and under 18 = all ages − 18+.
_RACE_TABLES = {"all": "H72", "all_not_hispanic": "H73", "adult": "H74", "adult_not_hispanic": "H75"}
_NOT_HISPANIC = "Not Hispanic or Latino: "
N_RACES = 63
#: Cells of the histogram ethnicity (2) × race × voting age (2).
HISTOGRAM_CELLS = 2 * N_RACES * 2


def _codebook_races(zip_path: str | os.PathLike) -> dict[str, list[str]]:
    """Return the race leaves of each :data:`_RACE_TABLES` table, read from the codebook in the zip.

    Matched by label: per table, the codes of the 63 races in one order. A leaf is a label no other label of its table
    refines.
    """
    with zipfile.ZipFile(zip_path) as zf:
        (member,) = [m for m in zf.namelist() if m.endswith("_codebook.txt")]
        text = zf.read(member).decode("latin-1")
    codes = {}
    for key, table in _RACE_TABLES.items():
        labels = dict(re.findall(rf"^\s+({table}\d{{3}}):\s+(.+?)\s*$", text, flags=re.M))
        leaves = {
            label: code
            for code, label in labels.items()
            if label != "Total" and not any(o.startswith(label + ": ") for o in labels.values())
        }
        if key.endswith("not_hispanic"):
            leaves = {
                label.removeprefix(_NOT_HISPANIC): code
                for label, code in leaves.items()
                if label.startswith(_NOT_HISPANIC)
            }
        codes[key] = leaves
    races = sorted(codes["all"])
    if len(races) != N_RACES or any(sorted(leaves) != races for leaves in codes.values()):
        raise DataValidationError(
            f"codebook: the race leaves of {list(_RACE_TABLES.values())} are not the same "
            f"{N_RACES} labels ({[len(v) for v in codes.values()]})"
        )
    return {key: [leaves[r] for r in races] for key, leaves in codes.items()}


def _county_histograms(zip_path, vintage, sources) -> dict[str, tuple[pd.DataFrame, tuple[np.ndarray, ...]]]:
    """Return per county the 252 cells ethnicity (2) × race (63) × voting age (2), for each source in ``sources``.

    The cells are differences of the zip's race tables (:data:`_RACE_TABLES`, the 18+ cells first), with the total
    (H72001) and voting-age (H74001) populations; the source suffixes are ``sf`` (2010 SF1) and ``dp`` (the DAS):
    {source: (counties, (cells, pop, adults))}. The counties are :func:`extract`'s, validated the same way; the cells
    are not checked here.
    """
    races = _codebook_races(zip_path)
    columns = {
        src: ({key: [f"{c}_{src}" for c in codes] for key, codes in races.items()}, [f"H72001_{src}", f"H74001_{src}"])
        for src in sources
    }
    extra = [c for tables, totals in columns.values() for c in (*[c for cs in tables.values() for c in cs], *totals)]
    raw = read_county_csv(zip_path, vintage, extra=tuple(extra))
    counties = tidy_extract(raw, raw.attrs["vintage"])
    validate(counties)
    rows = raw.assign(gisjoin=raw["gisjoin"].str.strip()).set_index("gisjoin").loc[counties["gisjoin"]]

    def counts(names: list[str]) -> np.ndarray:
        return np.column_stack([_to_int64(rows[c].reset_index(drop=True), c, counties["gisjoin"]) for c in names])

    out = {}
    for src, (tables, totals) in columns.items():
        t = {key: counts(names) for key, names in tables.items()}
        adult = {"not_hispanic": t["adult_not_hispanic"], "hispanic": t["adult"] - t["adult_not_hispanic"]}
        child = {
            "not_hispanic": t["all_not_hispanic"] - t["adult_not_hispanic"],
            "hispanic": t["all"] - t["all_not_hispanic"] - adult["hispanic"],
        }
        pop, adults = counts(totals).T
        out[src] = (counties, (np.hstack([*adult.values(), *child.values()]), pop, adults))
    return out


def _check_sf1_cells(cells: np.ndarray, pop: np.ndarray, adults: np.ndarray) -> None:
    """SF1 is one histogram: no cell negative, each county's cells add up to H72001 and its 18+ cells to H74001."""
    if (cells < 0).any():
        raise DataValidationError("non-negative cells: a difference of SF1 tables is negative")
    if (cells.sum(axis=1) != pop).any() or (cells[:, : 2 * N_RACES].sum(axis=1) != adults).any():
        raise DataValidationError("cell sums: the 252 cells do not add up to H72001 (or the 18+ cells to H74001)")


def extract_histogram_support(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Extract per state the number of counties and of nonzero cells of the state's 2010 SF1 252-cell histogram.

    Per state, the number of counties and of nonzero cells of the state's 2010 SF1 histogram ethnicity (2) × race (63) ×
    voting age (2) = 252 cells (the TopDown talk's attributes without residence type, which SF1 does not cross with
    them), beside the state's SF1 population and the nonzero cells of the same histogram after the DAS (the sum of its
    counties' DAS cells); one :data:`NATION` row for the 50 states and DC. The cells are differences of the zip's tables
    (:data:`_RACE_TABLES`), checked: no negative SF1 cell (a negative DAS cell, which the histogram-cells extract counts
    for the registry, is not a populated one here); in every county (hence every state) the 252 SF1 cells add up to the
    population (H72001) and the 18+ cells to the voting-age population (H74001). The counties are :func:`extract`'s
    (validated the same way). Writes a deterministic CSV of :data:`HISTOGRAM_SUPPORT_COLUMNS`; nothing is written when a
    check fails. Returns the frame.
    """
    histograms = _county_histograms(zip_path, vintage, ("sf", "dp"))
    counties, (cells, pop, adults) = histograms["sf"]
    _check_sf1_cells(cells, pop, adults)
    by_state, dp_by_state = (
        pd.DataFrame(c).groupby(counties["state_abbr"].to_numpy()).sum() for c in (cells, histograms["dp"][1][0])
    )
    nation, dp_nation = by_state.drop(index="PR").sum(), dp_by_state.drop(index="PR").sum()
    n_counties = counties.groupby("state_abbr").size().loc[by_state.index]
    support = pd.DataFrame(
        {
            "state_abbr": [*by_state.index, NATION],
            "counties": [*n_counties, int(n_counties.drop(index="PR").sum())],
            "nonzero_cells": [*(by_state > 0).sum(axis=1), int((nation > 0).sum())],
            "sf1_pop": [*by_state.sum(axis=1), int(nation.sum())],
            "dp_nonzero_cells": [*(dp_by_state > 0).sum(axis=1), int((dp_nation > 0).sum())],  # populated
        }
    )
    support = support.astype({c: "int64" for c in HISTOGRAM_SUPPORT_COLUMNS[1:]})[HISTOGRAM_SUPPORT_COLUMNS]
    atomic_write(out_csv, lambda tmp: support.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info(
        "wrote the histogram support of %d states (vintage %s) to %s",
        len(support) - 1,
        counties["vintage"].iloc[0],
        out_csv,
    )
    return support


#: The committed per-county summary of the 252-cell histograms (repository path), made by
#: :func:`extract_histogram_cells`.
HISTOGRAM_CELLS_EXTRACT = "data/nhgis/county_histogram_cells_v20210608.csv"
HISTOGRAM_CELLS_SOURCE = ["sf1_nonzero_cells", "dp_nonzero_cells", "dp_negative_cells", "dp_cells_off_totals"]
HISTOGRAM_CELLS_COLUMNS = [*COUNT_IDS, *HISTOGRAM_CELLS_SOURCE]


def histogram_cells_summary(counties: pd.DataFrame, sf1: np.ndarray, dp: tuple[np.ndarray, ...]) -> pd.DataFrame:
    """Return per county the nonzero and negative cells of its 252-cell histograms and whether they add up.

    Per county: the nonzero cells of its SF1 and DAS 252-cell histograms, the DAS cells that are negative, and whether
    the DAS cells fail to add up to the DAS's published total and voting-age populations (1) or not (0).
    """
    cells, pop, adults = dp
    off = (cells.sum(axis=1) != pop) | (cells[:, : 2 * N_RACES].sum(axis=1) != adults)
    summary = counties[COUNT_IDS].copy()
    for column, values in zip(
        HISTOGRAM_CELLS_SOURCE,
        ((sf1 > 0).sum(axis=1), (cells > 0).sum(axis=1), (cells < 0).sum(axis=1), off),
        strict=True,
    ):
        summary[column] = np.asarray(values, dtype="int64")
    return summary


def extract_histogram_cells(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Extract per county the :func:`histogram_cells_summary` of its 252-cell histograms, SF1 and DAS.

    The histograms are ethnicity × race × voting age, derived from the zip's race tables (:func:`_county_histograms`;
    the SF1 cells checked as in :func:`extract_histogram_support`): the TopDown talk's sparse histograms and its
    nonnegative integer microdata. Writes a deterministic CSV of :data:`HISTOGRAM_CELLS_COLUMNS`; nothing is written
    when a check fails.
    """
    histograms = _county_histograms(zip_path, vintage, ("sf", "dp"))
    counties, (sf1, pop, adults) = histograms["sf"]
    _check_sf1_cells(sf1, pop, adults)
    summary = histogram_cells_summary(counties, sf1, histograms["dp"][1])
    atomic_write(out_csv, lambda tmp: summary.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info("wrote the histogram cells of %d counties to %s", len(summary), out_csv)
    return summary


#: The committed 252-cell SF1 histograms of Illinois's counties (repository path), made by
#: :func:`extract_state_histograms`: ISDP Fig 2's state, for post-processing studies on its real cell structure.
STATE_HISTOGRAMS_EXTRACT = "data/nhgis/il_county_histograms_sf1_v20210608.csv"
STATE_HISTOGRAMS_STATE = "IL"
STATE_HISTOGRAMS_SOURCE = [f"cell_{i:03d}" for i in range(HISTOGRAM_CELLS)]
STATE_HISTOGRAMS_COLUMNS = [*COUNT_IDS, *STATE_HISTOGRAMS_SOURCE]


def extract_state_histograms(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Extract the 252 SF1 cells ethnicity × race × voting age of every county of :data:`STATE_HISTOGRAMS_STATE`.

    In :func:`_county_histograms`' order (18+ not Hispanic, 18+ Hispanic, under-18 not Hispanic, under-18 Hispanic; 63
    races each, in the codebook's order), checked as in :func:`extract_histogram_support`. SF1 is the same in every
    vintage. Writes a deterministic CSV of :data:`STATE_HISTOGRAMS_COLUMNS`; nothing is written when a check fails.
    Returns the frame.
    """
    counties, (cells, pop, adults) = _county_histograms(zip_path, vintage, ("sf",))["sf"]
    _check_sf1_cells(cells, pop, adults)
    keep = (counties["state_abbr"] == STATE_HISTOGRAMS_STATE).to_numpy()
    out = pd.concat(
        [
            counties.loc[keep, COUNT_IDS].reset_index(drop=True),
            pd.DataFrame(cells[keep], columns=STATE_HISTOGRAMS_SOURCE),
        ],
        axis=1,
    )
    atomic_write(out_csv, lambda tmp: out.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info("wrote the SF1 histograms of %d %s counties to %s", len(out), STATE_HISTOGRAMS_STATE, out_csv)
    return out


def load_state_histograms(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_state_histograms` (identifiers as strings, cells as integers)."""
    df = _read_extract(csv_path, STATE_HISTOGRAMS_COLUMNS, STATE_HISTOGRAMS_SOURCE)
    if len(df) != N_ILLINOIS or set(df["state_abbr"]) != {STATE_HISTOGRAMS_STATE}:
        raise DataValidationError(f"rows: expected the {N_ILLINOIS} counties of {STATE_HISTOGRAMS_STATE}")
    return df


def load_histogram_cells(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_histogram_cells` (identifiers as strings, counts as integers)."""
    return _load_county_counts(csv_path, HISTOGRAM_CELLS_COLUMNS, HISTOGRAM_CELLS_SOURCE)
