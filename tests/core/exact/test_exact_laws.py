"""Exact laws: enumeration, the exact ℓ1 sum-constraint sampler, the sweep transition matrix.

These are the ground truth of the MCMC tests, so each is first checked here against a law
written out independently (closed forms, convolutions, a hand-built Metropolis kernel).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, chisquare_gof_integers, rows_to_categories

from isdp.exact import enumerate_target, sample_sum_constraint_l1, sweep_transition_matrix
from isdp.lattice import generalized_gaussian, generalized_laplace
from isdp.mcmc import DoubleGeometric

# --------------------------------------------------------------------------- enumeration


def _dg_on_box(eps: float, radius: int) -> np.ndarray:
    ks = np.arange(-radius, radius + 1)
    p = DoubleGeometric(eps).pmf(ks)
    return p / p.sum()


@pytest.mark.parametrize("eps", [0.15, 0.5])
def test_enumerate_2x2_table_l1_is_dg_of_exp_minus_4eps(table22, eps):
    radius = 60
    u, p, w = enumerate_target(table22, generalized_laplace(eps, "l1"), radius)
    assert np.all(u @ table22.A.T == 0)
    np.testing.assert_array_equal(u, w @ table22.basis.T)
    # ‖w·(1,-1,-1,1)‖₁ = 4|w|  ⇒  w ~ DG(e^{-4ε})
    np.testing.assert_allclose(p, _dg_on_box(4 * eps, radius), rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("eps", [0.2, 0.6])
def test_enumerate_two_cells_l2_and_gaussian(sum2, eps):
    radius = 80
    # ℓ2: ‖w·(1,-1)‖₂ = √2 |w|  ⇒  w ~ DG(e^{-√2 ε})
    _, p, w = enumerate_target(sum2, generalized_laplace(eps, "l2"), radius)
    np.testing.assert_allclose(p, _dg_on_box(np.sqrt(2) * eps, radius), rtol=1e-10, atol=1e-300)
    # Gaussian σ: π(w) ∝ exp(-2w²/(2σ²))
    sigma = 1 / eps
    _, p, w = enumerate_target(sum2, generalized_gaussian(sigma), radius)
    q = np.exp(-(w[:, 0] ** 2) / sigma**2)
    np.testing.assert_allclose(p, q / q.sum(), rtol=1e-10, atol=1e-300)


def test_enumerate_three_cells_matches_conditioned_iid_dg(sum3):
    """Identity (docs/method.md §2): ℓ1 on Λ = i.i.d. DG(e^{-ε}) conditioned on A u = 0."""
    eps = 0.4
    radius = 30
    u, p, _ = enumerate_target(sum3, generalized_laplace(eps), radius)
    assert len(np.unique(u, axis=0)) == len(u)  # distinct lattice points
    q = np.prod(DoubleGeometric(eps).pmf(u), axis=1)
    np.testing.assert_allclose(p, q / q.sum(), rtol=1e-9, atol=1e-300)
    # radius truncation is negligible: a larger box changes nothing on the common points
    u2, p2, _ = enumerate_target(sum3, generalized_laplace(eps), radius + 10)
    common = rows_to_categories(u, u2)
    assert np.all(common >= 0)
    np.testing.assert_allclose(p2[common], p, atol=1e-10)


# --------------------------------------------------------------------------- exact sampler


def test_exact_sampler_three_cells_against_enumeration(sum3):
    eps, n_draws = 0.35, 30_000
    draws = sample_sum_constraint_l1(3, eps, n_draws, seed=123)
    assert draws.shape == (n_draws, 3) and draws.dtype == np.int64
    assert np.all(draws.sum(axis=1) == 0)
    u, p, _ = enumerate_target(sum3, generalized_laplace(eps), radius=40)
    pval = chisquare_gof(rows_to_categories(draws, u), p)
    assert pval > ALPHA, f"chi-square p = {pval:.2e}"


def test_exact_sampler_two_cells_is_dg_of_a_squared():
    eps = 0.3  # u = (w, -w), π(w) ∝ a^{2|w|}  ⇒  w ~ DG(a²)
    draws = sample_sum_constraint_l1(2, eps, 30_000, seed=9)
    np.testing.assert_array_equal(draws[:, 0], -draws[:, 1])
    ks = np.arange(-200, 201)
    assert chisquare_gof_integers(draws[:, 0], ks, DoubleGeometric(2 * eps).pmf(ks)) > ALPHA


def _exact_marginal(n: int, eps: float, half_width: int = 400):
    """P(u_i = k) ∝ DG(k) · DG^{*(n-1)}(-k) on Σu = 0, by direct convolution."""
    ks = np.arange(-half_width, half_width + 1)
    base = DoubleGeometric(eps).pmf(ks)
    conv = base.copy()
    for _ in range(n - 2):
        conv = np.convolve(conv, base)  # support grows by 2·half_width each time
    m = (len(conv) - 1) // 2  # conv is centred: index m is the sum 0
    marg = base * conv[m - ks]
    return ks, marg / marg.sum()


@pytest.mark.parametrize("eps", [0.2, 0.7])
def test_exact_sampler_marginals_n5(eps):
    n, n_draws = 5, 30_000
    draws = sample_sum_constraint_l1(n, eps, n_draws, seed=77)
    assert np.all(draws.sum(axis=1) == 0)
    ks, marg = _exact_marginal(n, eps)
    # the first and the last cell (the one the rejection step solves for) have the same law
    for cell in (0, n - 1):
        pval = chisquare_gof_integers(draws[:, cell], ks, marg)
        assert pval > ALPHA, f"cell {cell}: chi-square p = {pval:.2e}"


def test_exact_sampler_validates_and_is_seeded():
    with pytest.raises(ValueError):
        sample_sum_constraint_l1(1, 0.5, 10, seed=0)
    a = sample_sum_constraint_l1(6, 0.5, 50, seed=4)
    np.testing.assert_array_equal(a, sample_sum_constraint_l1(6, 0.5, 50, seed=4))
    assert not np.array_equal(a, sample_sum_constraint_l1(6, 0.5, 50, seed=5))


# --------------------------------------------------------------------------- transition matrix


def _metropolis_1d(log_pi, w, eps_prop):
    """Hand-built one-component Metropolis kernel on the points ``w`` (a 1-D lattice box)."""
    z = w[None, :] - w[:, None]
    q = DoubleGeometric(eps_prop).pmf(z)
    acc = np.exp(np.minimum(0.0, log_pi[None, :] - log_pi[:, None]))
    K = q * acc
    np.fill_diagonal(K, 0.0)
    return K


@pytest.mark.parametrize(
    "target",
    [generalized_laplace(0.5, "l2"), generalized_laplace(0.3, "l1"), generalized_gaussian(2.0)],
)
def test_sweep_matrix_off_diagonal_is_the_metropolis_kernel(sum2, target):
    eps_prop, radius = 0.4, 12
    P, w, u = sweep_transition_matrix(sum2, target, eps_prop, radius)
    P = P.toarray()
    K = _metropolis_1d(target.log_density(u), w[:, 0], eps_prop)
    off = ~np.eye(len(w), dtype=bool)
    np.testing.assert_allclose(P[off], K[off], rtol=1e-12, atol=1e-300)
    assert np.all(P >= 0) and np.all(P.sum(axis=1) <= 1 + 1e-12)


def test_sweep_matrix_leaves_target_invariant(sum3):
    """π P = π on a 2-D lattice (the sweep is a composition of π-reversible kernels)."""
    target = generalized_laplace(0.6, "l1")
    radius = 16
    P, w, u = sweep_transition_matrix(sum3, target, 0.5, radius)
    _, pi, w2 = enumerate_target(sum3, target, radius)
    np.testing.assert_array_equal(w, w2)
    # the box must be large enough for this to be meaningful: π's mass at the box edge is tiny
    edge = np.abs(w).max(axis=1) == radius
    assert pi[edge].sum() < 1e-7
    np.testing.assert_allclose(pi @ P, pi, atol=1e-8)
    # and P is not trivially the identity: it moves a good share of the mass
    assert P.diagonal().mean() < 0.7


def test_sweep_matrix_drops_exactly_the_out_of_box_mass(sum2):
    """Docstring contract: rows lose exactly the mass of accepted moves that leave the box."""
    eps, eps_prop, radius = 0.5, 0.3, 3  # a wide proposal on a small box makes |z| > 2r likely
    target = generalized_laplace(eps, "l2")
    P, w, _ = sweep_transition_matrix(sum2, target, eps_prop, radius)
    lost = 1 - np.asarray(P.sum(axis=1)).ravel()
    zs = np.arange(-2000, 2001)
    q = DoubleGeometric(eps_prop).pmf(zs)
    expected = []
    for wi in w[:, 0]:
        dest = wi + zs
        out = np.abs(dest) > radius
        acc = np.exp(np.minimum(0.0, -eps * np.sqrt(2) * (np.abs(dest[out]) - abs(wi))))
        expected.append((q[out] * acc).sum())
    np.testing.assert_allclose(lost, expected, rtol=1e-6)


# --------------------------------------------------------------------------- conditioned DG (rejection)


def test_conditioned_dg_sampler_against_closed_form_and_enumeration(table22, sum3):
    from isdp.exact._exact_laws import sample_conditioned_dg

    eps = 0.3
    # 2×2 margins: the conditioned law is w·(1,-1,-1,1) with w ~ DG(e^{-4ε})
    draws = sample_conditioned_dg(table22.A, eps, 20_000, seed=61)
    assert draws.dtype == np.int64 and np.all(draws @ table22.A.T == 0)
    w = draws[:, 0]
    np.testing.assert_array_equal(draws, w[:, None] * np.array([1, -1, -1, 1])[None, :])
    ks = np.arange(-100, 101)
    assert chisquare_gof_integers(w, ks, DoubleGeometric(4 * eps).pmf(ks)) > ALPHA
    # 3-cell sum: against enumeration of the ℓ1 target
    draws = sample_conditioned_dg(sum3.A, eps, 20_000, seed=62)
    u, p, _ = enumerate_target(sum3, generalized_laplace(eps), radius=60)
    assert chisquare_gof(rows_to_categories(draws, u), p) > ALPHA
