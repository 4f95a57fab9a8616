"""The NHGIS county file.

Reading a vintage's ``*_county.csv`` from its zip (:func:`read_county_csv`), reducing it to the tidy table of county
identifiers and the two total-population counts (2010 SF1 and the DAS of that vintage, :func:`tidy_extract`), the
identity checks that hold in every vintage (:func:`validate`), the DAS state totals the claims registry tests
(:func:`state_totals_off`, :func:`das_claims_broken`), the deterministic CSV (:func:`extract`) and its reader
(:func:`load_counties`); one state's counties (:func:`state_counties`), state FIPS codes, abbreviations and names, the
vintages (:data:`PAPER_VINTAGE`, :func:`infer_vintage`), :class:`DataValidationError`, and the helpers the other
per-county extracts build on (:data:`COUNT_IDS`, ``_extract_county_counts``, ``_load_county_counts``).

Used by E3 (draws, measures, audit, figures), E4 (releases and figures), the lattice study of E1/E2 and E8's
measures (:func:`load_counties`), and by the other modules of this package.

The paper used vintage v20201116, which is not reachable offline; the repository commits the
v20210608 extract (NHGIS terms allow publishing such a minimal subset), and
:func:`~isdp_papers.nhgis.fallback.fetch_or_fallback` records which vintage was actually used.
"""

from __future__ import annotations

import io
import logging
import os
import re
import zipfile
from pathlib import Path

import pandas as pd

from isdp.files import atomic_write, file_sha256

log = logging.getLogger("isdp_papers.nhgis")  # one logger for the package: tests and runs capture it

#: Vintage used by the paper (Dharangutte et al., AAAI-23; Gao et al., AAAI-22).
PAPER_VINTAGE = "20201116"

#: Columns of the tidy extract, in file order.
COLUMNS = ["gisjoin", "state_fips", "state_abbr", "county_fips", "name", "sf1_pop", "dp_pop", "vintage"]
_STRING_COLUMNS = ["gisjoin", "state_fips", "state_abbr", "county_fips", "name", "vintage"]
_POP_COLUMNS = ["sf1_pop", "dp_pop"]

#: Total-population table code per vintage family: P8 is ``H72`` from v20201116 on, ``H7V`` in v20200527.
_POP_TABLES = ("H72001", "H7V001")

#: State FIPS code → USPS abbreviation: the 50 states, DC and Puerto Rico (the PPDD geography).
STATE_ABBR: dict[str, str] = {
    "01": "AL",
    "02": "AK",
    "04": "AZ",
    "05": "AR",
    "06": "CA",
    "08": "CO",
    "09": "CT",
    "10": "DE",
    "11": "DC",
    "12": "FL",
    "13": "GA",
    "15": "HI",
    "16": "ID",
    "17": "IL",
    "18": "IN",
    "19": "IA",
    "20": "KS",
    "21": "KY",
    "22": "LA",
    "23": "ME",
    "24": "MD",
    "25": "MA",
    "26": "MI",
    "27": "MN",
    "28": "MS",
    "29": "MO",
    "30": "MT",
    "31": "NE",
    "32": "NV",
    "33": "NH",
    "34": "NJ",
    "35": "NM",
    "36": "NY",
    "37": "NC",
    "38": "ND",
    "39": "OH",
    "40": "OK",
    "41": "OR",
    "42": "PA",
    "44": "RI",
    "45": "SC",
    "46": "SD",
    "47": "TN",
    "48": "TX",
    "49": "UT",
    "50": "VT",
    "51": "VA",
    "53": "WA",
    "54": "WV",
    "55": "WI",
    "56": "WY",
    "72": "PR",
}

