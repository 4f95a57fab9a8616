"""When splitting pays: one process against two local workers and a two-worker Dask cluster, by table size.

A Parquet table of N cells in blocks of 100 under one total each (ε = 1 per person, operating-system entropy) is
released to a ``.parquet`` file by the whole ``isdp release`` command in a fresh process, three ways: ``--workers
1`` (one process), ``--workers 2`` (the local engine's two worker processes) and ``--engine dask --workers 2`` (a
local Dask cluster of two worker processes, started and closed inside the timing). Each size runs ``--repeats``
times (2) and keeps the fastest wall time. The crossover of an engine is the smallest size measured from which it
is faster than one process at that size and every larger one.

    python benchmarks/engine_crossover.py          # about 5 minutes on two cores
    python benchmarks/engine_crossover.py --docs   # only rewrite the docs table from the CSV

Writes benchmarks/results/engine_crossover.csv and the table between ``<!-- engine-crossover:start -->`` and
``<!-- engine-crossover:end -->`` of docs/performance.md (tests/benchmarks/test_engine_crossover.py checks that
the committed table is the committed CSV's).
"""

from __future__ import annotations

import argparse
import csv
import math
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "benchmarks" / "results" / "engine_crossover.csv"
PERFORMANCE = ROOT / "docs" / "performance.md"

#: the engines: their options; the first is the one the others are compared with
ENGINES = {
    "one process": ["--workers", "1"],
    "local, 2 workers": ["--workers", "2"],
    "dask, 2 workers": ["--engine", "dask", "--workers", "2"],
}
#: the table sizes: past 2²⁰ cells a table is released part by part (parts of about 2²⁰ cells)
SIZES = (2**19, 2**20, 2**21, 2**22, 2**23)


def measure(cells: int, repeats: int) -> list[dict]:
    """Each engine's fastest wall seconds on one table of ``cells`` cells (the same table for all)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from release_scale import parquet_columns, run_isdp

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp, "t.parquet")
        counts = np.random.default_rng(1).poisson(50, cells)
        pq.write_table(pa.table({**parquet_columns("blocks", cells), "count": counts}), table)
        for engine, options in ENGINES.items():
            best = math.inf
            for _ in range(repeats):
                out = Path(tmp, "out.parquet")
                for path in (out, Path(f"{out}.statement.json"), Path(f"{out}.audit.json")):
                    path.unlink(missing_ok=True)
                with Path(tmp, "stderr").open("w") as err:
                    args = ["release", str(table), "--invariant", "by:group", "--epsilon", "1", "-o", str(out)]
                    seconds, code, _ = run_isdp([*args, "--quiet", *options], err, tree=True)
                if code != 0:
                    raise RuntimeError(f"{engine} at {cells} cells: exit {code}: {Path(tmp, 'stderr').read_text()}")
                best = min(best, seconds)
            rows.append({"cells": cells, "engine": engine, "seconds": round(best, 2)})
            print(rows[-1], flush=True)
    return rows


def _by_size(rows: list[dict]) -> dict[int, dict[str, float]]:
    """The CSV's rows as seconds by size and engine, checked: known engines, each once per size, every engine at
    every size, finite positive times."""
    table: dict[int, dict[str, float]] = {}
    for row in rows:
        seconds = float(row["seconds"])
        if row["engine"] not in ENGINES or not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"engine_crossover.csv: an unknown engine or a time that cannot be in {row}")
        engines = table.setdefault(int(row["cells"]), {})
        if row["engine"] in engines:
            raise ValueError(f"engine_crossover.csv: {row['engine']} twice at {row['cells']} cells")
        engines[row["engine"]] = seconds
    if not table or any(set(engines) != set(ENGINES) for engines in table.values()):
        raise ValueError("engine_crossover.csv: a size lacks an engine")
    return dict(sorted(table.items()))


def crossover(rows: list[dict], engine: str) -> int | None:
    """The smallest size measured from which ``engine`` beats one process there and at every larger size."""
    table, first = _by_size(rows), next(iter(ENGINES))
    found = None
    for cells in reversed(table):
        if table[cells][engine] >= table[cells][first]:
            break
        found = cells
    return found


def render(rows: list[dict]) -> str:
    """The docs block: seconds per size and engine, each engine's time over one process's, and the crossovers."""
    table, first = _by_size(rows), next(iter(ENGINES))
    lines = ["| cells | " + " | ".join(ENGINES) + " |", "|---:|" + "---:|" * len(ENGINES)]
    for cells, seconds in table.items():
        cells_text = [f"{seconds[first]:.2f} s"] + [
            f"{seconds[e]:.2f} s ({seconds[e] / seconds[first]:.2f}×)" for e in list(ENGINES)[1:]
        ]
        lines.append(f"| {cells:,} | " + " | ".join(cells_text) + " |")
    said = []
    for engine in list(ENGINES)[1:]:
        at = crossover(rows, engine)
        said.append(
            f"{engine} beats one process from {at:,} cells on"
            if at
            else f"{engine} does not beat one process at the largest size measured"
        )
    return "\n".join(lines) + "\n\nIn this run: " + "; ".join(said) + ".\n"


def write_docs(csv_path: Path = CSV, doc: Path = PERFORMANCE) -> None:
    """Rewrite the crossover table of docs/performance.md from the CSV."""
    from measurements_table import replace_block

    with csv_path.open() as fh:
        replace_block(doc, "engine-crossover", render(list(csv.DictReader(fh))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs per size and engine; the fastest is kept")
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs table from the CSV")
    args = parser.parse_args()
    if not args.docs:
        rows = [row for cells in SIZES for row in measure(cells, args.repeats)]
        with CSV.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=["cells", "engine", "seconds"], lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    write_docs()


if __name__ == "__main__":
    main()
