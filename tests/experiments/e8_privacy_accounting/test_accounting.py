"""Privacy accounting: permutation swapping's budget and the zCDP ↔ (ε, δ)-DP conversions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from isdp_papers.e8_privacy_accounting.accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    gaussian_delta,
    swap_rates_for_epsilon,
    swapping_epsilon,
    swapping_min_epsilon,
    zcdp_to_dp,
)
from isdp_papers.e8_privacy_accounting.swap_audit import worst_loss_per_unit
from scipy import integrate, stats

B_VALUES = [1, 3, 50, 10**6]


def slides_formula(p, b):
    """The slides' two-case formula, written out as printed."""
    o = p / (1 - p)
    if p <= 0.5:
        return math.log(b + 1) - math.log(o)
    return max(math.log(o), math.log(b + 1) - math.log(o))


# --------------------------------------------------------------------------- swapping


@pytest.mark.parametrize("b", B_VALUES)
def test_budget_equals_the_two_case_formula(b):
    for p in [1e-6, 0.01, 0.2, 0.5, 0.5 + 1e-9, 0.6, 0.9, 0.999, 1 - 1e-7]:
        assert swapping_epsilon(p, b) == pytest.approx(slides_formula(p, b), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("h, k", [((0, 1, 2, 3), (0, 1, 2, 3)), ((0, 0, 1, 2), (0, 1, 1, 2)), ((0, 1, 2), (0, 1, 2))])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.8, 0.95])
def test_budget_bounds_the_exact_privacy_loss_of_small_strata(h, k, p):
    """Enumerating the mechanism exactly: the privacy loss per unit of distance never exceeds ε(p, b)."""
    assert worst_loss_per_unit(h, k, p) <= swapping_epsilon(p, len(h)) + 1e-12


@pytest.mark.parametrize("p", [0.8, 0.95])
def test_budget_is_attained_when_the_odds_dominate(p):
    """With distinct values and ln o ≥ ln(b + 1) − ln o the bound ln o is the exact worst case."""
    h = k = (0, 1, 2, 3)
    assert swapping_epsilon(p, 4) == pytest.approx(math.log(p / (1 - p)))
    assert worst_loss_per_unit(h, k, p) == pytest.approx(swapping_epsilon(p, 4), rel=1e-9)


@pytest.mark.parametrize("b", B_VALUES)
def test_smallest_budget_and_its_rate(b):
    eps_b, p_star = swapping_min_epsilon(b)
    assert eps_b == pytest.approx(math.log(b + 1) / 2) and eps_b > 0
    assert swapping_epsilon(p_star, b) == pytest.approx(eps_b)
    grid = np.linspace(1e-4, 1 - 1e-4, 20001)
    assert swapping_epsilon(grid, b).min() >= eps_b - 1e-12


@pytest.mark.parametrize("b", B_VALUES)
def test_every_larger_budget_has_exactly_two_swap_rates(b):
    eps_b, p_star = swapping_min_epsilon(b)
    for eps in eps_b + np.array([1e-3, 0.5, 3.0, 12.0]):
        low, high = swap_rates_for_epsilon(eps, b)
        assert low < p_star < high
        assert swapping_epsilon(low, b) == pytest.approx(eps) and swapping_epsilon(high, b) == pytest.approx(eps)
    with pytest.raises(ValueError, match="below the smallest"):
        swap_rates_for_epsilon(eps_b - 0.1, b)


def test_budget_is_monotone_where_the_slides_say():
    p = np.linspace(0.001, 0.999, 999)
    eps = np.array([swapping_epsilon(p, b) for b in B_VALUES])
    left = p <= 0.5
    assert np.all(np.diff(eps[:, left], axis=0) > 0), "for the same swap rate ≤ 1/2, a larger b gives a larger ε"
    assert np.all(np.diff(eps, axis=0) >= 0), "and never a smaller one (ε = ln o does not depend on b)"
    assert np.all(np.diff(eps[:, left], axis=1) < 0), "ε decreases in p up to p = 1/2"


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1])
def test_invalid_swap_rates_and_strata_are_rejected(bad):
    with pytest.raises(ValueError, match="open interval"):
        swapping_epsilon(bad, 10)
    with pytest.raises(ValueError, match="positive integer"):
        swapping_epsilon(0.1, 2.5)


# --------------------------------------------------------------------------- zCDP conversions

RHOS = [1e-4, 0.01, 0.5, 2.0, 20.0]
DELTAS = [1e-14, 1e-9, 1e-6, 1e-3]


