"""Tests of the post-processing baselines (isdp.baselines).

Statistical checks use fixed seeds and bounds set from the Monte Carlo error: a z-score of 4
per cell (or a chi-square p-value of 1e-4), each paired where useful with a control showing
that the same check rejects a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import linprog, minimize

from isdp.baselines import (
    dg_l1_projection,
    discrepancy_concentration,
    double_geometric_noise,
    extended_gaussian,
    l1_projection_lp,
    l1_projection_milp,
    l1_total_projection,
    nnl2_projection,
    nonnegative_total_projection,
    null_space_blocks,
    projected_gaussian,
    projected_laplace,
    projection_sd,
    row_space_basis,
)
from isdp.errors import SolverError
from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

# Delinquent children (ISDP §5 Table 1, experiment E2), row-major.
TABLE = np.array([15, 1, 3, 1, 20, 10, 10, 15, 3, 10, 10, 2, 12, 14, 7, 2])


def margins_4x4() -> np.ndarray:
    """8 × 16: the 4 row sums then the 4 column sums of a row-major 4 × 4 table."""
    A = np.zeros((8, 16), dtype=np.int64)
    for i in range(4):
        A[i, 4 * i : 4 * i + 4] = 1
        A[4 + i, i::4] = 1
    return A


def sum_row(n: int) -> np.ndarray:
    return np.ones((1, n), dtype=np.int64)


def l1(y, m) -> float:
    return float(np.abs(np.asarray(y, float) - np.asarray(m, float)).sum())


def test_margins_matrix_has_rank_7():
    A = margins_4x4()
    assert A.shape == (8, 16)
    assert np.linalg.matrix_rank(A) == 7
    assert np.array_equal(A @ TABLE, [20, 55, 25, 35, 50, 35, 30, 20])


# --------------------------------------------------------------------------- projected Laplace


@pytest.mark.parametrize("A", [sum_row(102), margins_4x4()], ids=["sum102", "margins4x4"])
def test_projected_laplace_keeps_invariants(A):
    rng = np.random.default_rng(11)
    x = rng.integers(0, 1000, A.shape[1])
    r = projected_laplace(x, A, eps=0.192, size=2000, rng=rng)
    assert r.shape == (2000, A.shape[1]) and r.dtype == float
    assert np.max(np.abs(r @ A.T - A @ x)) <= 1e-9
    assert np.max(np.abs(r - x)) > 1  # noise was actually added


def test_projected_laplace_sum_constraint_subtracts_the_mean():
    x = np.arange(7)
    r = projected_laplace(
        x, sum_row(7), eps=0.5, size=100, rng=np.random.default_rng(3), sensitivity=2
    )
    e = np.random.default_rng(3).laplace(0.0, 2 / 0.5, (100, 7))
    np.testing.assert_allclose(r - x, e - e.mean(axis=1, keepdims=True), atol=1e-12)


@pytest.mark.parametrize(
    ("A", "eps", "delta"),
    [(sum_row(5), 0.5, 2.0), (margins_4x4(), 1.0, 1.0)],
    ids=["sum5", "margins4x4"],
)
def test_projected_laplace_is_unbiased_with_covariance_2b2_pi(A, eps, delta):
    n_draws = 20_000
    x = np.arange(A.shape[1]) * 3
    noise = projected_laplace(x, A, eps, n_draws, np.random.default_rng(5), delta) - x
    # Unbiased: each cell's mean within 4 standard errors (SE from the sample).
    z_mean = noise.mean(axis=0) / (noise.std(axis=0, ddof=1) / np.sqrt(n_draws))
    assert np.max(np.abs(z_mean)) < 4
    # Var = 2 (Δ/ε)² Π_ii with Π from an independent null-space basis; the SE of a sample
    # variance is sqrt((μ4 − σ⁴) / N), with μ4 and σ⁴ estimated from the sample.
    N = scipy.linalg.null_space(A.astype(float))
    pi_diag = np.einsum("ij,ij->i", N, N)
    centred = noise - noise.mean(axis=0)
    var = (centred**2).mean(axis=0)
    se_var = np.sqrt(((centred**4).mean(axis=0) - var**2) / n_draws)
    assert np.max(np.abs(var - 2 * (delta / eps) ** 2 * pi_diag) / se_var) < 4
    # Control: the unprojected variance 2 (Δ/ε)² is rejected by the same check.
    assert np.max(np.abs(var - 2 * (delta / eps) ** 2) / se_var) > 4


# --------------------------------------------------------------------------- projected Gaussian


def null_projector(A) -> np.ndarray:
    """Π onto null(A) from an independent SVD-based null-space basis."""
    N = scipy.linalg.null_space(np.asarray(A, dtype=float))
    return N @ N.T


@pytest.mark.parametrize(
    "A",
    [sum_row(7), margins_4x4(), group_hour_building_constraints(3, 4, 2)[0]],
    ids=["sum7", "margins4x4", "3x4x2"],
)
def test_row_space_basis_is_orthonormal_and_gives_the_null_projector(A):
    Q = row_space_basis(A)
    assert Q.shape == (A.shape[1], np.linalg.matrix_rank(A))  # rank-deficient margins: one column per rank
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-12)
    np.testing.assert_allclose(np.eye(A.shape[1]) - Q @ Q.T, null_projector(A), atol=1e-12)


def test_row_space_basis_falls_back_to_the_svd_when_the_gram_matrix_is_too_ill_conditioned():
    # det of the left 2 x 2 block is -1, so the rank is 2, but cond(A)² ~ 1e25 ruins A Aᵀ.
    A = np.array([[10**6, 10**6 - 1, 0], [10**6 - 1, 10**6 - 2, 1]])
    Q = row_space_basis(A)
    assert Q.shape == (3, 2)
    assert np.abs(A @ (np.eye(3) - Q @ Q.T)).max() <= 1e-12 * np.abs(A).max()


def test_projected_gaussian_is_x_plus_projected_normal_draws_and_keeps_invariants():
    A = margins_4x4()
    x = TABLE
    r = projected_gaussian(x, A, sigma=2.5, size=50, rng=np.random.default_rng(7))
    e = np.random.default_rng(7).normal(0.0, 2.5, (50, 16))
    np.testing.assert_allclose(r - x, e @ null_projector(A), atol=1e-12)
    assert np.abs(r @ A.T - A @ x).max() <= 1e-12
    # a precomputed basis gives the same releases; one with the wrong number of rows is rejected
    again = projected_gaussian(x, A, 2.5, 50, np.random.default_rng(7), basis=row_space_basis(A))
    np.testing.assert_array_equal(r, again)
    with pytest.raises(ValueError, match="16 rows"):
        projected_gaussian(x, A, 2.5, 5, np.random.default_rng(7), basis=np.eye(4))
    with pytest.raises(ValueError, match="sigma"):
        projected_gaussian(x, A, 0.0, 5, np.random.default_rng(7))


def test_projected_gaussian_is_unbiased_with_covariance_sigma2_pi():
    A, sigma, n_draws = margins_4x4(), 1.5, 20_000
    x = np.arange(16) * 3
    noise = projected_gaussian(x, A, sigma, n_draws, np.random.default_rng(8)) - x
    sd = projection_sd(A, sigma)
    np.testing.assert_allclose(sd, sigma * np.sqrt(np.diag(null_projector(A))), atol=1e-12)
    assert np.max(np.abs(noise.mean(axis=0)) / (sd / np.sqrt(n_draws))) < 4
    # sample variance of Gaussian noise: SE = var·√(2/(N − 1))
    var = noise.var(axis=0, ddof=1)
    se = sd**2 * np.sqrt(2 / (n_draws - 1))
    assert np.max(np.abs(var - sd**2) / se) < 4
    assert np.max(np.abs(var - sigma**2) / se) > 4  # control: the unprojected variance is rejected


def test_one_agent_needs_only_its_entry_for_a_sum_constraint():
    # independent of the measure: for one total, Π e = e − mean(e), so agent i's entry is x_i + e_i − mean(e)
    x, A = np.arange(6, dtype=float), np.ones((1, 6), dtype=np.int64)
    e = np.random.default_rng(7).normal(0.0, 1.0, (1, 6))
    central = projected_gaussian(x, A, 1.0, 1, np.random.default_rng(7))
    for i in range(6):
        local = np.where(np.arange(6) == i, x, 0.0)
        agent = projected_gaussian(local, A, 1.0, 1, np.random.default_rng(7))[0, i]
        assert agent == central[0, i] == pytest.approx(x[i] + e[0, i] - e.mean())


def test_extended_gaussian_error_is_normal_with_covariance_sigma_n2_pi_and_keeps_invariants():
    A, _ = group_hour_building_constraints(3, 4, 2)  # two buildings of 3 × 4 margins: two blocks
    x, scale, n_draws = np.arange(A.shape[1]) * 2, 1.5, 20_000
    basis = null_space_blocks(A)
    assert sorted(c.size for c, _ in basis) == [12, 12]
    assert sum(Q.shape[1] for _, Q in basis) == A.shape[1] - np.linalg.matrix_rank(A)
    y, sigma_n = extended_gaussian(x, A, scale, n_draws, np.random.default_rng(9), basis=basis)
    pi = null_projector(A)
    # Δ₂(Q_Nᵀ) = max_i √Π_ii = √((G − 1)(H − 1)/(G H))
    assert np.isclose(sigma_n, scale * np.sqrt(0.5))
    assert np.abs(y @ A.T - A @ x).max() <= 1e-9
    noise = y - x
    cov = np.cov(noise, rowvar=False)
    want = sigma_n**2 * pi
    se = np.sqrt((want**2 + np.outer(np.diag(want), np.diag(want))) / (n_draws - 1))  # Var of a Gaussian covariance
    assert np.max(np.abs(cov - want) / se) < 5
    assert np.max(np.abs(cov - scale**2 * pi) / se) > 5  # control: the projected mechanism's scale is rejected
    sq = (noise**2).sum(axis=1)
    assert abs(sq.mean() - np.trace(pi) * sigma_n**2) < 4 * sq.std(ddof=1) / np.sqrt(n_draws)
    again, _ = extended_gaussian(x, A, scale, n_draws, np.random.default_rng(9))
    np.testing.assert_array_equal(y, again)
    # a cell in no invariant is a block of its own with Π_ii = 1, so Δ₂(Q_Nᵀ) = 1
    free = np.hstack([A, np.zeros((A.shape[0], 1), dtype=np.int64)])
    assert sorted(c.size for c, _ in null_space_blocks(free)) == [1, 12, 12]
    _, sigma_free = extended_gaussian(np.zeros(free.shape[1]), free, scale, 2, np.random.default_rng(9))
    assert np.isclose(sigma_free, scale)


@pytest.mark.parametrize(("G", "H", "B"), [(2, 2, 1), (3, 5, 2), (14, 24, 1)])
def test_projection_sd_of_two_margin_families_is_the_double_centring_closed_form(G, H, B):
    A, _ = group_hour_building_constraints(G, H, B)
    sd = projection_sd(A, sigma=2.0)
    np.testing.assert_allclose(sd, 2.0 * np.sqrt((G - 1) * (H - 1) / (G * H)), atol=1e-12)


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
def test_double_geometric_noise_matches_pmf(eps, delta):
    noise = double_geometric_noise(50, eps, 4000, np.random.default_rng(21), sensitivity=delta)
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
        m_int = x + double_geometric_noise(A.shape[1], 0.3, 1, rng)[0]
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


def _scipy_projection(m, A, b, kind):
    """The previous path: one fresh SciPy call per release (linprog / milp on the same LP)."""
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = m.size
    eye = sp.eye_array(n, format="csr")
    c = np.concatenate([np.zeros(n), np.ones(n)])
    A_ub = sp.block_array([[eye, -eye], [-eye, -eye]], format="csr")
    A_eq = sp.hstack([sp.csr_array(A.astype(float)), sp.csr_array((A.shape[0], n))], format="csr")
    bounds = [(None, None)] * n + [(0, None)] * n
    if kind == "vertex":
        return linprog(c, A_ub=A_ub, b_ub=np.concatenate([m, -m]), A_eq=A_eq, b_eq=b, bounds=bounds,
                       method="highs").x[:n]
    if kind == "interior":
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = linprog(c, A_ub=A_ub, b_ub=np.zeros(2 * n), A_eq=A_eq, b_eq=b - A @ m, bounds=bounds,
                          method="highs-ipm", options={"run_crossover": "off", "presolve": False})
        return m + res.x[:n]
    res = milp(c, integrality=np.concatenate([np.ones(n), np.zeros(n)]),
               bounds=Bounds(np.concatenate([np.full(n, -np.inf), np.zeros(n)]), np.inf),
               constraints=[LinearConstraint(A_ub, -np.inf, np.concatenate([m, -m])), LinearConstraint(A_eq, b, b)],
               options={"mip_rel_gap": 0.0})
    return np.rint(res.x[:n]).astype(np.int64)


@pytest.mark.parametrize("kind", ["vertex", "interior", "integer"])
@pytest.mark.parametrize("n", [14, 102])
def test_one_highs_model_gives_what_fresh_scipy_calls_gave(kind, n):
    """L1Projector re-solves one model per state, cold: the same optimum, release by release, as a
    fresh SciPy call (the vertex and the integer point exactly, the interior point to 1e-9)."""
    from isdp.baselines import L1Projector

    rng = np.random.default_rng(n)
    A = np.ones((1, n), dtype=np.int64)
    x = rng.lognormal(9, 1.5, n).astype(np.int64) + 50  # county-like counts, a state total invariant
    b = A @ x
    project = L1Projector(A, kind)
    for m in x + double_geometric_noise(n, 0.192, 30, rng):
        y, ref = project(m.astype(float), b), _scipy_projection(m.astype(float), A, b.astype(float), kind)
        if kind == "interior":
            np.testing.assert_allclose(y, ref, rtol=0, atol=1e-9)
        else:
            np.testing.assert_array_equal(y, ref)


def test_projector_rejects_a_bad_kind_and_a_wrong_length():
    from isdp.baselines import L1Projector

    with pytest.raises(ValueError, match="kind"):
        L1Projector([[1, 1]], "simplex")
    with pytest.raises(ValueError):
        L1Projector([[1, 1]])([1.0, 2.0, 3.0], [3])


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
        m = x + double_geometric_noise(n, 0.192, 1, rng)[0]
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
    r, noisy = dg_l1_projection(x, sum_row(20), 0.192, 30, np.random.default_rng(31), integer=False,
                                return_noisy=True, method="interior")
    np.testing.assert_allclose(r, noisy - noisy.mean(axis=1, keepdims=True) + x.mean(), atol=1e-8)
    # Same noise as the vertex variant from the same stream: only the projection step differs.
    _, noisy_v = dg_l1_projection(x, sum_row(20), 0.192, 30, np.random.default_rng(31), integer=False,
                                  return_noisy=True)
    np.testing.assert_array_equal(noisy, noisy_v)


def test_discrepancy_concentration():
    assert discrepancy_concentration([1.5, 0, 0], [0, 0, 0]) == 1.0
    assert discrepancy_concentration([0, 0, 0], [-0.5, -0.5, -0.5]) == pytest.approx(1 / 3)
    assert np.isnan(discrepancy_concentration([1, 2], [1, 2]))
    np.testing.assert_allclose(
        discrepancy_concentration([[0, 0], [0, 0]], [[1, 3], [2, 2]]), [0.75, 0.5]
    )


def test_milp_rejects_fractional_b():
    with pytest.raises(ValueError, match="integer"):
        l1_projection_milp([0, 0], [[1, 1]], [0.5])


# --------------------------------------------------------------------------- ℓ1 onto one total, by a rule


def test_one_total_returns_the_rules_optimum_not_a_solvers_vertex():
    """Inputs with many ℓ1 optima: the documented choice (the ℓ2-nearest, ties to the lower index), which
    HiGHS' vertex is not."""
    from isdp.baselines import L1Projector

    cases = [  # (m, total, nonnegative, the rule's y)
        ([4.0, 3.0, 2.0], 12, False, [5, 4, 3]),  # 3 added, one unit each
        ([4.0, 3.0, 2.0], 7, False, [3, 2, 2]),  # 2 taken away: the lower indices give
        ([-3.0, 5.0, 1.0, 4.0], 6, True, [0, 3, 0, 3]),  # raised to 0, the excess 4 taken evenly, cell 2 stops at 0
        ([0.0, 1.0, 2.0, 3.0, 50.0, 80.0], 130, True, [0, 0, 0, 2, 49, 79]),  # 1 from each count > 0, 1 by index
        ([0.5, 0.5, 0.5], 3, False, [1, 1, 1]),  # each rounds up at the same cost: no tie left
    ]
    for m, total, nonnegative, expected in cases:
        A = sum_row(len(m))
        y = l1_total_projection(m, total, nonnegative)
        assert y.dtype == np.int64 and y.tolist() == expected
        assert np.array_equal(l1_projection_milp(m, A, [total], nonnegative), y)
        vertex = L1Projector(A, "integer", nonnegative)(m, [total])
        assert l1(vertex, m) == pytest.approx(l1(y, m))  # both optimal ...
        assert np.sum((y - np.asarray(m)) ** 2) <= np.sum((vertex - np.asarray(m)) ** 2)  # ... the rule's nearer in ℓ2
    # HiGHS returns a vertex here, one cell taking the whole discrepancy; the rule spreads it
    assert L1Projector(sum_row(3), "integer")([4.0, 3.0, 2.0], [12]).tolist() != [5, 4, 3]


