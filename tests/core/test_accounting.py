"""Privacy accounting: permutation swapping's budget and the zCDP ↔ (ε, δ)-DP conversions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from isdp.accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    gaussian_delta,
    gaussian_variance,
    laplace_variance,
    swap_min_table,
    swap_rate_roots,
    swap_rates_for_epsilon,
    swap_table,
    swapping_epsilon,
    swapping_min_epsilon,
    variance_table,
    zcdp_to_dp,
)
from isdp.experiments.e8_privacy_accounting.swap_audit import worst_loss_per_unit

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
    table = swap_min_table([b])
    assert table["min_epsilon_numeric"].iloc[0] == pytest.approx(eps_b, abs=1e-7)  # Brent at a kink


@pytest.mark.parametrize("b", B_VALUES)
def test_every_larger_budget_has_exactly_two_swap_rates(b):
    eps_b, p_star = swapping_min_epsilon(b)
    for eps in eps_b + np.array([1e-3, 0.5, 3.0, 12.0]):
        low, high = swap_rates_for_epsilon(eps, b)
        assert low < p_star < high
        assert swapping_epsilon(low, b) == pytest.approx(eps) and swapping_epsilon(high, b) == pytest.approx(eps)
        roots = swap_rate_roots(eps, b)
        np.testing.assert_allclose(roots, [math.log(b + 1) - eps, eps], atol=1e-9)
    with pytest.raises(ValueError, match="below the smallest"):
        swap_rates_for_epsilon(eps_b - 0.1, b)


def test_budget_is_monotone_where_the_slides_say():
    p = np.linspace(0.001, 0.999, 999)
    eps = np.array([swapping_epsilon(p, b) for b in B_VALUES])
    left = p <= 0.5
    assert np.all(np.diff(eps[:, left], axis=0) > 0), "for the same swap rate ≤ 1/2, a larger b gives a larger ε"
    assert np.all(np.diff(eps, axis=0) >= 0), "and never a smaller one (ε = ln o does not depend on b)"
    assert np.all(np.diff(eps[:, left], axis=1) < 0), "ε decreases in p up to p = 1/2"


def test_swap_table_reproduces_rows_and_gives_the_other_rate():
    printed = pd.DataFrame({"b": [7, 7, 7], "swap_rate": [0.1, 0.5, 0.99]})
    printed["epsilon"] = [slides_formula(p, 7) for p in printed["swap_rate"]]
    out = swap_table(printed)
    np.testing.assert_allclose(out["gap"], 0, atol=1e-12)
    np.testing.assert_allclose(swapping_epsilon(out["other_swap_rate"].to_numpy(), 7), out["epsilon"], rtol=1e-9)
    assert not np.any(np.isclose(out["other_swap_rate"], out["swap_rate"]))
    np.testing.assert_allclose(out["other_swap_rate"] + out["other_swap_rate_complement"], 1)


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
        val, _ = integrate.quad(lambda x, e=eps: stats.norm.pdf(x, mu) - math.exp(e) * stats.norm.pdf(x), x0, np.inf,
                                epsabs=1e-15, epsrel=1e-10)
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


# --------------------------------------------------------------------------- noise variances


@pytest.mark.parametrize("eps, levels, sens", [(1.0, 6, 2), (0.3, 1, 1), (4.0, 3, 5)])
def test_laplace_variance_is_that_of_the_per_level_laplace(eps, levels, sens):
    assert laplace_variance(eps, levels, sens) == pytest.approx(stats.laplace(scale=sens * levels / eps).var())


@pytest.mark.parametrize("method", CONVERSIONS)
def test_gaussian_variance_spends_exactly_the_budget(method):
    """Composing the per-level Gaussians (zCDP adds up) and converting back gives the target ε."""
    for eps, delta, levels, sens in [(1.0, 1e-9, 6, math.sqrt(2)), (3.0, 1e-6, 2, 1.0)]:
        var = gaussian_variance(eps, delta, levels, sens, method)
        rho_total = levels * sens**2 / (2 * var)
        assert zcdp_to_dp(rho_total, delta, method) == pytest.approx(eps, rel=1e-9)


def test_variance_table_has_one_row_per_mechanism_and_conversion():
    printed = pd.DataFrame({"delta": [1e-6], "epsilon": [2.0], "laplace_variance": [1.0], "gaussian_variance": [1.0]})
    out = variance_table(printed, levels=3, changed_cells=2)
    assert len(out) == 1 + len(CONVERSIONS)
    lap = out[out["mechanism"] == "laplace"].iloc[0]
    assert lap["variance"] == pytest.approx(2 * (2 * 3 / 2.0) ** 2) and lap["gap"] == pytest.approx(lap["variance"] - 1)
    gauss = out[(out["mechanism"] == "gaussian") & (out["conversion"] == "standard")].iloc[0]
    assert gauss["variance"] == pytest.approx(3 * 2 / (2 * dp_to_zcdp(2.0, 1e-6)))


@pytest.mark.parametrize(("eps", "mu"), [(0.1, 0.05), (0.5, 0.2), (1.0, 1.0), (3.0, 2.5)])
def test_gaussian_delta_is_the_hockey_stick_divergence_of_two_normals(eps, mu):
    """∫ max(0, φ(y) − e^ε φ(y − μ)) dy by quadrature (positive below y* = μ/2 − ε/μ)."""
    cross = mu / 2 - eps / mu
    direct, _ = integrate.quad(lambda y: stats.norm.pdf(y) - math.exp(eps) * stats.norm.pdf(y, loc=mu), -np.inf, cross,
                               epsabs=1e-15, epsrel=1e-10)
    assert gaussian_delta(eps, mu) == pytest.approx(direct, rel=1e-7, abs=1e-15)
    assert gaussian_delta(eps, mu) > gaussian_delta(eps * 1.1, mu)  # decreasing in ε

