"""What `isdp release` costs at an agency's scale (docs/release.md, "Scale").

Each case writes a long table (key columns and a count column) to a temporary directory and runs
the command in a fresh process, ε = 1 per person, operating-system entropy, quiet; per row: the
cells, the invariants and the independent blocks, the route, the exact sampler's attempts (from
the confidential audit record: this is a benchmark, not a release), wall seconds and the process's
peak memory. Each case runs ``--repeats`` times (3) on the same table; the fastest wall time is kept
(the run least slowed by other load on a shared machine) with the largest peak memory.

- ``national``: the 3,221 counties of the committed NHGIS extract under their 52 state totals;
- ``blocks-N``: N cells in blocks of 100 under one total each (the national shape, larger);
- ``margins-RxC``: an R × C table with both margins (one block; the exact route's acceptance
  falls with the table's size, so large ones are refused by the plan's forecast), and
  ``margins-RxC-free``, the same released by ``--free-cells``;
- ``county-age``: the 3,221 counties × 23 age groups (each county's population split by a
  multinomial, seeded), nested geography: the nation's total, each state's, each county's, and
  each state's age margin; ``county-age-free`` the same by ``--free-cells``;
- ``tables-county-sex``: two tables released together, the county totals and the county × sex
  table (each county split by a binomial, seeded), tied by county, the state totals kept (the
  county table is derived: only the finer one is in the norm);
- ``tables-sex-age``: the county × sex and the county × age tables, tied by county (both in the
  norm: ε per unit of ℓ1 is ε/4);
- ``…-gaussian``: the same table on the Gaussian route, (1, 10⁻⁶) per person (Klein's sampler
  where a block's invariants are a total or both margins).

Besides the time and memory: the size of the privacy statement, and the median noised cell's
variance, the largest over the median and the median over the smallest, where the statement
states them (the free-cell route, the Gaussian
route's blocks); a cell the invariants fix gets no noise and is left out.

    python benchmarks/release_scale.py                      # every case but blocks-100000
    python benchmarks/release_scale.py --cases blocks-100000 # the 100,000-cell case
    python benchmarks/release_scale.py --cases margins-1000x1000-gaussian  # 10^6 cells, two margins (1 min)
    python benchmarks/release_scale.py --engines            # single process against Dask at 10^8 cells (25 min)
    python benchmarks/release_scale.py --docs               # only rewrite the docs tables from the CSVs

Writes benchmarks/results/release_scale.csv (the cases run replace their rows; the others are
kept) and the table between ``<!-- release-scale:start -->`` and ``<!-- release-scale:end -->`` of
docs/release.md from it (``tests/benchmarks/test_release_scale.py`` checks that the committed
table is the one the committed CSV gives).

``--engines`` writes a Parquet dataset of 10⁸ cells (ten files of 10⁷ rows, counts Poisson(50),
seeded) for each of two shapes — blocks of 100 under the ℓ1 route, and nested geography (50 states)
on the Gaussian route — and releases it to a dataset with the single process and then with
``--engine dask --workers 2``, in the same run: the wall time of each whole command, the peak
memory of its process tree, and whether the two statements are byte-identical. It writes
benchmarks/results/release_engines.csv and the table between ``<!-- release-engines:start -->``
and ``<!-- release-engines:end -->`` of docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
SCALE = RESULTS / "release_scale.csv"
DOC = ROOT / "docs" / "release.md"
DEFAULT = (
    "national",
    "blocks-10000",
    "margins-6x6",
    "margins-10x10",
    "margins-50x23",
    "margins-50x23-free",
    "county-age",
    "county-age-free",
    "tables-county-sex",
    "tables-sex-age",
    "national-gaussian",
    "margins-4x4-gaussian",
    "margins-50x23-gaussian",
    "margins-300x300-gaussian",
    "county-age-gaussian",
)
#: the Gaussian route's request: (1, 1e-6) per person
GAUSSIAN = ["--norm", "gaussian", "--delta", "1e-6"]
NESTED = [
    "--invariant",
    "total",
    "--invariant",
    "by:state",
    "--invariant",
    "by:state,county",
    "--invariant",
    "by:state,age",
]
_COUNTY_AGE = "county × 23 age groups (counties of the extract, split by a seeded multinomial)"
_NESTED_TEXT = "nation, states, counties, each state's age margin"
#: each case as the docs table names it: (the table, its invariants)
CASE_TEXT = {
    "national": ("the national county table (NHGIS extract)", "state totals"),
    "blocks-10000": ("synthetic, blocks of 100", "a total per block"),
    "blocks-100000": ("synthetic, blocks of 100", "a total per block"),
    "county-age": (_COUNTY_AGE, _NESTED_TEXT),
    "county-age-free": (f"{_COUNTY_AGE}, `--free-cells`", _NESTED_TEXT),
    "county-age-gaussian": (f"{_COUNTY_AGE}, Gaussian", _NESTED_TEXT),
    "tables-county-sex": (
        "two tables: county totals + county × sex (seeded binomial split)",
        "tied by county, state totals of the county table",
    ),
    "tables-sex-age": ("two tables: county × sex + county × 23 ages", "tied by county"),
    "national-gaussian": ("the national county table, Gaussian", "state totals"),
}


def _counties() -> list[dict]:
    return list(csv.DictReader((ROOT / "data/nhgis/county_population_v20210608.csv").open()))


def _tables(case: str, directory: Path, rng: np.random.Generator) -> tuple[list[Path], list[str], int]:
    """Write the case's tables released together; returns (their paths, the invariant options, the
    number of blocks)."""
    rows = _counties()
    counties = [(r["state_abbr"], f"c{r['county_fips']}", int(r["sf1_pop"])) for r in rows]
    split = {
        "sex": [rng.binomial(n, 0.5) for *_, n in counties],
        "age": [rng.multinomial(n, np.full(23, 1 / 23)) for *_, n in counties],
    }
    paths = {name: directory / f"{name}.csv" for name in ("county", "county_sex", "county_age")}
    with paths["county"].open("w") as fh:
        fh.write("state,county,count\n")
        fh.writelines(f"{s},{c},{n}\n" for s, c, n in counties)
    with paths["county_sex"].open("w") as fh:
        fh.write("state,county,sex,count\n")
        fh.writelines(
            f"{s},{c},male,{m}\n{s},{c},female,{n - m}\n" for (s, c, n), m in zip(counties, split["sex"], strict=True)
        )
    with paths["county_age"].open("w") as fh:
        fh.write("state,county,age,count\n")
        fh.writelines(
            f"{s},{c},a{a},{v}\n"
            for (s, c, _), ages in zip(counties, split["age"], strict=True)
            for a, v in enumerate(ages)
        )
    states = len({s for s, *_ in counties})
    if case == "tables-county-sex":
        args = ["--tie", "by:state,county", "--invariant", "by:state@county"]
        return [paths["county"], paths["county_sex"]], args, states
    return [paths["county_sex"], paths["county_age"]], ["--tie", "by:state,county"], len(counties)


def write_table(case: str, path: Path, rng: np.random.Generator) -> tuple[list[str], int]:
    """Write the case's table; returns (its invariant options, the number of blocks)."""
    base = case.removesuffix("-free").removesuffix("-gaussian")
    free = ["--free-cells"] if case.endswith("-free") else GAUSSIAN if case.endswith("-gaussian") else []
    with path.open("w") as fh:
        if base == "national":
            fh.write("state,county,count\n")
            rows = _counties()
            for r in rows:
                fh.write(f"{r['state_abbr']},c{r['county_fips']},{r['sf1_pop']}\n")
            return ["--invariant", "by:state", *free], len({r["state_abbr"] for r in rows})
        if base == "county-age":
            fh.write("state,county,age,count\n")
            rows = _counties()
            for r in rows:
                for a, v in enumerate(rng.multinomial(int(r["sf1_pop"]), np.full(23, 1 / 23))):
                    fh.write(f"{r['state_abbr']},c{r['county_fips']},a{a},{v}\n")
            return [*NESTED, *free], len({r["state_abbr"] for r in rows})
        fh.write("group,cell,count\n")
        if base.startswith("blocks-"):
            n = int(base.split("-")[1])
            for i in range(n):
                fh.write(f"b{i // 100},c{i},{rng.poisson(50)}\n")
            return ["--invariant", "by:group", *free], (n + 99) // 100
        r, c = map(int, base.split("-")[1].split("x"))
        for i in range(r):
            for j in range(c):
                fh.write(f"r{i},c{j},{rng.poisson(50)}\n")
        return ["--invariant", "all-margins", *free], 1


