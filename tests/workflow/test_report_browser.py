"""The HTML report renders in a real headless browser (Debian's Chromium), not only exists.

Skipped with a reason when no Chromium is installed (`apt-get install chromium`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.workflow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
# Flags for a closed network and a root user (see the environment notes in the README).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_report_renders_in_chromium(tmp_path):
    run = os.environ.get("ISDP_CI_RESULTS")
    if not run:
        pytest.skip("ISDP_CI_RESULTS is not set: run `make test`")
    report = Path(run) / "results" / "report.html"
    out = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path}", "--virtual-time-budget=15000", "--dump-dom",
         report.as_uri()], capture_output=True, text=True, timeout=120)
    dom = out.stdout
    # These navigation entries exist only once the report's JavaScript has rendered the page.
    for entry in (">Workflow<", ">Statistics<", ">E1 intersecting constraints<",
                  ">E2 delinquent-children table<"):
        assert entry in dom, f"{entry} not rendered; chromium stderr: {out.stderr[-500:]}"
