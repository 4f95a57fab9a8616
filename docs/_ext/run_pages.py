"""The pages of one finished run: its executed review notebooks and its scorecard.

The notebooks are copied from ``<run>/results/notebooks`` and rendered as they were executed (the
site never re-executes them); the scorecard (``results/scorecard.html``) and the files it links to
are copied beside the site's pages into ``run/``. Without a finished run, the index page says so
and how to make one, and the build still succeeds.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

#: the site's copy of the run's scorecard and of what it links to (Sphinx's html_extra_path)
EXTRA = Path(__file__).resolve().parents[1] / "_build" / "run-extra"
_HREF = re.compile(r'href="([^":#?]+)"')

_NO_RUN = """\
This build of the site found no finished run, so it shows no review notebook and no scorecard.
To render them, finish a run (`make reproduce`, or `snakemake --cores all`) and build the site
again (`make docs`); to render another run's, point `ISDP_RUN` at the directory holding its
`results/` (`make docs ISDP_RUN=.ci-run`).
"""


def _copy_scorecard(results: Path) -> bool:
    """Copy the scorecard and every local file it links to into ``EXTRA/run``; False if none."""
    shutil.rmtree(EXTRA, ignore_errors=True)
    scorecard = results / "scorecard.html"
    if not scorecard.is_file():
        EXTRA.mkdir(parents=True)
        return False
    target = EXTRA / "run"
    target.mkdir(parents=True)
    shutil.copy2(scorecard, target / "scorecard.html")
    for href in sorted(set(_HREF.findall(scorecard.read_text(encoding="utf-8")))):
        source = results / href
        if source.is_file() and results in source.resolve().parents:
            (target / href).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / href)
    return True


def _index(notebooks: list[str], scorecard: bool, run: Path) -> str:
    lines = ["# The run's review notebooks", ""]
    if not notebooks:
        return "\n".join(lines) + "\n" + _NO_RUN
    lines += [
        f"These pages are the review notebooks of the run in `{run.name or run}`, as the workflow",
        "executed them: the paper's claims beside the figures, the registry's verdicts and the",
        "notebook's own re-checks of the stored outputs.",
        "",
    ]
    if scorecard:
        lines += [
            'The run\'s <a href="scorecard.html">scorecard</a> shows every figure and table of the',
            "papers with its verdict on one page.",
            "",
        ]
    lines += ["```{toctree}", ":maxdepth: 1", "", *notebooks, "```", ""]
    return "\n".join(lines)


def write(docs: Path, run: Path) -> None:
    """Write ``docs/run/``: the run's executed notebooks and their index page."""
    results = run / "results"
    pages = docs / "run"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir()
    notebooks = sorted((results / "notebooks").glob("e*.ipynb")) if results.is_dir() else []
    for nb in notebooks:
        shutil.copy2(nb, pages / nb.name)
    scorecard = _copy_scorecard(results)
    (pages / "index.md").write_text(_index([nb.stem for nb in notebooks], scorecard, run))
