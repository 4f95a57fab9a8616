"""Write the conda routes' package lists from pyproject.toml and one lock file (`make lock` runs it).

    python scripts/conda_envs.py [--python 3.13]

environment.yml gets every package pyproject.toml declares (core and the workflow, docs, dev, opendp and distributed
extras),
workflow/envs/isdp.yaml those of the core and the workflow extra, each at the version the lock file of
``--python`` pins (constraints/py3.13.txt by default: a new conda environment takes today's Python). Packages
that only an older Python needs (a ``python_version <`` marker that excludes ``--python``) are left out. Each
file's header comment is kept. tests/workflow/test_packaging.py checks that the files agree with both sources.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("workflow", "docs", "dev", "opendp", "distributed")


def normalise(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(python: str) -> dict[str, str]:
    """Name → version of constraints/py{python}.txt."""
    lines = (ROOT / "constraints" / f"py{python}.txt").read_text().splitlines()
    return {normalise(n): v for n, _, v in (line.partition("==") for line in lines if line and line[0] != "#")}


def declared(python: str, extras=EXTRAS) -> list[str]:
    """pyproject.toml's packages for Python ``python``, core first, each once, in the file's order."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names: list[str] = []
    for spec in project["dependencies"] + [s for e in extras for s in project["optional-dependencies"][e]]:
        req = Requirement(spec)
        if (req.marker is None or req.marker.evaluate({"python_version": python})) and normalise(req.name) not in names:
            names.append(normalise(req.name))
    return names


def write(path: Path, python: str, extras, pip: bool) -> None:
    """Replace ``path``'s ``dependencies:`` list, keeping everything above it."""
    text = path.read_text()
    head = text[: text.index("dependencies:\n")]
    pinned = pins(python)
    lines = [
        f"  - python={python}",
        *(["  - pip"] if pip else []),
        *(f"  - {name}={pinned[name]}" for name in declared(python, extras)),
    ]
    if pip:
        lines += [
            "  - pip:",
            "      - --no-deps -e .  # the project itself; its dependencies are the conda packages above",
            "      - --no-deps -e ./papers  # the paper layer the workflow runs (never in the isdp wheel)",
        ]
    path.write_text(head + "dependencies:\n" + "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default="3.13", help="the Python minor whose lock file pins the versions")
    python = parser.parse_args().python
    write(ROOT / "environment.yml", python, EXTRAS, pip=True)
    write(ROOT / "workflow" / "envs" / "isdp.yaml", python, ("workflow",), pip=False)


if __name__ == "__main__":
    main()
