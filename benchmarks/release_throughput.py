"""Exact noise per second: isdp's samplers and release command against OpenDP's exact samplers.

Every row runs in a fresh process on one table shape, a long table of N cells in blocks of 100
under one total each, ε = 1 per person, operating-system entropy, and records the wall seconds,
the cells per second and the process's peak memory:

- ``isdp-release-l1`` and ``isdp-release-gaussian``: the whole ``isdp release`` command (reading,
  planning, the exact draw, the checks, the three files; the Gaussian route at δ = 10⁻⁶), through
  ``release_scale.run``;
- ``isdp-release-l1-parquet``: the same ℓ1 release read from and written to Parquet (the table
  written by pyarrow beforehand, outside the timing);
- ``isdp-release-gaussian-margins``: the Gaussian route's release of one 1000 × 1000 table under
  both margins (δ = 10⁻⁶), one block of 10⁶ cells drawn by Klein's sampler, from CSV;
  ``isdp-release-gaussian-margins-parquet`` the same table from and to Parquet (keys ``r0``…,
  ``c0``…);
- ``isdp-release-nested-parquet``: nested geography from and to Parquet, 50 states each of N/5,000
  counties × 100 age groups, under the nation's total, each state's, each county's and each
  state's age margin, on the Gaussian route (δ = 10⁻⁶): one block per state, two margins each,
  drawn by Klein's sampler;
- ``isdp-release-l1-parquet-dask`` and ``isdp-release-nested-parquet-dask``: the same two Parquet
  releases with ``--engine dask --workers 2`` (a local cluster of two worker processes, started and
  closed by the command, inside the timing); their peak memory is the process tree's, summed every
  0.2 s;
- ``isdp-release-l1-parquet-local`` and ``isdp-release-nested-parquet-local``: the same two releases by the
  local engine's default, a worker process per core (two here) from 2²³ cells; their peak memory is the
  process tree's;
- ``isdp-release-nested-unequal-parquet-local``: the nested geography by the local engine, its 50 states of
  1/2 to 3/2 times N/5,000 counties, no two alike: the benchmark's states share one shape, so a worker plans one
  and reuses it (``isdp.release._same_invariants``); here every part plans its own, as a real nation's do;
- ``isdp-l1-one-total``: ``isdp.exact.IntegerL1Sampler.draw_blocks`` alone, N/100 blocks of 100 cells under
  one total at ε = 1/2 per unit ℓ1 distance, drawn directly: the ℓ1 release's kernel;
- ``isdp-klein-compiled``: ``isdp.exact.LatticeBlock.draw_blocks`` alone, N/100 blocks of 100 cells
  under one total at σ = 4 (OpenDP's Gaussian row's scale), exact discrete Gaussian noise on the
  invariants' lattice;
- ``isdp-dg-compiled``: ``isdp.exact.compiled_double_geometric`` alone, N draws of DG(1/2) (the
  ℓ1 route's unit: ε/2 per cell);
- ``isdp-dg-array``: ``isdp.exact.double_geometric_array`` alone (numpy integer arithmetic: the release's
  sampler where ε's numerator or denominator is 2**31 or more);
- ``opendp-laplace`` and ``opendp-gaussian``: OpenDP's exact discrete Laplace (scale 2) and
  discrete Gaussian (scale 4) on an i64 vector of N zeros: the measurement alone, no invariants.

The noise rows time the draws only (the import and the first call's compilation excluded: a call
of 10,000 first); the release rows time the whole command, interpreter start-up included. The
machine's sampler speed (``measurements_table.sampler_speed``) is measured in the same run and
stored beside the rows.

    python benchmarks/release_throughput.py                 # the default sizes (about 40 minutes)
    python benchmarks/release_throughput.py --docs          # only rewrite the docs table from the CSV

Writes benchmarks/results/release_throughput.csv and the table between
``<!-- release-throughput:start -->`` and ``<!-- release-throughput:end -->`` of docs/performance.md
(``tests/benchmarks/test_release_throughput.py`` checks that the committed table is the one the
committed CSV gives).
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
THROUGHPUT = RESULTS / "release_throughput.csv"
DOC = ROOT / "docs" / "performance.md"
#: (row, cell counts) run by default; the release command is timed on the smaller tables only
DEFAULT = {
    "isdp-release-l1": (10_000, 100_000, 1_000_000),
    "isdp-release-gaussian": (10_000, 100_000),
    "isdp-release-l1-parquet": (100_000, 1_000_000, 10_000_000),
    "isdp-release-l1-parquet-local": (10_000_000, 100_000_000),
    "isdp-release-l1-parquet-dask": (10_000_000, 100_000_000),
    "isdp-release-gaussian-margins": (1_000_000,),
    "isdp-release-gaussian-margins-parquet": (1_000_000,),
    "isdp-release-nested-parquet": (1_000_000, 10_000_000),
    "isdp-release-nested-parquet-local": (10_000_000, 100_000_000),
    "isdp-release-nested-parquet-dask": (10_000_000, 100_000_000),
    "isdp-release-nested-unequal-parquet-local": (100_000_000,),
    "isdp-l1-one-total": (1_000_000, 10_000_000),
    "isdp-klein-compiled": (100_000, 1_000_000, 10_000_000),
    "isdp-dg-compiled": (100_000, 1_000_000, 10_000_000),
    "isdp-dg-array": (100_000, 1_000_000),
    "opendp-laplace": (100_000, 1_000_000),
    "opendp-gaussian": (100_000, 1_000_000),
}
WHAT = {
    "isdp-release-l1": "`isdp release`, exact ℓ1 route (whole command)",
    "isdp-release-l1-parquet": "`isdp release --workers 1`, exact ℓ1 route, Parquet in and out (whole command)",
    "isdp-release-gaussian-margins": "`isdp release`, exact Gaussian route, one 1000 × 1000 table under both "
    "margins (whole command)",
    "isdp-release-gaussian-margins-parquet": "`isdp release --workers 1`, exact Gaussian route, one 1000 × 1000 "
    "table under both margins, Parquet in and out (whole command)",
    "isdp-release-nested-parquet": "`isdp release --workers 1`, exact Gaussian route, nested geography (50 states × "
    "counties × 100 ages: nation, states, counties, each state's age margin), "
    "Parquet in and out (whole command)",
    "isdp-release-l1-parquet-local": "`isdp release`, exact ℓ1 route, Parquet in and out, the local engine on "
    "every core (whole command; memory: the process tree's)",
    "isdp-release-nested-parquet-local": "`isdp release`, nested geography as above, the local engine on every "
    "core (whole command; memory: the process tree's)",
    "isdp-release-nested-unequal-parquet-local": "`isdp release`, nested geography whose states differ (1/2 to 3/2 "
    "times the counties, no two alike: each part plans its own), the local engine on every core (whole command; "
    "memory: the process tree's)",
    "isdp-l1-one-total": "isdp exact ℓ1 sampler, blocks of 100 under one total, drawn directly (noise alone)",
    "isdp-release-l1-parquet-dask": "`isdp release --engine dask --workers 2`, exact ℓ1 route, Parquet in and "
    "out (whole command; memory: the process tree's)",
    "isdp-release-nested-parquet-dask": "`isdp release --engine dask --workers 2`, nested geography as above "
    "(whole command; memory: the process tree's)",
    "isdp-klein-compiled": "isdp Klein sampler, blocks of 100 under one total (noise alone)",
    "isdp-release-gaussian": "`isdp release`, exact Gaussian route (whole command)",
    "isdp-dg-compiled": "isdp `compiled_double_geometric` (noise alone)",
    "isdp-dg-array": "isdp `double_geometric_array` (noise alone)",
    "opendp-laplace": "OpenDP discrete Laplace (noise alone)",
    "opendp-gaussian": "OpenDP discrete Gaussian (noise alone)",
}

_NOISE = {
    "isdp-l1-one-total": (
        "from fractions import Fraction\n"
        "import numpy as np\n"
        "from isdp.exact import IntegerL1Sampler, system_source\n"
        "block = IntegerL1Sampler.build(np.ones((1, 100), dtype=np.int64))\n"
        "draw = lambda n: block.draw_blocks(Fraction(1, 2), n // 100, system_source(), max_attempts=1)[0].ravel()\n"
    ),
    "isdp-klein-compiled": (
        "from fractions import Fraction\n"
        "import numpy as np\n"
        "from isdp.exact import lattice_block, system_source\n"
        "block = lattice_block(np.ones((1, 100), dtype=np.int64))\n"
        "draw = lambda n: block.draw_blocks(Fraction(16), n // 100, system_source())[0].ravel()\n"
    ),
    "isdp-dg-compiled": (
        "from fractions import Fraction\n"
        "from isdp.exact import compiled_double_geometric, system_source\n"
        "draw = lambda n: compiled_double_geometric(Fraction(1, 2), n, system_source())\n"
    ),
    "isdp-dg-array": (
        "from fractions import Fraction\n"
        "from isdp.exact import double_geometric_array, system_source\n"
        "draw = lambda n: double_geometric_array(Fraction(1, 2), n, system_source())\n"
    ),
    "opendp-laplace": (
        "import opendp.prelude as dp\n"
        "dp.enable_features('contrib')\n"
        "draw = lambda n: dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=dp.i64), size=n),\n"
        "    dp.l1_distance(T=dp.i64), scale=2.0)([0] * n)\n"
    ),
    "opendp-gaussian": (
        "import opendp.prelude as dp\n"
        "dp.enable_features('contrib')\n"
        "draw = lambda n: dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=dp.i64), size=n),\n"
        "    dp.l2_distance(T=dp.f64), scale=4.0)([0] * n)\n"
    ),
}
#: timing code appended to a noise row's set-up: one call of 10,000 first (past every small-size shortcut, so the
#: compiled kernels are loaded before the timing), then N draws timed
_TIMED = (
    "import sys, time\n"
    "draw(10_000)\n"
    "n = int(sys.argv[1])\n"
    "tick = time.perf_counter()\n"
    "out = draw(n)\n"
    "seconds = time.perf_counter() - tick\n"
    "assert len(out) == n\n"
    "peak = [line for line in open('/proc/self/status') if line.startswith('VmHWM:')][0].split()[1]\n"
    "print(seconds, int(peak) // 1024)\n"
)


def _noise_row(sampler: str, cells: int) -> dict:
    from release_scale import timed_env

    proc = subprocess.Popen(
        [sys.executable, "-c", _NOISE[sampler] + _TIMED, str(cells)], stdout=subprocess.PIPE, text=True, env=timed_env()
    )
    seconds, peak_mb = proc.communicate()[0].split()
    if proc.returncode != 0:
        raise RuntimeError(f"{sampler} at {cells} cells failed (exit {proc.returncode})")
    # the child's own high-water mark (VmHWM): its rusage would count the parent's memory at the fork too
    return {"seconds": float(seconds), "peak_mb": int(peak_mb)}


def _release_row(sampler: str, cells: int) -> dict:
    from release_scale import run

    if sampler == "isdp-release-gaussian-margins":
        side = round(cells**0.5)
        case = f"margins-{side}x{side}-gaussian"
    else:
        case = f"blocks-{cells}" + ("-gaussian" if sampler.endswith("gaussian") else "")
    row = run(case, 20_000)
    if row["exit"] != 0:
        raise RuntimeError(f"{case}: {row['route']}")
    return {"seconds": row["seconds"], "peak_mb": row["peak_mb"]}


#: the Parquet release rows: (the table's shape, the invariants and route); a ``-dask`` row is its row's release on a
#: local Dask cluster of two worker processes
_DASK = ["--engine", "dask", "--workers", "2"]
_PARQUET = {
    "isdp-release-l1-parquet": ("blocks", ["--invariant", "by:group"]),
    "isdp-release-gaussian-margins-parquet": (
        "margins",
        ["--invariant", "all-margins", "--norm", "gaussian", "--delta", "1e-6"],
    ),
    "isdp-release-nested-parquet": (
        "nested",
        [
            "--invariant",
            "total",
            "--invariant",
            "by:state",
            "--invariant",
            "by:state,county",
            "--invariant",
            "by:state,age",
            "--norm",
            "gaussian",
            "--delta",
            "1e-6",
        ],
    ),
}
_PARQUET.update(
    {
        f"{row}-dask": (shape, [*invariants, *_DASK])
        for row, (shape, invariants) in list(_PARQUET.items())
        if row != "isdp-release-gaussian-margins-parquet"
    }
)
#: a ``-local`` row is its row's release by the local engine's default: a worker process per core from 2**23 cells
_PARQUET.update(
    {
        f"{row}-local": (shape, invariants)
        for row, (shape, invariants) in list(_PARQUET.items())
        if row in ("isdp-release-l1-parquet", "isdp-release-nested-parquet")
    }
)
_PARQUET["isdp-release-nested-unequal-parquet-local"] = ("nested-unequal", _PARQUET["isdp-release-nested-parquet"][1])
#: the other rows without Dask run in one process (``--workers 1``)
_PARQUET.update(
    {
        row: (shape, [*invariants, "--workers", "1"])
        for row, (shape, invariants) in _PARQUET.items()
        if not row.endswith(("-dask", "-local"))
    }
)


def _parquet_release_row(sampler: str, cells: int) -> dict:
    import tempfile

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from release_scale import parquet_columns, run_isdp

    shape, invariants = _PARQUET[sampler]
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        table, out = Path(tmp, "t.parquet"), Path(tmp, "out.parquet")
        columns = parquet_columns(shape, cells)
        pq.write_table(pa.table({**columns, "count": rng.poisson(50, cells)}), table)
        del columns
        seconds, code, peak = run_isdp(
            ["release", str(table), *invariants, "--epsilon", "1", "-o", str(out), "--quiet"],
            None,
            tree=sampler.endswith(("-dask", "-local")),
        )
        if code != 0:
            raise RuntimeError(f"the Parquet release {sampler} of {cells} cells failed")
        return {"seconds": seconds, "peak_mb": round(peak / 1024)}


def measure(sampler: str, cells: int) -> dict:
    """One row: the sampler's wall seconds for ``cells`` cells, cells per second and peak memory (MB)."""
    if sampler in _PARQUET:
        timed = _parquet_release_row(sampler, cells)
    elif sampler.startswith("isdp-release"):
        timed = _release_row(sampler, cells)
    else:
        timed = _noise_row(sampler, cells)
    return {
        "sampler": sampler,
        "cells": cells,
        "seconds": round(timed["seconds"], 6),
        "cells_per_second": round(cells / timed["seconds"]),
        "peak_mb": timed["peak_mb"],
    }


