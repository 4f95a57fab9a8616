"""The data-augmentation sampler for the ℓ2 Laplace (isdp.mcmc): its exact inner draws, its law
against enumeration, the coupled kernel's margins against the exact one-step law, and meetings."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof, chisquare_gof_integers, rows_to_categories
from mcmc_support import (
    coupled_ig_rvs,
    coupled_iterations,
    discrete_gaussian_rvs,
    inverse_gaussian_rvs,
    single_iterations,
)
from scipy import integrate, stats

from isdp.convergence import certify_augmented
from isdp.errors import InvariantError
from isdp.exact import enumerate_target
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, table_margins
from isdp.mcmc import augmented_meeting_times, augmented_sample

N_DRAWS = 40_000


def _ig(mean, shape):
    return stats.invgauss(mean / shape, scale=shape)


@pytest.mark.parametrize("t", [3.0, 0.4, 0.02, 1e-4])
def test_discrete_gaussian_matches_its_pmf(t):
    draws = discrete_gaussian_rvs(t, N_DRAWS, seed=11)
    half = int(np.ceil(np.sqrt(40.0 / t)))  # exp(-t k²) < e^-40 beyond
    support = np.arange(-half, half + 1)
    logp = -t * support.astype(float) ** 2
    probs = np.exp(logp - logp.max())
    assert chisquare_gof_integers(draws, support, probs / probs.sum()) > ALPHA


@pytest.mark.parametrize(("mean", "shape"), [(2.0, 3.0), (0.01, 0.0184), (5.0, 0.0184)])
def test_inverse_gaussian_matches_scipy(mean, shape):
    draws = inverse_gaussian_rvs(mean, shape, N_DRAWS, seed=12)
    assert stats.kstest(draws, _ig(mean, shape).cdf).pvalue > ALPHA


def test_levy_limit_at_u_zero():
    draws = inverse_gaussian_rvs(np.inf, 0.0184, N_DRAWS, seed=13)
    assert stats.kstest(draws, stats.levy(scale=0.0184).cdf).pvalue > ALPHA


@pytest.mark.parametrize(("mean_x", "mean_y"), [(2.0, 2.5), (1.0, 4.0)])
def test_maximal_coupling_of_inverse_gaussians(mean_x, mean_y):
    shape = 3.0
    pairs = coupled_ig_rvs(mean_x, mean_y, shape, N_DRAWS, seed=14)
    px, py = _ig(mean_x, shape), _ig(mean_y, shape)
    assert stats.kstest(pairs[:, 0], px.cdf).pvalue > ALPHA
    assert stats.kstest(pairs[:, 1], py.cdf).pvalue > ALPHA
    overlap = integrate.quad(lambda x: min(px.pdf(x), py.pdf(x)), 0, np.inf, limit=200)[0]  # = 1 − TV
    equal = pairs[:, 0] == pairs[:, 1]
    assert abs(equal.mean() - overlap) < Z_TOL * np.sqrt(overlap * (1 - overlap) / N_DRAWS)
    same = coupled_ig_rvs(mean_x, mean_x, shape, 1000, seed=15)
    assert np.array_equal(same[:, 0], same[:, 1])


def _two_blocks():
    """Cells 0–1 and 2–3 each sum to 0; cell 4 is free."""
    return IntegerLattice.from_constraints(np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]]))


@pytest.mark.parametrize(
    ("lattice", "eps", "radius"),
    [
        (IntegerLattice.from_constraints(sum_constraint(3)), 1.0, 30),
        (IntegerLattice.from_constraints(sum_constraint(4)), 1.5, 16),
        (_two_blocks(), 1.5, 16),
    ],
    ids=["sum3", "sum4", "blocks"],
)
def test_sampler_law_matches_enumeration(lattice, eps, radius):
    """The last state of 20,000 independent chains after 40 iterations (pairs meet within ~10) against
    π enumerated on a box whose outside mass is below e^-20."""
    target = generalized_laplace(eps, "l2")
    points, probs, _ = enumerate_target(lattice, target, radius)
    draws = augmented_sample(lattice, target, n_chains=20_000, n_draws=1, burn_in=40, seed=16)[:, 0]
    assert np.all(draws @ lattice.A.T == 0)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def _exact_one_step(lattice, target, x, radius):
    """P(u' | x) = ∫ IG(t; ε/(2‖x‖), ε²/2) · exp(−t‖u'‖²)/Z(t) dt on the box points, by adaptive quadrature
    over t ∈ (0, ∞) of the IG density times the discrete Gaussian given t (absolute error 1e-9)."""
    points, _, _ = enumerate_target(lattice, target, radius)
    sq = (points.astype(float) ** 2).sum(axis=1)
    eps = target.scale
    law = _ig(eps / (2 * np.linalg.norm(x)), eps**2 / 2)

    def given_t(t):
        w = np.exp(-t * (sq - sq.min()))
        return law.pdf(t) * (w / w.sum())

    probs = integrate.quad_vec(given_t, 0.0, np.inf, epsabs=1e-9)[0]
    return points, probs / probs.sum()


def test_coupled_margins_follow_the_single_chain_kernel():
    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    target = generalized_laplace(1.0, "l2")
    x, y = np.array([3, -1, -2]), np.array([-4, 6, -2])
    xs, ys, ts = coupled_iterations(lattice, target, x, y, n_rep=N_DRAWS, seed=17)
    single, _ = single_iterations(lattice, target, x, n_rep=N_DRAWS, seed=18)
    exact = {tuple(start): _exact_one_step(lattice, target, start, radius=30) for start in (x, y)}
    for start, draws in ((x, xs), (y, ys), (x, single)):
        points, probs = exact[tuple(start)]
        assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA
    lam = target.scale**2 / 2
    for col, start in ((0, x), (1, y)):
        assert stats.kstest(ts[:, col], _ig(target.scale / (2 * np.linalg.norm(start)), lam).cdf).pvalue > ALPHA
    # equal t's give equal u's (the common stream); on 3 cells different t's may still give equal u's
    same_t = ts[:, 0] == ts[:, 1]
    assert same_t.any() and (xs[same_t] == ys[same_t]).all()


def test_met_chains_stay_together_and_keep_moving():
    lattice = IntegerLattice.from_constraints(sum_constraint(20))
    target = generalized_laplace(0.192, "l2")
    rng = np.random.default_rng(19)
    x = rng.integers(-200, 200, 20)
    x[-1] -= x.sum()
    xs, ys, ts = coupled_iterations(lattice, target, x, np.zeros(20, dtype=np.int64), n_rep=300, seed=20, restart=False)
    equal = (xs == ys).all(axis=1)
    assert equal.any(), "the pair never met in 300 iterations"
    first = int(np.argmax(equal))
    assert equal[first:].all() and (ts[first:, 0] == ts[first:, 1]).all()
    assert len(np.unique(xs[first:], axis=0)) > 250  # still a Markov chain, not frozen


def test_meeting_times_and_certificate():
    lattice = IntegerLattice.from_constraints(sum_constraint(50))
    target = generalized_laplace(0.192, "l2")
    mt = augmented_meeting_times(lattice, target, lag=3, n_pairs=50, seed=21, max_iter=1000)
    assert mt.met.all() and np.all(mt.tau > 3)
    censored = augmented_meeting_times(lattice, target, lag=3, n_pairs=50, seed=21, max_iter=4)
    assert not censored.met.all() and np.all(censored.tau[~censored.met] == 4)
    cert = certify_augmented(lattice, target, start=None, lag=3, n_pairs=50, seed=21, max_iter=1000)
    assert cert.t_estimate == mt.convergence_iteration(0.01) and cert.n_censored == 0
    assert not cert.certified  # 50 pairs cannot resolve 0.01 at 95 %
    big = certify_augmented(lattice, target, start=None, lag=200, n_pairs=400, seed=21, max_iter=400)
    assert big.certified and big.bound(big.t_cert)[0] <= 0.01
    censored = certify_augmented(lattice, target, start=None, lag=3, n_pairs=50, seed=21, max_iter=4)
    assert not censored.certified and censored.t_estimate is None


def test_same_seed_same_draws():
    lattice = IntegerLattice.from_constraints(sum_constraint(10))
    target = generalized_laplace(0.5, "l2")
    a = augmented_sample(lattice, target, n_chains=3, n_draws=5, seed=22)
    assert np.array_equal(a, augmented_sample(lattice, target, n_chains=3, n_draws=5, seed=22))


def test_bad_input_is_refused():
    sums = IntegerLattice.from_constraints(sum_constraint(4))
    with pytest.raises(ValueError, match="ℓ2 generalized Laplace"):
        augmented_sample(sums, generalized_laplace(1.0, "l1"), n_chains=1, n_draws=1, seed=0)
    with pytest.raises(ValueError, match="one sum per block"):
        augmented_sample(
            IntegerLattice.from_constraints(table_margins(2, 3)),
            generalized_laplace(1.0, "l2"),
            n_chains=1,
            n_draws=1,
            seed=0,
        )
    with pytest.raises(InvariantError):
        augmented_sample(sums, generalized_laplace(1.0, "l2"), n_chains=1, n_draws=1, seed=0, init=[1, 0, 0, 0])
