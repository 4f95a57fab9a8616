"""Tests of the non-negative ℓ2 (NNL2) projection (isdp.baselines._nnl2)."""

from __future__ import annotations

import numpy as np
import pytest
from projection_support import TABLE, margins_4x4, sum_row
from scipy.optimize import minimize

from isdp.baselines import nnl2_projection, nonnegative_total_projection
from isdp.errors import SolverError
from isdp.mcmc import DoubleGeometric

# --------------------------------------------------------------------------- NNL2


@pytest.mark.parametrize("A", [sum_row(46), margins_4x4()], ids=["sum46", "margins4x4"])
def test_nnl2_feasible_and_nonnegative(A):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 12, A.shape[1])
    b = A @ x
    for _ in range(20):
        m = x + DoubleGeometric(0.5).rvs((1, A.shape[1]), rng)[0]
        s = nnl2_projection(m, A, b)
        assert s.min() >= -1e-9
        assert np.max(np.abs(A @ s - b)) <= 1e-7 * max(1, np.abs(b).max())


def test_nnl2_returns_feasible_m_unchanged():
    s = nnl2_projection(TABLE.astype(float), margins_4x4(), margins_4x4() @ TABLE)
    np.testing.assert_allclose(s, TABLE, atol=1e-7)


def test_nnl2_sum_constraint_matches_kkt_solution():
    # KKT for min ½‖s − m‖² s.t. Σs = b, s ≥ 0: s_i = max(m_i − λ, 0), with λ found by
    # sorting m in decreasing order (the classic projection onto a scaled simplex).
    rng = np.random.default_rng(9)
    b = 40.0
    for _ in range(10):
        m = rng.normal(2, 4, 30)
        u = np.sort(m)[::-1]
        excess = np.cumsum(u) - b
        k = np.flatnonzero(u - excess / np.arange(1, 31) > 0)[-1]
        lam = excess[k] / (k + 1)
        np.testing.assert_allclose(nnl2_projection(m, sum_row(30), [b]), np.maximum(m - lam, 0), atol=1e-6)


def test_vectorised_simplex_projection_agrees_with_the_qp_per_row_total_and_zero_total():
    rng = np.random.default_rng(10)
    m = rng.normal(2, 4, (6, 12))
    totals = np.array([0.0, 0.5, 3.0, 10.0, 40.0, 100.0])
    s = nonnegative_total_projection(m, totals)
    for row, b, got in zip(m, totals, s, strict=True):
        np.testing.assert_allclose(got, nnl2_projection(row, sum_row(12), [b]), atol=1e-6)
    assert np.all(s[0] == 0) and np.allclose(s.sum(axis=1), totals) and np.all(s >= 0)
    with pytest.raises(ValueError, match="≥ 0"):
        nonnegative_total_projection(m, -1.0)


def test_simplex_projection_is_the_baselines_nnl2_projection():
    m = np.random.default_rng(3).normal(3.0, 15.0, (12, 25))
    fast = nonnegative_total_projection(m, 60.0)
    slow = np.array([nnl2_projection(row, np.ones((1, 25)), [60.0]) for row in m])
    assert np.abs(fast - slow).max() < 1e-6
    assert fast.min() >= 0 and np.allclose(fast.sum(axis=1), 60.0)


def test_nnl2_matches_slsqp():
    A = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0]])
    b = np.array([10.0, 3.0])
    m = np.array([4.0, -2.0, 3.5, 6.0, -1.0, 0.5])
    s = nnl2_projection(m, A, b)
    ref = minimize(
        lambda v: np.sum((v - m) ** 2),
        np.full(6, 10 / 6),
        jac=lambda v: 2 * (v - m),
        bounds=[(0, None)] * 6,
        constraints=[{"type": "eq", "fun": lambda v: A @ v - b, "jac": lambda v: A.astype(float)}],
        method="SLSQP",
        options={"ftol": 1e-12, "maxiter": 500},
    )
    assert ref.success
    np.testing.assert_allclose(s, ref.x, atol=1e-5)
    assert np.sum((s - m) ** 2) <= ref.fun + 1e-8


def test_nnl2_infeasible_raises():
    with pytest.raises(SolverError, match="Infeasible"):
        nnl2_projection([1.0, 2.0], [[1, 1]], [-1])


def test_bad_inputs_raise_value_error():
    with pytest.raises(ValueError):
        nnl2_projection([1, 2], [1, 1], [2])  # A not 2-D