def render_table(rows: list[dict], sampler_mups: float | None) -> str:
    """The docs table of ``rows`` (the CSV's rows, as strings), and the machine's sampler speed under it."""
    lines = ["| what | cells | seconds | cells per second | peak memory |", "|---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {WHAT[row['sampler']]} | {int(row['cells']):,} | {float(row['seconds']):,.2f} | "
            f"{int(row['cells_per_second']):,} | {int(row['peak_mb']):,} MB |"
        )
    lines += _projection(rows)
    lines += _command_lines(rows)
    ratios = _family_ratios(rows)
    if ratios:
        lines += [
            "",
            "Noise per core against OpenDP's exact sampler of the same family, on the same number of cells: "
            + "; ".join(ratios)
            + ".",
        ]
    if sampler_mups is not None:
        lines += [
            "",
            f"Measured in one run on a machine whose sampler speed was {sampler_mups:.1f} M updates/s "
            "(`benchmarks/measurements_table.py`'s reference case).",
        ]
    return "\n".join(lines) + "\n"


#: isdp's exact noise and OpenDP's sampler of the same family
FAMILIES = {
    "isdp-dg-compiled": ("opendp-laplace", "the double geometric (discrete Laplace)"),
    "isdp-klein-compiled": (
        "opendp-gaussian",
        "Klein's discrete Gaussian on the invariants' lattice, against OpenDP's discrete Gaussian",
    ),
}


