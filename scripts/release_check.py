"""Check that the versions, the changelog's first heading and CITATION.cff agree (`make release-check` runs it).

    python scripts/release_check.py [--tag]

The scheme (docs/changelog.md): between releases, main carries the next version with a ``.devN`` suffix
(``0.3.0.dev0``), the changelog opens on ``## [Unreleased]`` and CITATION.cff cites that same version; a release
sets ``X.Y.Z`` in pyproject.toml, heads the changelog ``## [X.Y.Z] - YYYY-MM-DD``, gives CITATION.cff that version
and date, and is tagged ``vX.Y.Z`` on the commit that says so. ``--tag`` also requires that tag on HEAD (the
check before pushing a release). Exit 1 with one line per disagreement; tests/workflow/test_packaging.py runs it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def problems(root: Path = ROOT, tag: bool = False) -> list[str]:
    """Return every disagreement between pyproject.toml's version, the changelog and CITATION.cff (empty: agreed)."""
    raw = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    scheme = re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", raw)
    if scheme is None:
        return [f"pyproject.toml: version {raw!r} is neither X.Y.Z nor X.Y.Z.devN"]
    found = []
    papers = tomllib.loads((root / "papers/pyproject.toml").read_text())["project"]["version"]
    if papers != raw:
        found.append(f"papers/pyproject.toml: version {papers}, pyproject.toml says {raw}")
    changelog = (root / "docs/changelog.md").read_text().splitlines()
    heading = next((line for line in changelog if line.startswith("## ")), "")
    citation = (root / "CITATION.cff").read_text()
    cited = re.search(r"^version:\s*\"?([^\s\"]+)\"?\s*$", citation, re.M)
    released = re.search(r"^date-released:\s*\"?(\d{4}-\d{2}-\d{2})\"?\s*$", citation, re.M)
    if cited is None or cited.group(1) != raw:
        found.append(f"CITATION.cff: version {cited.group(1) if cited else 'missing'}, pyproject.toml says {raw}")
    if scheme.group(1):  # a development version
        if heading != "## [Unreleased]":
            found.append(f"docs/changelog.md: a {raw} build opens on '## [Unreleased]', not {heading!r}")
        if tag:
            found.append(f"--tag: {raw} is not a release version (X.Y.Z)")
        return found
    match = re.fullmatch(r"## \[([^\]]+)\] - (\d{4}-\d{2}-\d{2})", heading)
    if match is None or match.group(1) != raw:
        found.append(f"docs/changelog.md: release {raw} opens on '## [{raw}] - YYYY-MM-DD', not {heading!r}")
    elif released is None or released.group(1) != match.group(2):
        found.append(
            f"CITATION.cff: date-released {released.group(1) if released else 'missing'}, "
            f"the changelog dates {raw} {match.group(2)}"
        )
    if tag:
        tags = subprocess.run(
            ["git", "-C", str(root), "tag", "--points-at", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.split()
        if f"v{raw}" not in tags:
            found.append(f"git: HEAD is not tagged v{raw} (tags on HEAD: {', '.join(tags) or 'none'})")
    return found


def main(argv: list[str] | None = None) -> int:
    """Print each disagreement and return 1, or print the agreed version and return 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tag", action="store_true", help="also require the tag vX.Y.Z on HEAD")
    args = parser.parse_args(argv)
    found = problems(tag=args.tag)
    for line in found:
        print(f"release-check: {line}", file=sys.stderr)
    if not found:
        version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
        print(f"release-check: version {version}: pyproject.toml, docs/changelog.md and CITATION.cff agree")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
