"""Damaged results among a job's inputs: refused before its step runs (:func:`check_inputs`).

Snakemake reruns a step only when its inputs are newer, so a result truncated or emptied after it was
written would otherwise be read as valid. :func:`isdp_papers.jobs.run_step` calls
:func:`check_inputs` on every job; a rule whose input may legitimately hold a header and no rows
names that input in ``params.may_be_empty`` (e.g. E3's MCMC-vs-exact table of a one-county state).
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

_NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")


class DamagedInputError(RuntimeError):
    """An input a step reads is a damaged result of an earlier step (empty, truncated, unreadable)."""


def _paths(value) -> list[Path]:
    """Return an input item (one path or a list of them) as paths."""
    return [Path(value)] if isinstance(value, str | os.PathLike) else [Path(p) for p in value]


def _damage(path: Path, may_be_empty: bool = False) -> str | None:
    """Why the results file ``path`` is damaged (None when it reads back as its kind of file).

    A CSV with a header and no rows is damaged unless ``may_be_empty``.
    """
    import pandas as pd

    if path.stat().st_size == 0:
        return "empty (0 bytes)"
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            rows = csv.reader(fh)
            width = len(next(rows, []))
            for line, row in enumerate(rows, start=2):
                if row and len(row) != width:
                    return f"row {line} has {len(row)} fields, the header {width} (truncated or mangled)"
        try:
            df = pd.read_csv(path)
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
            return f"not a readable CSV ({type(err).__name__}: {err})"
        if df.empty and not may_be_empty:
            return "a header and no rows (truncated?)"
    elif path.suffix == ".nc":
        with open(path, "rb") as fh:
            if not fh.read(8).startswith(_NETCDF_MAGIC):
                return "not a netCDF file (wrong signature)"
        import xarray as xr

        try:
            xr.open_dataset(path).close()
        except Exception as err:  # noqa: BLE001 - any failure to open is the damage reported
            return f"not a readable netCDF file ({type(err).__name__}: {err})"
    elif path.suffix == ".json":
        try:
            json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            return f"not readable JSON ({err})"
    return None


def check_inputs(job) -> None:
    """Refuse a damaged result of an earlier step among ``job.input``, naming it and how to rebuild it.

    The results are files under ``results/``; the repository's committed inputs have their own readers' checks. ``job``
    is the step's :class:`isdp_papers.jobs.Job`, which calls this before the step runs (so this module does not import
    it: the dependency points one way).

    The inputs named in ``job.params.may_be_empty`` may hold a header and no rows.
    """
    declared = job.params.get("may_be_empty") or []
    if unknown := [name for name in declared if name not in job.input.keys()]:
        raise ValueError(f"rule {job.rule}: params.may_be_empty names {unknown}, which are not among its inputs")
    may_be_empty = {path for name in declared for path in _paths(job.input[name])}
    for path in (path for item in job.input for path in _paths(item)):
        if not str(path).startswith("results/") or not path.is_file():
            continue
        problem = _damage(path, may_be_empty=path in may_be_empty)
        if problem:
            raise DamagedInputError(
                f"{path} is damaged: {problem}. Delete it and rerun snakemake, which "
                f"rebuilds it (or: snakemake --forcerun {path})"
            )