#: the Dask rows whose largest release projects a histogram of billions of cells, and the workers they ran on
_PROJECTED = {
    "isdp-release-l1-parquet-dask": "blocks of 100 (ℓ1)",
    "isdp-release-nested-parquet-dask": "nested geography (Gaussian)",
}
_WORKERS = 2


def _projection(rows: list[dict]) -> list[str]:
    """Cells per worker-second of each Dask row's largest release, and what they project for 10⁹ and 10¹⁰ cells."""
    out = []
    for sampler, what in _PROJECTED.items():
        runs = [r for r in rows if r["sampler"] == sampler]
        if not runs:
            continue
        run = max(runs, key=lambda r: int(r["cells"]))
        rate = int(run["cells"]) / (float(run["seconds"]) * _WORKERS)
        hours = [n / rate / 3600 for n in (1e9, 1e10)]
        out.append(
            f"{what}: {rate:,.0f} cells per worker-second at {int(run['cells']):,} cells, so 10⁹ cells in "
            f"{hours[0]:,.1f} worker-hours ({hours[0] * 60 / 100:,.1f} min on 100 workers) and 10¹⁰ in "
            f"{hours[1]:,.0f} ({hours[1] * 60 / 100:,.0f} min on 100)"
        )
    if not out:
        return []
    return [
        "",
        "Projected for a census histogram of billions of cells, from the two-worker Dask rows (cells per "
        "worker-second = cells / (seconds × 2), the command's start-up and the cluster's included): "
        + "; ".join(out)
        + ". The projection assumes the parts stay independent (a partition key with many "
        "values: no block larger than a part), the per-core speed of this machine, a filesystem that reads the "
        "input and takes the parts' files as fast as the workers need, and the driver's own work (reading the "
        "partition key, joining the parts' files and the statement, a share of the time measured here) "
        "growing no faster than the cells.",
    ]


