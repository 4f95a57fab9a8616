"""Tests of :mod:`isdp.privacy_audit`: the hockey-stick divergence is the largest set difference P(B) − e^ε Q(B) over
the sets B (and 0 between a law and itself at ε = 0)."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.privacy_audit import hockey_stick_divergence


def test_hockey_stick_is_the_largest_set_difference():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    best = max(p[list(b)].sum() - np.e * q[list(b)].sum() for b in ([0], [1], [0, 1], [2], [0, 2]))
    assert hockey_stick_divergence(p, q, 1.0) == pytest.approx(max(best, 0.0))
    assert hockey_stick_divergence(p, p, 0.0) == 0.0
