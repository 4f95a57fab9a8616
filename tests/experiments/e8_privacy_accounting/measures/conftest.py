"""Fixtures shared by the tests of E8's measures."""

from __future__ import annotations

import pytest
from accounting_support import tda_run
from isdp_papers.evidence import Run


@pytest.fixture
def run(tmp_path) -> Run:
    """A run in ``tmp_path`` on E8's configuration as written, nothing made in it: for the rows that read only the
    committed data (each test gets its own results folder)."""
    return tda_run(tmp_path)