#: per release row, the kernel-alone row of its noise and OpenDP's noise row of its family
_COMMANDS = {
    "isdp-release-l1-parquet": ("isdp-l1-one-total", "opendp-laplace", "ℓ1, blocks of 100, one process"),
    "isdp-release-l1-parquet-local": ("isdp-l1-one-total", "opendp-laplace", "ℓ1, blocks of 100, every core"),
    "isdp-release-nested-parquet": ("isdp-klein-compiled", "opendp-gaussian", "nested geography, one process"),
    "isdp-release-nested-parquet-local": ("isdp-klein-compiled", "opendp-gaussian", "nested geography, every core"),
}


def _command_lines(rows: list[dict]) -> list[str]:
    """The whole command's seconds over its kernel's alone, and OpenDP's noise-alone seconds over the command's."""
    seconds = {(r["sampler"], int(r["cells"])): float(r["seconds"]) for r in rows}
    rate = {(r["sampler"], int(r["cells"])): int(r["cells_per_second"]) for r in rows}
    kernel, opendp = [], []
    for command, (noise, theirs, what) in _COMMANDS.items():
        sizes = sorted(n for s, n in seconds if s == command)
        if not sizes:
            continue
        largest = sizes[-1]
        fastest = max((rate[s, n] for s, n in rate if s == noise), default=None)
        if fastest:
            kernel.append(f"{what}, {largest:,} cells: {seconds[command, largest] * fastest / largest:.1f}×")
        opendp += [
            f"{what}, {n:,} cells: {seconds[theirs, n] / seconds[command, n]:.1f}×"
            for n in sizes
            if (theirs, n) in seconds
        ]
    out = []
    if kernel:
        out += [
            "",
            "The whole command's seconds over its noise drawn alone on one core (the same cells at the kernel's "
            "fastest rate in the table; Klein's blocks of 100 for the nested geography): " + "; ".join(kernel) + ".",
        ]
    if opendp:
        out += [
            "",
            "OpenDP's noise alone over isdp's whole command (reading, planning, drawing, checking and writing), "
            "on the same number of cells: " + "; ".join(opendp) + ".",
        ]
    return out


