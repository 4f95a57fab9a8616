"""The hockey-stick divergence of isdp.privacy_audit (a core module, left here when the E7 statement rows moved to
tests/experiments/e7_congenial_histogram/measures/): the largest set difference."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.privacy_audit import hockey_stick_divergence


def test_hockey_stick_is_the_largest_set_difference():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    best = max(p[list(b)].sum() - np.e * q[list(b)].sum() for b in ([0], [1], [0, 1], [2], [0, 2]))
    assert hockey_stick_divergence(p, q, 1.0) == pytest.approx(max(best, 0.0))
    assert hockey_stick_divergence(p, p, 0.0) == 0.0
