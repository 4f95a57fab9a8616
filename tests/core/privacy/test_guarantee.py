"""Tests of :mod:`isdp.privacy._guarantee`: the guarantee per person and per group follows the distances a
change of persons moves a table, a change beyond the search is stated as not determined, and the guarantee is
printed so that no ε, ρ or δ reads as a smaller loss than the one stated."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from isdp.privacy import Guarantee, Neighbours, gaussian_sigma, unit_epsilon
from isdp.privacy._guarantee import gaussian_rho
from isdp.privacy._neighbours import LARGEST_GROUP


def test_a_change_beyond_the_search_is_stated_as_not_determined():
    """9·x₀ + x₁: only v = (1, −9) and its multiples keep it, nine persons, beyond the search."""
    found = Neighbours.of(np.array([[9, 1]]))
    assert found.smallest.persons is None and found.smallest.searched == LARGEST_GROUP < 9
    guarantee = Guarantee("l1", Fraction(1, 2)).to_dict(found)
    assert "smallest_change" not in guarantee and guarantee["headline"]["persons"] == 1
    assert "not determined" in guarantee["headline"]["applies_to"]
    assert f"no change of up to {LARGEST_GROUP} persons" in guarantee["neighbours"]


def test_per_person_guarantees_follow_the_distances():
    l1 = Guarantee("l1", Fraction(1, 4))
    assert l1.at(1) == {"persons": 1, "epsilon": 0.5, "delta": 0.0} and l1.at(2)["epsilon"] == 1.0
    l2 = Guarantee("l2", 1 / math.sqrt(2))
    assert l2.at(1)["epsilon"] == pytest.approx(1) and l2.at(2)["epsilon"] == pytest.approx(2)
    sigma = gaussian_sigma(1.0, 1e-6)
    g = Guarantee("gaussian", sigma, 1e-6)
    assert g.at(1)["rho"] == pytest.approx(1 / float(sigma) ** 2)
    assert g.at(2)["rho"] == pytest.approx(4 * g.at(1)["rho"])
    assert 1 - 1e-5 < g.at(1)["epsilon"] <= 1  # σ rounded up on its grid: never weaker
    chain = Guarantee("l1", Fraction(1, 2), eta=0.01, confidence=0.95)
    assert chain.at(1)["delta"] == pytest.approx((1 + math.e) * 0.01)


def test_a_gaussian_guarantee_without_its_delta_is_refused():
    """The Gaussian's ε is read off its profile at δ: without δ no line of the guarantee exists."""
    with pytest.raises(ValueError, match="needs delta_conversion"):
        Guarantee("gaussian", Fraction(3))
    assert Guarantee("l1", Fraction(1, 4)).delta_conversion is None  # the Laplace has none


@pytest.mark.parametrize("n_tables", [1, 2, 3])
def test_the_calibration_meets_the_guarantee_asked_per_person_over_several_tables(n_tables):
    """One person reaches every table in the norm: the unit ε and the Gaussian's ρ shrink with T so that the
    guarantee per person is the one asked."""
    for norm in ("l1", "l2"):
        unit = unit_epsilon(Fraction(1, 2), norm, n_tables)
        assert Guarantee(norm, unit, n_tables=n_tables).at(1)["epsilon"] == pytest.approx(0.5)
    assert unit_epsilon(Fraction(1, 2), "l1", n_tables) == Fraction(1, 4 * n_tables)  # exact: the sampler needs it
    sigma = gaussian_sigma(1.0, 1e-6, n_tables)
    line = Guarantee("gaussian", sigma, 1e-6, n_tables=n_tables).at(1)
    assert 1 - 1e-5 < line["epsilon"] <= 1 and line["rho"] == pytest.approx(gaussian_rho(sigma, 1, n_tables))
    with pytest.raises(ValueError, match="no unit ε for the norm 'gaussian'"):
        unit_epsilon(Fraction(1), "gaussian")


# --------------------------------------------------------------------------- the guarantee as printed


def _printed(text: str, before: str, after: str) -> str:
    return text.split(before, 1)[1].split(after, 1)[0]


@pytest.mark.parametrize("delta", [0.999999, 1 / 3, 1e-6, 0.9999999, 2.5e-7, 0.123456789])
def test_a_printed_delta_is_the_delta_exactly(delta):
    """δ = 0.999999 was printed '(0.999999, 1)-DP' (3 significant digits): a δ is printed so
    that it reads back as the very float stated, never as a rounder, weaker- or stronger-looking one."""
    for g in (Guarantee("gaussian", Fraction(3), delta_conversion=delta), Guarantee("l1", Fraction(1, 4), eta=delta)):
        line = g.at(1)
        printed = g.sentence(1).split(")-DP", 1)[0].rsplit(", ", 1)[1]
        assert float(printed) == line["delta"], (printed, line["delta"])


@pytest.mark.parametrize("unit", [Fraction(1, 2), Fraction(1, 6), Fraction(1, 14), Fraction(7, 20), Fraction(1, 10**9)])
def test_a_printed_epsilon_is_never_below_the_stated_one(unit):
    """ε to 6 significant digits, rounded up unless they give it (up to floating-point noise)."""
    g = Guarantee("l1", unit)
    for k in (1, 2):
        eps = g.at(k)["epsilon"]
        printed = float(g.sentence(k).split("-DP", 1)[0])
        assert eps * (1 - 1e-12) <= printed <= eps * (1 + 1e-5)


def test_a_printed_rho_and_epsilon_are_upper_bounds_for_the_gaussian():
    g = Guarantee("gaussian", gaussian_sigma(1.0, 1e-6), delta_conversion=1e-6)
    line, text = g.at(1), g.sentence(1)
    rho, eps = float(_printed(text, "rho = ", ",")), float(_printed(text, "(", ","))
    assert line["rho"] <= rho <= line["rho"] * (1 + 1e-5) and line["epsilon"] * (1 - 1e-12) <= eps <= 1.0