def _family_ratios(rows: list[dict]) -> list[str]:
    """isdp's cells per second over OpenDP's, per family, at each number of cells both were run on."""
    rate = {(r["sampler"], int(r["cells"])): int(r["cells_per_second"]) for r in rows}
    out = []
    for ours, (theirs, what) in FAMILIES.items():
        common = sorted(n for s, n in rate if s == ours and (theirs, n) in rate)
        if common:
            ratios = ", ".join(f"{rate[ours, n] / rate[theirs, n]:.0f}× at {n:,}" for n in common)
            out.append(f"{what}, {ratios}")
    return out


def _read(csv_path: Path) -> tuple[list[dict], float | None]:
    with csv_path.open() as fh:
        rows = list(csv.DictReader(fh))
    speeds = {r["sampler_mups"] for r in rows}
    return rows, float(next(iter(speeds))) if len(speeds) == 1 else None


def write_docs(csv_path: Path = THROUGHPUT, doc: Path = DOC) -> None:
    """Rewrite the docs table from the CSV."""
    from measurements_table import replace_block

    replace_block(doc, "release-throughput", render_table(*_read(csv_path)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs table from the CSV")
    args = parser.parse_args()
    if args.docs:
        write_docs()
        return
    from measurements_table import sampler_speed

    rows = []
    for sampler, sizes in DEFAULT.items():
        for cells in sizes:
            rows.append(measure(sampler, cells))
            print(rows[-1], flush=True)
    speed = round(sampler_speed(), 1)  # after the rows: this process's memory is not in theirs
    rows = [{**row, "sampler_mups": speed} for row in rows]
    RESULTS.mkdir(exist_ok=True)
    with THROUGHPUT.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_docs()


if __name__ == "__main__":
    tick = time.perf_counter()
    main()
    print(f"{time.perf_counter() - tick:.0f} s", file=sys.stderr)
