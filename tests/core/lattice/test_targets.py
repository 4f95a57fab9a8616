"""Tests of :mod:`isdp.lattice._targets`: the generalized Laplace and Gaussian targets validate their
arguments, and their log-densities and kernel parameters are the laws of ISDP Definitions 9 and 13."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.lattice import Target, generalized_gaussian, generalized_laplace


def test_targets_validate_their_arguments():
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError):
            generalized_laplace(bad)
        with pytest.raises(ValueError):
            generalized_gaussian(bad)
    with pytest.raises(ValueError):
        generalized_laplace(1.0, "linf")


def test_each_target_s_log_density_code_and_parameter():
    u = np.array([[3, -4, 0], [0, 0, 0]])
    l1, l2, gauss = generalized_laplace(0.5), generalized_laplace(0.5, "l2"), generalized_gaussian(2.0)
    assert l1.log_density(u).tolist() == [-3.5, 0.0] and l2.log_density(u).tolist() == [-2.5, 0.0]
    assert gauss.log_density(u).tolist() == [-25 / 8, 0.0]
    assert [(t.code, t.param) for t in (l1, l2, gauss)] == [(0, 0.5), (1, 0.5), (2, 1 / 8)]
    assert gauss == Target("gaussian", "l2", 2.0) and gauss.label == "Gaussian (σ=2)"
    with pytest.raises(ValueError, match="unsupported norm 'l1' for the gaussian target"):
        Target("gaussian", "l1", 2.0)