#: USPS abbreviation → state name (figure titles, national tables).
STATE_NAMES: dict[str, str] = {
    "AL": "Alabama",
    "AK": "Alaska",
    "AZ": "Arizona",
    "AR": "Arkansas",
    "CA": "California",
    "CO": "Colorado",
    "CT": "Connecticut",
    "DE": "Delaware",
    "DC": "District of Columbia",
    "FL": "Florida",
    "GA": "Georgia",
    "HI": "Hawaii",
    "ID": "Idaho",
    "IL": "Illinois",
    "IN": "Indiana",
    "IA": "Iowa",
    "KS": "Kansas",
    "KY": "Kentucky",
    "LA": "Louisiana",
    "ME": "Maine",
    "MD": "Maryland",
    "MA": "Massachusetts",
    "MI": "Michigan",
    "MN": "Minnesota",
    "MS": "Mississippi",
    "MO": "Missouri",
    "MT": "Montana",
    "NE": "Nebraska",
    "NV": "Nevada",
    "NH": "New Hampshire",
    "NJ": "New Jersey",
    "NM": "New Mexico",
    "NY": "New York",
    "NC": "North Carolina",
    "ND": "North Dakota",
    "OH": "Ohio",
    "OK": "Oklahoma",
    "OR": "Oregon",
    "PA": "Pennsylvania",
    "RI": "Rhode Island",
    "SC": "South Carolina",
    "SD": "South Dakota",
    "TN": "Tennessee",
    "TX": "Texas",
    "UT": "Utah",
    "VT": "Vermont",
    "VA": "Virginia",
    "WA": "Washington",
    "WV": "West Virginia",
    "WI": "Wisconsin",
    "WY": "Wyoming",
    "PR": "Puerto Rico",
}

# Facts of the 2010 SF1 county file, identical in every PPDD vintage (docs/experiments/e3.md).
N_COUNTIES = 3221
N_ILLINOIS = 102
COOK_IL = ("G1700310", 5_194_675)
LOVING_TX = ("G4803010", 82)
NATIONAL_SF1 = 312_471_327

_GISJOIN_RE = r"G\d{2}0\d{3}0"
_VINTAGE_RE = re.compile(r"nhgis_ppdd_(\d{8})")


class DataValidationError(ValueError):
    """The county data failed a consistency check; the message names the check(s)."""


def infer_vintage(name: str | os.PathLike) -> str | None:
    """Return the 8-digit vintage in an NHGIS file name (``nhgis_ppdd_<V>_...``), or None."""
    match = _VINTAGE_RE.search(Path(name).name)
    return match.group(1) if match else None


def read_county_csv(
    zip_path: str | os.PathLike, vintage: str | None = None, extra: tuple[str, ...] = ()
) -> pd.DataFrame:
    """Read the identifier and total-population columns of the ``*_county.csv`` in an NHGIS zip.

    And the ``extra`` columns.

    All columns are returned as strings, as in the file (Latin-1). The vintage (given, else
    inferred from the member or zip name) is stored in ``df.attrs["vintage"]``; a given vintage
    that contradicts the member name is an error, so a wrong download cannot pass silently.
    """
    zip_path = Path(zip_path)
    try:
        with zipfile.ZipFile(zip_path) as zf:
            members = [m for m in zf.namelist() if m.endswith("_county.csv")]
            if len(members) != 1:
                raise DataValidationError(f"zip contents: expected one *_county.csv in {zip_path}, found {members}")
            member = members[0]
            raw = zf.read(member)  # checks the CRC
    except (zipfile.BadZipFile, EOFError) as exc:
        raise DataValidationError(f"zip archive: {zip_path} is not a readable zip ({exc})") from exc
    found = infer_vintage(member) or infer_vintage(zip_path)
    if vintage is not None and found is not None and vintage != found:
        raise DataValidationError(f"vintage: requested v{vintage} but {zip_path} holds {member}")
    vintage = vintage or found
    if vintage is None:
        raise ValueError(f"cannot infer the vintage from {zip_path} / {member}; pass vintage=")
    wanted = {"gisjoin", "name", "state", "STATEA", "COUNTYA"}
    wanted.update(f"{t}_{s}" for t in _POP_TABLES for s in ("sf", "dp"))
    wanted.update(extra)
    df = pd.read_csv(
        io.BytesIO(raw),
        encoding="latin-1",
        dtype=str,
        keep_default_na=False,
        usecols=lambda c: c in wanted,
    )
    df.attrs["vintage"] = vintage
    log.info("read %d rows from %s:%s (vintage %s)", len(df), zip_path.name, member, vintage)
    return df


