"""Hostile results on disk: a damaged output (empty, header-only, truncated netCDF, broken JSON)
is refused by the step that reads it, naming the file; a repository moved or copied together
with its finished run replans nothing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from isdp_papers.inputs import DamagedInputError, check_inputs
from isdp_papers.jobs import Job

from isdp.convergence import save_draws

ROOT = Path(__file__).resolve().parents[2]


def _job(*paths, may_be_empty=()):
    """A job reading ``paths`` (inputs f0, f1, ...), those named in ``may_be_empty`` declared possibly empty."""
    return Job(
        input={f"f{i}": str(p) for i, p in enumerate(paths)},
        output={"out": "results/out.csv"},
        params={"may_be_empty": list(may_be_empty)},
    )


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "tables").mkdir(parents=True)
    (tmp_path / "results" / "e3").mkdir()
    return Path("results")


@pytest.mark.parametrize(
    "name, content, problem",
    [
        ("tables/a.csv", "", "empty (0 bytes)"),
        ("tables/a.csv", "x,y\n", "a header and no rows"),
        ("tables/a.csv", 'x,y\n1,"2\n', "not a readable CSV"),
        ("tables/a.csv", "x,y\n1,2\n3,4,5,6\n", "row 3 has 4 fields, the header 2"),
        ("tables/a.json", '{"a": ', "not readable JSON"),
        ("tables/a.nc", "not netcdf at all", "not a netCDF file"),
    ],
)
def test_a_damaged_result_is_refused_naming_it(results, name, content, problem):
    path = results / name
    path.write_text(content)
    with pytest.raises(DamagedInputError, match=re.escape(f"{path} is damaged: {problem}")):
        check_inputs(_job(path))
    assert not Path("results/out.csv").exists()


def test_a_truncated_netcdf_is_refused(results):
    path = results / "e3" / "draws.nc"
    save_draws(path, np.zeros((2, 5, 3), dtype=np.int64))
    check_inputs(_job(path))  # intact: accepted
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DamagedInputError, match="draws.nc is damaged: not a readable netCDF file"):
        check_inputs(_job(path))


def test_intact_results_and_declared_empty_tables_pass(results):
    (results / "tables" / "a.csv").write_text("x,y\n1,2\n")
    (results / "tables" / "a.json").write_text(json.dumps({"a": 1}))
    (results / "e3" / "exact_DC.csv").write_text("statistic,mcmc_mean\n")  # one county: nothing to compare
    paths = (results / "tables" / "a.csv", results / "tables" / "a.json", results / "e3" / "exact_DC.csv")
    check_inputs(_job(*paths, may_be_empty=["f2"]))
    with pytest.raises(DamagedInputError, match="exact_DC.csv is damaged: a header and no rows"):
        check_inputs(_job(*paths))  # the same table, not declared by the rule


def test_may_be_empty_names_the_rules_inputs(results):
    (results / "tables" / "a.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match=r"params.may_be_empty names \['exact'\]"):
        check_inputs(_job(results / "tables" / "a.csv", may_be_empty=["exact"]))


def test_e3_tables_declares_its_exact_tables_possibly_empty():
    """A state of one county has no MCMC-vs-exact comparison: its exact_{state}.csv holds only a header,
    which the rule reading those tables declares (and no other rule needs to)."""
    rules = (ROOT / "workflow" / "rules" / "e3.smk").read_text()
    block = rules[rules.index("rule e3_tables:") :]
    block = block[: block.index("\nrule ")]
    assert 'exact=e3_per_state("results/e3/exact_{state}.csv")' in block and 'may_be_empty=["exact"]' in block


def test_committed_inputs_are_left_to_their_readers(results):
    Path("data").mkdir()
    Path("data/table.csv").write_text("")
    check_inputs(_job("data/table.csv"))  # read_table_csv checks committed tables itself


# --------------------------------------------------------------------------- a finished run, moved


def _snakemake(cwd, *args):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", "config/ci.yaml", "--cores", "1", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


# E8's tables, every input of its summary: a few seconds each (the summary itself takes 20 s)
E8_TARGETS = [
    "results/tables/e8_swap_min.csv",
    "results/tables/e8_tda_conversion.csv",
    "results/tables/e8_tda_variance.csv",
    "results/tables/e8_dorm_bounds.csv",
]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A checkout (tracked and new files) with a finished run of E8's cheap targets inside it."""
    repo = tmp_path_factory.mktemp("moved") / "isdp"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for rel in files:
        if (ROOT / rel).is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, repo / rel)
    done = _snakemake(repo, *E8_TARGETS)
    assert done.returncode == 0, done.stderr[-3000:]
    return repo


@pytest.mark.slow
def test_a_moved_run_replans_nothing(finished_run):
    moved = finished_run.parent / "elsewhere" / "copy"
    shutil.copytree(finished_run, moved, symlinks=True)  # copy2: modification times kept, as cp -a
    plan = _snakemake(moved, "-n", *E8_TARGETS)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert "Nothing to be done" in plan.stdout + plan.stderr, (plan.stdout + plan.stderr)[-3000:]


@pytest.mark.slow
def test_a_truncated_result_in_a_finished_run_is_refused_by_its_reader(finished_run):
    run = finished_run.parent / "damaged"
    shutil.copytree(finished_run, run, symlinks=True)
    table = run / "results" / "tables" / "e8_swap_min.csv"
    table.write_text(table.read_text().splitlines()[0] + "\n")  # header only, newer than its inputs
    # "--" ends --forcerun's list: without it the target is read as a rule to force and Snakemake runs `all`
    out = _snakemake(run, "--forcerun", "e8_summary", "--", "results/tables/summary/e8.csv")
    assert out.returncode != 0 and "Error in rule e8_summary" in out.stdout + out.stderr
    log = (run / "results" / "logs" / "e8_summary.log").read_text()  # where Snakemake points the user
    assert "results/tables/e8_swap_min.csv is damaged: a header and no rows" in log
    assert not (run / "results" / "tables" / "summary" / "e8.csv").exists()  # nothing half-written
