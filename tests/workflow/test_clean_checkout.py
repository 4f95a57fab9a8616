"""`make reproduce` writes only ignored paths: run in a fresh clone, it leaves `git status` empty.

The clone gets the CI-profile run's results and Snakemake records, its tracked files dated before them, and
the test's own venv; Snakemake reruns on file dates only (the rules' params name the checkout's path, which
differs in the clone), so the workflow finds its outputs up to date and the rest of the command runs as it
is: the report, the claim counts and the time record. `.ci/run` checks the same of `make test` on its clone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ci_runs import ci_run_dir

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[2]
LONG_AGO = 946_684_800  # 2000-01-01: the clone's sources predate every output, as in the checkout that made them


def test_make_reproduce_leaves_a_fresh_clone_clean(tmp_path):
    run = ci_run_dir("ISDP_CI_RESULTS")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for name in subprocess.run(
        ["git", "ls-files"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.splitlines():
        os.utime(clone / name, (LONG_AGO, LONG_AGO), follow_symlinks=False)
    shutil.copytree(run / "results", clone / "results", dirs_exist_ok=True, symlinks=True)
    shutil.copytree(
        run / ".snakemake",
        clone / ".snakemake",
        symlinks=True,
        ignore=shutil.ignore_patterns("locks", "log", "incomplete"),
    )
    minor = f"{sys.version_info.major}.{sys.version_info.minor}"
    (clone / ".venv").symlink_to(Path(sys.executable).parents[1])
    smk = (
        f"snakemake --snakefile {clone / 'Snakefile'} --configfile {clone / 'config' / 'ci.yaml'} "
        "--rerun-triggers mtime"
    )
    out = subprocess.run(
        ["make", "-C", str(clone), "reproduce", f"SMK={smk}", "CORES=1", "-o", f".venv/.installed-{minor}"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    assert "Nothing to be done" in out.stdout + out.stderr, "the copied run was not up to date: the test ran jobs"
    assert (clone / "results" / "report.html").stat().st_mtime > LONG_AGO
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", f"make reproduce changed tracked files:\n{status.stdout}"
