"""The run times of the project's commands, recorded by the Makefile and written as the one table of them:
docs/performance.md's measurements block and the README's two-command block, both generated from
benchmarks/results/make_times.csv.

    python benchmarks/measurements_table.py speed --run DIR
    python benchmarks/measurements_table.py record "make reproduce" --start EPOCH --run DIR [--stamp STAMP]
    python benchmarks/measurements_table.py publish DIR/results/make_times.csv ...
    python benchmarks/measurements_table.py write

``record`` runs at the end of `make reproduce`, `make test` and `make national` (the Makefile passes EPOCH, the
time make read the Makefile, so the install counts when that run had to do it) and writes the run's row into the
run's own ``DIR/results/make_times.csv``, an ignored file: the commands leave the checkout as they found it. It
measures:

- the wall time from EPOCH to now;
- the jobs the run executed and their summed job time (benchmarks/workflow_times.py: each job's log or
  Snakemake benchmark file written since EPOCH); a run that left any of DIR's timed jobs as they were (most
  outputs up to date) is not recorded, so every recorded time is a complete run;
- whether the install ran (the stamp file written since EPOCH);
- the machine's sampler speed: benchmarks/sampler_throughput.py's reference case (one chain, numba 1 thread),
  component updates per wall-clock second, median of five runs, read right before the workflow starts (``speed``,
  which the Makefile runs then, into ``DIR/results/sampler_before.json``) and right after the run; the row keeps
  both and is read against the faster (:func:`reference_speed`);
- the machine (as benchmarks/cost_growth.py records it), the time and the commit.

``publish`` (run by the maintainers' `make readme-numbers`) puts each given run's row in place of its command's
row of the committed make_times.csv and rewrites both blocks; ``write`` rewrites them from the file alone.
tests/benchmarks/test_measurements_table.py checks that the committed blocks are what ``write`` makes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
TIMES = ROOT / "benchmarks" / "results" / "make_times.csv"
PERFORMANCE, README = ROOT / "docs" / "performance.md", ROOT / "README.md"
COLUMNS = [
    "command",
    "wall_seconds",
    "jobs",
    "job_seconds",
    "install",
    "sampler_mups",
    "sampler_before",
    "sampler_after",
    "machine",
    "recorded_utc",
    "commit",
    "note",
]
COMMANDS = ("make reproduce", "make test", "make national")  # table order; the README shows the first two
SOURCE = "`benchmarks/results/make_times.csv`, which `make readme-numbers` updates from the commands' last runs"


def duration(seconds: float) -> str:
    """``325`` → ``5 min 25 s``."""
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def read_times(path: Path = TIMES) -> pd.DataFrame:
    """make_times.csv, one row per command (index), in table order."""
    df = pd.read_csv(path, dtype={"commit": str, "note": str}).fillna({"commit": "", "note": ""})
    return df.set_index("command").reindex([c for c in COMMANDS if c in set(df["command"])])


def _notes(df: pd.DataFrame) -> str:
    return "".join(f" `{command}`: {row.note}." for command, row in df.iterrows() if row.note)


def _speed(r) -> str:
    """The speed a row is read against, with the two readings it is the faster of (rows recorded before there was a
    reading before the run have only the one after)."""
    if pd.isna(r.sampler_before):
        return f"{r.sampler_mups:.1f} (after only)"
    return f"{r.sampler_mups:.1f} ({r.sampler_before:.1f} before, {r.sampler_after:.1f} after)"


def performance_block(df: pd.DataFrame) -> str:
    lines = [
        "| command | wall time | jobs run (their summed time) | install included | "
        "sampler speed (M updates/s) | machine |",
        "|---|---:|---:|---|---:|---|",
    ]
    for command, r in df.iterrows():
        jobs = f"{r.jobs:.0f}" + ("" if pd.isna(r.job_seconds) else f" ({duration(r.job_seconds)})")
        lines.append(
            f"| `{command}` | {duration(r.wall_seconds)} | {jobs} | {'yes' if r.install else 'no'} | "
            f"{_speed(r)} | {r.machine} |"
        )
    return "\n".join(lines) + f"\n\n<sub>Generated from {SOURCE}.{_notes(df)}</sub>\n"


def readme_block(df: pd.DataFrame) -> str:
    df = df.loc[[c for c in COMMANDS[:2] if c in df.index]]
    lines = ["| command | wall time, last recorded | the machine's sampler speed then |", "|---|---|---|"]
    for command, r in df.iterrows():
        install = ", install included" if r.install else ""
        lines.append(f"| `{command}` | {duration(r.wall_seconds)}{install} | {r.sampler_mups:.1f} M updates/s |")
    return (
        "\n".join(lines) + f"\n\n<sub>Generated from {SOURCE}.{_notes(df)} How each time is measured: "
        "[docs/performance.md](docs/performance.md#measurements).</sub>\n"
    )


def replace_block(path: Path, name: str, block: str) -> None:
    """Put ``block`` between ``<!-- name:start -->`` and ``<!-- name:end -->`` of ``path`` (exactly one pair)."""
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
    text, found = pattern.subn(lambda m: m.group(1) + block + m.group(2), path.read_text(encoding="utf-8"))
    if found != 1:
        raise ValueError(f"{path}: expected one <!-- {name}:start --> … <!-- {name}:end --> block, found {found}")
    path.write_text(text, encoding="utf-8")


def write(times: Path = TIMES, performance: Path = PERFORMANCE, readme: Path = README) -> None:
    df = read_times(times)
    replace_block(performance, "measurements", performance_block(df))
    replace_block(readme, "make-times", readme_block(df))


BEFORE = Path("results") / "sampler_before.json"  # in the run's directory: the reading ``speed`` takes


def reference_speed(before: float | None, after: float) -> float:
    """The speed a run is read against: the faster of the readings before and after it (``after`` alone without one
    before).

    Whatever else the machine runs during a reading (a shared machine's other guests) can only slow it, so the faster
    of two readings some minutes apart is the nearer the machine's own speed, and a time read against it is flattered
    only when both readings fall in slow spells.

    >>> reference_speed(41.2, 35.9), reference_speed(None, 35.9)
    (41.2, 35.9)
    """
    return after if before is None else max(before, after)


def sampler_speed(repeats: int = 5, updates: int = 5_000_000) -> float:
    """The reference case's median component updates per wall-clock second, in millions."""
    import numba
    import numpy as np
    from sampler_throughput import rates, reference_case

    numba.set_num_threads(1)
    _, lattice, target, proposal_eps = reference_case()
    wall, _ = rates(lattice, target, proposal_eps, updates, repeats)
    return float(np.median(wall)) / 1e6


def measure(command: str, start: float, run: Path, stamp: Path | None) -> dict | None:
    """The row ``record`` adds for a run of ``command`` begun at ``start`` in ``run``; None if the run left any
    timed job of ``run`` as it was.

    The reading before is ``run``'s :data:`BEFORE` if ``speed`` wrote it during this run; it counts in the wall time,
    as everything the command does (it also loads numba and the kernels, which the workflow's first jobs would).
    """
    from cost_growth import machine
    from workflow_times import read_jobs

    wall = time.time() - start
    reading = run / BEFORE
    before = None
    if reading.exists() and reading.stat().st_mtime >= start:  # else an earlier run's, or none
        before = json.loads(reading.read_text())["sampler_mups"]
    done, everything = read_jobs(run, since=start), read_jobs(run, since=0.0)
    if done.empty or len(done) < len(everything):
        print(f"{command}: {len(done)} of {len(everything)} jobs in {run} ran now; only complete runs are recorded")
        return None
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    after = round(sampler_speed(), 1)
    return {
        "command": command,
        "wall_seconds": round(wall),
        "jobs": len(done),
        "job_seconds": round(done["seconds"].sum()),
        "install": bool(stamp is not None and stamp.exists() and stamp.stat().st_mtime >= start),
        "sampler_mups": reference_speed(before, after),
        "sampler_before": before,
        "sampler_after": after,
        "machine": machine(),
        "recorded_utc": f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M}",
        "commit": commit.stdout.strip(),
        "note": "",
    }


