"""Rerun the workflow under other base seeds and tabulate each claim's status per seed.

    python scripts/verdict_stability.py [--seeds 1 2 3] [--configfile config/ci.yaml] [-- snakemake args]

Each seed runs into its own directory (``stability/seed-<s>/``), so a cluster profile can run them
side by side (pass ``-- --profile profiles/slurm``). The table ``stability/verdict_stability.csv``
has one row per claim: its status under the default seed (``results/`` of the repository, when
present) and under each other seed, and whether it flipped. Exit status 0 even when claims flip:
the table is the finding.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]


def run_seed(seed: int, out: Path, configfile: str | None, extra: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(out),
        "--cores",
        "all",
        "--config",
        f"seed={seed}",
        *extra,
    ]
    if configfile:
        cmd[6:6] = ["--configfile", str(Path(configfile).resolve())]
    print(f"[stability] seed {seed}: {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True)
    return out / "results" / "tables" / "reproduction_summary.csv"


def stability_table(summaries: dict[str, Path]) -> pd.DataFrame:
    """One row per claim id, one status column per seed, and the number of distinct statuses."""
    cols = {}
    for label, path in summaries.items():
        df = pd.read_csv(path, dtype=str, keep_default_na=False).set_index("id")
        cols[label] = df["status"]
        first = df
    table = pd.DataFrame(cols)
    table.insert(0, "experiment", first["experiment"].reindex(table.index))
    statuses = table[list(summaries)]
    table["n_statuses"] = statuses.nunique(axis=1)
    table["flipped"] = table["n_statuses"] > 1
    return table.reset_index()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", help="base seeds (default: three after the config's)")
    parser.add_argument("--configfile", help="a config to merge over config/config.yaml (e.g. config/ci.yaml)")
    parser.add_argument("--out", default="stability", help="directory for the per-seed runs and the table")
    parser.add_argument("extra", nargs="*", help="further snakemake arguments, after --")
    args = parser.parse_args(argv)
    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["seed"]
    if args.configfile:
        base = yaml.safe_load(Path(args.configfile).read_text()).get("seed", base)
    seeds = args.seeds or [base + k for k in (1, 2, 3)]
    out = Path(args.out)
    summaries = {}
    default = Path("results/tables/reproduction_summary.csv")
    if default.exists():
        summaries[f"seed {base} (results/)"] = default
    for s in seeds:
        summaries[f"seed {s}"] = run_seed(s, out / f"seed-{s}", args.configfile, args.extra)
    table = stability_table(summaries)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "verdict_stability.csv", index=False, lineterminator="\n")
    n, flips = len(table), int(table["flipped"].sum())
    print(f"[stability] {n - flips} of {n} claims keep their status across {len(summaries)} seeds; {flips} flip:")
    print(table[table["flipped"]].to_string(index=False) if flips else "  (none)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
