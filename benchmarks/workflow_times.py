"""Per-rule and per-experiment times of a workflow run, from its job logs and benchmark files.

Every job that runs a step ends its log (``results/logs/<job>.log``) with the line
``resources: wall_s=… cpu_s=… max_rss_mb=…`` (:func:`isdp_papers.resources.job_resources`: wall
time since the process started, CPU time, peak memory); the notebook rules and the per-state copies
declare Snakemake's ``benchmark: results/benchmarks/<job>.tsv`` instead. This script reads both,
groups the jobs by rule (a job name without its state, norm or vintage wildcard) and by experiment
(the ``eN`` prefix; the data rules count as E3, the report rules as ``report``), and writes both
tables:

    python benchmarks/workflow_times.py [RUN_DIR] [--out results/tables/workflow_times.csv] [--jobs]

``RUN_DIR`` defaults to the current directory. Jobs of different experiments overlap on several
cores, so their times add up to more than the run's wall time; the total is the job time the run
needs. ``--jobs`` also prints every job (e.g. the national run's per-batch times).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd
from isdp_papers.resources import RESOURCES_LINE

#: wildcards in job names: a state code or a batch of them (``CA+AL+DC``), a norm, a figure
#: name inside a name (``e1_fig5_boxplots``; ``e5_fig1`` is a rule), an NHGIS vintage
WILDCARD = re.compile(r"_(?:[A-Z]{2}(?:\+[A-Z]{2})*|l1|l2|v\d{8}|fig\d+(?=_))(?=_|$)")
DATA_RULES = ("fetch", "extract")
REPORT_RULES = ("claim_counts", "experiment_registry", "reproduction_summary", "software_versions")
JOB_COLUMNS = ["job", "rule", "experiment", "seconds", "cpu_seconds", "max_rss_mb"]


def rule_of(job: str) -> str:
    """The rule-level name of a job: ``e3_states_TX`` → ``e3_states``, ``e1_draws_l2`` → ``e1_draws``."""
    return WILDCARD.sub("", job)


def experiment_of(rule: str) -> str:
    if rule.startswith(DATA_RULES):
        return "E3"
    if rule.startswith(REPORT_RULES):
        return "report"
    m = re.match(r"e(\d+)_", rule)
    return f"E{m.group(1)}" if m else "other"


def read_jobs(run: Path, since: float | None = None) -> pd.DataFrame:
    """One row per timed job of ``run``: job, rule, experiment, seconds, cpu_seconds, max_rss_mb. With ``since``
    (seconds since the epoch), only the jobs whose log or benchmark file was written then or later: the jobs one
    run executed (benchmarks/measurements_table.py), possibly none."""
    rows = []
    for f in sorted((run / "results" / "logs").glob("*.log")):
        found = RESOURCES_LINE.findall(f.read_text(errors="replace"))
        if found and (since is None or f.stat().st_mtime >= since):
            wall, cpu, rss = map(float, found[-1])
            rows.append(_row(f.stem, wall, cpu, rss))
    for f in sorted((run / "results" / "benchmarks").glob("*.tsv")):
        if since is None or f.stat().st_mtime >= since:
            bench = pd.read_csv(f, sep="\t")
            rows.append(_row(f.stem, bench["s"].iloc[-1], bench["cpu_time"].iloc[-1], bench["max_rss"].iloc[-1]))
    if not rows and since is None:
        raise SystemExit(f"no job times in {run / 'results'} (logs/, benchmarks/): run the workflow first")
    return pd.DataFrame(rows, columns=JOB_COLUMNS)


def _row(job: str, seconds: float, cpu_seconds: float, max_rss_mb: float) -> dict:
    rule = rule_of(job)
    return {
        "job": job,
        "rule": rule,
        "experiment": experiment_of(rule),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "max_rss_mb": max_rss_mb,
    }


def summarise(jobs: pd.DataFrame, key: str) -> pd.DataFrame:
    table = (
        jobs.groupby(key)
        .agg(
            jobs=("job", "size"),
            seconds=("seconds", "sum"),
            cpu_seconds=("cpu_seconds", "sum"),
            max_rss_mb=("max_rss_mb", "max"),
        )
        .sort_values("seconds", ascending=False)
        .reset_index()
    )
    total = pd.DataFrame(
        [
            {
                key: "all",
                "jobs": len(jobs),
                "seconds": jobs["seconds"].sum(),
                "cpu_seconds": jobs["cpu_seconds"].sum(),
                "max_rss_mb": jobs["max_rss_mb"].max(),
            }
        ]
    )
    return pd.concat([table, total], ignore_index=True).round(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, nargs="?", default=Path("."), help="the run's directory (default: .)")
    parser.add_argument("--out", type=Path, help="also write the per-rule table to this CSV")
    parser.add_argument("--jobs", action="store_true", help="print every job's time too")
    args = parser.parse_args()
    jobs = read_jobs(args.run)
    by_rule, by_exp = summarise(jobs, "rule"), summarise(jobs, "experiment")
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(by_exp.to_string(index=False), end="\n\n")
        print(by_rule.to_string(index=False))
        if args.jobs:
            print()
            print(jobs.sort_values("seconds", ascending=False).to_string(index=False))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        by_rule.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
