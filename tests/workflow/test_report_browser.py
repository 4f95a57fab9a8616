"""The HTML report and the scorecard render in a real headless browser (Debian's Chromium), not only exist.

Skipped with a reason when no Chromium is installed (`apt-get install chromium`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(
        not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")),
        reason="no Chromium on this machine (apt-get install chromium)",
    ),
]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
# Flags for a closed network and a root user (see the environment notes in the README).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VERDICTS = "All verdicts: scorecard and summary"


@pytest.fixture(scope="module")
def results() -> Path:
    run = os.environ.get("ISDP_CI_RESULTS")
    if not run:
        pytest.skip("ISDP_CI_RESULTS is not set: run `make test`")
    return Path(run) / "results"


def _dom(page: Path, profile: Path) -> tuple[str, str]:
    """The page's DOM after its JavaScript ran, and Chromium's stderr."""
    out = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout, out.stderr[-500:]


class _Targets(HTMLParser):
    """Every href and src of a page."""

    def __init__(self):
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.targets += [v for k, v in attrs if k in ("href", "src") and v]


def test_report_renders_and_opens_on_the_scorecard(results, tmp_path):
    dom, err = _dom(results / "report.html", tmp_path)
    # These navigation entries exist only once the report's JavaScript has rendered the page.
    for entry in (">Workflow<", ">Statistics<", ">E1 intersecting constraints<", ">E2 delinquent-children table<"):
        assert entry in dom, f"{entry} not rendered; chromium stderr: {err}"
    # the landing view shows the scorecard (the workflow description) before the rule graph
    assert "Scorecard:" in dom and "isdp-sc" in dom, "the report does not open on the scorecard"
    assert dom.index("Scorecard:") < dom.index("Statements that belong to no figure or table")
    # and the first category of the menu's Results is the one holding the standalone scorecard
    menu = dom[dom.index(">Results<") :]
    assert menu.index(f">{VERDICTS}<") < menu.index(">E1 intersecting constraints<")
    assert "System Message" not in dom


def test_scorecard_renders_and_every_link_resolves(results, tmp_path):
    page = results / "scorecard.html"
    dom, err = _dom(page, tmp_path)
    assert "Scorecard:" in dom and "ISDP" in dom, f"scorecard not rendered; chromium stderr: {err}"
    # opened from disk its links work: the page's script leaves them armed and adds no note (its own text aside)
    assert "framed-note" not in re.sub(r"<script>.*?</script>", "", dom, flags=re.S)
    parser = _Targets()
    parser.feed(dom)
    local = [t for t in parser.targets if not t.startswith(("#", "data:"))]
    assert len(local) > 30 and any(t.startswith("figures/") for t in local) and any("notebooks/" in t for t in local)
    missing = [t for t in local if urlsplit(t).scheme or not (page.parent / unquote(urlsplit(t).path)).is_file()]
    assert not missing, f"links that do not resolve from results/: {missing}"
    assert sum(t.startswith("data:image/") for t in parser.targets) >= 15  # the figures' thumbnails
