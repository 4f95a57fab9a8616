"""Review notebooks outside the workflow: the saved notebook context, and one notebook executed
standalone against a CI-profile run ($ISDP_CI_RESULTS, as in test_workflow.py)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from isdp_papers.notebook import ENV_VAR, context, context_path
from snakemake.iocontainers import Namedlist

import isdp

ROOT = Path(__file__).resolve().parents[2]


def named(items, names):
    """A Snakemake Namedlist with ``names``: name -> (start, end or None), as rules build them."""
    nl = Namedlist(items)
    for name, (start, end) in names.items():
        nl._set_name(name, start, end)
    return nl


@pytest.fixture
def injected(tmp_path):
    """What Snakemake injects into a notebook rule's kernel, one absolute input outside the run."""
    outside = tmp_path / "repo" / "config" / "claims.yaml"
    return SimpleNamespace(
        input=named(
            ["results/a/problem.json", "results/a/d1.nc", "results/a/d2.nc", str(outside)],
            {"problem": (0, None), "draws": (1, 3), "registry": (3, None)},
        ),
        output=named(["results/tables/a_review_checks.csv"], {"checks": (0, None)}),
        params=named(
            [["l1", "l2"], {"sigma": 1.0}, Path("x/y")], {"norms": (0, None), "cfg": (1, None), "where": (2, None)}
        ),
        log=named(["results/notebooks/a_review.ipynb"], {"notebook": (0, None)}),
        wildcards=named([], {}),
        threads=2,
        rule="a_notebook",
    )


@pytest.fixture
def saved(tmp_path, injected, monkeypatch):
    """A run directory where the notebook ``a_review`` ran in the workflow; cwd elsewhere after."""
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.chdir(run)
    assert context("a_review", injected) is injected
    monkeypatch.chdir(tmp_path)
    return run


def test_workflow_mode_saves_paths_relative_to_the_run(saved, injected):
    text = context_path("a_review", saved).read_text()
    assert "results/a/problem.json" in text and str(saved) not in text
    assert str(injected.input.registry) in text  # outside the run: kept absolute


def test_standalone_rebuilds_the_object(saved, injected, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(saved))
    smk = context("a_review")
    assert Path.cwd() == saved.resolve()  # the notebook's relative paths resolve in the run
    for field in ("input", "params", "log", "wildcards"):
        got, want = getattr(smk, field), getattr(injected, field)
        assert list(got.keys()) == list(want.keys())
        for name in want.keys():
            expected = getattr(want, name)
            expected = str(expected) if isinstance(expected, Path) else expected
            assert getattr(got, name) == got[name] == expected
    assert smk.input[1:3] == ["results/a/d1.nc", "results/a/d2.nc"] and smk.input.draws[1] == "results/a/d2.nc"
    assert (smk.rule, smk.threads) == ("a_notebook", 2)


def test_standalone_outputs_go_elsewhere(saved, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(saved))
    out = Path(context("a_review").output.checks)
    assert out.name == "a_review_checks.csv" and out.parent.is_dir()
    assert not out.resolve().is_relative_to(saved.resolve())


def test_standalone_finds_the_run_from_a_subdirectory(saved, monkeypatch):
    """Jupyter starts the kernel in the notebook's folder, e.g. notebooks/ of the run directory."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    (saved / "notebooks").mkdir()
    monkeypatch.chdir(saved / "notebooks")
    assert context("a_review").rule == "a_notebook" and Path.cwd() == saved.resolve()


def test_missing_context_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="run the workflow first .* or set ISDP_RESULTS_DIR"):
        context("a_review")


def test_a_notebook_saving_under_another_name_fails(tmp_path, injected, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="a_review.ipynb"):
        context("b_review", injected)


def shown(nb):
    """What a reviewer reads as the verdicts: every Markdown display, then the final tables."""
    markdown = [
        out["data"]["text/markdown"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if "text/markdown" in out.get("data", {})
    ]
    final = [out["data"]["text/plain"] for out in nb.cells[-1].outputs if "data" in out]
    return markdown, final


@pytest.mark.workflow
def test_e1_notebook_runs_standalone_against_the_ci_run(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    run = os.environ.get("ISDP_CI_RESULTS")
    if not run:
        pytest.skip("ISDP_CI_RESULTS is not set: run `make test`, which runs the CI workflow first")
    run = Path(run)
    checks = run / "results" / "tables" / "e1_review_checks.csv"
    before = checks.read_bytes()
    monkeypatch.setenv(ENV_VAR, str(run))
    # the kernel imports the isdp under test, whatever the kernel's working directory
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(Path(isdp.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
    )
    nb = nbformat.read(ROOT / "notebooks" / "e1_intersecting.py.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(tmp_path)}}).execute()

    workflow_copy = nbformat.read(run / "results" / "notebooks" / "e1_intersecting.ipynb", as_version=4)
    markdown, final = shown(nb)
    assert len(markdown) >= 4 and len(final) == 2  # the claims shown, the verdict and checks tables
    assert (markdown, final) == shown(workflow_copy)
    assert checks.read_bytes() == before  # the workflow's outputs are left alone
