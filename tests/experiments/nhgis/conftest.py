"""Fixtures shared by the tests of the NHGIS download and its fallback."""

from __future__ import annotations

import pytest
from census_support import serving


@pytest.fixture
def server():
    """A local HTTP server for the download to fetch from, stopped after the test (``census_support.serving``)."""
    yield from serving()
