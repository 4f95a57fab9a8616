"""Wall time per experiment from a Snakemake run log (`.snakemake/log/*.snakemake.log`).

Prints, per experiment (rule-name prefix e1_, e2_, …, or the `exp` wildcard of the shared E1/E2
rules; data rules count as E3), the number of jobs, the sum of their durations and the wall-clock
span from the first start to the last finish. Jobs of different experiments overlap on several
cores, so spans add up to more than the total. ``--jobs e3_state e4_state`` also lists every job
of those rules with its wildcards and duration (the national run's per-state times).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]")
START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):")
JOBID = re.compile(r"^\s+jobid: (\d+)")
WILDCARDS = re.compile(r"^\s+wildcards: (.*)")
FINISH = re.compile(r"Finished jobid: (\d+)")


def experiment(rule: str, wildcards: str) -> str:
    if rule in ("fetch",):
        return "E3"
    m = re.match(r"e(\d+)_", rule) or re.search(r"\bexp=e(\d+)", wildcards)
    return f"E{m.group(1)}" if m else "other"


def parse(log: Path):
    """(rule, wildcards, start, finish) of every finished job."""
    now, pending, started, jobs, last = None, None, {}, [], None
    for line in log.read_text().splitlines():
        if m := STAMP.match(line):
            now = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
        elif m := START.match(line):
            pending = (m.group(1), now)
        elif (m := JOBID.match(line)) and pending:
            started[m.group(1)] = [*pending, ""]
            last, pending = m.group(1), None
        elif (m := WILDCARDS.match(line)) and last in started:
            started[last][2] = m.group(1)
        elif (m := FINISH.search(line)) and m.group(1) in started:
            rule, t0, wildcards = started.pop(m.group(1))
            jobs.append((rule, wildcards, t0, now))
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log", type=Path, nargs="?",
                        help="a Snakemake log; default: the newest one in .snakemake/log that ran jobs")
    parser.add_argument("--jobs", nargs="*", default=[], metavar="RULE", help="list every job of these rules")
    args = parser.parse_args()
    logs = [args.log] if args.log else sorted(Path(".snakemake/log").glob("*.snakemake.log"),
                                                 key=lambda p: p.stat().st_mtime, reverse=True)
    jobs = next((j for j in map(parse, logs) if j), [])
    by_exp = defaultdict(list)
    for rule, wildcards, t0, t1 in jobs:
        by_exp[experiment(rule, wildcards)].append((t0, t1))
    print(f"{'experiment':10s} {'jobs':>5s} {'job time (s)':>13s} {'span (s)':>9s}")
    for exp in sorted(by_exp):
        spans = by_exp[exp]
        total = sum((t1 - t0).total_seconds() for t0, t1 in spans)
        span = (max(t1 for _, t1 in spans) - min(t0 for t0, _ in spans)).total_seconds()
        print(f"{exp:10s} {len(spans):5d} {total:13.0f} {span:9.0f}")
    if jobs:
        wall = (max(t1 for *_, t1 in jobs) - min(t0 for *_, t0, _ in jobs)).total_seconds()
        print(f"{'all':10s} {len(jobs):5d} {sum((t1 - t0).total_seconds() for *_, t0, t1 in jobs):13.0f} {wall:9.0f}")
    for rule, wildcards, t0, t1 in jobs:
        if rule in args.jobs:
            print(f"{rule} {wildcards}: {(t1 - t0).total_seconds():.0f} s")


if __name__ == "__main__":
    main()
