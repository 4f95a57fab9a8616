"""Tests of :mod:`isdp_papers.lattice_study.dp_audits`: the worst log ratio on a grid is the brute-force privacy
loss (:func:`log_ratio_on_grid`), the joint update's transition matrix is row-stochastic (:func:`joint_update_matrix`)
and the linear programme finds an unbiased DP mechanism exactly when one is known to exist
(:func:`unbiased_dp_exists`)."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.lattice_study.dp_audits import joint_update_matrix, log_ratio_on_grid, unbiased_dp_exists

from isdp.lattice import IntegerLattice, generalized_laplace, table_margins


def test_log_ratio_on_grid_is_the_brute_force_loss():
    rng = np.random.default_rng(3)
    logp = rng.normal(size=(5, 5, 5))
    v = np.array([1, -2, 0])
    brute = max(
        logp[y] - logp[tuple(np.subtract(y, v))]
        for y in np.ndindex(5, 5, 5)
        if all(0 <= c < 5 for c in np.subtract(y, v))
    )
    assert log_ratio_on_grid(logp, v) == pytest.approx(brute, abs=1e-12)


def test_joint_update_matrix_is_row_stochastic():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    P, w = joint_update_matrix(lattice, generalized_laplace(1.0), 1.0, 4)
    assert P.shape == (len(w), len(w)) and np.all(P >= 0)
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_unbiased_dp_lp_finds_the_known_mechanisms():
    """Without non-negativity and with a wide range, a symmetric mechanism exists at any ε; with it, none does."""
    assert unbiased_dp_exists(4, 2.0, nonnegative=False, margin=60)
    assert not unbiased_dp_exists(4, 2.0, nonnegative=True, margin=0)
