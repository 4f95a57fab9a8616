"""Tests of :mod:`isdp_papers.e7_congenial_histogram.noise_laws`: the closed-form laws of the noise m1 − s1 against
simulated releases (and not a Laplace law of the same variance), (A.1)/(A.2) against numerical convolution, Remark 1's
signed weights, and the Laplace / signed Gamma mixture that is the sum of two Laplace."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import CASES, X, draws
from conftest import ALPHA
from isdp_papers.e7_congenial_histogram import noise_laws as nl
from isdp_papers.e7_congenial_histogram import releases as rel
from scipy import integrate, stats


@pytest.mark.parametrize(("mechanism", "beta"), CASES)
def test_simulated_noise_follows_the_closed_form_law(mechanism, beta):
    eps = 1.3
    noise = draws(mechanism, beta, eps, 4)[:, 0] - X[0]
    assert stats.kstest(noise, lambda t: nl.noise_cdf(t, mechanism, eps, beta)).pvalue > ALPHA
    # and rejects a wrong law (Laplace with the same variance) where the shapes differ most (β near 1/2)
    if mechanism == "l2" or beta in (0.3, 0.5):
        wrong = stats.laplace(scale=np.sqrt(rel.exact_variance(mechanism, eps, beta) / 2)).cdf
        assert stats.kstest(noise, wrong).pvalue < ALPHA


# --------------------------------------------------------------------------- laws, independently of the closed forms


@pytest.mark.parametrize("beta", [0.0, 0.2, 0.5, 0.5 + 2e-5, 0.75])
def test_noise_density_is_the_numerical_convolution(beta):
    """(A.1)/(A.2) against the density of β u1 + (1 − β) u2 by direct numerical integration."""
    eps = 0.7
    b = 2 / eps
    lap = stats.laplace(scale=b).pdf

    def conv(t):
        if beta in (0.0, 1.0):
            return lap(t)
        hi = 1.0 - beta  # density of βU1 + hi·U2 = ∫ f(u/β) f((t − u)/hi) / (β hi) du
        reach = 80 * b + abs(t)  # the integrand is below e^-40 of its peak beyond
        return integrate.quad(
            lambda u: lap(u / beta) * lap((t - u) / hi) / (beta * hi),
            -reach,
            reach,
            points=sorted({0.0, t}),
            limit=400,
            epsabs=0,
        )[0]

    for t in (-7.0, -0.4, 0.0, 1.1, 6.0, 25.0):
        np.testing.assert_allclose(nl.noise_pdf(t, "l1", eps, beta), conv(t), rtol=1e-6)
    tot = integrate.quad(lambda t: nl.noise_pdf(t, "l1", eps, beta), -np.inf, np.inf)[0]
    var = integrate.quad(lambda t: t * t * nl.noise_pdf(t, "l1", eps, beta), -np.inf, np.inf)[0]
    assert np.isclose(tot, 1, atol=1e-8) and np.isclose(var, rel.exact_variance("l1", eps, beta), rtol=1e-6)
    for t in (-3.0, 0.5, 9.0):
        cdf = integrate.quad(lambda s: nl.noise_pdf(s, "l1", eps, beta), -np.inf, t)[0]
        assert np.isclose(nl.noise_cdf(t, "l1", eps, beta), cdf, atol=1e-8)


def test_signed_weights_sum_to_one_with_opposite_signs():
    for beta in (0.1, 0.3, 0.8):
        w = nl.signed_weights(beta)
        assert np.isclose(sum(w), 1) and w[0] > 1 and w[1] < 0
    with pytest.raises(ValueError, match="0/0"):
        nl.signed_weights(0.5)


def test_mixture_of_laplace_and_signed_gamma_is_the_sum_of_two_laplace():
    eps = 1.7
    half = [
        {"law": "laplace", "weight": 0.5, "scale": 1 / eps},
        {"law": "signed_gamma", "weight": 0.5, "shape": 2, "scale": 1 / eps},
    ]
    t = np.linspace(-20, 20, 4001)
    np.testing.assert_allclose(nl.mixture(t, half), nl.laplace_sum_pdf(t, 1 / eps), atol=1e-12)
    np.testing.assert_allclose(nl.mixture(t, half, cdf=True), nl.noise_cdf(t, "l2", eps), atol=1e-12)
    assert np.isclose(nl.mixture_variance(half), rel.exact_variance("l2", eps))
    # the signed Gamma(2) alone is not a sum of two Laplace: more spread, other density
    sg = [{"law": "signed_gamma", "weight": 1.0, "shape": 2, "scale": 1 / eps}]
    assert nl.mixture_variance(sg) > rel.exact_variance("l2", eps) * 1.4
    assert np.abs(nl.mixture(t, sg) - nl.laplace_sum_pdf(t, 1 / eps)).max() > 0.1
    rng = np.random.default_rng(5)
    g = rng.gamma(2, 1 / eps, 20000) * rng.choice([-1.0, 1.0], 20000)
    assert stats.kstest(g, lambda v: nl.mixture(v, sg, cdf=True)).pvalue > ALPHA
    with pytest.raises(ValueError, match="unknown mixture component"):
        nl.mixture(t, [{"law": "normal", "weight": 1, "scale": 1}])
