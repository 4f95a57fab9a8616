"""Same config + seed ⇒ identical tables; a rerun with nothing changed does no work.

``make test`` runs the CI profile once (into $ISDP_CI_RESULTS), then again the subset of it listed
in ``ci_subset.txt`` (into $ISDP_CI_RERUN: the seeded sampler, coupling, projection and simulation
steps of E1, E6, E7 and the deterministic E8), and then these checks. Wall-clock columns are the
only thing allowed to differ between the runs. The first run's steps are forked from the step server, the
rerun's load their own libraries (``ISDP_STEP_SERVER=0``): the tables do not depend on where a step ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from ci_runs import TIMING_COLUMNS, ci_run_dir
from isdp_papers.jobs import SERVED

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[2]
SUBSET = (Path(__file__).with_name("ci_subset.txt")).read_text().split()  # targets rerun (and run on SLURM)


def test_two_runs_give_identical_tables():
    first, second = ci_run_dir("ISDP_CI_RESULTS"), ci_run_dir("ISDP_CI_RERUN")
    tables = sorted(p.relative_to(second) for p in (second / "results" / "tables").rglob("*.csv"))
    assert len(tables) >= 10, "the rerun produced too few tables to compare"
    assert all((second / target).is_file() for target in SUBSET), "the rerun did not make its targets"
    for rel in tables:
        a = pd.read_csv(first / rel, keep_default_na=False)
        b = pd.read_csv(second / rel, keep_default_na=False)
        keep = [c for c in a.columns if c not in TIMING_COLUMNS and not c.endswith("_seconds")]
        pd.testing.assert_frame_equal(a[keep], b[keep], check_exact=True, obj=str(rel))
    logs = {run: list((run / "results" / "logs").glob("*.log")) for run in (first, second)}
    served = {run: {SERVED in log.read_text() for log in found} for run, found in logs.items()}
    assert True not in served[second], "the rerun's steps were to load their own libraries"
    if hasattr(os, "pidfd_open"):
        assert True in served[first], "the first run's steps were to be forked from the step server"


def test_rerun_with_nothing_changed_does_no_work():
    run = ci_run_dir("ISDP_CI_RESULTS")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(run),
            "--configfile",
            str(ROOT / "config" / "ci.yaml"),
            "-n",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Nothing to be done" in out.stdout + out.stderr, out.stdout[-2000:]
