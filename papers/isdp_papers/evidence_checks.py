"""Checks of what a claim's measure reads.

The keys, values and derived columns of a results file, and the committed inputs against the SHA-256 their
``PROVENANCE.md`` publishes.

A well-formed file can still hold numbers that must not be judged: a NaN mean (``max(0.0, nan)`` is 0.0), an
infinite standard error, a negative residual, a stored gap that is not its columns' difference, a row missing or
repeated. Each helper here raises :class:`~isdp_papers.evidence.EvidenceError` naming the file and the reason,
which the claims evaluator turns into status ``error`` (never ``match``). A measure states what its row covers —
the columns it reads and the physical range of each, the rows it expects — and reads through:

* :func:`table`, :func:`table_at` and :func:`committed_csv` (a run's table, any CSV of the run, a committed CSV), each
  checked by :func:`check_frame`;
* :func:`json_values` (fields of a run's JSON file);
* :func:`check_values` (an array read from a netCDF or ``.npz`` file), :func:`check_consistent` (a stored derived
  value against its recomputation), :func:`check_count` (how many items the claim names);
* :func:`committed` (the path of a committed input, after :func:`verify_committed`).

Committed inputs: a file under a directory whose ``PROVENANCE.md`` publishes its SHA-256 (a line
``- CSV sha256: `<hex>``` or ``- sha256: `<hex>``` in the section headed by the file's name) is refused when its
bytes hash otherwise, unless the config sets ``data: {verify_committed: false}`` (a user's own extract in place of
the committed one): then it is used and the measure's note says it was not verified (:func:`committed_note`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from isdp.files import file_sha256
from isdp_papers.criteria import is_number
from isdp_papers.evidence import EvidenceError, Run, read_results_csv

#: The value kinds a column or field may be checked for, and what each requires of every value.
KINDS = {
    "finite": "a finite number",
    "nonnegative": "a finite number ≥ 0",
    "positive": "a finite number > 0",
    "probability": "a finite number in [0, 1]",
    "rate": "a finite number in (0, 1)",
    "integer": "a finite integer",
    "count": "a finite integer ≥ 0",
}


def _names(columns) -> list[str]:
    return [columns] if isinstance(columns, str) else list(columns or ())


def _bad_values(values: np.ndarray, kind: str) -> np.ndarray:
    """Return a mask of the values that are not of ``kind`` (:data:`KINDS`); ``values`` float."""
    bad = ~np.isfinite(values)
    with np.errstate(invalid="ignore"):
        if kind in ("nonnegative", "count"):
            bad |= values < 0
        elif kind == "positive":
            bad |= values <= 0
        elif kind == "probability":
            bad |= (values < 0) | (values > 1)
        elif kind == "rate":
            bad |= (values <= 0) | (values >= 1)
        if kind in ("integer", "count"):
            bad |= np.isfinite(values) & (values != np.round(values))
    return bad


def _as_float(values, where: str, what: str) -> np.ndarray:
    """``values`` as a float array, refused when some value is not a number (a string, a boolean, None)."""
    arr = np.asarray(values)
    if arr.dtype == bool or arr.dtype.kind in "USb":
        raise EvidenceError(f"{where}: {what} holds {arr.dtype.name} values where numbers are expected")
    try:
        out = arr.astype(float)
    except (TypeError, ValueError):
        shown = next((v for v in np.ravel(arr) if not is_number(v)), "?")
        raise EvidenceError(f"{where}: {what} holds {shown!r}, not a number") from None
    if arr.dtype == object and any(isinstance(v, bool | np.bool_) for v in np.ravel(arr)):
        raise EvidenceError(f"{where}: {what} holds a boolean where numbers are expected")
    return out


def check_values(
    values,
    where: str,
    what: str,
    kind: str = "finite",
    *,
    lo: float | None = None,
    hi: float | None = None,
    size: int | None = None,
    allow_missing: bool = False,
) -> np.ndarray:
    """``values`` (any shape) as a float array, every one of ``kind`` (:data:`KINDS`) and within [``lo``, ``hi``].

    Parameters
    ----------
    values : array_like
        The values read (a column, an array of a netCDF or ``.npz`` file, a JSON field).
    where : str
        The file they come from, named in the error.
    what : str
        What they are (a column or field name), named in the error.
    kind : str
        One of :data:`KINDS`.
    lo, hi : float, optional
        Bounds every value must meet (a physically possible range beyond ``kind``).
    size : int, optional
        The number of values the claim covers; another number is refused.
    allow_missing : bool
        Let NaN through (a value the producer leaves empty by design); infinities never pass.

    Returns
    -------
    numpy.ndarray
        The values as floats.

    Raises
    ------
    EvidenceError
        Naming ``where``, ``what``, the first offending value and how many there are.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
    arr = _as_float(values, where, what)
    if size is not None and arr.size != size:
        raise EvidenceError(f"{where}: {what} has {arr.size} values, the claim covers {size}")
    if arr.size == 0:
        raise EvidenceError(f"{where}: {what} holds no values")
    bad = _bad_values(arr, kind)
    if allow_missing:
        bad &= ~np.isnan(arr)
    with np.errstate(invalid="ignore"):
        if lo is not None:
            bad |= arr < lo
        if hi is not None:
            bad |= arr > hi
    if bad.any():
        first = arr.ravel()[np.flatnonzero(bad.ravel())[0]]
        bounds = "".join((f" ≥ {lo:g}" if lo is not None else "", f" ≤ {hi:g}" if hi is not None else ""))
        raise EvidenceError(
            f"{where}: {what} = {first:.12g} is not {KINDS[kind]}{bounds} ({int(bad.sum())} of "
            f"{arr.size} values); delete the file so the workflow rebuilds it"
        )
    return arr