def _greedy_reference(m, total, nonnegative):
    """The rule as its Notes state it, one unit at a time: from ⌊m⌋ (raised to 0), each unit where |y − m| is
    smallest on the side it moves to, ties to the lowest index (np.argmin)."""
    m = np.asarray(m, float)
    y = np.maximum(np.floor(m), 0) if nonnegative else np.floor(m)
    while y.sum() != total:
        up = y.sum() < total
        cost = y - m if up else np.where((y > 0) | (not nonnegative), m - y, np.inf)
        y[np.argmin(cost)] += 1 if up else -1
    return y


@settings(max_examples=300, deadline=None)
@given(m8=st.lists(st.integers(-40, 100), min_size=1, max_size=7), total=st.integers(-20, 40),
       nonnegative=st.booleans())
def test_one_total_projection_is_feasible_integer_l1_optimal_and_the_rules_choice(m8, total, nonnegative):
    """Feasible, integer, as ℓ1-close as HiGHS' proven MILP optimum, no further in ℓ2, and the unit-by-unit
    greedy of the Notes (m in eighths, so every cost is exact in floating point)."""
    from isdp.baselines import L1Projector

    m = np.array(m8) / 8
    if nonnegative and total < 0:
        with pytest.raises(ValueError, match="negative total"):
            l1_total_projection(m, total, nonnegative)
        return
    y = l1_total_projection(m, total, nonnegative)
    assert y.dtype == np.int64 and y.sum() == total and (not nonnegative or y.min() >= 0)
    milp = L1Projector(sum_row(m.size), "integer", nonnegative)(m, [total])
    assert l1(y, m) == pytest.approx(l1(milp, m), abs=1e-9)
    assert np.sum((y - m) ** 2) <= np.sum((milp - m) ** 2) + 1e-9
    np.testing.assert_array_equal(y, _greedy_reference(m, total, nonnegative))


