"""The review notebooks a CI-profile run publishes ($ISDP_CI_RESULTS, as in test_workflow.py): the executed
copies in results/notebooks/ and their HTML show no path of this machine and no Snakemake preamble
(:func:`isdp_papers.notebook.publishable`), and the HTML draws every verdict badge with the font it
embeds (:func:`isdp_papers.reporting.badge_css`)."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT
from isdp_papers.notebook import PREAMBLE_TAG
from isdp_papers.reporting import BADGE_FONT

pytestmark = pytest.mark.workflow
BASE64 = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s]+")  # embedded images and fonts: any text by chance


def published(run: Path):
    """(experiment, executed notebook, its HTML) for every experiment of the run's registry."""
    registry = pd.read_csv(run / "results" / "tables" / "experiments.csv")
    assert len(registry) > 0
    for exp, name in zip(registry["experiment"], registry["notebook"], strict=True):
        yield exp, run / "results" / "notebooks" / f"{name}.ipynb", run / "results" / "notebooks" / f"{exp}_review.html"


def machine_paths(run: Path) -> re.Pattern:
    """Any of this machine's directories, as a whole path component: the run (as given and resolved), the
    checkout, the venv and the Python it was made from, the home and the temporary directory."""
    dirs = {
        run,
        run.resolve(),
        ROOT,
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path.home(),
        Path(tempfile.gettempdir()),
        Path(tempfile.gettempdir()).resolve(),
    }
    alternatives = "|".join(sorted((re.escape(str(d)) for d in dirs if str(d) != "/"), key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w.-])")


def notebook_text(path: Path) -> str:
    """The executed notebook as JSON without the base64 data of its images."""
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            for mime in [m for m in out.get("data", {}) if m.startswith("image/") and m != "image/svg+xml"]:
                del out["data"][mime]
    return json.dumps(nb, ensure_ascii=False)


def test_published_notebooks_show_no_machine_path(run_dir):
    """Neither the executed copy nor its HTML (outputs, warnings, tracebacks, metadata) names a directory of
    this machine: the run is read from the notebook's relative paths."""
    pattern = machine_paths(run_dir)
    hits = []
    for _, executed, html in published(run_dir):
        for path, text in ((executed, notebook_text(executed)), (html, BASE64.sub("", html.read_text()))):
            hits += [
                f"{path.relative_to(run_dir)}: …{text[max(m.start() - 60, 0) : m.end() + 40]}…"
                for m in pattern.finditer(text)
            ]
    assert not hits, "machine paths in the published notebooks:\n" + "\n".join(hits[:20])


def test_published_notebooks_have_no_preamble(run_dir):
    """Snakemake's injected cell (the pickled ``snakemake`` object) is replaced by a short note."""
    for _, executed, html in published(run_dir):
        nb = json.loads(executed.read_text())
        tagged = [c for c in nb["cells"] if PREAMBLE_TAG in c["metadata"].get("tags", [])]
        assert [c["cell_type"] for c in tagged] == ["markdown"], executed
        assert "snakemake preamble" not in executed.read_text() and "snakemake preamble" not in html.read_text()
        assert executed.stat().st_size < html.stat().st_size


def test_every_verdict_badge_is_drawn_by_the_embedded_font(run_dir):
    """Each verdict a notebook shows ("*Verdict:* **✅ match**") is in words, and its glyphs are in the font the
    HTML embeds, so a browser without an emoji font (Debian's Chromium with its default fonts) draws them."""
    from fontTools.ttLib import TTFont

    shown = 0
    for exp, executed, html in published(run_dir):
        face = re.search(
            rf'@font-face {{ font-family: "{BADGE_FONT}"; src: url\(data:font/ttf;base64,([^)]+)\)', html.read_text()
        )
        assert face, f"{html}: no embedded badge font"
        drawn = TTFont(io.BytesIO(base64.b64decode(face.group(1)))).getBestCmap()
        nb = json.loads(executed.read_text())
        markdown = [
            "".join(out["data"]["text/markdown"])
            for cell in nb["cells"]
            for out in cell.get("outputs", [])
            if "text/markdown" in out.get("data", {})
        ]
        for badge in re.findall(r"\*Verdict:\* \*\*(.+?)\*\*", "\n".join(markdown)):
            shown += 1
            assert re.search(r"[a-z]{3,}", badge), f"{exp}: verdict {badge!r} not in words"
            missing = {c for c in badge if ord(c) > 127 and c != "\ufe0f" and ord(c) not in drawn}
            assert not missing, f"{exp}: verdict {badge!r}: {missing} not in the embedded font"
    assert shown > 0
