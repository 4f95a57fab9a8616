"""Fixtures shared by the reproduction layer's tests (``isdp_papers``)."""

from __future__ import annotations

import pytest
from conftest import ROOT
from isdp_papers.config import load_config
from isdp_papers.evidence import Run


@pytest.fixture(scope="module")
def run() -> Run:
    """The checkout's run on the committed config, one per test module: for the registry rows that read only the
    config and committed inputs. A folder or module whose rows need results of their own overrides it."""
    return Run(ROOT, load_config(ROOT / "config" / "config.yaml"), repo=ROOT)
