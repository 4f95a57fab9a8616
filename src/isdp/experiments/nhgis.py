"""IPUMS NHGIS Privacy-Protected 2010 Census Demonstration Data, county level (experiment E3).

Downloads a vintage's county zip, reduces it to a tidy table of county identifiers and the two
total-population counts (2010 SF1, the confidential value, and the TopDown/DAS value of that
vintage), checks it against facts that hold in every vintage, and writes a deterministic CSV.

The paper used vintage v20201116, which is not reachable offline; the repository commits the
v20210608 extract (NHGIS terms allow publishing such a minimal subset), and
:func:`fetch_or_fallback` records which vintage was actually used.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from http.client import HTTPException
from pathlib import Path

import numpy as np
import pandas as pd

from isdp.files import atomic_write, write_json

log = logging.getLogger(__name__)

#: SHA-256 of the official county zips whose content this project has verified; a download
#: or a dropped-in zip of these vintages must match.
KNOWN_SHA256 = {"20210608": "3a85a873d66d0a5852d49739c820bd9a057c14566c0630365625ac3b440ed7df"}
#: Vintage used by the paper (Dharangutte et al., AAAI-23; Gao et al., AAAI-22).
PAPER_VINTAGE = "20201116"
URL_TEMPLATE = "https://assets.nhgis.org/differential-privacy/v{v}/nhgis_ppdd_{v}_county.zip"

#: Columns of the tidy extract, in file order.
COLUMNS = ["gisjoin", "state_fips", "state_abbr", "county_fips", "name", "sf1_pop", "dp_pop", "vintage"]
_STRING_COLUMNS = ["gisjoin", "state_fips", "state_abbr", "county_fips", "name", "vintage"]
_POP_COLUMNS = ["sf1_pop", "dp_pop"]

#: Total-population table code per vintage family: P8 is ``H72`` from v20201116 on, ``H7V`` in v20200527.
_POP_TABLES = ("H72001", "H7V001")

#: State FIPS code → USPS abbreviation: the 50 states, DC and Puerto Rico (the PPDD geography).
STATE_ABBR: dict[str, str] = {
    "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT",
    "10": "DE", "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL",
    "18": "IN", "19": "IA", "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD",
    "25": "MA", "26": "MI", "27": "MN", "28": "MS", "29": "MO", "30": "MT", "31": "NE",
    "32": "NV", "33": "NH", "34": "NJ", "35": "NM", "36": "NY", "37": "NC", "38": "ND",
    "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI", "45": "SC", "46": "SD",
    "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA", "54": "WV",
    "55": "WI", "56": "WY", "72": "PR",
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
_SOURCES = ("auto", "nhgis", "embedded")


class DownloadError(RuntimeError):
    """A download failed after all attempts; the message names the URL and the last cause."""


class DataValidationError(ValueError):
    """The county data failed a consistency check; the message names the check(s)."""


def url_for(vintage: str) -> str:
    """Official NHGIS download URL of a vintage's county zip (no account needed)."""
    return URL_TEMPLATE.format(v=vintage)


def infer_vintage(name: str | os.PathLike) -> str | None:
    """The 8-digit vintage in an NHGIS file name (``nhgis_ppdd_<V>_...``), or None."""
    match = _VINTAGE_RE.search(Path(name).name)
    return match.group(1) if match else None


