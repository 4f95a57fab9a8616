"""What `isdp query` costs at census scale: 10⁵ group sums of a 10⁷-cell release, per route.

One synthetic long Parquet table of N cells (N a multiple of 10,000): keys ``county`` (N/10,000 values),
``block`` (100 per county) and ``age`` (100 values), counts drawn once from a seeded Poisson(5), so
that each block is 100 age cells. It is released once per route with the real command, under each
block's total (``--invariant by:county,block``), ε = 1 per person, to a Parquet dataset (released
part by part), seeded (``--reproducible-not-for-publication``: the law of the noise, and so the
query's cost, is the route's whatever the seed):

- ``l1``: the exact ℓ1 route;
- ``free-cells``: the free-cell route (``--free-cells``);
- ``gaussian``: the exact Gaussian route at δ = 10⁻⁶ (Klein's sampler).

Then, per route, in a fresh process, ``isdp query OUT/ --statement S --by county,age -o FILE``: one
query per county and age, N/100 group sums, each over one cell of each of the county's 100 blocks,
so each query's noise is a sum of terms within one total (exact laws on every route). Per row: the
release command's wall seconds and peak memory, the query command's (end to end, interpreter
start-up and the CSV included; the process's own high-water mark, VmHWM), the answers' methods
counted from its CSV, and, in another fresh process, the Python steps timed one by one
(``import isdp.published``, ``PublishedRelease.read``, ``group_sums``, ``query``) with the peak
memory after each. The command and the steps run ``--repeats`` times (3) on the same release: the
fastest command is kept (the run least slowed by other load on a shared machine) with the largest
peak memory, and the steps of the run whose steps took least in all. The verdict compares the query
command's wall seconds with the target, :data:`TARGET_SECONDS` for :data:`TARGET_QUERIES` group sums
of a :data:`TARGET_CELLS`-cell release.

    python benchmarks/query_throughput.py                   # 10⁷ cells, every route (about 15 minutes)
    python benchmarks/query_throughput.py --cells 10000     # a tiny run (seconds); --csv - prints the rows
    python benchmarks/query_throughput.py --profile 30      # also print each route's slowest step's profile
    python benchmarks/query_throughput.py --docs            # only rewrite the docs table from the CSV

Writes benchmarks/results/query_throughput.csv and the table between ``<!-- query-throughput:start -->``
and ``<!-- query-throughput:end -->`` of docs/performance.md (``tests/benchmarks/test_query_throughput.py``
checks that the committed table is the one the committed CSV gives).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
THROUGHPUT = RESULTS / "query_throughput.csv"
DOC = ROOT / "docs" / "performance.md"
#: the target: this many group sums of a release of this many cells answered in at most this many wall seconds
TARGET_CELLS = 10_000_000
TARGET_QUERIES = 100_000
TARGET_SECONDS = 30.0
#: the cells of a county: 100 blocks of 100 age cells
COUNTY_CELLS = 10_000
#: each route's options to ``isdp release`` after the invariants and ε
ROUTES = {
    "l1": [],
    "free-cells": ["--free-cells"],
    "gaussian": ["--norm", "gaussian", "--delta", "1e-6"],
}
WHAT = {
    "l1": "exact ℓ1",
    "free-cells": "free cells",
    "gaussian": "exact Gaussian, δ = 10⁻⁶",
}
BY = "county,age"
METHODS = ("fixed", "exact", "simulated")
#: the query's Python steps, timed one by one
STEPS = ("import", "read", "group_sums", "answer")
COLUMNS = (
    "route",
    "cells",
    "queries",
    "repeats",
    "release_seconds",
    "release_peak_mb",
    "query_seconds",
    "query_peak_mb",
    *METHODS,
    "import_seconds",
    "read_seconds",
    "group_sums_seconds",
    "answer_seconds",
    "read_peak_mb",
    "group_sums_peak_mb",
    "answer_peak_mb",
    "sampler_mups",
)


def write_table(path: Path, cells: int) -> None:
    """Write the long Parquet table of ``cells`` cells: county × block × age, text keys held as dictionary arrays
    (a code per cell, each label once), counts from a seeded Poisson(5)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if cells <= 0 or cells % COUNTY_CELLS:
        raise ValueError(f"the cells must be a positive multiple of {COUNTY_CELLS:,}; got {cells:,}")
    counties = cells // COUNTY_CELLS
    width = len(str(counties - 1))

    def coded(prefix: str, codes, size: int, digits: int):
        labels = pa.array([f"{prefix}{i:0{digits}d}" for i in range(size)])
        return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), labels)

    county, rest = np.divmod(np.arange(cells), COUNTY_CELLS)
    block, age = np.divmod(rest, 100)
    del rest
    table = pa.table(
        {
            "county": coded("c", county, counties, width),
            "block": coded("b", block, 100, 2),
            "age": coded("a", age, 100, 2),
            "count": np.random.default_rng(1).poisson(5, cells),
        }
    )
    pq.write_table(table, path)


