"""What `isdp release` costs at an agency's scale (docs/release.md, "Scale").

Each case writes a long table (key columns and a count column) to a temporary directory and runs
the command in a fresh process, ε = 1 per person, operating-system entropy, quiet; per row: the
cells, invariants and independent blocks, the route, the exact sampler's attempts (from the
confidential audit record: this is a benchmark, not a release), wall seconds and the process's
peak memory.

- ``national``: the 3,221 counties of the committed NHGIS extract under their 52 state totals;
- ``blocks-N``: N cells in blocks of 100 under one total each (the national shape, larger);
- ``margins-RxC``: an R × C table with both margins (one block; the exact route's acceptance
  falls with the table's size, so large ones are refused after ``--max-attempts``).

    python benchmarks/release_scale.py                      # national, blocks-10000, margins 6x6, 10x10
    python benchmarks/release_scale.py --cases blocks-100000 # the 100,000-cell case (minutes)

Writes benchmarks/results/release_scale.csv.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
DEFAULT = ("national", "blocks-10000", "margins-6x6", "margins-10x10")


def _table(case: str, path: Path, rng: np.random.Generator) -> tuple[str, int]:
    """Write the case's table; returns (the invariant family, the number of blocks)."""
    with path.open("w") as fh:
        fh.write("group,cell,count\n")
        if case == "national":
            rows = list(csv.DictReader((ROOT / "data/nhgis/county_population_v20210608.csv").open()))
            for r in rows:
                fh.write(f"{r['state_abbr']},c{r['county_fips']},{r['sf1_pop']}\n")
            return "row-margins", len({r["state_abbr"] for r in rows})
        if case.startswith("blocks-"):
            n = int(case.split("-")[1])
            for i in range(n):
                fh.write(f"b{i // 100},c{i},{rng.poisson(50)}\n")
            return "row-margins", (n + 99) // 100
        r, c = map(int, case.split("-")[1].split("x"))
        for i in range(r):
            for j in range(c):
                fh.write(f"r{i},c{j},{rng.poisson(50)}\n")
        return "all-margins", 1


def run(case: str, max_attempts: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "t.csv"
        family, n_blocks = _table(case, table, np.random.default_rng(1))
        cells = sum(1 for _ in table.open()) - 1
        out = Path(tmp) / "out.csv"
        cmd = [sys.executable, "-m", "isdp", "release", str(table), "--invariant", family, "--epsilon", "1",
               "--max-attempts", str(max_attempts), "-o", str(out), "--quiet"]
        err = Path(tmp) / "stderr"
        tick = time.perf_counter()
        with err.open("w") as fh:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=fh)
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
        seconds = time.perf_counter() - tick
        code = os.waitstatus_to_exitcode(status)
        audit = json.loads(Path(str(out) + ".audit.json").read_text()) if code == 0 else {}
        return {"case": case, "cells": cells, "invariant": family, "blocks": n_blocks, "exit": code,
                "route": audit.get("route", "refused: " + err.read_text().strip().removeprefix("isdp release: error: ")[:90]),
                "attempts": audit.get("exact_sampler", {}).get("attempts"), "seconds": round(seconds, 2),
                "peak_mb": round(usage.ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT))
    parser.add_argument("--max-attempts", type=int, default=20_000)
    args = parser.parse_args()
    rows = []
    for case in args.cases:
        rows.append(run(case, args.max_attempts))
        print(rows[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / "release_scale.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
