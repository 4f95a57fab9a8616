"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.problem`: §5.2's constraints are the two margin families
of each building (shape, rank, the margins they compute), and an empty dimension is refused."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import B, G, H
from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

from isdp.errors import InvariantError


def test_constraints_are_the_two_margin_families_of_each_building():
    A, labels = group_hour_building_constraints(G, H, B)
    assert A.shape == (B * (H + G), G * H * B) and len(labels) == A.shape[0]
    assert np.linalg.matrix_rank(A) == B * (G + H - 1)
    x = np.random.default_rng(0).integers(0, 50, (G, H, B))
    expected = np.concatenate([x.sum(axis=0).ravel(), x.sum(axis=1).ravel()])  # (hour, building), (group, building)
    np.testing.assert_array_equal(A @ x.ravel(), expected)
    with pytest.raises(InvariantError, match="hours"):
        group_hour_building_constraints(G, 0, B)