def _to_int64(values: pd.Series, column: str, gisjoin: pd.Series) -> pd.Series:
    """Integer counts, or a 'missing values' error naming the offending counties."""
    numeric = pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
    bad = numeric.isna() | (numeric != numeric.round())
    if bad.any():
        raise DataValidationError(
            f"missing values: {int(bad.sum())} missing or non-integer {column} entries "
            f"(e.g. {list(gisjoin[bad].head(5))})"
        )
    return numeric.astype("int64")


def tidy_extract(raw_df: pd.DataFrame, vintage: str) -> pd.DataFrame:
    """Reduce :func:`read_county_csv` output to the tidy :data:`COLUMNS`, sorted by gisjoin.

    FIPS codes come from ``STATEA``/``COUNTYA`` when present, else from the gisjoin
    (``G`` + state(2) + ``0`` + county(3) + ``0``); a ``state`` column must agree with them.
    """
    missing = [c for c in ("gisjoin", "name") if c not in raw_df.columns]
    table = next((t for t in _POP_TABLES if {f"{t}_sf", f"{t}_dp"} <= set(raw_df.columns)), None)
    if missing or table is None:
        raise DataValidationError(
            f"columns: need gisjoin, name and one of {[f'{t}_sf/_dp' for t in _POP_TABLES]}, got {list(raw_df.columns)}"
        )
    gisjoin = raw_df["gisjoin"].astype(str).str.strip()
    bad = ~gisjoin.str.fullmatch(_GISJOIN_RE)
    if bad.any():
        raise DataValidationError(f"gisjoin format: {list(gisjoin[bad].head(5))} do not match {_GISJOIN_RE}")
    state = raw_df["STATEA"].str.zfill(2) if "STATEA" in raw_df else gisjoin.str[1:3]
    county = raw_df["COUNTYA"].str.zfill(3) if "COUNTYA" in raw_df else gisjoin.str[4:7]
    if "state" in raw_df and not (raw_df["state"].str.zfill(2) == state).all():
        raise DataValidationError("state code: the 'state' column disagrees with the gisjoin state FIPS")
    unknown = sorted(set(state) - set(STATE_ABBR))
    if unknown:
        raise DataValidationError(f"state FIPS: unknown codes {unknown}")
    tidy = pd.DataFrame(
        {
            "gisjoin": gisjoin,
            "state_fips": state,
            "state_abbr": state.map(STATE_ABBR),
            "county_fips": county,
            "name": raw_df["name"].astype(str).str.strip(),
            "sf1_pop": _to_int64(raw_df[f"{table}_sf"], "sf1_pop", gisjoin),
            "dp_pop": _to_int64(raw_df[f"{table}_dp"], "dp_pop", gisjoin),
            "vintage": str(vintage),
        }
    )
    tidy[_STRING_COLUMNS] = tidy[_STRING_COLUMNS].astype(str)
    return tidy.sort_values("gisjoin", kind="stable").reset_index(drop=True)[COLUMNS]