@pytest.mark.parametrize("method", CONVERSIONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_conversion_round_trips(method, delta):
    for rho in RHOS:
        eps = zcdp_to_dp(rho, delta, method)
        assert dp_to_zcdp(eps, delta, method) == pytest.approx(rho, rel=1e-8)


@pytest.mark.parametrize("delta", DELTAS)
def test_conversions_are_ordered_and_increasing(delta):
    """Exact Gaussian ≤ CKS ≤ standard ≤ integer orders: each is a valid bound, the later ones looser."""
    for rho in RHOS:
        e = [zcdp_to_dp(rho, delta, m) for m in ("gaussian-exact", "cks", "standard", "integer-orders")]
        assert all(a <= b + 1e-12 for a, b in itertools.pairwise(e)), (rho, e)
    for m in CONVERSIONS:
        e = [zcdp_to_dp(r, delta, m) for r in RHOS]
        assert all(a < b for a, b in itertools.pairwise(e))


def test_standard_conversion_is_the_renyi_infimum_and_integer_orders_its_restriction():
    for rho, delta in itertools.product(RHOS, DELTAS):
        L = -math.log(delta)
        real = np.exp(np.linspace(-12, 12, 200001)) + 1  # orders α > 1, log-spaced in α − 1
        assert zcdp_to_dp(rho, delta) == pytest.approx(np.min(real * rho + L / (real - 1)), rel=1e-7)
        ints = np.arange(2, 200001)
        assert zcdp_to_dp(rho, delta, "integer-orders") == pytest.approx(np.min(ints * rho + L / (ints - 1)), rel=1e-12)


def test_cks_conversion_matches_a_grid_search_of_its_bound():
    for rho, delta in itertools.product(RHOS, DELTAS):
        a = np.exp(np.linspace(-14, 12, 400001)) + 1
        bound = a * rho + (-math.log(delta) - np.log(a)) / (a - 1) + np.log1p(-1 / a)
        assert zcdp_to_dp(rho, delta, "cks") == pytest.approx(bound.min(), rel=1e-7)


@pytest.mark.parametrize("rho", [0.01, 0.5, 3.0])
def test_exact_gaussian_profile_matches_numerical_integration(rho):
    """δ(ε) = ∫ (p − e^ε q)₊ for p = N(μ, 1), q = N(0, 1), μ = √(2ρ), integrated numerically."""
    mu = math.sqrt(2 * rho)
    for delta in (1e-3, 1e-6):
        eps = zcdp_to_dp(rho, delta, "gaussian-exact")
        x0 = eps / mu + mu / 2  # where p/q = e^ε; the integrand vanishes below it
        val, _ = integrate.quad(
            lambda x, e=eps: stats.norm.pdf(x, mu) - math.exp(e) * stats.norm.pdf(x),
            x0,
            np.inf,
            epsabs=1e-15,
            epsrel=1e-10,
        )
        assert val == pytest.approx(delta, rel=1e-6)


def test_invalid_conversion_arguments_are_rejected():
    with pytest.raises(ValueError, match="unknown conversion"):
        zcdp_to_dp(1.0, 1e-6, "rdp")
    with pytest.raises(ValueError, match="unknown conversion"):
        dp_to_zcdp(1.0, 1e-6, "rdp")
    with pytest.raises(ValueError, match="δ must lie"):
        zcdp_to_dp(1.0, 0.0)
    with pytest.raises(ValueError, match="non-negative"):
        zcdp_to_dp(-1.0, 1e-6)
    assert zcdp_to_dp(0.0, 1e-6, "cks") == 0.0


@pytest.mark.parametrize(("eps", "mu"), [(0.1, 0.05), (0.5, 0.2), (1.0, 1.0), (3.0, 2.5)])
def test_gaussian_delta_is_the_hockey_stick_divergence_of_two_normals(eps, mu):
    """∫ max(0, φ(y) − e^ε φ(y − μ)) dy by quadrature (positive below y* = μ/2 − ε/μ)."""
    cross = mu / 2 - eps / mu
    direct, _ = integrate.quad(
        lambda y: stats.norm.pdf(y) - math.exp(eps) * stats.norm.pdf(y, loc=mu),
        -np.inf,
        cross,
        epsabs=1e-15,
        epsrel=1e-10,
    )
    assert gaussian_delta(eps, mu) == pytest.approx(direct, rel=1e-7, abs=1e-15)
    assert gaussian_delta(eps, mu) > gaussian_delta(eps * 1.1, mu)  # decreasing in ε
