"""Installed use: the sdist and the wheel pass ``twine check``; the sdist carries the tests, docs and citation, the
wheel the library alone (no paper code); in a fresh venv outside the checkout it says its version and releases a
table, and with the paper layer's own wheel beside it one experiment's steps run.

The wheels are built from this checkout by ``python -m build`` without build isolation (no network). The fresh venv gets
only the wheel (``--no-deps``); its dependencies come from the test's own environment through a
``.pth`` line, which adds that site-packages as a plain path (so the editable install there is not
activated). The steps run in a scratch directory with no checkout around them: E6's studies and
its claims summary, with the config and the registry passed in as a user would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path

    import isdp
    from isdp_papers.config import load_config
    from isdp_papers.jobs import Job, start_logging
    from isdp_papers.e6_spatiotemporal_gaussian.steps import studies
    from isdp_papers.reporting import claims_summary

    checkout = Path(sys.argv[1])
    assert checkout not in Path(isdp.__file__).resolve().parents, isdp.__file__
    config = load_config(checkout / "config" / "config.yaml", checkout / "config" / "ci.yaml")
    registry = str(checkout / "config" / "claims.yaml")
    for folder in ("results/tables/summary", "results/e6", "results/figures", "results/logs"):
        Path(folder).mkdir(parents=True, exist_ok=True)
    job = Job(input={"registry": registry},
              output={"readings": "results/tables/e6_readings.csv", "mechanism": "results/tables/e6_mechanism.csv",
                      "studies": "results/e6/studies.csv", "repetitions": "results/e6/repetitions.csv",
                      "cells": "results/e6/cells.csv", "info": "results/e6/info.json",
                      "fig_pdf": "results/figures/e6_error_sd.pdf", "fig_png": "results/figures/e6_error_sd.png"},
              params={"e6": config["e6"], "seed": [config["seed"], "e6", "studies"]},
              log=["results/logs/e6_studies.log"], config=config, rule="e6_studies")
    start_logging(job)
    studies(job)
    summary = Job(input={"registry": registry}, output={"summary": "results/tables/summary/e6.csv"},
                  params={"experiment": "E6", "repo": str(checkout)}, config=config, rule="e6_summary")
    claims_summary(summary)
    print(json.dumps({"isdp": isdp.__file__, "summary": Path("results/tables/summary/e6.csv").read_text()}))
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv holding only the wheels of this checkout (isdp, and the paper layer's); returns its python."""
    work = tmp_path_factory.mktemp("installed")
    # Build from a copy of the tracked sources: setuptools writes build/ beside the sources it builds.
    tracked = subprocess.run(
        ["git", "ls-files", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CITATION.cff", "CONTRIBUTING.md"]
        + ["environment.yml", "constraints", "src", "papers", "tests", "docs", "data"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for rel in tracked:
        (work / "source" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, work / "source" / rel)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--sdist",
            "--wheel",
            "--outdir",
            str(work / "dist"),
            str(work / "source"),
        ],
        check=True,
        cwd=work,
        capture_output=True,
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--wheel",
            "--outdir",
            str(work / "papers-dist"),
            str(work / "source" / "papers"),
        ],
        check=True,
        cwd=work,
        capture_output=True,
    )
    wheel = next((work / "dist").glob("isdp-*.whl"))
    papers_wheel = next((work / "papers-dist").glob("isdp_papers-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(work / "venv")], check=True)
    python = work / "venv" / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
            str(papers_wheel),
        ],
        check=True,
        cwd=work,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _dists(installed) -> list[Path]:
    return sorted((installed.parents[2] / "dist").iterdir())


def test_the_sdist_and_the_wheel_pass_twine_check(installed):
    dists = _dists(installed)
    assert [d.name for d in dists] == [f"isdp-{VERSION}-py3-none-any.whl", f"isdp-{VERSION}.tar.gz"]
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dists)], capture_output=True, text=True
    )
    assert check.returncode == 0 and check.stdout.count("PASSED") == 2, check.stdout + check.stderr


def test_the_sdist_holds_what_a_packager_tests_and_documents_from(installed):
    """A conda-forge recipe builds from the sdist: the tests, the docs' sources, the inputs the tests read and the
    citation travel with the package; the site, the API pages and caches do not."""
    import tarfile

    sdist = next(d for d in _dists(installed) if d.name.endswith(".tar.gz"))
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    for wanted in (
        "CITATION.cff",
        "environment.yml",
        "constraints/py3.11.txt",
        "tests/conftest.py",
        "tests/core/test_cli.py",
        "docs/release.md",
        "docs/conf.py",
        "data/e5/sex_by_age.csv",
        "papers/pyproject.toml",
        "src/isdp/cli.py",
    ):
        assert wanted in names, wanted
    generated = ("docs/_build", "docs/run", "papers/isdp_papers.egg-info")
    assert not [n for n in names if "__pycache__" in n or n.startswith(generated)]


