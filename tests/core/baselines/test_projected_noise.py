"""Tests of the projected Laplace and Gaussian and their basis (isdp.baselines._projected_noise).

Statistical checks use fixed seeds and bounds set from the Monte Carlo error: a z-score of 4
per cell (or a chi-square p-value of 1e-4), each paired where useful with a control showing
that the same check rejects a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints
from projection_support import TABLE, margins_4x4, sum_row

from isdp.baselines import projected_gaussian, projected_laplace, row_space_basis


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
    r = projected_laplace(x, A, epsilon=0.192, size=2000, rng=rng)
    assert r.shape == (2000, A.shape[1]) and r.dtype == float
    assert np.max(np.abs(r @ A.T - A @ x)) <= 1e-9
    assert np.max(np.abs(r - x)) > 1  # noise was actually added


def test_projected_laplace_sum_constraint_subtracts_the_mean():
    x = np.arange(7)
    r = projected_laplace(x, sum_row(7), epsilon=0.5, size=100, rng=np.random.default_rng(3), sensitivity=2)
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
    sd = sigma * np.sqrt(np.diag(null_projector(A)))  # the error's covariance is σ² Π
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


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call",
    [
        lambda: projected_laplace([1, 2], [[1, 1]], 0.0, 5, np.random.default_rng()),  # eps ≤ 0
        lambda: projected_laplace([1, 2], [[1, 1]], 1.0, 0, np.random.default_rng()),  # size 0
    ],
)
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
