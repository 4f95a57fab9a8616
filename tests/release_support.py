"""``isdp release`` run into a test's folder, seeded, and the check that a refusal leaves nothing behind
(the tests of the command line and of the release's modules that drive it)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from isdp.cli import main

#: the options of a reproducible run without progress lines (a seeded release is not for publication)
SEEDED = ["--seed", "7", "--reproducible-not-for-publication", "--no-progress"]


def run_release(tmp_path: Path, *args) -> tuple[int, Path, Path, Path]:
    """Run ``isdp release`` seeded into tmp_path: (exit code, release, statement, audit)."""
    out = tmp_path / "out.csv"
    code = main(["release", *map(str, args), "-o", str(out), *SEEDED])
    return code, out, Path(str(out) + ".statement.json"), Path(str(out) + ".audit.json")


def only(tmp_path: Path, *names: str) -> None:
    """Nothing but the inputs is left in tmp_path (no output, no temporary file)."""
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def margins_table(path: Path, r: int, c: int) -> Path:
    """A long r × c table of Poisson(20) counts (seeded), rows ``r0…`` and columns ``c0…``."""
    rng = np.random.default_rng(3)
    lines = ["row,col,count"] + [f"r{i},c{j},{rng.poisson(20)}" for i in range(r) for j in range(c)]
    path.write_text("\n".join(lines) + "\n")
    return path


#: the invariants of :func:`nested_parquet`'s table: the nation's total, each county's and each state's age margin
NESTED_RULES = ("total", "by:state,county", "by:state,age")


def nested_parquet(path: Path, cells: int = 12_000) -> Path:
    """A Parquet table of nested geography: 4 states × cells/200 counties × 50 ages, Poisson(5) counts (seeded)."""
    import pyarrow as pa  # deferred: only the tests of releases in parts write Parquet
    import pyarrow.parquet as pq

    state, rest = np.divmod(np.arange(cells), cells // 4)
    county, age = np.divmod(rest, 50)
    counts = np.random.default_rng(2).poisson(5, cells)
    pq.write_table(pa.table({"state": state, "county": county, "age": age, "count": counts}), path)
    return path


def release_in_parts(table: Path, out: Path, run_parts, **options) -> tuple[bytes, np.ndarray]:
    """The library's release of ``table`` under :data:`NESTED_RULES` in parts of 3,000 cells on ``run_parts``.

    Returns the statement's bytes and the released counts.
    """
    import pyarrow.parquet as pq  # deferred: as above

    from isdp.release import Request, release_partitioned

    req = Request(epsilon="1", rules=NESTED_RULES, progress=False, **options)
    files = [out.with_suffix(".parquet"), out.with_suffix(".json"), out.with_suffix(".audit.json")]
    release_partitioned(table, NESTED_RULES, req, *files, part_cells=3_000, run_parts=run_parts)
    return files[1].read_bytes(), pq.read_table(files[0]).column("count").to_numpy()