#: runs ``isdp`` (its arguments after the file the peak goes to) and writes the process's own peak memory (VmHWM,
#: KB) at exit: a child's rusage would count its parent's memory at the fork too
_WITH_PEAK = (
    "import atexit, runpy, sys\n"
    "peak_file = sys.argv.pop(1)\n"
    "def peak():\n"
    "    line = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
    "    open(peak_file, 'w').write(line.split()[1])\n"
    "atexit.register(peak)\n"
    "sys.argv[0] = 'isdp'\n"
    "runpy.run_module('isdp', run_name='__main__')\n"
)


def timed_env() -> dict[str, str]:
    """The environment a timed process runs in: this one, with Python free to write its bytecode caches.

    Where the machine sets ``PYTHONDONTWRITEBYTECODE`` (CI images do), a package installed without its bytecode
    (uv installs so) is compiled from source at every start: pandas, SciPy, pyarrow's Python and isdp's own, in the
    command and in each worker it spawns (a 10⁶-cell release took more than twice as long). A package pip installs
    has its caches, written at install, so the timings are of that.
    """
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_isdp(args: list[str], stderr, tree: bool = False) -> tuple[float, int, int]:
    """``isdp ARGS`` in a fresh process: its wall seconds, exit status and peak memory (KB).

    Parameters
    ----------
    args : list of str
        The command's arguments after ``isdp``.
    stderr : file
        Where its standard error goes (its standard output is discarded).
    tree : bool, default False
        Peak memory of the command and every process it starts (Dask's workers): their resident
        memory summed every 0.2 s, the largest sum; else the command's own high-water mark.

    Returns
    -------
    tuple
        (seconds, exit status, peak memory in KB).
    """
    if tree:
        import psutil  # here: only a command that starts processes of its own is measured so

        tick = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "isdp", *args], stdout=subprocess.DEVNULL, stderr=stderr, env=timed_env()
        )
        root, peak = psutil.Process(proc.pid), 0
        while proc.poll() is None:
            with contextlib.suppress(psutil.Error):  # a process that ended between the listing and the reading
                peak = max(peak, sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]))
            time.sleep(0.2)
        return time.perf_counter() - tick, proc.returncode, peak // 1024
    with tempfile.NamedTemporaryFile(suffix=".peak") as peak:
        tick = time.perf_counter()
        code = subprocess.call(
            [sys.executable, "-c", _WITH_PEAK, peak.name, *args],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=timed_env(),
        )
        seconds = time.perf_counter() - tick
        return seconds, code, int(Path(peak.name).read_text() or 0)