def speed(run: Path) -> float:
    """Read the machine's sampler speed now into ``run``'s :data:`BEFORE` (the Makefile: right before the workflow
    starts); :func:`measure` reads it back when the run ends."""
    mups = round(sampler_speed(), 1)
    path = run / BEFORE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sampler_mups": mups}) + "\n")
    return mups


def record(row: dict, times: Path = TIMES) -> None:
    """Replace ``row['command']``'s row of ``times`` with ``row``."""
    old = read_times(times).reset_index() if times.exists() else pd.DataFrame(columns=COLUMNS)
    rows = [r for r in old.to_dict("records") if r["command"] != row["command"]]
    pd.DataFrame([*rows, row], columns=COLUMNS).to_csv(times, index=False, float_format="%.6g")


def publish(records: list[Path], times: Path = TIMES) -> None:
    """Each run's recorded row (a ``record`` output) in place of its command's row of ``times``."""
    for path in records:
        for command, row in read_times(path).iterrows():
            record({"command": command, **row.to_dict()}, times)
            print(f"{command}: {duration(row['wall_seconds'])} from {path}")


def main(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    spd = sub.add_parser("speed", help="read the sampler speed before a run into RUN/results/sampler_before.json")
    spd.add_argument("--run", type=Path, required=True, help="the run's directory (the one holding results/)")
    rec = sub.add_parser("record", help="record a finished run of COMMAND in RUN/results/make_times.csv")
    rec.add_argument("command", choices=COMMANDS)
    rec.add_argument("--start", type=float, required=True, help="when the run began, in seconds since the epoch")
    rec.add_argument("--run", type=Path, required=True, help="the run's directory (the one holding results/)")
    rec.add_argument("--stamp", type=Path, help="the install's stamp file (.venv/.installed)")
    pub = sub.add_parser("publish", help="copy runs' recorded rows into make_times.csv, then rewrite the blocks")
    pub.add_argument("records", type=Path, nargs="*", help="runs' results/make_times.csv files")
    sub.add_parser("write", help="rewrite the blocks of docs/performance.md and README.md from make_times.csv")
    args = parser.parse_args(argv)
    if args.action == "speed":
        try:
            print(f"sampler speed before the run: {speed(args.run)} M updates/s")
        except Exception as exc:  # an instrument never stops the command it measures
            print(f"sampler speed before the run not read ({exc}); the run is read against the one after it")
        return
    if args.action == "record":
        row = measure(args.command, args.start, args.run, args.stamp)
        if row is None:
            return
        own = args.run / "results" / "make_times.csv"
        own.unlink(missing_ok=True)
        record(row, own)
        print(
            f"{args.command}: {duration(row['wall_seconds'])}, sampler {row['sampler_mups']} M updates/s "
            f"(before {row['sampler_before']}, after {row['sampler_after']}; in {own}; "
            "`make readme-numbers` publishes it)"
        )
        return
    if args.action == "publish":
        publish(args.records)
    write()


if __name__ == "__main__":
    main()
