"""Tests of :mod:`isdp_papers.e8_privacy_accounting.tables`: E8's reproductions of the printed tables — swap
rates → ε (both rates of one ε), ε_b found numerically, and the TopDown talk's per-level noise variances (each
conversion spends exactly the budget)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from isdp_papers.e8_privacy_accounting.accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    swapping_epsilon,
    swapping_min_epsilon,
    zcdp_to_dp,
)
from isdp_papers.e8_privacy_accounting.tables import (
    per_level_gaussian_variance,
    per_level_laplace_variance,
    swap_min_table,
    swap_rate_roots,
    swap_table,
    variance_table,
)
from scipy import stats

B_VALUES = [1, 3, 50, 10**6]


@pytest.mark.parametrize("b", B_VALUES)
def test_numerical_minimum_is_the_smallest_budget(b):
    eps_b, _ = swapping_min_epsilon(b)
    table = swap_min_table([b])
    assert table["min_epsilon_numeric"].iloc[0] == pytest.approx(eps_b, abs=1e-7)  # Brent at a kink


@pytest.mark.parametrize("b", B_VALUES)
def test_numerical_roots_are_the_two_closed_form_swap_rates(b):
    eps_b, _ = swapping_min_epsilon(b)
    for eps in eps_b + np.array([1e-3, 0.5, 3.0, 12.0]):
        np.testing.assert_allclose(swap_rate_roots(eps, b), [math.log(b + 1) - eps, eps], atol=1e-9)


def test_swap_table_reproduces_rows_and_gives_the_other_rate():
    printed = pd.DataFrame({"b": [7, 7, 7], "swap_rate": [0.1, 0.5, 0.99]})
    printed["epsilon"] = swapping_epsilon(printed["swap_rate"].to_numpy(), 7)
    out = swap_table(printed)
    np.testing.assert_allclose(out["gap"], 0, atol=1e-12)
    np.testing.assert_allclose(swapping_epsilon(out["other_swap_rate"].to_numpy(), 7), out["epsilon"], rtol=1e-9)
    assert not np.any(np.isclose(out["other_swap_rate"], out["swap_rate"]))
    np.testing.assert_allclose(out["other_swap_rate"] + out["other_swap_rate_complement"], 1)


@pytest.mark.parametrize("eps, levels, sens", [(1.0, 6, 2), (0.3, 1, 1), (4.0, 3, 5)])
def test_per_level_laplace_variance_is_that_of_the_per_level_laplace(eps, levels, sens):
    expected = stats.laplace(scale=sens * levels / eps).var()
    assert per_level_laplace_variance(eps, levels, sens) == pytest.approx(expected)


@pytest.mark.parametrize("method", CONVERSIONS)
def test_per_level_gaussian_variance_spends_exactly_the_budget(method):
    """Composing the per-level Gaussians (zCDP adds up) and converting back gives the target ε."""
    for eps, delta, levels, sens in [(1.0, 1e-9, 6, math.sqrt(2)), (3.0, 1e-6, 2, 1.0)]:
        var = per_level_gaussian_variance(eps, delta, levels, sens, method)
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