def parquet_columns(shape: str, cells: int) -> dict:
    """The key columns of a Parquet table of ``cells`` cells (text keys but the blocks' integers): ``blocks`` of 100
    cells, a ``margins`` square, ``nested`` geography (50 states of cells / 5,000 counties × 100 ages) or
    ``nested-unequal`` (the same nation, its states of 1/2 to 3/2 times as many counties, no two alike)."""
    import numpy as np

    def text(prefix, codes):
        return np.char.add(prefix, codes.astype(str))

    if shape == "blocks":  # blocks of 100 cells, one total each
        return {"group": np.arange(cells) // 100, "cell": np.arange(cells)}
    if shape == "margins":  # a side × side table under both margins
        side = round(cells**0.5)
        row, col = np.divmod(np.arange(side * side), side)
        return {"row": text("r", row), "col": text("c", col)}
    # nested geography: 50 states, each of cells / 5,000 counties × 100 age groups; the text keys as dictionary
    # arrays (a code per cell and each label once: 10⁸ cells as numpy text would take tens of GB)
    import pyarrow as pa

    def coded(prefix, codes, size):
        return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), pa.array(text(prefix, np.arange(size))))

    if shape == "nested-unequal":  # each state its own shape, so no part reuses another's plan
        counties = np.linspace(cells // 10_000, 3 * cells // 10_000, 50).astype(np.int64)
        counties[-1] += cells // 100 - counties.sum()
        np.random.default_rng(2).shuffle(counties)
        state = np.repeat(np.arange(50, dtype=np.int32), counties * 100)
        county = np.concatenate([np.repeat(np.arange(k, dtype=np.int32), 100) for k in counties.tolist()])
        age = np.tile(np.arange(100, dtype=np.int32), cells // 100)
        return {
            "state": coded("s", state, 50),
            "county": coded("c", county, int(counties.max())),
            "age": coded("a", age, 100),
        }
    state, rest = np.divmod(np.arange(cells), cells // 50)
    county, age = np.divmod(rest, 100)
    del rest
    return {"state": coded("s", state, 50), "county": coded("c", county, cells // 5000), "age": coded("a", age, 100)}


#: the engines compared on one Parquet dataset: their options (one process: the local engine's workers would run
#: at 10⁸ cells; a local Dask cluster of two worker processes)
ENGINES = {"single process": ["--workers", "1"], "dask": ["--engine", "dask", "--workers", "2"]}
#: the tables the engines release: their invariants and route
ENGINE_SHAPES = {"blocks": ["--invariant", "by:group"], "nested": [*NESTED, *GAUSSIAN]}
ENGINE_CELLS = 100_000_000
#: the rows of each of the input dataset's files
FILE_ROWS = 10_000_000
#: the wall time Dask may take, at most, as a multiple of the single process's on the same dataset
DASK_WALL_LIMIT = 1.2
ENGINES_CSV = RESULTS / "release_engines.csv"
PERFORMANCE = ROOT / "docs" / "performance.md"


def compare_engines(shape: str, cells: int = ENGINE_CELLS) -> list[dict]:
    """One Parquet dataset of ``cells`` cells released to a dataset by each engine, one after the other.

    Per engine: the wall seconds (the whole command, the cluster's start and close included), the
    peak memory of the command and its workers, the released dataset's files (its rows checked to
    be the table's), and the SHA-256 of the statement (the engines' statements are compared by it).
    """
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp, "in")
        table.mkdir()
        columns = parquet_columns(shape, cells)
        counts = np.random.default_rng(1).poisson(50, cells)
        for k, start in enumerate(range(0, cells, FILE_ROWS)):
            stop = min(start + FILE_ROWS, cells)
            pq.write_table(
                pa.table(
                    {name: column[start:stop] for name, column in columns.items()} | {"count": counts[start:stop]}
                ),
                table / f"{k:04d}.parquet",
            )
        del columns, counts
        rows = []
        for engine, options in ENGINES.items():
            out = Path(tmp, engine.replace(" ", "-"))
            statement = Path(f"{out}.statement.json")
            with Path(tmp, "stderr").open("w") as err:
                seconds, code, peak = run_isdp(
                    [
                        "release",
                        str(table),
                        *ENGINE_SHAPES[shape],
                        "--epsilon",
                        "1",
                        "-o",
                        f"{out}/",
                        "--statement",
                        str(statement),
                        "--quiet",
                        *options,
                    ],
                    err,
                    tree=True,
                )
            if code != 0:
                raise RuntimeError(f"{shape}, {engine}: exit {code}: {Path(tmp, 'stderr').read_text()[-2000:]}")
            files = sorted(out.iterdir())
            released = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
            if released != cells:
                raise RuntimeError(f"{shape}, {engine}: {released} rows released of {cells}")
            rows.append(
                {
                    "shape": shape,
                    "cells": cells,
                    "engine": engine,
                    "input_files": len(list(table.iterdir())),
                    "output_files": len(files),
                    "seconds": round(seconds, 1),
                    "peak_mb": peak // 1024,
                    "statement_sha256": hashlib.sha256(statement.read_bytes()).hexdigest(),
                }
            )
            print(rows[-1], flush=True)
        return rows


def _engine_rows(rows: list[dict]) -> dict[tuple[str, int], dict[str, dict]]:
    """The CSV's rows by (shape, cells) and engine, checked: every engine once, known names, finite positive
    times and memory, a statement's full SHA-256."""
    by_table: dict[tuple[str, int], dict[str, dict]] = {}
    for row in rows:
        if row["shape"] not in ENGINE_SHAPES or row["engine"] not in ENGINES:
            raise ValueError(f"release_engines.csv: an unknown shape or engine in {row}")
        if not (math.isfinite(float(row["seconds"])) and float(row["seconds"]) > 0 and int(row["peak_mb"]) > 0):
            raise ValueError(f"release_engines.csv: a time or memory that cannot be in {row}")
        if len(row["statement_sha256"]) != 64 or set(row["statement_sha256"]) - set("0123456789abcdef"):
            raise ValueError(f"release_engines.csv: not a SHA-256 in {row}")
        engines = by_table.setdefault((row["shape"], int(row["cells"])), {})
        if row["engine"] in engines:
            raise ValueError(f"release_engines.csv: {row['engine']} twice for {row['shape']} at {row['cells']}")
        engines[row["engine"]] = row
    for key, engines in by_table.items():
        if set(engines) != set(ENGINES):
            raise ValueError(f"release_engines.csv: {key} lacks an engine ({sorted(engines)})")
    return by_table


def render_engines(rows: list[dict]) -> str:
    """The docs table of the engines' rows (the CSV's, as strings): per table, each engine's time and memory, Dask's
    wall time over the single process's against :data:`DASK_WALL_LIMIT`, and whether the statements are one."""
    lines = [
        "| table | cells | files in | engine | files out | seconds | peak memory | wall time / single "
        "process's | statement |",
        "|---|---:|---:|---|---:|---:|---:|---|---|",
    ]
    for (shape, cells), engines in _engine_rows(rows).items():
        single = engines["single process"]
        for engine, row in engines.items():
            ratio = float(row["seconds"]) / float(single["seconds"])
            verdict = (
                ""
                if row is single
                else (
                    f"{ratio:.2f} ({'within' if ratio <= DASK_WALL_LIMIT else 'beyond'} the {DASK_WALL_LIMIT}× limit)"
                )
            )
            same = row["statement_sha256"] == single["statement_sha256"]
            statement = (
                "SHA-256 " + row["statement_sha256"][:12] + "…"
                if row is single
                else "byte-identical"
                if same
                else "DIFFERS from the single process's"
            )
            lines.append(
                f"| {'nested geography, Gaussian' if shape == 'nested' else 'blocks of 100, ℓ1'} | "
                f"{cells:,} | {int(row['input_files'])} | {engine} | {int(row['output_files'])} | "
                f"{float(row['seconds']):,.1f} | {int(row['peak_mb']):,} MB | {verdict} | {statement} |"
            )
    return "\n".join(lines) + "\n"


def write_engine_docs(csv_path: Path = ENGINES_CSV, doc: Path = PERFORMANCE) -> None:
    """Rewrite the engines' table of docs/performance.md from the CSV."""
    from measurements_table import replace_block

    with csv_path.open() as fh:
        replace_block(doc, "release-engines", render_engines(list(csv.DictReader(fh))))


def run(case: str, max_attempts: int, repeats: int = 1) -> dict:
    """One case: the command run ``repeats`` times on the same table, its fastest wall time and largest peak memory
    (the fastest run is the one least slowed by other load on a shared machine); the rest from the last run."""
    with tempfile.TemporaryDirectory() as tmp:
        if case.startswith("tables-"):
            tables, invariants, n_blocks = _tables(case, Path(tmp), np.random.default_rng(1))
        else:
            tables = [Path(tmp) / "t.csv"]
            invariants, n_blocks = write_table(case, tables[0], np.random.default_rng(1))
        cells = sum(sum(1 for _ in table.open()) - 1 for table in tables)
        outputs = [Path(tmp) / f"out{i}.csv" for i in range(len(tables))]
        out = outputs[0]
        args = [
            "release",
            *map(str, tables),
            *invariants,
            "--epsilon",
            "1",
            "--max-attempts",
            str(max_attempts),
            *(a for o in outputs for a in ("-o", str(o))),
            "--quiet",
        ]
        err = Path(tmp) / "stderr"
        seconds, peak = math.inf, 0
        for _ in range(repeats):
            for o in outputs:
                for path in (o, Path(str(o) + ".audit.json"), Path(str(o) + ".statement.json")):
                    path.unlink(missing_ok=True)
            with err.open("w") as fh:
                took, code, used = run_isdp(args, fh)
            seconds, peak = min(seconds, took), max(peak, used)
        audit = json.loads(Path(str(out) + ".audit.json").read_text()) if code == 0 else {}
        statement_path = Path(str(out) + ".statement.json")
        statement = json.loads(statement_path.read_text()) if code == 0 else {}
        return {
            "case": case,
            "cells": cells,
            "invariants": " ".join(a for a in invariants if a != "--invariant"),
            "tables_in_norm": sum(t["in_norm"] for t in statement["tables"]) if "tables" in statement else None,
            "rows": len(statement.get("invariants", [])) or None,
            "blocks": n_blocks,
            "exit": code,
            "route": audit.get(
                "route", "refused: " + err.read_text().strip().removeprefix("isdp release: error: ")[:90]
            ),
            "attempts": audit.get("exact_sampler", {}).get("attempts"),
            "seconds": round(seconds, 2),
            "peak_mb": round(peak / 1024),
            "statement_kb": round(statement_path.stat().st_size / 1024, 1) if code == 0 else None,
            **_variance_spread(statement),
        }


def _variance_spread(statement: dict) -> dict:
    """The largest noised cell's variance over the median's, and the median over the smallest, where
    the statement states them: the free-cell route's cells, the Gaussian route's blocks (Klein's)."""
    route = statement.get("route", {})
    if "blocks" in route:
        per_cell = [b.get("noise_variance_per_cell", b.get("noise_variance_per_cell_at_most")) for b in route["blocks"]]
        values = np.repeat(per_cell, [b["cells"] * b["blocks"] for b in route["blocks"]])
    elif "noise_variance" in route:
        v = route["noise_variance"]
        solved = np.array(list(v["solved_cells"].values()))
        free = statement["cells"]["count"] - len(solved) if "cells" in statement else 0
        values = np.concatenate([np.full(free, v["free_cell"]), solved])
    else:
        values = np.zeros(0)
    values = values[values > 0]  # a cell the invariants fix gets no noise
    if not values.size:
        return {"median_variance": None, "variance_max_over_median": None, "variance_median_over_min": None}
    median = float(np.median(values))
    return {
        "median_variance": round(median, 2),
        "variance_max_over_median": round(float(values.max()) / median, 2),
        "variance_median_over_min": round(median / float(values.min()), 2),
    }


def study() -> list[dict]:
    """The exact route's forecast against size (ε = 1 per person: 1/2 per unit of ℓ1): expected
    proposals per draw and the free-cell route's largest variance ratio, for one total over n
    cells and both margins of r × r tables; no table is read (a function of A and ε only).

    A block under one total is drawn directly (one draw); beside it, the proposals the rejection would need,
    1/P(accept) with P(accept) = P(S_n = 0)/P(DG = 0) exactly (``sum_constraint_acceptance``)."""
    from fractions import Fraction

    from isdp.exact import ExactSampler, sum_constraint_acceptance
    from isdp.lattice import table_margins
    from isdp.mcmc import DoubleGeometric

    eps = Fraction(1, 2)
    cases = [(f"total of {n}", np.ones((1, n), dtype=np.int64)) for n in (10, 100, 1000)]
    cases += [(f"{r} x {r} margins", table_margins(r, r)) for r in (2, 3, 4, 5, 6, 8, 10, 20)]
    cases.append(("50 x 23 margins", table_margins(50, 23)))
    rows = []
    for name, A in cases:
        sampler = ExactSampler.build(A)
        ((_, block),) = sampler.parts
        log_acc = block.log_acceptance(eps)
        direct = block.direct_signs(eps) is not None
        rejection = np.log(sum_constraint_acceptance(A.shape[1], float(eps))) if direct else log_acc
        rows.append(
            {
                "invariants": name,
                "cells": A.shape[1],
                "free": sampler.n_free,
                "log10_expected_proposals": round(0.0 - log_acc / np.log(10), 2),  # 0.0, never -0.0
                "drawn_directly": direct,
                "log10_rejection_proposals": round(-rejection / np.log(10), 2),
                "free_cells_max_variance_ratio": round(
                    float(sampler.variances(eps).max() / DoubleGeometric(float(eps)).variance()), 1
                ),
            }
        )
    return rows


ACCEPTANCE_CSV = RESULTS / "exact_acceptance.csv"


def _acceptance_line(what: str, chosen: list[dict]) -> str:
    """One line of the study's table: ``chosen``'s rows side by side (one sampler)."""
    samplers = {r["drawn_directly"] for r in chosen}
    if len(samplers) != 1 or not samplers <= {"True", "False"}:
        raise ValueError(f"the rows of '{what}' mix samplers or do not say theirs: {sorted(samplers)}")

    def column(key: str, form: str) -> str:
        return " / ".join(format(float(r[key]), form) for r in chosen)

    sampler = "drawn directly" if samplers == {"True"} else "rejection"
    cells = " / ".join(f"{int(r['cells']):,}" for r in chosen)
    proposals, rejection = column("log10_expected_proposals", ".1f"), column("log10_rejection_proposals", ".1f")
    ratio = column("free_cells_max_variance_ratio", ",.0f")
    return f"| {what} | {cells} | {sampler} | {proposals} | {rejection} | {ratio} |"


def render_acceptance(rows: list[dict]) -> str:
    """The docs table of the study's rows (the CSV's, as strings): the totals on one line, the margins three a line."""
    totals = [r for r in rows if r["invariants"].startswith("total")]
    margins = [r for r in rows if not r["invariants"].startswith("total")]
    lines = [
        "| invariants | cells | sampler | log₁₀ expected proposals | by rejection | free cells: largest "
        "variance ratio |",
        "|---|---:|---|---:|---:|---:|",
    ]
    if totals:
        sizes = " / ".join(f"{int(r['cells']):,}" for r in totals)
        lines.append(_acceptance_line(f"one total of {sizes} cells", totals))
    for start in range(0, len(margins), 3):
        chosen = margins[start : start + 3]
        shapes = " / ".join(r["invariants"].removesuffix(" margins").replace(" x ", " × ") for r in chosen)
        lines.append(_acceptance_line(f"both margins, {shapes}", chosen))
    return "\n".join(lines) + "\n"


def write_acceptance_docs(csv_path: Path = ACCEPTANCE_CSV, docs: tuple[Path, ...] = (DOC, PERFORMANCE)) -> None:
    """Rewrite the docs tables of the exact route against size (release.md's and performance.md's) from the CSV."""
    from measurements_table import replace_block

    with csv_path.open() as fh:
        table = render_acceptance(list(csv.DictReader(fh)))
    for doc in docs:
        replace_block(doc, "exact-acceptance", table)


def _case_text(case: str) -> tuple[str, str]:
    if case in CASE_TEXT:
        return CASE_TEXT[case]
    base = case.removesuffix("-free").removesuffix("-gaussian")
    r, c = base.split("-")[1].split("x")
    suffix = ", `--free-cells`" if case.endswith("-free") else ", Gaussian" if case.endswith("-gaussian") else ""
    return f"{r} × {c}{suffix}", "both margins"


def _outcome(row: dict) -> str:
    route, attempts = row["route"], row["attempts"]
    if route.startswith("refused"):
        reason = route.removeprefix("refused: ")
        return "refused: " + (
            reason.split(" for one draw")[0].replace("the exact sampler would need ", "needs ")
            if "would need" in reason
            else reason
        )
    if row["invariants"].endswith("--delta 1e-6"):
        return "exact Gaussian, Klein's sampler"
    if route == "free cells":
        return "free-cell release"
    return f"exact release ({int(float(attempts)):,} proposals)" if attempts else "exact release"


def _number(value: str, digits: int = 2) -> str:
    return "" if value in ("", "None") else f"{float(value):,.{digits}f}".rstrip("0").rstrip(".")


def render_table(rows: list[dict]) -> str:
    """The docs table of ``rows`` (the CSV's rows, as strings): one line per case, in the CSV's order."""
    lines = [
        "| table | cells | invariants (rows) | groups | outcome | seconds | peak memory | statement | "
        "median cell variance | largest / median / smallest |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        table, invariants = _case_text(row["case"])
        spread = ""
        if row["variance_max_over_median"] not in ("", "None"):
            smallest = str(1 / float(row["variance_median_over_min"]))
            spread = f"{_number(row['variance_max_over_median'])} : 1 : {_number(smallest)}"
        rows_text = f" ({int(row['rows']):,})" if row["rows"] not in ("", "None") else ""
        kb = f"{_number(row['statement_kb'], 0)} kB" if row["statement_kb"] not in ("", "None") else ""
        lines.append(
            f"| {table} | {int(row['cells']):,} | {invariants}{rows_text} | {int(row['blocks']):,} | "
            f"{_outcome(row)} | {_number(row['seconds'], 1)} | {row['peak_mb']} MB | {kb} | "
            f"{_number(row['median_variance'], 1)} | {spread} |"
        )
    return "\n".join(lines) + "\n"


def write_docs(csv_path: Path = SCALE, doc: Path = DOC) -> None:
    """Rewrite the docs table from the CSV."""
    from measurements_table import replace_block

    with csv_path.open() as fh:
        replace_block(doc, "release-scale", render_table(list(csv.DictReader(fh))))


def _write_csv(path: Path, rows: list[dict]) -> None:
    RESULTS.mkdir(exist_ok=True)
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT))
    parser.add_argument("--max-attempts", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3, help="runs per case; the fastest is kept (default 3)")
    parser.add_argument(
        "--study",
        action="store_true",
        help="the exact route's acceptance against size (writes results/exact_acceptance.csv) instead of the cases",
    )
    parser.add_argument(
        "--engines",
        action="store_true",
        help="a 10^8-cell Parquet dataset released by the single "
        "process and by a 2-worker Dask cluster (writes results/release_engines.csv) instead of the "
        "cases",
    )
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs tables from the CSVs")
    args = parser.parse_args()
    if args.docs:
        write_docs()
        write_engine_docs()
        write_acceptance_docs()
        return
    if args.engines:
        _write_csv(ENGINES_CSV, [row for shape in ENGINE_SHAPES for row in compare_engines(shape)])
        write_engine_docs()
        return
    if args.study:
        rows = study()
        for row in rows:
            print(row, flush=True)
        _write_csv(ACCEPTANCE_CSV, rows)
        write_acceptance_docs()
        return
    rows = {}
    for case in args.cases:
        rows[case] = run(case, args.max_attempts, args.repeats)
        print(rows[case], flush=True)
    RESULTS.mkdir(exist_ok=True)
    kept = {r["case"]: r for r in csv.DictReader(SCALE.open())} if SCALE.exists() else {}
    fields = list(next(iter(rows.values())))
    merged = {**{c: r for c, r in kept.items() if set(r) == set(fields)}, **rows}  # a new column: rerun all
    listed = (*DEFAULT[:2], "blocks-100000", *DEFAULT[2:])
    order = [c for c in listed if c in merged] + [c for c in merged if c not in listed]
    with SCALE.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(merged[c] for c in dict.fromkeys(order))
    write_docs()


if __name__ == "__main__":
    main()