#: the Python steps of ``isdp query``, timed one by one in a fresh process; with a positive last argument, each
#: step under cProfile and the slowest step's top lines printed to stderr
_STEPS = (
    "import cProfile, io, json, pstats, sys, time\n"
    "released, statement, by, top = sys.argv[1], sys.argv[2], sys.argv[3].split(','), int(sys.argv[4])\n"
    "def peak():\n"
    "    line = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
    "    return int(line.split()[1]) // 1024\n"
    "out, profiles = {}, {}\n"
    "def step(name, call):\n"
    "    profile = cProfile.Profile() if top else None\n"
    "    tick = time.perf_counter()\n"
    "    if profile: profile.enable()\n"
    "    got = call()\n"
    "    if profile: profile.disable()\n"
    "    out[name + '_seconds'], out[name + '_peak_mb'] = time.perf_counter() - tick, peak()\n"
    "    profiles[name] = profile\n"
    "    return got\n"
    "step('import', lambda: __import__('isdp.published'))\n"
    "from isdp.published import PublishedRelease\n"
    "p = step('read', lambda: PublishedRelease.read(released, statement))\n"
    "W, names = step('group_sums', lambda: p.group_sums(by))\n"
    "answer = step('answer', lambda: p.query(W, names, level=0.9))\n"
    "out['queries'] = len(answer['query'])\n"
    "if top:\n"
    "    slowest = max(profiles, key=lambda name: out[name + '_seconds'])\n"
    "    for order in ('cumulative', 'tottime'):\n"
    "        text = io.StringIO()\n"
    "        pstats.Stats(profiles[slowest], stream=text).sort_stats(order).print_stats(top)\n"
    "        print(f'--- the {slowest} step, by {order} time ---', text.getvalue(), sep='\\n', file=sys.stderr)\n"
    "print(json.dumps(out))\n"
)


