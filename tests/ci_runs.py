"""The CI-profile runs the workflow tests read: ``make test`` runs the workflow into $ISDP_CI_RESULTS, and a
subset of it again into $ISDP_CI_RERUN, before pytest starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TIMING_COLUMNS = {"seconds", "ms_per_release"}  # and every column named *_seconds (e.g. certificate_certify_seconds)


def ci_run_dir(var: str) -> Path:
    """The run directory named by the environment variable ``var``; the test is skipped without it."""
    path = os.environ.get(var)
    if not path:
        pytest.skip(f"{var} is not set: run `make test`, which runs the CI workflow twice first")
    return Path(path)