def sha256sum(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _BadBody(OSError):
    """Downloaded bytes are incomplete or do not match the expected SHA-256 (retryable)."""


class _Deadline(TimeoutError):
    """The attempt's overall deadline passed (a slow or trickling server)."""


class _Watchdog:
    """Shuts the attempt's sockets down when its deadline passes.

    Socket timeouts bound each read, not the attempt: a server sending its status line, a
    header or the body a byte at a time resets them on every byte. Shutting the socket down
    wakes whatever read urllib is blocked in (status line, headers, body), in any thread.
    """

    def __init__(self, timeout: float):
        self.sockets: list[socket.socket] = []  # not the connections: they drop theirs once the headers are in
        self.fired = False
        self.timer = threading.Timer(timeout, self._fire)
        self.timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def opener(self) -> urllib.request.OpenerDirector:
        """An opener whose every connection (redirects included) is watched."""
        watchdog = self

        def watched(http_class):
            class Watched(http_class):
                def connect(self):
                    super().connect()
                    watchdog.sockets.append(self.sock)
            return Watched

        class HTTP(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        class HTTPS(urllib.request.HTTPSHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        return urllib.request.build_opener(HTTP, HTTPS)


def _fetch_once(url: str, tmp: Path, timeout: float, expected_sha256: str | None) -> int:
    """One attempt, bounded by ``timeout`` seconds in total (connection, headers and body)."""
    request = urllib.request.Request(url, headers={"User-Agent": "isdp (python urllib)"})
    digest = hashlib.sha256()
    size = 0
    watchdog = _Watchdog(timeout)
    watchdog.timer.start()
    try:
        with watchdog.opener().open(request, timeout=timeout) as resp, open(tmp, "wb") as out:
            expected_size = resp.headers.get("Content-Length")
            while chunk := resp.read1(1 << 16):  # whatever has arrived: a trickle cannot stall a full-size read
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
        if watchdog.fired:  # a shut-down socket can also read as a clean end of headers or body
            raise TimeoutError("shut down at the deadline")
        if expected_size is not None and size != int(expected_size):
            raise _BadBody(f"incomplete body: got {size} of {expected_size} bytes")
    except (OSError, HTTPException) as exc:
        if watchdog.fired:  # the shutdown surfaced as a reset, a short body or a bad status line
            raise _Deadline(f"attempt exceeded its {timeout:g} s deadline after {size} bytes") from exc
        raise
    finally:
        watchdog.timer.cancel()
    if expected_sha256 is not None and digest.hexdigest() != expected_sha256.lower():
        raise _BadBody(f"sha256 mismatch: got {digest.hexdigest()}, expected {expected_sha256}")
    return size


@contextlib.contextmanager
def _signals_raise():
    """Turn SIGTERM/SIGHUP into an exception while downloading, so ``finally`` removes the partial file.

    (SIGINT already raises KeyboardInterrupt.) Only the main thread can install handlers;
    elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise SystemExit(f"download interrupted by signal {signum}")

    saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def download(
    url: str,
    dest: str | os.PathLike,
    *,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 2.0,
    expected_sha256: str | None = None,
) -> Path:
    """Download ``url`` to ``dest`` atomically, with retries.

    ``retries`` is the total number of attempts and ``timeout`` bounds each attempt as a whole
    (connection and every read), so a server that trickles bytes is abandoned in time; the wait
    before attempt k+1 is ``backoff * 2**(k-1)`` seconds. The partial file is removed on any
    failure, including SIGTERM/SIGHUP/SIGINT. HTTP 4xx answers are final (no retry). The body is
    streamed into a temporary file next to ``dest`` and renamed onto ``dest`` only once it is
    complete and, if ``expected_sha256`` is given, matches it, so ``dest`` is never half-written.
    Raises :class:`DownloadError` naming the URL and the last cause.
    """
    if retries < 1:
        raise ValueError(f"retries must be >= 1, got {retries}")
    dest = Path(dest)
    last: Exception | None = None
    for attempt in range(1, retries + 1):
        log.info("GET %s (attempt %d/%d, deadline %g s)", url, attempt, retries, timeout)
        try:
            with _signals_raise():
                atomic_write(dest, lambda tmp: _fetch_once(url, tmp, timeout, expected_sha256))
            log.info("downloaded %s (%d bytes) to %s", url, dest.stat().st_size, dest)
            return dest
        except urllib.error.HTTPError as exc:
            last = exc
            if 400 <= exc.code < 500:
                log.error("GET %s: HTTP %d %s (client error, not retried)", url, exc.code, exc.reason)
                break
            log.warning("GET %s failed on attempt %d/%d: HTTP %d %s", url, attempt, retries, exc.code, exc.reason)
        except (OSError, HTTPException) as exc:  # URLError, timeouts, resets, bad checksum
            last = exc
            log.warning("GET %s failed on attempt %d/%d: %r", url, attempt, retries, exc)
        if attempt < retries:
            time.sleep(backoff * 2 ** (attempt - 1))
    raise DownloadError(f"could not download {url}: {last!r}") from last


def read_county_csv(
    zip_path: str | os.PathLike, vintage: str | None = None, extra: tuple[str, ...] = ()
) -> pd.DataFrame:
    """Read the identifier and total-population columns (and the ``extra`` ones) of the ``*_county.csv`` in an
    NHGIS zip.

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
        io.BytesIO(raw), encoding="latin-1", dtype=str, keep_default_na=False,
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
            f"columns: need gisjoin, name and one of {[f'{t}_sf/_dp' for t in _POP_TABLES]}, "
            f"got {list(raw_df.columns)}"
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
    """DAS − SF1 population of each state-level area whose DAS county counts miss its SF1 total (empty when the
    DAS keeps every state total)."""
    sums = counties.groupby("state_abbr")[_POP_COLUMNS].sum()
    gap = sums["dp_pop"] - sums["sf1_pop"]
    return gap[gap != 0]


def das_claims_broken(tidy_df: pd.DataFrame) -> list[str]:
    """What the papers claim of the DAS county populations and this file breaks: negative counts, and states whose
    DAS counts miss the SF1 total. Reported, not refused (see :func:`validate`)."""
    broken = []
    if (negative := int((tidy_df["dp_pop"] < 0).sum())):
        broken.append(f"{negative} negative DAS county counts")
    if len(off := state_totals_off(tidy_df)):
        broken.append("state totals not kept: " + ", ".join(f"{s} (dp-sf1 = {d:+d})" for s, d in off.items()))
    return broken


def _write_csv(tidy_df: pd.DataFrame, out_csv: str | os.PathLike) -> Path:
    """Deterministic bytes: fixed column order, no index, UTF-8, ``\\n`` line endings."""
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


#: The committed housing-unit extract (repository path), made by :func:`extract_housing`.
HOUSING_EXTRACT = "data/nhgis/county_housing_v20210608.csv"
#: Columns of the housing-unit extract, in file order, and their NHGIS source (table H3, Occupancy Status, whose
#: universe is housing units: IFE001 total, IFE002 occupied; ``_sf`` 2010 SF1, ``_dp`` the DAS of the vintage).
HOUSING_SOURCE = {"sf1_housing_units": "IFE001_sf", "dp_housing_units": "IFE001_dp",
                  "sf1_occupied_units": "IFE002_sf", "dp_occupied_units": "IFE002_dp"}
#: The identifiers that open every per-county count extract, in file order.
COUNT_IDS = ["gisjoin", "state_fips", "county_fips", "state_abbr"]
HOUSING_COLUMNS = [*COUNT_IDS, *HOUSING_SOURCE]


def _extract_county_counts(zip_path, out_csv, vintage, source: dict[str, str], what: str, check=None) -> pd.DataFrame:
    """The ``source`` count columns (file column → NHGIS column) of an NHGIS county zip beside the identifiers of
    :func:`extract` (its counties, validated the same way), as a deterministic CSV sorted by gisjoin. ``check`` may
    raise :class:`DataValidationError` on the counts; nothing is written when a check fails. As :func:`validate`,
    the SF1 counts are checked and the DAS's are kept as published (a negative one is logged). Returns the frame."""
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
    if (negative := int((out[[c for c in source if c not in sf1_columns]] < 0).to_numpy().sum())):
        log.warning("kept, for the claims registry to report: %d negative DAS %s counts", negative, what)
    if check is not None:
        check(out)
    atomic_write(out_csv, lambda tmp: out.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info("wrote the %s of %d counties (vintage %s) to %s", what, len(out), raw.attrs["vintage"], out_csv)
    return out


def _occupied_within_total(housing: pd.DataFrame) -> None:
    if (housing["sf1_occupied_units"] > housing["sf1_housing_units"]).any():
        raise DataValidationError("occupied ≤ total: SF1 occupied units exceed the housing units")


def extract_housing(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """The per-county housing-unit counts of an NHGIS county zip (SF1 and DAS, total and occupied), written as a
    deterministic CSV of :data:`HOUSING_COLUMNS` sorted by gisjoin: Subspace DP §1's 'counts of total housing
    units' invariant. The counties and their identifiers are :func:`extract`'s (validated the same way); nothing
    is written when a check fails (also: SF1 occupied ≤ total). Returns the frame."""
    return _extract_county_counts(zip_path, out_csv, vintage, HOUSING_SOURCE, "housing units", _occupied_within_total)


#: The committed group-quarters extract (repository path), made by :func:`extract_group_quarters`.
GROUP_QUARTERS_EXTRACT = "data/nhgis/county_group_quarters_v20210608.csv"
#: The seven leaf group-quarters types of SF1 table P42 (NHGIS H80; universe: population in group quarters) and
#: their NHGIS columns; the three-digit GQ codes each covers are in the zip's codebook.
GROUP_QUARTERS_TYPES = {"correctional": "H80003", "juvenile": "H80004", "nursing": "H80005",
                        "other_institutional": "H80006", "college": "H80008", "military": "H80009",
                        "other_noninstitutional": "H80010"}
#: Columns of the group-quarters extract after the identifiers: the population of each type, SF1 then DAS.
GROUP_QUARTERS_SOURCE = {f"{src}_gq_{name}": f"{code}_{suffix}" for src, suffix in (("sf1", "sf"), ("dp", "dp"))
                         for name, code in GROUP_QUARTERS_TYPES.items()}
GROUP_QUARTERS_COLUMNS = [*COUNT_IDS, *GROUP_QUARTERS_SOURCE]


def extract_group_quarters(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """The per-county group-quarters population of each of the seven P42 types (SF1 and DAS), written as a
    deterministic CSV of :data:`GROUP_QUARTERS_COLUMNS` sorted by gisjoin: the evidence for the TopDown invariant on
    occupied group-quarters facilities per type and block. Counties and identifiers as :func:`extract`'s; nothing
    is written when a check fails. Returns the frame."""
    return _extract_county_counts(zip_path, out_csv, vintage, GROUP_QUARTERS_SOURCE, "group-quarters population")


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
    """The race leaves of each :data:`_RACE_TABLES` table, read from the codebook in the zip and matched by label: per
    table, the codes of the 63 races in one order. A leaf is a label no other label of its table refines."""
    with zipfile.ZipFile(zip_path) as zf:
        (member,) = [m for m in zf.namelist() if m.endswith("_codebook.txt")]
        text = zf.read(member).decode("latin-1")
    codes = {}
    for key, table in _RACE_TABLES.items():
        labels = dict(re.findall(rf"^\s+({table}\d{{3}}):\s+(.+?)\s*$", text, flags=re.M))
        leaves = {label: code for code, label in labels.items()
                  if label != "Total" and not any(o.startswith(label + ": ") for o in labels.values())}
        if key.endswith("not_hispanic"):
            leaves = {label.removeprefix(_NOT_HISPANIC): code for label, code in leaves.items()
                      if label.startswith(_NOT_HISPANIC)}
        codes[key] = leaves
    races = sorted(codes["all"])
    if len(races) != N_RACES or any(sorted(leaves) != races for leaves in codes.values()):
        raise DataValidationError(f"codebook: the race leaves of {list(_RACE_TABLES.values())} are not the same "
                                  f"{N_RACES} labels ({[len(v) for v in codes.values()]})")
    return {key: [leaves[r] for r in races] for key, leaves in codes.items()}


def _county_histograms(zip_path, vintage, sources) -> dict[str, tuple[pd.DataFrame, tuple[np.ndarray, ...]]]:
    """Per county, the 252 cells ethnicity (2) × race (63) × voting age (2) as differences of the zip's race tables
    (:data:`_RACE_TABLES`, the 18+ cells first), with the total (H72001) and voting-age (H74001) populations, for
    each source suffix in ``sources`` (``sf`` 2010 SF1, ``dp`` the DAS): {source: (counties, (cells, pop, adults))}.
    The counties are :func:`extract`'s, validated the same way; the cells are not checked here."""
    races = _codebook_races(zip_path)
    columns = {src: ({key: [f"{c}_{src}" for c in codes] for key, codes in races.items()},
                     [f"H72001_{src}", f"H74001_{src}"]) for src in sources}
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
        child = {"not_hispanic": t["all_not_hispanic"] - t["adult_not_hispanic"],
                 "hispanic": t["all"] - t["all_not_hispanic"] - adult["hispanic"]}
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
    """Per state, the number of counties and of nonzero cells of the state's 2010 SF1 histogram ethnicity (2) × race
    (63) × voting age (2) = 252 cells (the TopDown talk's attributes without residence type, which SF1 does not cross
    with them), beside the state's SF1 population and the nonzero cells of the same histogram after the DAS (the sum
    of its counties' DAS cells); one :data:`NATION` row for the 50 states and DC. The cells are differences of the
    zip's tables (:data:`_RACE_TABLES`), checked: no negative SF1 cell (a negative DAS cell, which the
    histogram-cells extract counts for the registry, is not a populated one here); in every county (hence every state)
    the 252 SF1 cells add up to the population (H72001) and the 18+ cells to the voting-age population (H74001). The
    counties are :func:`extract`'s (validated the same way). Writes a deterministic CSV of
    :data:`HISTOGRAM_SUPPORT_COLUMNS`; nothing is written when a check fails. Returns the frame."""
    histograms = _county_histograms(zip_path, vintage, ("sf", "dp"))
    counties, (cells, pop, adults) = histograms["sf"]
    _check_sf1_cells(cells, pop, adults)
    by_state, dp_by_state = (pd.DataFrame(c).groupby(counties["state_abbr"].to_numpy()).sum()
                             for c in (cells, histograms["dp"][1][0]))
    nation, dp_nation = by_state.drop(index="PR").sum(), dp_by_state.drop(index="PR").sum()
    n_counties = counties.groupby("state_abbr").size().loc[by_state.index]
    support = pd.DataFrame({
        "state_abbr": [*by_state.index, NATION],
        "counties": [*n_counties, int(n_counties.drop(index="PR").sum())],
        "nonzero_cells": [*(by_state > 0).sum(axis=1), int((nation > 0).sum())],
        "sf1_pop": [*by_state.sum(axis=1), int(nation.sum())],
        "dp_nonzero_cells": [*(dp_by_state > 0).sum(axis=1), int((dp_nation > 0).sum())],  # populated
    })
    support = support.astype({c: "int64" for c in HISTOGRAM_SUPPORT_COLUMNS[1:]})[HISTOGRAM_SUPPORT_COLUMNS]
    atomic_write(out_csv, lambda tmp: support.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8"))
    log.info("wrote the histogram support of %d states (vintage %s) to %s", len(support) - 1,
             counties["vintage"].iloc[0], out_csv)
    return support


#: The committed per-county summary of the 252-cell histograms (repository path), made by
#: :func:`extract_histogram_cells`.
HISTOGRAM_CELLS_EXTRACT = "data/nhgis/county_histogram_cells_v20210608.csv"
HISTOGRAM_CELLS_SOURCE = ["sf1_nonzero_cells", "dp_nonzero_cells", "dp_negative_cells", "dp_cells_off_totals"]
HISTOGRAM_CELLS_COLUMNS = [*COUNT_IDS, *HISTOGRAM_CELLS_SOURCE]


def histogram_cells_summary(counties: pd.DataFrame, sf1: np.ndarray, dp: tuple[np.ndarray, ...]) -> pd.DataFrame:
    """Per county: the nonzero cells of its SF1 and DAS 252-cell histograms, the DAS cells that are negative, and
    whether the DAS cells fail to add up to the DAS's published total and voting-age populations (1) or not (0)."""
    cells, pop, adults = dp
    off = (cells.sum(axis=1) != pop) | (cells[:, : 2 * N_RACES].sum(axis=1) != adults)
    summary = counties[COUNT_IDS].copy()
    for column, values in zip(HISTOGRAM_CELLS_SOURCE, ((sf1 > 0).sum(axis=1), (cells > 0).sum(axis=1),
                                                       (cells < 0).sum(axis=1), off), strict=True):
        summary[column] = np.asarray(values, dtype="int64")
    return summary


def extract_histogram_cells(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Per county, :func:`histogram_cells_summary` of its 252-cell ethnicity × race × voting-age histograms, SF1 and
    DAS, derived from the zip's race tables (:func:`_county_histograms`; the SF1 cells checked as in
    :func:`extract_histogram_support`): the TopDown talk's sparse histograms and its nonnegative integer microdata.
    Writes a deterministic CSV of :data:`HISTOGRAM_CELLS_COLUMNS`; nothing is written when a check fails."""
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
    """The 252 SF1 cells ethnicity × race × voting age of every county of :data:`STATE_HISTOGRAMS_STATE`, in
    :func:`_county_histograms`' order (18+ not Hispanic, 18+ Hispanic, under-18 not Hispanic, under-18 Hispanic;
    63 races each, in the codebook's order), checked as in :func:`extract_histogram_support`. SF1 is the same in
    every vintage. Writes a deterministic CSV of :data:`STATE_HISTOGRAMS_COLUMNS`; nothing is written when a check
    fails. Returns the frame."""
    counties, (cells, pop, adults) = _county_histograms(zip_path, vintage, ("sf",))["sf"]
    _check_sf1_cells(cells, pop, adults)
    keep = (counties["state_abbr"] == STATE_HISTOGRAMS_STATE).to_numpy()
    out = pd.concat([counties.loc[keep, COUNT_IDS].reset_index(drop=True),
                     pd.DataFrame(cells[keep], columns=STATE_HISTOGRAMS_SOURCE)], axis=1)
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


def _read_extract(csv_path: str | os.PathLike, columns: list[str], counts) -> pd.DataFrame:
    """A committed extract with exactly ``columns``, identifiers as strings and the ``counts`` as integers."""
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


def load_housing(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_housing` (identifiers as strings, counts as integers)."""
    return _load_county_counts(csv_path, HOUSING_COLUMNS, HOUSING_SOURCE)


def load_group_quarters(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_group_quarters` (identifiers as strings, counts as integers)."""
    return _load_county_counts(csv_path, GROUP_QUARTERS_COLUMNS, GROUP_QUARTERS_SOURCE)


def load_counties(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read a tidy extract written by :func:`extract` (FIPS codes as strings) and validate it."""
    df = _read_extract(csv_path, COLUMNS, _POP_COLUMNS)
    validate(df)
    return df


def state_counties(counties: pd.DataFrame, state: str, source="") -> pd.DataFrame:
    """One state's rows of a county table (:func:`load_counties`), ordered by ``gisjoin``: the column
    order of E3's draws and E4's releases. Raises ValueError when the state has no counties
    (``source`` names the file)."""
    group = counties[counties["state_abbr"] == state].sort_values("gisjoin")
    if group.empty:
        raise ValueError(f"state {state}: no counties in {source}")
    return group


def _use_embedded(embedded_csv: str | os.PathLike, out_csv: str | os.PathLike) -> tuple[str, str]:
    """Validate the committed extract and copy its bytes to ``out_csv``; return (vintage, sha256)."""
    vintage = load_counties(embedded_csv)["vintage"].iloc[0]
    data = Path(embedded_csv).read_bytes()
    atomic_write(out_csv, lambda tmp: tmp.write_bytes(data))
    return vintage, hashlib.sha256(data).hexdigest()


def fetch_or_fallback(
    vintage: str,
    source: str = "auto",
    *,
    dest_zip: str | os.PathLike,
    embedded_csv: str | os.PathLike,
    out_csv: str | os.PathLike,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 2.0,
    url: str | None = None,
    expected_sha256: str | None = None,
) -> dict:
    """Produce the tidy county CSV for ``vintage`` at ``out_csv`` under the data policy.

    - ``source="embedded"``: copy the committed extract; no network access at all.
    - ``source="auto"``: download ``url`` (default :func:`url_for`) to ``dest_zip`` and extract
      it; on any download or validation failure, log a loud WARNING and use the committed
      extract instead.
    - ``source="nhgis"``: as auto, but a failure raises (:class:`DownloadError` or
      :class:`DataValidationError`).

    An existing ``dest_zip`` is used without downloading, so a zip obtained by other means
    (e.g. the paper's v20201116) can be dropped in place. A downloaded zip that fails
    validation is removed. Returns ``vintage_requested``, ``vintage_used``, ``source_used``
    (``"download"`` or ``"embedded"``), ``reason``, ``url`` and the ``sha256`` of the input used.
    A vintage listed in :data:`KNOWN_SHA256` must match its published checksum.
    """
    if source not in _SOURCES:
        raise ValueError(f"source must be one of {_SOURCES}, got {source!r}")
    vintage = str(vintage)
    if source == "embedded":
        used, digest = _use_embedded(embedded_csv, out_csv)
        log.info("source='embedded': using the committed v%s extract %s", used, embedded_csv)
        return {
            "vintage_requested": vintage, "vintage_used": used, "source_used": "embedded",
            "reason": "source='embedded' configured; no download attempted",
            "url": None, "sha256": digest,
        }

    url = url or url_for(vintage)
    expected_sha256 = expected_sha256 or KNOWN_SHA256.get(vintage)
    dest_zip = Path(dest_zip)
    downloaded = False
    try:
        if dest_zip.exists():
            log.info("using the zip already present at %s (not downloading)", dest_zip)
            if expected_sha256 and sha256sum(dest_zip) != expected_sha256:
                raise DataValidationError(f"{dest_zip}: sha256 {sha256sum(dest_zip)} is not the published "
                                          f"v{vintage} zip's {expected_sha256}")
            reason = f"zip already present at {dest_zip}"
        else:
            download(url, dest_zip, timeout=timeout, retries=retries, backoff=backoff,
                     expected_sha256=expected_sha256)
            downloaded = True
            reason = f"downloaded from {url}"
        extract(dest_zip, out_csv, vintage=vintage)
    except (DownloadError, DataValidationError, OSError) as exc:
        if downloaded:
            dest_zip.unlink(missing_ok=True)
        if source == "nhgis":
            raise
        used, digest = _use_embedded(embedded_csv, out_csv)
        banner = "!" * 78
        log.warning(
            "\n%s\nNHGIS vintage v%s (the paper used v%s) could not be fetched or validated:\n  %s\n"
            "USING THE COMMITTED v%s EXTRACT %s INSTEAD. Results are NOT for the requested vintage.\n%s",
            banner, vintage, PAPER_VINTAGE, exc, used, embedded_csv, banner,
        )
        return {
            "vintage_requested": vintage, "vintage_used": used, "source_used": "embedded",
            "reason": f"fallback: v{vintage} unavailable ({exc})", "url": url, "sha256": digest,
        }
    return {
        "vintage_requested": vintage, "vintage_used": vintage, "source_used": "download",
        "reason": reason, "url": url, "sha256": sha256sum(dest_zip),
    }


# --------------------------------------------------------------------------- workflow steps


def fetch_step(job) -> None:
    """County populations of the configured vintage under the data policy (:func:`fetch_or_fallback`).

    ``params.dest_zip`` (the download cache) is deliberately not a rule output: it does not exist
    after a fallback, and a zip placed there by hand is used without downloading. Writes the tidy
    CSV of the vintage actually used and a JSON saying which one and why (read by the report).
    """

    console = logging.StreamHandler(sys.__stderr__)  # the fallback warning must also reach the console
    console.setLevel(logging.WARNING)
    logging.getLogger().addHandler(console)
    p = job.params
    info = fetch_or_fallback(str(p.vintage), p.source, dest_zip=p.dest_zip, embedded_csv=job.input.embedded,
                             out_csv=job.output.csv, timeout=float(p.timeout), retries=int(p.retries),
                             backoff=float(p.backoff))
    write_json(info, job.output.info, sort_keys=True)
    job.log.info("data source: %s", info)


def extract_step(job) -> None:
    """Tidy, validated county CSV from an NHGIS county zip (:func:`extract`); nothing is written if a check fails."""
    extract(job.input.zip, job.output.csv, vintage=str(job.params.vintage))
    job.log.info("extracted %s -> %s", job.input.zip, job.output.csv)