def validate(tidy_df: pd.DataFrame) -> None:
    """Check a tidy extract against facts true in every vintage (docs/experiments/e3.md).

    Structural failures (columns, missing values, duplicate gisjoin) stop at once; the value
    checks are all run and every failure is listed. Raises :class:`DataValidationError`.

    The checks identify the file (its counties and published SF1 counts); they do not enforce what the papers
    claim of the DAS output (non-negative counts, state totals kept). Those are tested by the claims registry on
    the stored counts, so a file that broke them is kept and shows there as ``differs``
    (:func:`das_claims_broken` names them in the log).
    """
    if list(tidy_df.columns) != COLUMNS:
        raise DataValidationError(f"columns: expected {COLUMNS}, got {list(tidy_df.columns)}")
    empty = tidy_df.isna() | tidy_df.astype(str).apply(lambda c: c.str.strip() == "")
    if empty.any().any():
        counts = empty.sum()
        raise DataValidationError(f"missing values: {counts[counts > 0].to_dict()}")
    dupes = tidy_df["gisjoin"][tidy_df["gisjoin"].duplicated()]
    if len(dupes):
        raise DataValidationError(f"unique gisjoin: duplicated {sorted(set(dupes))[:10]}")

    failures = []
    if tidy_df["vintage"].nunique() != 1:
        failures.append(f"single vintage: found {sorted(tidy_df['vintage'].unique())}")
    if len(tidy_df) != N_COUNTIES:
        failures.append(f"row count: expected {N_COUNTIES:,} rows, got {len(tidy_df):,}")
    n_il = int((tidy_df["state_fips"] == "17").sum())
    if n_il != N_ILLINOIS:
        failures.append(f"Illinois county count: expected {N_ILLINOIS}, got {n_il}")
    sf1 = tidy_df.set_index("gisjoin")["sf1_pop"]
    for label, (gj, expected) in (("Cook County IL", COOK_IL), ("Loving County TX", LOVING_TX)):
        got = sf1.get(gj)
        if got != expected:
            failures.append(f"{label} ({gj}) SF1: expected {expected:,}, got {got}")
    total = int(tidy_df["sf1_pop"].sum())
    if total != NATIONAL_SF1:
        failures.append(f"national SF1 sum: expected {NATIONAL_SF1:,}, got {total:,}")
    negative = int((tidy_df["sf1_pop"] < 0).sum())
    if negative:
        failures.append(f"non-negative counts: {negative} negative SF1 population values")
    if failures:
        raise DataValidationError(f"{len(failures)} check(s) failed: " + "; ".join(failures))


def state_totals_off(counties: pd.DataFrame) -> pd.Series:
    """Return DAS − SF1 population of each state-level area whose DAS county counts miss its SF1 total.

    Empty when the DAS keeps every state total.
    """
    sums = counties.groupby("state_abbr")[_POP_COLUMNS].sum()
    gap = sums["dp_pop"] - sums["sf1_pop"]
    return gap[gap != 0]


def das_claims_broken(tidy_df: pd.DataFrame) -> list[str]:
    """Return what the papers claim of the DAS county populations and this file breaks.

    Negative counts, and states whose DAS counts miss the SF1 total. Reported, not refused (see :func:`validate`).
    """
    broken = []
    if negative := int((tidy_df["dp_pop"] < 0).sum()):
        broken.append(f"{negative} negative DAS county counts")
    if len(off := state_totals_off(tidy_df)):
        broken.append("state totals not kept: " + ", ".join(f"{s} (dp-sf1 = {d:+d})" for s, d in off.items()))
    return broken


def _write_csv(tidy_df: pd.DataFrame, out_csv: str | os.PathLike) -> Path:
    r"""Write deterministic bytes: fixed column order, no index, UTF-8, ``\n`` line endings."""
    return atomic_write(
        out_csv,
        lambda tmp: tidy_df[COLUMNS].to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"),
    )


def extract(zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None) -> pd.DataFrame:
    """Read, tidy and validate an NHGIS county zip, then write the tidy CSV atomically.

    Nothing is written when a check fails. Returns the tidy frame.
    """
    raw = read_county_csv(zip_path, vintage)
    tidy = tidy_extract(raw, raw.attrs["vintage"])
    validate(tidy)
    for broken in das_claims_broken(tidy):
        log.warning("kept, for the claims registry to report: %s", broken)
    _write_csv(tidy, out_csv)
    log.info("wrote %d counties (vintage %s) to %s", len(tidy), raw.attrs["vintage"], out_csv)
    return tidy


#: The identifiers that open every per-county count extract, in file order.
COUNT_IDS = ["gisjoin", "state_fips", "county_fips", "state_abbr"]