def check_frame(
    df: pd.DataFrame,
    where: str,
    *,
    columns: Iterable[str] = (),
    filled: Iterable[str] = (),
    finite: Iterable[str] = (),
    nonnegative: Iterable[str] = (),
    positive: Iterable[str] = (),
    probability: Iterable[str] = (),
    rate: Iterable[str] = (),
    integer: Iterable[str] = (),
    count: Iterable[str] = (),
    allow_missing: Iterable[str] = (),
    key: str | Sequence[str] | None = None,
    keys: Iterable | None = None,
    rows: int | None = None,
) -> pd.DataFrame:
    """Refuse a table that does not hold what a claim covers; return it unchanged.

    Parameters
    ----------
    df : pandas.DataFrame
        The table read (its index is not checked).
    where : str
        The file it was read from, named in every error.
    columns : iterable of str
        Columns that must be present (whatever they hold).
    filled : iterable of str
        Columns that must be present with no missing value (labels).
    finite, nonnegative, positive, probability, rate, integer, count : iterable of str
        Columns whose every value must be of that kind (:data:`KINDS`).
    allow_missing : iterable of str
        Columns among the above whose NaN values are left empty by design (infinities still refused).
    key : str or sequence of str, optional
        The column(s) that identify a row: filled and never repeated.
    keys : iterable, optional
        The exact set of ``key`` values the claim covers (tuples for several key columns): a missing or an
        unexpected one is refused. Floats are compared to 12 significant digits.
    rows : int, optional
        The number of rows the claim covers.

    Returns
    -------
    pandas.DataFrame
        ``df`` itself.

    Raises
    ------
    EvidenceError
        Naming ``where`` and the first problem found.
    """
    kinds = {
        "finite": finite,
        "nonnegative": nonnegative,
        "positive": positive,
        "probability": probability,
        "rate": rate,
        "integer": integer,
        "count": count,
    }
    key_columns = _names(key)
    needed = [*_names(columns), *_names(filled), *key_columns, *(c for cs in kinds.values() for c in _names(cs))]
    missing = [c for c in dict.fromkeys(needed) if c not in df.columns]
    if missing:
        raise EvidenceError(
            f"{where}: no column {', '.join(map(repr, missing))} (columns: {list(df.columns)}); "
            "delete the file so the workflow rebuilds it"
        )
    for column in dict.fromkeys([*_names(filled), *key_columns]):
        empty = df[column].isna() | (df[column].astype(str).str.strip() == "")
        if empty.any():
            raise EvidenceError(f"{where}: column {column!r} is empty in {int(empty.sum())} of {len(df)} rows")
    optional = set(_names(allow_missing))
    for kind, cs in kinds.items():
        for column in _names(cs):
            check_values(df[column].to_numpy(), where, f"column {column!r}", kind, allow_missing=column in optional)
    if rows is not None and len(df) != rows:
        raise EvidenceError(f"{where}: {len(df)} rows, the claim covers {rows}")
    if key_columns:
        found = [row_key(v) for v in (df[key_columns].itertuples(index=False, name=None))]
        repeated = sorted((k for k, n in Counter(found).items() if n > 1), key=str)
        if repeated:
            raise EvidenceError(f"{where}: repeated row(s) {_shown(repeated)} of key {key_columns}")
        if keys is not None:
            expected = {row_key(k if isinstance(k, tuple) else (k,)) for k in keys}
            lacking, extra = sorted(expected - set(found), key=str), sorted(set(found) - expected, key=str)
            if lacking or extra:
                raise EvidenceError(
                    f"{where}: the claim covers {len(expected)} rows of key {key_columns}; "
                    + "; ".join(
                        p
                        for p in (
                            f"missing {_shown(lacking)}" if lacking else "",
                            f"unexpected {_shown(extra)}" if extra else "",
                        )
                        if p
                    )
                )
    return df