@settings(max_examples=100, deadline=None)
@given(m8=st.lists(st.integers(-40, 100), min_size=1, max_size=7), total=st.integers(-20, 40),
       shift=st.integers(-1000, 1000))
def test_one_total_projection_without_bounds_commutes_with_integer_shifts(m8, total, shift):
    """Without y ≥ 0 the error of x + e projected onto Σx depends on e alone (the Notes): a shift v of m and of the
    total shifts y by v."""
    m = np.array(m8) / 8
    v = (shift * np.arange(1, m.size + 1)) % 997 - 498
    np.testing.assert_array_equal(l1_total_projection(m + v, total + v.sum()), l1_total_projection(m, total) + v)


def test_one_total_projection_of_large_counts_is_exact():
    """100 units over counts up to 2⁴⁰: y − m levels off at 25.5, 26, 26, 25 (the ties at 25 to cells 1 and 2)."""
    m = np.array([5e6 + 0.5, -3.0, 1e7, 2.0**40])
    start = np.array([5_000_000, 0, 10_000_000, 2**40])
    y = l1_total_projection(m, int(start.sum()) + 100, nonnegative=True)
    np.testing.assert_array_equal(y - start, [26, 23, 26, 25])


# --------------------------------------------------------------------------- NNL2


@pytest.mark.parametrize("A", [sum_row(46), margins_4x4()], ids=["sum46", "margins4x4"])
def test_nnl2_feasible_and_nonnegative(A):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 12, A.shape[1])
    b = A @ x
    for _ in range(20):
        m = x + double_geometric_noise(A.shape[1], 0.5, 1, rng)[0]
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
        np.testing.assert_allclose(
            nnl2_projection(m, sum_row(30), [b]), np.maximum(m - lam, 0), atol=1e-6
        )


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


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call",
    [
        lambda: l1_projection_lp([1, 2, 3], [[1, 1]], [0]),  # A has the wrong width
        lambda: l1_projection_lp([1, 2], [[1, 0.5]], [0]),  # A not integer
        lambda: l1_projection_lp([1, 2], [[1, 1]], [0, 1]),  # b has the wrong length
        lambda: l1_projection_lp([[1, 2]], [[1, 1]], [0]),  # m not 1-D
        lambda: l1_projection_milp([1, np.nan], [[1, 1]], [0]),  # m not finite
        lambda: l1_total_projection([1, 2], 2.5),  # total not an integer
        lambda: l1_total_projection([1, 2], [3]),  # total not a number
        lambda: l1_total_projection([1, 2], -1, nonnegative=True),  # no y ≥ 0 has it
        lambda: nnl2_projection([1, 2], [1, 1], [2]),  # A not 2-D
        lambda: projected_laplace([1, 2], [[1, 1]], 0.0, 5, np.random.default_rng()),  # eps ≤ 0
        lambda: projected_laplace([1, 2], [[1, 1]], 1.0, 0, np.random.default_rng()),  # size 0
        lambda: double_geometric_noise(3, 1.0, 2, np.random.default_rng(), sensitivity=-1),
        lambda: dg_l1_projection([1.5, 2], [[1, 1]], 1.0, 2, np.random.default_rng(), True),
        lambda: dg_l1_projection([1, 2], [[1, 1]], 1.0, 2, np.random.default_rng(), True, method="interior"),
        lambda: l1_projection_lp([1, 2], [[1, 1]], [0], method="barrier"),  # unknown method
        lambda: discrepancy_concentration([1, 2], [1, 2, 3]),
    ],
)
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("kind", ["vertex", "interior", "integer"])
def test_l1_projector_nonnegative_holds_for_every_kind(kind):
    """y ≥ 0 with ``nonnegative``: the interior model works in d = y − m, so its bound is d ≥ −m (a
    bound d ≥ 0 would give y ≥ m, here [4.33, −0.67, 2.33]); every kind reaches the optimum 1."""
    from isdp.baselines import L1Projector

    A = np.ones((1, 3), dtype=int)
    y = L1Projector(A, kind, nonnegative=True)([4.0, -1.0, 2.0], [6])
    assert np.all(y >= -1e-9) and abs(y.sum() - 6) < 1e-6
    assert abs(np.abs(y - [4.0, -1.0, 2.0]).sum() - 1.0) < 1e-6
