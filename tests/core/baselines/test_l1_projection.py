"""Tests of the DG + ℓ1 projection baseline: DG noise, the LP projection, the releases (isdp.baselines._l1_projection).

Statistical checks use fixed seeds and bounds set from the Monte Carlo error: a z-score of 4
per cell (or a chi-square p-value of 1e-4), each paired where useful with a control showing
that the same check rejects a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e4_projection_comparison.comparison import discrepancy_concentration
from projection_support import TABLE, l1, margins_4x4, sum_row
from scipy import stats
from scipy.optimize import linprog

from isdp.baselines import dg_l1_projection
from isdp.baselines._l1_projection import l1_projection_lp
from isdp.baselines._nonnegative import l1_projection_milp
from isdp.mcmc import DoubleGeometric

# --------------------------------------------------------------------------- DG noise


def chi_square_vs_dg(sample: np.ndarray, a: float) -> tuple[float, np.ndarray]:
    """Chi-square p-value of ``sample`` against DG(a) (bins with expected count ≥ 20, tails
    pooled) and the per-value z-scores (observed − expected) / sqrt(expected)."""
    n = sample.size
    K = 0
    while n * (1 - a) / (1 + a) * a ** (K + 1) >= 20:
        K += 1
    ks = np.arange(-K, K + 1)
    expected = n * (1 - a) / (1 + a) * a ** np.abs(ks)
    tail = n * a ** (K + 1) / (1 + a)  # P(K > k) = a^(k+1) / (1 + a), each side
    observed = np.array([(sample == k).sum() for k in ks])
    obs = np.concatenate([[(sample < -K).sum()], observed, [(sample > K).sum()]])
    exp = np.concatenate([[tail], expected, [tail]])
    assert np.isclose(exp.sum(), n)
    return stats.chisquare(obs, exp).pvalue, (observed - expected) / np.sqrt(expected)


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 1), (0.6, 2)])
def test_the_noise_is_double_geometric_of_epsilon_over_the_sensitivity(eps, delta):
    x = np.arange(6)
    _, noisy = dg_l1_projection(
        x, sum_row(6), eps, 5, np.random.default_rng(21), False, sensitivity=delta, return_noisy=True
    )
    np.testing.assert_array_equal(noisy - x, DoubleGeometric(eps / delta).rvs((5, 6), np.random.default_rng(21)))
    noise = DoubleGeometric(eps / delta).rvs((4000, 50), np.random.default_rng(21))
    assert noise.shape == (4000, 50) and noise.dtype == np.int64
    a = np.exp(-eps / delta)
    p, z = chi_square_vs_dg(noise.ravel(), a)
    assert p > 1e-4
    assert np.max(np.abs(z)) < 4.5
    # Control: a 3 % error in a is detected.
    assert chi_square_vs_dg(noise.ravel(), a * 1.03)[0] < 1e-6


# --------------------------------------------------------------------------- ℓ1 projections


def test_lp_hand_instances():
    # Move 1.5 from the positive cell onto cells in the right direction: value 1.5.
    y = l1_projection_lp([1.5, 0, 0], [[1, 1, 1]], [0])
    assert abs(y.sum()) < 1e-9 and l1(y, [1.5, 0, 0]) == pytest.approx(1.5, abs=1e-9)
    # Disjoint constraints separate: |0 − 1.5| + |10 − 3.5| = 8.
    m = np.array([2.5, -1, 0.5, 3])
    y = l1_projection_lp(m, [[1, 1, 0, 0], [0, 0, 1, 1]], [0, 10])
    np.testing.assert_allclose([y[:2].sum(), y[2:].sum()], [0, 10], atol=1e-9)
    assert l1(y, m) == pytest.approx(8, abs=1e-9)


def test_milp_integrality_costs_something_on_fractional_m():
    # LP: y = m already meets the constraint (value 0); an integer y is ≥ 1 away.
    assert l1(l1_projection_lp([0.5, 0.5], [[1, 1]], [1]), [0.5, 0.5]) == pytest.approx(0, abs=1e-9)
    y = l1_projection_milp([0.5, 0.5], [[1, 1]], [1])
    assert y.dtype == np.int64 and y.sum() == 1 and l1(y, [0.5, 0.5]) == pytest.approx(1)


@pytest.mark.parametrize("A", [sum_row(10), margins_4x4()], ids=["sum10", "margins4x4"])
def test_milp_vs_lp_objective(A):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 30, A.shape[1])
    b = A @ x
    for _ in range(10):
        m_real = x + rng.laplace(0, 3, A.shape[1])
        m_int = x + DoubleGeometric(0.3).rvs((1, A.shape[1]), rng)[0]
        for m in (m_real, m_int):
            y_lp, y_ip = l1_projection_lp(m, A, b), l1_projection_milp(m, A, b)
            assert y_ip.dtype == np.int64 and np.array_equal(A @ y_ip, b)
            assert np.max(np.abs(A @ y_lp - b)) < 1e-9
            assert l1(y_ip, m) >= l1(y_lp, m) - 1e-9
        # Integer m: equal optima by total unimodularity. Write y = m + p − q with p, q ≥ 0;
        # the LP is min Σ(p + q) s.t. [A, −A](p; q) = b − A m. A one-row 0/1 matrix, and the
        # row/column incidence matrix of a table (a bipartite graph), are totally unimodular,
        # and so is [A, −A]; with the integer right-hand side b − A m every vertex is
        # integral, so the LP optimum is attained at an integer y.
        assert l1(l1_projection_milp(m_int, A, b), m_int) == pytest.approx(
            l1(l1_projection_lp(m_int, A, b), m_int), abs=1e-7
        )


def test_lp_on_margins_matches_independent_formulation():
    A = margins_4x4()
    rng = np.random.default_rng(4)
    for _ in range(5):
        m = TABLE + rng.laplace(0, 4, 16)
        b = A @ TABLE
        value = l1(l1_projection_lp(m, A, b), m)
        # Same optimum from the split y = m + p − q, solved by interior point instead of simplex.
        ref = linprog(
            np.ones(32),
            A_eq=np.hstack([A, -A]),
            b_eq=b - A @ m,
            bounds=(0, None),
            method="highs-ipm",
        )
        assert ref.status == 0 and value == pytest.approx(ref.fun, abs=1e-6)
        # Rows (and columns) partition the cells, so each family gives a lower bound.
        gaps = np.abs(b - A @ m)
        assert value >= max(gaps[:4].sum(), gaps[4:].sum()) - 1e-9


@pytest.mark.parametrize("integer", [False, True])
def test_dg_l1_projection_releases(integer):
    rng = np.random.default_rng(17)
    x = rng.integers(0, 100_000, 102)
    A = sum_row(102)
    r, noisy = dg_l1_projection(x, A, 0.192, 40, rng, integer=integer, return_noisy=True)
    assert r.shape == noisy.shape == (40, 102)
    if integer:
        assert r.dtype == np.int64 and np.array_equal(r.sum(axis=1), np.full(40, x.sum()))
    else:
        assert r.dtype == float and np.max(np.abs(r.sum(axis=1) - x.sum())) < 1e-6
    value = np.abs(r - noisy).sum(axis=1)
    np.testing.assert_allclose(value, np.abs(noisy.sum(axis=1) - x.sum()), atol=1e-6)
    # A vertex of the sum-constraint LP leaves every cell but one at m (each other cell needs
    # both of its |y_i − m_i| ≤ t_i inequalities active), so HiGHS' simplex puts the whole
    # discrepancy on one cell; 1.0 is what the docstring reports.
    share = discrepancy_concentration(noisy, r)
    assert np.all(share[~np.isnan(share)] == pytest.approx(1.0))


@pytest.mark.parametrize("A", [sum_row(7), sum_row(102), margins_4x4()], ids=["sum7", "sum102", "margins4x4"])
def test_interior_lp_is_l1_optimal_and_not_a_vertex(A):
    rng = np.random.default_rng(23)
    n, one_sum = A.shape[1], A.shape[0] == 1
    x = rng.integers(0, 5_000_000, n) if one_sum else TABLE
    b = A @ x
    for _ in range(10):
        m = x + DoubleGeometric(0.192).rvs((1, n), rng)[0]
        y_v = l1_projection_lp(m, A, b, method="vertex")
        y_i = l1_projection_lp(m, A, b, method="interior")
        assert y_i.dtype == float
        # Invariant to solver tolerance (1e-7 on the discrepancy) plus rounding of the totals.
        assert np.max(np.abs(A @ y_i - b)) < 1e-6
        # Both optimal: the same ℓ1 value (HiGHS' optimality tolerance is 1e-8 relative).
        assert l1(y_i, m) == pytest.approx(l1(y_v, m), abs=1e-6)
        if one_sum:  # the optimal face's analytic centre spreads the discrepancy evenly
            d = y_i - m
            assert np.max(np.abs(d - (b[0] - m.sum()) / n)) < 1e-8
            share = discrepancy_concentration(m, y_i)
            assert np.isnan(share) or share == pytest.approx(1 / n, abs=1e-8)
        # Not a vertex: the discrepancy moves more cells than the vertex solution does
        # (a vertex of the sum LP moves one, of the margins LP at most rank(A) = 7).
        moved_v, moved_i = (np.abs(y - m) > 1e-6 for y in (y_v, y_i))
        if moved_v.any():
            assert moved_i.sum() > moved_v.sum()
            assert moved_i.sum() >= min(n, 8)


def test_interior_lp_hand_instance_and_releases():
    # m sums to 3 over 3 cells, b = 0: the analytic centre takes 1 from every cell.
    y = l1_projection_lp([3.0, 0, 0], sum_row(3), [0], method="interior")
    np.testing.assert_allclose(y, [2, -1, -1], atol=1e-9)
    x = np.random.default_rng(30).integers(0, 100_000, 20)
    r, noisy = dg_l1_projection(
        x, sum_row(20), 0.192, 30, np.random.default_rng(31), integer=False, return_noisy=True, method="interior"
    )
    np.testing.assert_allclose(r, noisy - noisy.mean(axis=1, keepdims=True) + x.mean(), atol=1e-8)
    # Same noise as the vertex variant from the same stream: only the projection step differs.
    _, noisy_v = dg_l1_projection(
        x, sum_row(20), 0.192, 30, np.random.default_rng(31), integer=False, return_noisy=True
    )
    np.testing.assert_array_equal(noisy, noisy_v)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call",
    [
        lambda: l1_projection_lp([1, 2, 3], [[1, 1]], [0]),  # A has the wrong width
        lambda: l1_projection_lp([1, 2], [[1, 0.5]], [0]),  # A not integer
        lambda: l1_projection_lp([1, 2], [[1, 1]], [0, 1]),  # b has the wrong length
        lambda: l1_projection_lp([[1, 2]], [[1, 1]], [0]),  # m not 1-D
        lambda: dg_l1_projection([1, 2], [[1, 1]], 1.0, 2, np.random.default_rng(), True, sensitivity=-1),
        lambda: dg_l1_projection([1.5, 2], [[1, 1]], 1.0, 2, np.random.default_rng(), True),
        lambda: dg_l1_projection([1, 2], [[1, 1]], 1.0, 2, np.random.default_rng(), True, method="interior"),
        lambda: l1_projection_lp([1, 2], [[1, 1]], [0], method="barrier"),  # unknown method
    ],
)
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