def test_the_wheel_holds_the_library_alone(installed):
    """`pip install isdp` brings the method and its command line: no paper layer, no experiment code."""
    import zipfile

    wheel = next(d for d in _dists(installed) if d.suffix == ".whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"isdp", f"isdp-{VERSION}.dist-info"}, tops
    assert "isdp/py.typed" in names
    assert not [n for n in names if "experiment" in n or "papers" in n or "claims" in n], names


def test_the_installed_package_says_its_version(installed, tmp_path):
    """One version everywhere: pyproject.toml's, the metadata's, ``isdp.__version__`` and ``isdp --version``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import isdp, importlib.metadata as m; print(isdp.__version__, m.version('isdp'))"
    out = subprocess.run(
        [str(installed), "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path, env=env
    )
    assert out.stdout.split() == [VERSION, VERSION]
    cli = subprocess.run([str(installed.parent / "isdp"), "--version"], capture_output=True, text=True, env=env)
    assert cli.returncode == 0 and cli.stdout.strip() == f"isdp {VERSION}"
    help_ = subprocess.run(
        [str(installed.parent / "isdp"), "release", "--help"], capture_output=True, text=True, env=env
    )
    assert help_.returncode == 0 and "--epsilon" in help_.stdout


def test_the_installed_command_makes_a_seeded_release_twice_alike(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    outputs = []
    for name in ("a.csv", "b.csv"):
        run = subprocess.run(
            [
                str(installed.parent / "isdp"),
                "release",
                str(ROOT / "data" / "e5" / "sex_by_age.csv"),
                "--constraints",
                str(ROOT / "data" / "release" / "sex_by_age_invariants.csv"),
                "--epsilon",
                "1",
                "--format",
                "wide",
                "--seed",
                "6",
                "--reproducible-not-for-publication",
                "-o",
                name,
                "--no-progress",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        outputs.append((tmp_path / name).read_text())
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) > 2


def test_the_paper_wheel_ships_the_claims_schema_and_no_checkout_paths(installed):
    code = "import isdp_papers.claims as c, isdp; print(isdp.__file__); print(sorted(c.schema()['properties']))"
    out = subprocess.run(
        [str(installed), "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=installed.parents[2],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    isdp_file, props = out.stdout.splitlines()
    assert str(ROOT) not in isdp_file and "claims" in props


def test_an_experiment_runs_from_the_installed_package(installed, tmp_path):
    import json

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(installed), "-c", SCRIPT, str(ROOT)], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.splitlines()[-1])
    assert str(ROOT) not in result["isdp"]
    rows = result["summary"].splitlines()
    assert rows[0].startswith("id,experiment,") and len(rows) > 5
    assert "SDP-E6-" in result["summary"]
    for name in ("e6_readings.csv", "e6_mechanism.csv"):
        assert (tmp_path / "results" / "tables" / name).stat().st_size > 0


def _help_example(isdp: Path, env: dict) -> list[list[str]]:
    """The example commands of ``isdp release --help``: its indented ``isdp …`` lines, continuations joined."""
    import shlex

    text = subprocess.run([str(isdp), "release", "--help"], capture_output=True, text=True, env=env, check=True).stdout
    after = text.split("epsilon 1 per person", 1)[1].split("\n", 2)[2]  # the lines after the example's caption
    block = []
    for line in after.splitlines():  # its indented lines, up to the next paragraph
        if line.strip() and not line.startswith("  "):
            break
        block.append(line)
    return [shlex.split(line) for line in "\n".join(block).replace("\\\n", " ").splitlines() if line.strip()]


def test_the_installed_isdp_command_releases_the_example(installed, tmp_path):
    """`pip install .` gives the `isdp` script; in a folder of its own, the example of `isdp release --help` runs as
    printed: `isdp example` writes the installed table and invariants, and the release keeps them."""
    import json

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    commands = _help_example(installed.parent / "isdp", env)
    assert [c[:2] for c in commands] == [["isdp", "example"], ["isdp", "release"]], commands
    for command in commands:
        run = subprocess.run(
            [str(installed.parent / "isdp"), *command[1:]], capture_output=True, text=True, cwd=tmp_path, env=env
        )
        assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "sex_by_age.csv").read_bytes() == (ROOT / "data" / "e5" / "sex_by_age.csv").read_bytes()
    out = tmp_path / commands[1][commands[1].index("--output") + 1]
    statement = json.loads(Path(str(out) + ".statement.json").read_text())
    lines = [line.split(",") for line in out.read_text().splitlines()]
    cells = {f"{row[0]}|{col}": int(v) for row in lines[1:] for col, v in zip(lines[0][1:], row[1:], strict=True)}
    for invariant in statement["invariants"]:  # coefficients by cell label (non-zero ones)
        assert sum(c * cells[label] for label, c in invariant["coefficients"].items()) == invariant["value"]
    assert statement["guarantee"]["kind"] == "pure" and statement["randomness"].startswith("operating-system")
    assert statement["publishable"] and Path(str(out) + ".audit.json").is_file()
