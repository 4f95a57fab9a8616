"""The repository's own contracts: dependencies in agreement, configs valid, notebooks stripped."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml
from isdp_papers.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _conda_envs():
    """scripts/conda_envs.py, which `make lock` runs to write the conda routes' lists."""
    spec = importlib.util.spec_from_file_location("conda_envs", ROOT / "scripts" / "conda_envs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _minors() -> list[str]:
    """The Python minors the classifiers declare, in order (3.11 …)."""
    return [c.rsplit(" :: ", 1)[1] for c in _project()["classifiers"] if re.fullmatch(r".*Python :: 3\.\d+", c)]


def _conda_packages(deps) -> dict[str, str]:
    pinned = (d.split("=", 1) for d in deps if isinstance(d, str) and d != "pip" and not d.startswith("python="))
    return {_normalise(n): v for n, v in pinned}


def _pins(minor: str = "3.13") -> dict[str, str]:
    return _conda_envs().pins(minor)


CONDA_PYTHON = "3.13"  # the lock the conda routes follow (scripts/conda_envs.py's default)


def test_environment_yml_agrees_with_pyproject_and_the_lock_package_by_package():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    assert f"python={CONDA_PYTHON}" in deps and "pip" in deps
    conda = _conda_packages(deps)
    declared, pins = _conda_envs().declared(CONDA_PYTHON), _pins(CONDA_PYTHON)
    assert sorted(conda) == sorted(declared), "environment.yml must list exactly pyproject.toml's packages"
    for name in declared:
        assert conda[name] == pins[name], f"{name}: environment.yml {conda[name]} != py{CONDA_PYTHON} lock {pins[name]}"
    pip = next(d["pip"] for d in deps if isinstance(d, dict))
    assert pip == ["--no-deps -e .", "--no-deps -e ./papers"], (
        "pip installs only the project and its paper layer; conda provides their dependencies"
    )


def test_python_versions_agree_everywhere():
    """One list of supported Python minors: pyproject.toml's classifiers and requires-python, a lock file each,
    the Makefile's LOCK_MINORS, the hosted CI's matrix and the docs' statements."""
    minors = _minors()
    assert minors == [f"3.{m}" for m in range(11, 15)], minors
    assert _project()["requires-python"] == f">={minors[0]}"
    assert sorted(p.stem.removeprefix("py") for p in (ROOT / "constraints").glob("py*.txt")) == minors
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^LOCK_MINORS := (.*)$", makefile, re.M).group(1).split() == minors
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    matrix = [str(v) for v in ci["jobs"]["newest"]["strategy"]["matrix"]["python"]]
    assert set(matrix) <= set(minors) and minors[-1] in matrix
    assert f"Python {', '.join(minors[:-1])} and {minors[-1]}" in (ROOT / "docs" / "getting-started.md").read_text()
    assert f"Python {minors[0]} to {minors[-1]}" in (ROOT / "README.md").read_text()
    floors = {_normalise(d.split(">=")[0]): d.split(">=")[1].split(",")[0] for d in _project()["dependencies"]}
    for name, label in (("numpy", "NumPy"), ("scipy", "SciPy")):
        assert f"{label} ≥ {floors[name]}" in (ROOT / "docs" / "getting-started.md").read_text(), name


def test_arviz_follows_the_interpreter():
    """ArviZ 1.x (arviz-base, arviz-stats) needs Python 3.12: 0.x on 3.11, 1.x from 3.12 on."""
    envs = _conda_envs()
    assert "arviz" in envs.declared("3.11") and "arviz-stats" not in envs.declared("3.11")
    for minor in _minors()[1:]:
        assert {"arviz-base", "arviz-stats"} <= set(envs.declared(minor)) and "arviz" not in envs.declared(minor)
        assert _pins(minor)["arviz-stats"].split(".")[0] >= "1"
    assert _pins("3.11")["arviz"].startswith("0.")


# (PyYAML is left out: numba imports it when present, to read an optional config file.)
WORKFLOW_ONLY = ("snakemake", "seaborn", "matplotlib", "jsonschema", "nbclient", "nbconvert", "ipykernel")


def test_core_package_needs_only_the_numerical_stack():
    """`pip install isdp` brings no workflow tool, and `import isdp` (the method) loads none."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_normalise(re.split(r"[<>=!~\[; ]", s, maxsplit=1)[0]) for s in project["dependencies"]}
    assert not core & {"snakemake", "snakemake-executor-plugin-slurm", "seaborn", "nbclient", "ipykernel"}
    code = "import sys, isdp\nfor part in isdp.__all__: getattr(isdp, part)\nprint(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    tops = {name.split(".")[0] for name in ast.literal_eval(loaded)}
    assert not tops & set(WORKFLOW_ONLY), sorted(tops & set(WORKFLOW_ONLY))
    assert "isdp_papers" not in tops, "the library imports the paper layer"


def test_the_library_never_imports_the_paper_layer():
    imports = re.compile(r"^\s*(from|import)\s+(isdp_papers|\.+isdp_papers)\b", re.M)
    assert imports.search("from isdp_papers.jobs import Job")  # the check can fail
    for module in (ROOT / "src" / "isdp").rglob("*.py"):
        assert not imports.search(module.read_text()), f"{module} imports the paper layer"


def test_rule_environment_holds_the_runtime_dependencies_at_their_pins():
    """workflow/envs/isdp.yaml (every rule's `conda:`): core + workflow extra, pinned, no project install."""
    deps = yaml.safe_load((ROOT / "workflow" / "envs" / "isdp.yaml").read_text())["dependencies"]
    assert f"python={CONDA_PYTHON}" in deps and not [d for d in deps if isinstance(d, dict)]
    conda, pins = _conda_packages(deps), _pins(CONDA_PYTHON)
    assert sorted(conda) == sorted(_conda_envs().declared(CONDA_PYTHON, ("workflow",)))
    assert all(conda[name] == pins[name] for name in conda)
    rules = "".join(f.read_text() for f in (ROOT / "workflow" / "rules").glob("*.smk"))
    assert rules.count("conda:") == rules.count("        ENV\n") > 0, "every rule uses the one environment"
    assert 'ENV = "../envs/isdp.yaml"' in rules


@pytest.mark.parametrize("minor", _minors())
def test_each_lock_pins_every_dependency_of_its_python(minor):
    pins = _pins(minor)
    for name, version in pins.items():
        assert version, f"constraints/py{minor}.txt line for {name} is not an exact pin"
    for name in _conda_envs().declared(minor):
        assert name in pins, f"{name} (pyproject.toml) is not pinned in constraints/py{minor}.txt: run `make lock`"


@pytest.mark.parametrize("overrides", [None, "ci.yaml"])
def test_configs_match_schema(overrides):
    """config.yaml is complete; ci.yaml holds only overrides, merged over it as Snakemake does."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    config = load_config(ROOT / "config" / "config.yaml", *([ROOT / "config" / overrides] if overrides else []))
    jsonschema.validate(config, schema)


def _leaves(tree, path=()):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, tree


def test_ci_config_holds_only_overrides():
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for path, value in _leaves(yaml.safe_load((ROOT / "config" / "ci.yaml").read_text())):
        node = base
        for key in path:
            assert key in node, f"ci.yaml: {'.'.join(path)} is not a key of config.yaml"
            node = node[key]
        assert node != value, f"ci.yaml: {'.'.join(path)} repeats config.yaml's value {value!r}"


def _merged(override: dict) -> dict:
    """config.yaml, then ci.yaml, then ``override``, merged as Snakemake merges --configfile files."""
    from snakemake.utils import update_config

    config = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "ci.yaml")
    update_config(config, override)
    return config


@pytest.mark.parametrize(
    "override, message, path",
    [
        # under allOf + unevaluatedProperties these read
        # "'coupling', 'draws', 'eps', 'pilot', 'targets' were unexpected"
        (
            {"e1": {"draws": {"n_draws": 200, "n_chains": 4, "thin": 1.5}}},
            "1.5 is not of type 'integer'",
            "e1/draws/thin",
        ),
        ({"e2": {"eps": "1e-3"}}, "'1e-3' is not of type 'number'", "e2/eps"),  # YAML 1.1 reads 1e-3 as a string
        ({"e1": {"x": [3, 2]}}, "is too short", "e1/x"),
        ({"e1": {"x": [-1, 7, 20]}}, "-1 is less than the minimum of 0", "e1/x/0"),  # a negative count was accepted
        ({"e2": {"tabel": "data/other.csv"}}, "'tabel' was unexpected", "e2"),
        ({"e1": {"targets": {"l3": {"proposal_eps": 0.1, "lags": [10]}}}}, "'l3' was unexpected", "e1/targets"),
    ],
)
def test_schema_errors_name_the_key_and_the_value(override, message, path):
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    with pytest.raises(jsonschema.ValidationError) as err:
        jsonschema.validate(_merged(override), schema)
    assert message in err.value.message
    assert "/".join(map(str, err.value.absolute_path)) == path


@pytest.mark.parametrize(
    "override, named",
    [
        ("e1:\n  eps: -1\n", "eps"),
        ("e1:\n  eps: .nan\n", "config.e1.eps: nan is not a finite number"),
        ("e3:\n  eps: .inf\n", "config.e3.eps: inf is not a finite number"),
        ("e2:\n  tabel: data/other.csv\n", "'tabel' was unexpected"),
        (
            "e1:\n  pilot: {grid: [0.1], n_chains: 2, n_iter: 100, acceptance_range: [0.5, 0.2]}\n",
            "config.e1.pilot.acceptance_range: the range [0.5, 0.2] must be increasing",
        ),
        ("e1:\n  draws: {n_draws: 200, n_chains: 4, thin: 1.5}\n", "1.5 is not of type 'integer'"),
    ],
)
def test_bad_config_fails_before_any_job_naming_the_key(tmp_path, override, named):
    bad = tmp_path / "bad.yaml"
    bad.write_text(override)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--configfile",
            str(ROOT / "config" / "ci.yaml"),
            str(bad),
            "-n",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert named in out.stderr + out.stdout
    assert not (tmp_path / "results").exists()


def test_notebooks_are_stripped():
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text())["cells"]
        for cell in cells:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, nb.name


def test_no_tracked_file_points_outside_the_project():
    """The project stands alone: no tracked file cites the authors' private notes or a sibling folder."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not files:
        pytest.skip("not a git checkout")
    # the two names, spelled so that this file does not match itself
    pattern = re.compile(r"\b" + "SP" + r"EC\b|\.\./" + "sha" + "red")
    offenders = []
    for name in files:
        path = ROOT / name
        if path.suffix in {".zip", ".png", ".pdf"} or not path.is_file():
            continue
        text = path.read_text(errors="ignore")
        offenders += [f"{name}: {m.group(0)}" for m in pattern.finditer(text)]
    assert not offenders, offenders[:10]


def test_every_experiment_has_its_three_places():
    """An experiment is a config block eN (with its schema), a rule file that registers it, and a
    review notebook: what docs/architecture.md lists under "Adding an experiment"."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    experiments = sorted(k for k in config if re.fullmatch(r"e\d+", k))
    assert experiments, "no experiment blocks in config.yaml"
    rule_files = sorted(p.stem for p in (ROOT / "workflow" / "rules").glob("e*.smk") if re.fullmatch(r"e\d+", p.stem))
    assert rule_files == experiments
    for exp in experiments:
        assert exp in schema["properties"], f"{exp}: no schema"
        assert f'register(\n    "{exp}",' in (ROOT / "workflow" / "rules" / f"{exp}.smk").read_text()
        assert len(list((ROOT / "notebooks").glob(f"{exp}_*.py.ipynb"))) == 1, exp


def test_notebooks_declare_every_file_they_show():
    """A file a notebook opens by path must be an input of its rule, so no parallel run reaches the
    notebook before the file exists."""
    for rules in (ROOT / "workflow" / "rules").glob("e*.smk"):
        exp = rules.stem
        if not re.fullmatch(r"e\d+", exp):
            continue
        text = rules.read_text()
        inputs = text[text.index("    notebook=dict(\n") :]  # the inputs register() gives rule {exp}_notebook
        inputs = inputs[: inputs.index("\n    ),\n")]
        notebook = next((ROOT / "notebooks").glob(f"{exp}_*.py.ipynb"))
        source = "".join("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"])
        for path in re.findall(r"[\"'](?:results|data)/[^\"'{}]+[\"']", source):
            stem = path.strip("\"'").rsplit("/", 1)[-1].rsplit(".", 1)[0]
            assert stem in inputs, f"{notebook.name} shows {path}, not an input of rule {exp}_notebook"


def _release_check():
    """scripts/release_check.py, which `make release-check` runs."""
    spec = importlib.util.spec_from_file_location("release_check", ROOT / "scripts" / "release_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_version_changelog_and_citation_agree():
    assert _release_check().problems(ROOT) == []
    installed = subprocess.run([sys.executable, "-m", "isdp", "--version"], capture_output=True, text=True)
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] in installed.stdout


def _versioned_project(tmp_path, version, heading, citation, papers=None):
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "papers").mkdir(exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(f'[project]\nversion = "{version}"\n')
    (tmp_path / "papers/pyproject.toml").write_text(f'[project]\nversion = "{papers or version}"\n')
    (tmp_path / "docs/changelog.md").write_text(f"# Changelog\n\n{heading}\n\n## [0.2.0] - 2026-11-26\n")
    (tmp_path / "CITATION.cff").write_text(citation)
    return tmp_path


@pytest.mark.parametrize(
    "version, heading, citation, papers, message",
    [
        ("0.3.0.dev0", "## [Unreleased]", "version: 0.3.0.dev0\n", None, None),
        ("0.3.0", "## [0.3.0] - 2026-12-01", "version: 0.3.0\ndate-released: 2026-12-01\n", None, None),
        ("0.3.0.dev0", "## [0.3.0] - 2026-12-01", "version: 0.3.0.dev0\n", None, "opens on '## [Unreleased]'"),
        ("0.3.0", "## [Unreleased]", "version: 0.3.0\ndate-released: 2026-12-01\n", None, "opens on '## [0.3.0]"),
        ("0.3.0", "## [0.3.0] - 2026-12-01", "version: 0.3.0\ndate-released: 2026-11-30\n", None, "dates 0.3.0"),
        ("0.3.0", "## [0.3.0] - 2026-12-01", "version: 0.2.0\ndate-released: 2026-12-01\n", None, "CITATION.cff"),
        ("0.3.0.dev0", "## [Unreleased]", "version: 0.3.0.dev0\n", "0.2.0", "papers/pyproject.toml"),
        ("0.3", "## [Unreleased]", "version: 0.3\n", None, "neither X.Y.Z"),
    ],
)
def test_release_check_names_each_disagreement(tmp_path, version, heading, citation, papers, message):
    found = _release_check().problems(_versioned_project(tmp_path, version, heading, citation, papers))
    assert found == [] if message is None else any(message in line for line in found), found


def test_release_check_wants_the_tag_of_a_release_on_head(tmp_path):
    root = _versioned_project(
        tmp_path, "0.3.0", "## [0.3.0] - 2026-12-01", "version: 0.3.0\ndate-released: 2026-12-01\n"
    )
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "release"], check=True)
    check = _release_check()
    assert any("not tagged v0.3.0" in line for line in check.problems(root, tag=True))
    subprocess.run([*git, "tag", "v0.3.0"], check=True)
    assert check.problems(root, tag=True) == []
