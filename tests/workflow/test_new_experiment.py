"""The recipe for adding an experiment (docs/architecture.md, "Adding an experiment") is complete.

In a temporary copy of the checkout, a toy experiment ``e9`` is added by creating only its own
files and two entries (its ``e9:`` config block and its schema property); a dry run of the
workflow must then plan its rules under ``rule all``, and ``git status`` must show that nothing
else (Snakefile, common.smk, report.smk, the tests) needed editing. Not marked ``workflow``: it
runs in ``make unit`` (a dry run only, about 15 s).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

STEP = '''"""E9's steps (a toy): what the rule e9_toy_step in ``workflow/rules/e9.smk`` calls."""

import pandas as pd

from isdp_papers.jobs import Job
from isdp.files import write_table


def toy(job: Job) -> None:
    """A small table of i and i².

    Params: ``e9`` (the config block: ``rows``); output ``table``.
    """
    n = job.params.e9["rows"]
    write_table(pd.DataFrame({"i": range(n), "square": [i * i for i in range(n)]}), job.output.table)
    job.log.info("%d rows", n)
'''

RULES = """# E9 — a toy experiment (docs/experiments/e9.md).

E9 = config["e9"]

E9_CAT = register(
    "e9",
    "toy",
    [
        "results/tables/e9_toy.csv",
    ],
    summary=dict(
        table="results/tables/e9_toy.csv",
    ),
    notebook=dict(
        table="results/tables/e9_toy.csv",
    ),
    notebook_params=dict(
        e9=E9,
    ),
)


rule e9_toy_step:
    output:
        table=report(
            "results/tables/e9_toy.csv",
            caption="../report/e9_toy.rst",
            category=E9_CAT,
            labels={"table": "toy table"},
        ),
    log:
        "results/logs/e9_toy_step.log",
    conda:
        ENV
    params:
        e9=E9,
        step="isdp_papers.e9_toy.steps.toy",
    script:
        STEP
"""

CONFIG_BLOCK = """
e9:                     # a toy experiment (docs/experiments/e9.md)
  rows: 5               # chosen: rows of the toy table
"""

SCHEMA_BLOCK = """  e9:
    type: object
    additionalProperties: false
    required: [rows]
    properties:
      rows: {$ref: "#/$defs/posint", description: "rows of the toy table"}
"""


def _cell(i: int, kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


NOTEBOOK = {
    "cells": [
        _cell(0, "markdown", "# E9 review: a toy table\n\nExecuted by the workflow (`rule e9_notebook`)."),
        _cell(1, "code", "import pandas as pd\n\nfrom isdp_papers.notebook import context"),
        _cell(
            2,
            "code",
            "smk = context('e9_toy', globals().get('snakemake'))\n"
            "table = pd.read_csv(smk.input.table)\n"
            "checks = [{'check': 'square of i', 'value': len(table),\n"
            "           'passed': bool((table['square'] == table['i'] ** 2).all())}]",
        ),
        _cell(3, "code", "checks = pd.DataFrame(checks)\nchecks.to_csv(smk.output.checks, index=False)\nchecks"),
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}

NEW_FILES = {
    "papers/isdp_papers/e9_toy/__init__.py": (
        '"""E9 — a toy experiment: one step writing a small table (:mod:`.steps`)."""\n'
    ),
    "papers/isdp_papers/e9_toy/steps.py": STEP,
    "workflow/rules/e9.smk": RULES,
    "notebooks/e9_toy.py.ipynb": json.dumps(NOTEBOOK, indent=1, ensure_ascii=False) + "\n",
    "docs/experiments/e9.md": (
        "# E9 — a toy experiment\n\nOne step writes a table of i and i²; the review notebook checks it.\n"
    ),
    "workflow/report/e9_toy.rst": "**E9, toy table.** i and i² for ``rows`` rows (config ``e9``).\n",
}
EDITED = {"config/config.yaml", "workflow/schemas/config.schema.yaml"}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=isdp test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _copy_checkout(dest: Path) -> None:
    """The checkout's tracked files (as they are in the work tree) in ``dest``, committed in a fresh repository."""
    try:
        files = _git(ROOT, "ls-files", "-z").split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = [f for f in files if f and (ROOT / f).is_file()]
    if not files:
        pytest.skip("not a git checkout")
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target, follow_symlinks=False)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "checkout")


def _add_e9(repo: Path) -> None:
    """The recipe: e9's own files, its config block and its schema property — nothing else."""
    for name, text in NEW_FILES.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    config = repo / "config" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + CONFIG_BLOCK, encoding="utf-8")
    schema = repo / "workflow" / "schemas" / "config.schema.yaml"
    schema.write_text(schema.read_text(encoding="utf-8") + SCHEMA_BLOCK, encoding="utf-8")


def _jobs(dry_run: str) -> list[dict]:
    """The jobs a dry run prints: rule name and its input/output/log lists."""
    jobs = []
    for line in dry_run.splitlines():
        if m := re.fullmatch(r"(?:local)?rule (\w+):", line.strip()):
            jobs.append({"rule": m.group(1)})
        elif jobs and (m := re.fullmatch(r"    (input|output|log): (.*)", line)):
            jobs[-1][m.group(1)] = m.group(2).split(", ")
    return jobs


def test_a_new_experiment_needs_only_its_own_files(tmp_path):
    pytest.importorskip("snakemake")
    repo, run = tmp_path / "checkout", tmp_path / "run"
    _copy_checkout(repo)
    _add_e9(repo)

    status = _git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    changed = {line[3:] for line in status}
    assert changed == set(NEW_FILES) | EDITED, status
    assert {line[3:] for line in status if line.startswith(" M")} == EDITED, status

    # the schema entry is required: the schema forbids config keys it does not declare
    import jsonschema

    schema = yaml.safe_load((repo / "workflow" / "schemas" / "config.schema.yaml").read_text())
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    jsonschema.validate(config, schema)
    del schema["properties"]["e9"]
    with pytest.raises(jsonschema.ValidationError, match="e9"):
        jsonschema.validate(config, schema)

    # the copy's src/, put on the path by its Snakefile
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "--snakefile",
            str(repo / "Snakefile"),
            "--directory",
            str(run),
            "--configfile",
            str(repo / "config" / "ci.yaml"),
        ],
        cwd=run.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    jobs = _jobs(proc.stdout + proc.stderr)
    by_rule = {}
    for job in jobs:
        by_rule.setdefault(job["rule"], []).append(job)

    for rule in ("e9_toy_step", "e9_summary", "e9_notebook"):
        assert len(by_rule.get(rule, [])) == 1, f"the dry run does not plan {rule}"
    assert by_rule["e9_toy_step"][0]["output"] == ["results/tables/e9_toy.csv"]
    assert by_rule["e9_notebook"][0]["log"][0] == "results/notebooks/e9_toy.ipynb"
    assert [j for j in by_rule["notebook_html"] if j["output"] == ["results/notebooks/e9_review.html"]]
    wanted = {
        "results/tables/e9_toy.csv",
        "results/tables/summary/e9.csv",
        "results/tables/e9_review_checks.csv",
        "results/notebooks/e9_review.html",
    }
    assert wanted <= set(by_rule["all"][0]["input"]), "rule all does not ask for e9's outputs"
    assert "results/tables/summary/e9.csv" in by_rule["reproduction_summary"][0]["input"]

    # the dry run needed nothing else either
    assert _git(repo, "status", "--porcelain", "--untracked-files=all").splitlines() == status