def row_key(values: tuple) -> tuple:
    """Return a row key with floats rounded to 12 significant digits (0.1 read from two files compares equal)."""
    return tuple(
        float(f"{v:.12g}") if isinstance(v, float | np.floating) else (int(v) if isinstance(v, np.integer) else v)
        for v in values
    )


def _shown(keys: list[tuple]) -> str:
    return ", ".join(str(k[0] if len(k) == 1 else k) for k in keys[:5]) + (" …" if len(keys) > 5 else "")


def check_consistent(stored, recomputed, where: str, what: str, *, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Refuse a stored derived value (a gap, an SE) that its sources do not give.

    Parameters
    ----------
    stored, recomputed : array_like
        The value read from the file and the same value recomputed from the columns it derives from.
    where : str
        The file, named in the error.
    what : str
        The relation, e.g. ``"gap = epsilon − epsilon_printed"``.
    rtol, atol : float
        |stored − recomputed| ≤ ``atol`` + ``rtol`` · |recomputed| must hold everywhere.

    Raises
    ------
    EvidenceError
        Naming the first value that breaks the relation.
    """
    s, r = np.broadcast_arrays(_as_float(stored, where, what), _as_float(recomputed, where, what))
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(s - r) <= atol + rtol * np.abs(r))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise EvidenceError(
            f"{where}: {what} does not hold (stored {s.ravel()[i]:.12g}, recomputed "
            f"{r.ravel()[i]:.12g}; {int(bad.sum())} of {bad.size} values): the file is inconsistent"
        )


def check_labels(values, where: str, what: str) -> list[str]:
    """Return ``values`` as a non-empty list of distinct, non-blank strings.

    Such as state abbreviations or method names; else an :class:`EvidenceError` names ``where`` and ``what``.
    """
    if (
        isinstance(values, str)
        or not isinstance(values, Sequence | np.ndarray)
        or len(values) == 0
        or any(not isinstance(v, str) or not v.strip() for v in values)
        or len(set(values)) != len(values)
    ):
        raise EvidenceError(f"{where}: {what} = {values!r} is not a non-empty list of distinct labels")
    return list(values)


def check_choices(values, where: str, what: str, choices: Iterable) -> None:
    """Every one of ``values`` among ``choices`` (e.g. ``yes``/``no`` flags), else :class:`EvidenceError`."""
    allowed = set(choices)
    odd = sorted({str(v) for v in values if v not in allowed})
    if odd:
        raise EvidenceError(f"{where}: {what} holds {odd[:5]}, not one of {sorted(map(str, allowed))}")


def load(path, loader, what: str = "file"):
    """Return ``loader(path)``, its low-level failures turned into :class:`EvidenceError` naming ``path``.

    The failures are a missing file, bytes that do not decode, a missing variable.
    """
    try:
        return loader(path)
    except EvidenceError:
        raise
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (run the workflow step that writes it)") from None
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as err:
        raise EvidenceError(
            f"{path}: unreadable {what} ({type(err).__name__}: {err}); delete it so the workflow rebuilds it"
        ) from None


def check_count(found: int, expected: int, where: str, what: str) -> None:
    """Refuse ``found`` items where the claim covers ``expected`` (``what`` names them)."""
    if int(found) != int(expected):
        raise EvidenceError(f"{where}: {found} {what}, the claim covers {expected}")


def claimed_count(paper, what: str = "values") -> int:
    """Return the number a paper value such as ``"4 values (data/e8/paper_swap_ma1940.csv)"`` says the claim covers.

    Raises
    ------
    ValueError
        When the paper value does not start with a count of ``what``.
    """
    match = re.match(rf"\s*(\d+)\s+{re.escape(what)}\b", str(paper))
    if not match:
        raise ValueError(f"the paper value {paper!r} does not say how many {what} the claim covers")
    return int(match.group(1))


def table(run: Run, name: str, **checks_and_read_kwargs) -> pd.DataFrame:
    """``results/tables/<name>.csv`` of ``run`` (:meth:`Run.table`), checked by :func:`check_frame`.

    Keyword arguments named as :func:`check_frame`'s are checks; the others go to :func:`pandas.read_csv`.
    """
    return table_at(run, f"tables/{name}.csv", **checks_and_read_kwargs)


_CHECK_KEYS = (
    "columns",
    "filled",
    "finite",
    "nonnegative",
    "positive",
    "probability",
    "rate",
    "integer",
    "count",
    "allow_missing",
    "key",
    "keys",
    "rows",
)


def _split(kwargs: Mapping) -> tuple[dict, dict]:
    checks = {k: v for k, v in kwargs.items() if k in _CHECK_KEYS}
    return checks, {k: v for k, v in kwargs.items() if k not in _CHECK_KEYS}


def table_at(run: Run, rel: str, **checks_and_read_kwargs) -> pd.DataFrame:
    """``results/<rel>`` of ``run`` (:meth:`Run.table_at`), checked by :func:`check_frame` (see :func:`table`)."""
    checks, read = _split(checks_and_read_kwargs)
    return check_frame(run.table_at(rel, **read), str(run.root / "results" / rel), **checks)


def json_values(run: Run, rel: str, *, required: Iterable[str] = (), **kinds: Iterable[str]) -> dict:
    """``results/<rel>`` of ``run`` parsed as a JSON object, its fields checked.

    Parameters
    ----------
    run : Run
        The run.
    rel : str
        The file under ``results/``.
    required : iterable of str
        Fields that must be present (whatever they hold).
    **kinds : iterable of str
        ``finite=[...]``, ``nonnegative=[...]``, … (:data:`KINDS`): fields whose value must be a number of that
        kind (or a list of them).

    Returns
    -------
    dict
        The parsed object.

    Raises
    ------
    EvidenceError
        A missing or unparsable file, a missing field, or a value not of its kind, naming the file.
    """
    path = run.path(rel)
    try:
        data = run.json(rel)
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (run the workflow step that writes it)") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise EvidenceError(f"{path}: damaged ({err}); delete it so the workflow rebuilds it") from None
    if not isinstance(data, Mapping):
        raise EvidenceError(f"{path}: a JSON {type(data).__name__}, not an object")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown kinds {sorted(unknown)} (one of {sorted(KINDS)})")
    fields = [*_names(required), *(f for fs in kinds.values() for f in _names(fs))]
    missing = [f for f in dict.fromkeys(fields) if f not in data]
    if missing:
        raise EvidenceError(f"{path}: no field {', '.join(map(repr, missing))}; delete it so the workflow rebuilds it")
    for kind, fs in kinds.items():
        for f in _names(fs):
            value = data[f]
            if value is None or isinstance(value, str | bool | Mapping):
                raise EvidenceError(f"{path}: field {f!r} = {value!r} is not {KINDS[kind]}")
            check_values(value, str(path), f"field {f!r}", kind)
    return data


# --------------------------------------------------------------------------- committed inputs


#: a published hash line of a PROVENANCE.md: ``- CSV sha256: `<hex>``` or ``- sha256: `<hex>```
_HASH_LINE = re.compile(r"^\s*[-*]\s*(?:CSV\s+)?sha256(?:\s*\([^)]*\))?:\s*`([0-9a-f]{64})`", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_FILE_NAME = re.compile(r"`?([\w.\-]+\.(?:csv|json|txt|zip|nc|npz))`?")


@lru_cache(maxsize=64)
def _published(provenance: Path, mtime_ns: int) -> dict[str, str]:
    """Return file name → SHA-256 of every hash a PROVENANCE.md publishes.

    Each hash is in the section whose heading names its file (its sub-sections included).
    """
    current, level, out = None, 0, {}
    for line in provenance.read_text(encoding="utf-8").splitlines():
        if heading := _HEADING.match(line):
            depth = len(line) - len(line.lstrip("#"))
            name = _FILE_NAME.match(heading.group(1).strip())
            if name:  # a section of one file, to the next heading of its level or above
                current, level = name.group(1), depth
            elif depth <= level:
                current, level = None, 0
        elif (digest := _HASH_LINE.match(line)) and current is not None:
            if current in out and out[current] != digest.group(1).lower():
                raise ValueError(f"{provenance}: two different SHA-256 published for {current}")
            out[current] = digest.group(1).lower()
    return out


def published_sha256(path) -> tuple[str, Path] | None:
    """Return the SHA-256 the ``PROVENANCE.md`` beside ``path`` publishes for it, with that file.

    None when none does.
    """
    path = Path(path)
    provenance = path.parent / "PROVENANCE.md"
    if not provenance.is_file():
        return None
    digest = _published(provenance.resolve(), provenance.stat().st_mtime_ns).get(path.name)
    return (digest, provenance) if digest else None


@lru_cache(maxsize=64)
def _sha256(path: Path, mtime_ns: int, size: int) -> tuple[str, str]:
    """Return the SHA-256 of the file's bytes, and of the same bytes with CRLF line endings read as LF.

    A checkout that converts line endings keeps the content the hash publishes.
    """
    as_lf = path.read_bytes().replace(b"\r\n", b"\n")
    return file_sha256(path), hashlib.sha256(as_lf).hexdigest()


def verify_committed(path, verify: bool = True) -> str | None:
    """Refuse a committed input whose bytes are not the ones its ``PROVENANCE.md`` publishes.

    The bytes are compared as they are and with CRLF line endings read as LF (a checkout converting line endings
    changes no value).

    Parameters
    ----------
    path : path-like
        The input, e.g. ``data/nhgis/county_population_v20210608.csv``.
    verify : bool
        False for a user's own extract in its place (config ``data: {verify_committed: false}``): nothing is
        refused, and the returned note says the file was not verified.

    Returns
    -------
    str or None
        A note for the run's record when the file differs from the published one and ``verify`` is False (or
        when it was not verified at all); None when it was verified or no hash is published for it.

    Raises
    ------
    EvidenceError
        The file is missing, or its SHA-256 is not the published one (``verify`` True), naming the file.
    """
    path = Path(path)
    published = published_sha256(path)
    if published is None:
        return None
    expected, provenance = published
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (a committed input: restore it with git)") from None
    actual, as_lf = _sha256(path.resolve(), stat.st_mtime_ns, stat.st_size)
    if expected in (actual, as_lf):
        return None
    if not verify:
        return (
            f"{path} is not the committed file (sha256 {actual[:12]}…, {provenance} publishes "
            f"{expected[:12]}…): used unverified, as data.verify_committed is false"
        )
    raise EvidenceError(
        f"{path}: sha256 {actual} is not the {expected} published in {provenance}: the committed "
        "input was changed. Restore it (git checkout -- <file>), or, to use your own extract in its "
        "place, set data: {verify_committed: false} in the config"
    )


def verify_setting(config: Mapping | None) -> bool:
    """Return the config's ``data.verify_committed`` (true when absent)."""
    return bool(((config or {}).get("data") or {}).get("verify_committed", True))


