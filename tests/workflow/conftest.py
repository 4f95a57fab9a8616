"""Fixtures shared by the tests of a CI-profile run's outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_runs import ci_run_dir


@pytest.fixture(scope="module")
def run_dir() -> Path:
    """The CI-profile run `make test` makes ($ISDP_CI_RESULTS); the test is skipped without it."""
    return ci_run_dir("ISDP_CI_RESULTS")
