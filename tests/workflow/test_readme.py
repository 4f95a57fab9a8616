"""README.md stays a newcomer's page: short, timeless (no dates, no commit hashes), its links resolve, and every
number it states is generated or tied to the code. Its two generated blocks are checked where they are made:
the claim counts by tests/experiments/test_reporting.py, the command times by
tests/benchmarks/test_measurements_table.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_WORDS = 1000
GENERATED = ("claim-counts", "make-times")  # <!-- name:start --> … <!-- name:end -->
# GitHub's web routes of the repository (the CI badge), which are not files of the tree
WEB_ROUTES = ("../../actions/",)

HASHES = (
    re.compile(r"`[0-9a-f]{7,40}`"),  # a hash in backticks
    re.compile(r"\bcommits?\b", re.I),  # or any mention of a commit
    re.compile(r"(?<![\w/.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w/-])"),  # a bare hex word
)
MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
DATES = (
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),  # 2026-11-25
    re.compile(rf"\b\d{{1,2}} {MONTH},? \d{{4}}\b"),  # 25 Nov 2026
    re.compile(rf"\b{MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b"),  # November 25, 2026
    re.compile(rf"\b{MONTH} \d{{4}}\b"),  # November 2026
    re.compile(r"\b(?:19|20)\d{2}\b"),  # a year
)


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _without_generated(text: str) -> str:
    for name in GENERATED:
        text = re.sub(rf"<!-- {name}:start -->.*?<!-- {name}:end -->", "", text, flags=re.S)
    return text


def _prose(text: str) -> str:
    """The README's own words: no generated block, code block, inline code or link target."""
    text = re.sub(r"```.*?```", "", _without_generated(text), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"\]\([^)\s]*\)", "]", text)


def test_readme_is_short():
    words = len(_readme().split())
    assert words <= MAX_WORDS, f"README.md has {words} words, more than {MAX_WORDS}: move detail to docs/"


def test_readme_has_each_generated_block_once():
    text = _readme()
    for name in GENERATED:
        assert text.count(f"<!-- {name}:start -->") == 1 and text.count(f"<!-- {name}:end -->") == 1, name


def _hashes_and_dates(text: str) -> list[str]:
    return [m.group(0) for pattern in (*HASHES, *DATES) for m in pattern.finditer(text)]


def test_readme_has_no_commit_hash_and_no_date():
    """Dated measurements belong to docs/changelog.md; the README's times are the generated block's."""
    found = _hashes_and_dates(_readme())
    assert not found, f"README.md names commits or dates: {found}"


def test_the_hash_and_date_check_can_fail():
    samples = [
        "on commit 1c806f9",
        "(bb11b87)",
        "`3877eb5`",
        "on 2026-11-25",
        "25 Nov 2026",
        "November 2026",
        "the 2010 Census",
    ]
    assert all(_hashes_and_dates(s) for s in samples)
    assert not _hashes_and_dates(
        "base seed 20230207, `e3_census_counties/`, results/report.html, committed inputs, AAAI-23, a deadbeef cafe"
    )


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: link text only, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def _broken_links(doc: Path, text: str) -> list[str]:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:", *WEB_ROUTES)):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (file.suffix != ".md" or anchor not in _anchors(file)):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    return broken


def test_readme_links_resolve():
    """Every relative link of the README, in its generated blocks too, names a file of the tree and, with #, a
    heading of that file."""
    assert not _broken_links(README, _readme())


def test_links_into_the_readme_resolve():
    """Other pages' links to the README's sections name headings it has."""
    broken = []
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        text = doc.read_text(encoding="utf-8")
        links = "".join(f"]({t})" for t in re.findall(r"\]\(([^)\s]*README\.md#[^)\s]*)\)", text))
        broken += [f"{doc.relative_to(ROOT)}: {b}" for b in _broken_links(doc, links)]
    assert not broken


def test_the_link_check_can_fail(tmp_path):
    doc = tmp_path / "page.md"
    doc.write_text("# A page (`isdp`; [x](y.md))\n")
    assert _anchors(doc) == {"a-page-isdp-x"}
    assert (
        _slug("11. What a release guarantees (`isdp.release`, `isdp release`; [release.md](release.md))")
        == "11-what-a-release-guarantees-isdprelease-isdp-release-releasemd"
    )
    assert _broken_links(doc, "[ok](page.md#a-page-isdp-x) [web](../../actions/x)") == []
    assert len(_broken_links(doc, "[a](missing.md) [b](page.md#nowhere) [c](#nowhere)")) == 3


def _supported_pythons() -> list[str]:
    """The Python minors pyproject.toml's classifiers declare (3.11 …)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [c.rsplit(" :: ", 1)[1] for c in project["classifiers"] if re.fullmatch(r".*Python :: 3\.\d+", c)]


def _tied_tokens() -> set[str]:
    """What a number in the README's prose may be: an experiment of config/config.yaml (E1 …), a venue of the
    documents the claims registry names (its header's ``# Documents:`` line: AAAI-23 …), a Python minor
    pyproject.toml declares, or the version's SemVer series (0.x)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    experiments = {f"E{key[1:]}" for key in config if re.fullmatch(r"e\d+", key)}
    header = next(
        line for line in (ROOT / "config" / "claims.yaml").read_text().splitlines() if line.startswith("# Documents:")
    )
    venues = set(re.findall(r"\(([^)]*\d[^)]*)\)", header))
    return experiments | venues | set(_supported_pythons()) | {project["version"].split(".")[0] + ".x"}


def _numbers(prose: str) -> list[str]:
    return [t.rstrip(".,-") for t in re.findall(r"[\w.,-]*\d[\w.,-]*", prose)]


def test_every_number_in_the_readme_prose_is_tied_to_the_code():
    """Outside the generated blocks, code and link targets the README states no measured or typed number: what
    digits it has name an experiment of the config or a paper's venue as the claims registry cites it."""
    tied = _tied_tokens()
    assert {"E1", "E8", "AAAI-23", "FODS-20"} <= tied
    untied = [n for n in _numbers(_prose(_readme())) if n not in tied]
    assert not untied, f"numbers in README.md's prose that no test ties to the code or config: {untied}"


@pytest.mark.parametrize(
    "prose, untied",
    [("takes 5 min 25 s", ["5", "25"]), ("E1 to E8 (AAAI-23)", []), ("1,517 tests", ["1,517"]), ("E42", ["E42"])],
)
def test_the_number_check_can_fail(prose, untied):
    assert [n for n in _numbers(prose) if n not in _tied_tokens()] == untied


def test_the_readme_example_runs_in_six_lines_and_prints_what_it_shows(capsys):
    """The library's six lines run as written: the release they make is integer and keeps the total, or
    check_release raises; the last line prints what its comment shows."""
    block = re.search(r"```python\n(.*?)```", _readme(), re.S).group(1)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 6 and "six lines" in _readme()
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    assert namespace["release"].sum() == namespace["counts"].sum()
    assert capsys.readouterr().out.strip() == lines[-1].split("# ", 1)[1].strip()


def test_the_readme_states_the_python_range_pyproject_declares():
    minors = _supported_pythons()
    assert f"Python {minors[0]} to {minors[-1]}" in _readme()