def _extract_county_counts(zip_path, out_csv, vintage, source: dict[str, str], what: str, check=None) -> pd.DataFrame:
    """Extract the ``source`` count columns (file column → NHGIS column) of an NHGIS county zip.

    They are written beside the identifiers of :func:`extract` (its counties, validated the same way), as a
    deterministic CSV sorted by gisjoin. ``check`` may raise :class:`DataValidationError` on the counts; nothing is
    written when a check fails. As :func:`validate`, the SF1 counts are checked and the DAS's are kept as published (a
    negative one is logged). Returns the frame.
    """
    raw = read_county_csv(zip_path, vintage, extra=tuple(source.values()))
    missing = sorted(set(source.values()) - set(raw.columns))
    if missing:
        raise DataValidationError(f"columns: the county file has no {missing}")
    counties = tidy_extract(raw, raw.attrs["vintage"])
    validate(counties)
    by_gisjoin = raw.assign(gisjoin=raw["gisjoin"].str.strip()).set_index("gisjoin").loc[counties["gisjoin"]]
    out = counties[COUNT_IDS].copy()
    for column, nhgis_column in source.items():
        out[column] = _to_int64(by_gisjoin[nhgis_column].reset_index(drop=True), column, out["gisjoin"])
    sf1_columns = [c for c in source if c.startswith("sf1_")]
    if (out[sf1_columns] < 0).to_numpy().any():
        raise DataValidationError(f"non-negative counts: negative SF1 {what} counts")
    if negative := int((out[[c for c in source if c not in sf1_columns]] < 0).to_numpy().sum()):
        log.warning("kept, for the claims registry to report: %d negative DAS %s counts", negative, what)
    if check is not None:
        check(out)
    atomic_write(out_csv, lambda tmp: out.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info("wrote the %s of %d counties (vintage %s) to %s", what, len(out), raw.attrs["vintage"], out_csv)
    return out


def _read_extract(csv_path: str | os.PathLike, columns: list[str], counts) -> pd.DataFrame:
    """Return a committed extract with exactly ``columns``, identifiers as strings and the ``counts`` as integers."""
    df = pd.read_csv(csv_path, dtype=str, keep_default_na=False, encoding="utf-8")
    if list(df.columns) != columns:
        raise DataValidationError(f"columns: expected {columns}, got {list(df.columns)}")
    for column in counts:
        df[column] = _to_int64(df[column], column, df["gisjoin"])
    return df


def _load_county_counts(csv_path: str | os.PathLike, columns: list[str], counts) -> pd.DataFrame:
    df = _read_extract(csv_path, columns, counts)
    if len(df) != N_COUNTIES:
        raise DataValidationError(f"row count: expected {N_COUNTIES:,} rows, got {len(df):,}")
    return df


def check_recorded_sha256(csv_path: str | os.PathLike) -> None:
    """Refuse a run's county file whose bytes are not those the fetch step recorded.

    ``source.json`` beside it holds their SHA-256 (a county edited from 90 to 60 persons once read as a finding, six
    claims ``differs``). A file with no record beside it (a committed extract, a user's own) is left to its own checks.
    """
    record = Path(csv_path).with_name("source.json")
    if not record.is_file():
        return
    import json  # deferred: only a run's county file has a fetch record

    try:
        expected = json.loads(record.read_text(encoding="utf-8"))["sha256"]
    except (ValueError, KeyError, TypeError):
        raise DataValidationError(f"{record}: not a fetch record with a 'sha256'") from None
    actual = file_sha256(csv_path)
    if actual != expected:
        raise DataValidationError(
            f"{csv_path}: sha256 {actual} is not the {expected} the fetch recorded in {record}: "
            "the county file was changed after it was fetched. Run the fetch again "
            "(snakemake --forcerun fetch)"
        )


def load_counties(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read a tidy extract written by :func:`extract` (FIPS codes as strings) and validate it.

    Its bytes those the fetch recorded beside it (:func:`check_recorded_sha256`), its values consistent
    (:func:`validate`).
    """
    check_recorded_sha256(csv_path)
    df = _read_extract(csv_path, COLUMNS, _POP_COLUMNS)
    validate(df)
    return df


def state_counties(counties: pd.DataFrame, state: str, source="") -> pd.DataFrame:
    """One state's rows of a county table (:func:`load_counties`), ordered by ``gisjoin``.

    The column order of E3's draws and E4's releases. Raises ValueError when the state has no counties (``source`` names
    the file).
    """
    group = counties[counties["state_abbr"] == state].sort_values("gisjoin")
    if group.empty:
        raise ValueError(f"state {state}: no counties in {source}")
    return group
