"""Tests of the extended Gaussian, its null-space bases and the projected Gaussian's per-cell error SD
(isdp_papers.e6_spatiotemporal_gaussian.null_space_noise).

Statistical checks use fixed seeds and bounds set from the Monte Carlo error, each paired with a control showing
that the same check rejects a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian, null_space_blocks, projection_sd
from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints


def null_projector(A) -> np.ndarray:
    """Π onto null(A) from an independent SVD-based null-space basis."""
    N = scipy.linalg.null_space(np.asarray(A, dtype=float))
    return N @ N.T


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


def test_projection_sd_is_sigma_times_the_root_of_the_projector_s_diagonal():
    A = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    np.testing.assert_allclose(projection_sd(A, 1.5), 1.5 * np.sqrt(np.diag(null_projector(A))), atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: projection_sd([[1, 1]], sigma=0.0),
        lambda: projection_sd([[1, 1]], basis=np.eye(3)),  # three rows for two cells
        lambda: extended_gaussian([1, 2], [[1, 1]], 0.0, 5, np.random.default_rng()),  # scale ≤ 0
        lambda: extended_gaussian([1, 2], [[1, 1]], 1.0, 0, np.random.default_rng()),  # size 0
        lambda: extended_gaussian([1, 2, 3], [[1, 1]], 1.0, 5, np.random.default_rng()),  # 3 cells, 2 columns
        lambda: extended_gaussian([1, np.nan], [[1, 1]], 1.0, 5, np.random.default_rng()),
    ],
)
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