def time_steps(released: Path, statement: Path, profile: int = 0) -> dict:
    """The query's Python steps in a fresh process: each one's wall seconds and the peak memory (MB) after it."""
    from release_scale import timed_env

    proc = subprocess.run(
        [sys.executable, "-c", _STEPS, f"{released}/", str(statement), BY, str(profile)],
        env=timed_env(),
        stdout=subprocess.PIPE,
        stderr=None if profile else subprocess.PIPE,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the query's steps on {released} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def _run(args: list[str], log: Path) -> tuple[float, int]:
    """``isdp ARGS`` in a fresh process: its wall seconds and peak memory (MB); an error if it fails."""
    from release_scale import run_isdp

    with log.open("w") as err:
        seconds, code, peak_kb = run_isdp(args, err)
    if code != 0:
        raise RuntimeError(f"isdp {' '.join(args)}: exit {code}: {log.read_text()[-2000:]}")
    return seconds, peak_kb // 1024


def measure(route: str, table: Path, cells: int, directory: Path, repeats: int = 1, profile: int = 0) -> dict:
    """One row: ``table`` released by ``route``, then queried by the command and by its steps, each ``repeats``
    times: the fastest command (the run least slowed by other load on a shared machine) with the largest peak
    memory, and the steps of the run whose steps took least in all."""
    released, statement = directory / route, directory / f"{route}.statement.json"
    release_seconds, release_peak = _run(
        [
            "release",
            str(table),
            "--invariant",
            "by:county,block",
            "--epsilon",
            "1",
            *ROUTES[route],
            "-o",
            f"{released}/",
            "--statement",
            str(statement),
            "--seed",
            "1",
            "--reproducible-not-for-publication",
            "--quiet",
        ],
        directory / f"{route}.release.log",
    )
    answers = directory / f"{route}.queries.csv"
    commands, runs = [], []
    for _ in range(repeats):
        commands.append(
            _run(
                ["query", f"{released}/", "--statement", str(statement), "--by", BY, "-o", str(answers)],
                directory / f"{route}.query.log",
            )
        )
        runs.append(time_steps(released, statement))
    if profile:  # another process: cProfile's overhead stays out of the row's times
        time_steps(released, statement, profile)
    with answers.open(newline="") as fh:
        methods = [row["method"] for row in csv.DictReader(fh)]
    if len(methods) != cells // 100 or set(methods) - set(METHODS):
        raise RuntimeError(f"{route}: {len(methods):,} answers of {cells // 100:,} queries, methods {set(methods)}")
    steps = min(runs, key=lambda got: sum(got[f"{step}_seconds"] for step in STEPS))
    if steps["queries"] != len(methods):
        raise RuntimeError(f"{route}: the steps answered {steps['queries']:,} queries, the command {len(methods):,}")
    return {
        "route": route,
        "cells": cells,
        "queries": len(methods),
        "repeats": repeats,
        "release_seconds": round(release_seconds, 2),
        "release_peak_mb": release_peak,
        "query_seconds": round(min(seconds for seconds, _ in commands), 2),
        "query_peak_mb": max(peak for _, peak in commands),
        **{method: methods.count(method) for method in METHODS},
        **{f"{step}_seconds": round(steps[f"{step}_seconds"], 4) for step in STEPS},
        **{f"{step}_peak_mb": steps[f"{step}_peak_mb"] for step in STEPS[1:]},
    }


def run(cells: int, routes=tuple(ROUTES), repeats: int = 1, profile: int = 0) -> list[dict]:
    """Every route's row on one table of ``cells`` cells, written once to a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp, "table.parquet")
        write_table(table, cells)
        rows = []
        for route in routes:
            rows.append(measure(route, table, cells, Path(tmp), repeats, profile))
            print(rows[-1], file=sys.stderr, flush=True)
        return rows


def _checked(rows: list[dict]) -> list[dict]:
    """The CSV's rows (strings), checked: a known route once per table, N/100 queries of an N-cell table in
    county × block × age shape, answers counted to the queries, positive finite times and memory."""
    seen = set()
    for row in rows:
        if row["route"] not in ROUTES:
            raise ValueError(f"query_throughput.csv: an unknown route in {row}")
        cells, queries = int(row["cells"]), int(row["queries"])
        if int(row["repeats"]) < 1:
            raise ValueError(f"query_throughput.csv: no run of the query in {row}")
        if cells <= 0 or cells % COUNTY_CELLS or queries != cells // 100:
            raise ValueError(f"query_throughput.csv: {queries} queries of {cells} cells cannot be in {row}")
        if sum(int(row[m]) for m in METHODS) != queries or min(int(row[m]) for m in METHODS) < 0:
            raise ValueError(f"query_throughput.csv: answers that do not add up to the queries in {row}")
        times = [float(row[c]) for c in COLUMNS if c.endswith("_seconds")]
        memory = [int(row[c]) for c in COLUMNS if c.endswith("_peak_mb")]
        commands = [float(row["release_seconds"]), float(row["query_seconds"])]  # a tiny table's step may round to 0
        if not all(math.isfinite(t) and t >= 0 for t in times) or min(commands) <= 0 or min(memory) <= 0:
            raise ValueError(f"query_throughput.csv: a time or memory that cannot be in {row}")
        if (row["route"], cells) in seen:
            raise ValueError(f"query_throughput.csv: {row['route']} twice at {cells} cells")
        seen.add((row["route"], cells))
    return rows


def verdict(row: dict) -> str:
    """The query command's wall time against the target, for a row of the target's scale."""
    if int(row["cells"]) != TARGET_CELLS or int(row["queries"]) != TARGET_QUERIES:
        return "not the target's scale"
    ratio = float(row["query_seconds"]) / TARGET_SECONDS
    within = float(row["query_seconds"]) <= TARGET_SECONDS
    return f"{'within' if within else 'BEYOND'} the {TARGET_SECONDS:g} s target ({ratio:.2f}×)"


def _answers(row: dict) -> str:
    return ", ".join(f"{int(row[m]):,} {m}" for m in METHODS if int(row[m]))


def render_table(rows: list[dict]) -> str:
    """The docs table of ``rows`` (the CSV's rows, as strings) and the machine's sampler speed under it."""
    rows = _checked(rows)
    lines = [
        f"The target: {TARGET_QUERIES:,} group sums of a {TARGET_CELLS:,}-cell release answered by `isdp query` "
        f"in at most {TARGET_SECONDS:g} s, end to end.",
        "",
        "| route | cells | queries | release: seconds, peak memory | query: seconds, peak memory | answers | "
        "target | steps: import, read, group sums, answer (seconds) | steps' peak memory after read, "
        "group sums, answer |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for row in rows:
        steps = ", ".join(f"{float(row[f'{s}_seconds']):,.1f}" for s in STEPS)
        peaks = ", ".join(f"{int(row[f'{s}_peak_mb']):,}" for s in STEPS[1:])
        lines.append(
            f"| {WHAT[row['route']]} | {int(row['cells']):,} | {int(row['queries']):,} | "
            f"{float(row['release_seconds']):,.1f} s, {int(row['release_peak_mb']):,} MB | "
            f"{float(row['query_seconds']):,.1f} s (fastest of {int(row['repeats'])}), "
            f"{int(row['query_peak_mb']):,} MB | {_answers(row)} | {verdict(row)} | {steps} | {peaks} MB |"
        )
    speeds = {row.get("sampler_mups") for row in rows}
    if len(speeds) == 1 and None not in speeds and "" not in speeds:
        lines += [
            "",
            f"Measured in one run on a machine whose sampler speed was {float(next(iter(speeds))):.1f} M updates/s "
            "(`benchmarks/measurements_table.py`'s reference case).",
        ]
    return "\n".join(lines) + "\n"


def read_rows(csv_path: Path = THROUGHPUT) -> list[dict]:
    with csv_path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def write_docs(csv_path: Path = THROUGHPUT, doc: Path = DOC) -> None:
    """Rewrite the docs table from the CSV."""
    from measurements_table import replace_block

    replace_block(doc, "query-throughput", render_table(read_rows(csv_path)))


def write_csv(rows: list[dict], out) -> None:
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=TARGET_CELLS, help="the table's cells, a multiple of 10,000")
    parser.add_argument("--routes", default=",".join(ROUTES), help=f"routes to run, of {', '.join(ROUTES)}")
    parser.add_argument(
        "--csv", default=str(THROUGHPUT), help="where the rows go ('-': stdout, and the docs are left alone)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs of the query per route, the fastest kept")
    parser.add_argument("--profile", type=int, default=0, metavar="LINES", help="print the slowest step's profile")
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs table from the CSV")
    args = parser.parse_args()
    if args.docs:
        write_docs()
        return
    routes = [r.strip() for r in args.routes.split(",") if r.strip()]
    unknown = set(routes) - set(ROUTES)
    if unknown:
        parser.error(f"unknown routes {sorted(unknown)}: of {', '.join(ROUTES)}")
    rows = run(args.cells, routes, args.repeats, args.profile)
    from measurements_table import sampler_speed

    speed = round(sampler_speed(), 1)  # after the rows: this process's memory is not in theirs
    rows = [{**row, "sampler_mups": speed} for row in rows]
    if args.csv == "-":
        write_csv(rows, sys.stdout)
        return
    with Path(args.csv).open("w", newline="") as fh:
        write_csv(rows, fh)
    if Path(args.csv).resolve() == THROUGHPUT.resolve():
        write_docs()


if __name__ == "__main__":
    tick = time.perf_counter()
    main()
    print(f"{time.perf_counter() - tick:.0f} s", file=sys.stderr)