def committed(run: Run, rel) -> Path:
    """Return the path of the committed input ``rel``, verified against its published SHA-256.

    :meth:`Run.data` records it as evidence; it is verified unless the run's config opts out (:func:`verify_committed`,
    :func:`verify_setting`).
    """
    path = run.data(rel)
    verify_committed(path, verify_setting(run.config))
    return path


def committed_note(run: Run) -> str:
    """Return what the claim being evaluated read of the committed inputs without verifying it, for its note.

    That is, under config ``data: {verify_committed: false}``, bytes other than the published ones; "" otherwise.
    """
    if verify_setting(run.config):
        return ""
    notes = (verify_committed(run.repo / rel, verify=False) for rel in run.reads if not rel.startswith("results/"))
    return "; ".join(dict.fromkeys(n for n in notes if n))


def reads_committed(measure):
    """Decorate a measure that reads committed inputs (:func:`committed`).

    When the config opts out of their verification and one differs from its published bytes, its measurement's note says
    so.
    """

    @functools.wraps(measure)
    def wrapper(run: Run, paper, *args, **kwargs):
        m = measure(run, paper, *args, **kwargs)
        note = committed_note(run)
        return dataclasses.replace(m, note="; ".join(s for s in (m.note, note) if s)) if note else m

    return wrapper


def committed_csv(run: Run, rel, **checks_and_read_kwargs) -> pd.DataFrame:
    """Return a committed CSV (:func:`committed`), refused when empty or header-only, checked by :func:`check_frame`."""
    checks, read = _split(checks_and_read_kwargs)
    path = committed(run, rel)
    df = check_frame(read_results_csv(path, **read), str(path), **checks)
    run.reads[str(rel)] = (run.reads.get(str(rel)) or 0) + len(df)
    return df


def finite_number(value: Any, where: str, what: str, kind: str = "finite") -> float:
    """One number of ``kind`` (:data:`KINDS`), as a float."""
    if value is None or isinstance(value, str | bool | np.bool_):
        raise EvidenceError(f"{where}: {what} = {value!r} is not {KINDS[kind]}")
    return float(check_values(value, where, what, kind).ravel()[0])


__all__ = [
    "KINDS",
    "check_choices",
    "check_consistent",
    "check_count",
    "check_frame",
    "check_labels",
    "check_values",
    "claimed_count",
    "committed",
    "committed_csv",
    "committed_note",
    "finite_number",
    "json_values",
    "load",
    "published_sha256",
    "reads_committed",
    "row_key",
    "table",
    "table_at",
    "verify_committed",
    "verify_setting",
]
