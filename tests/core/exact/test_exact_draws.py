"""The exact draws of the release path (isdp.exact: Bernoulli(exp), the double geometric) against their exact laws."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, UNSEEDED_ALPHA, Z_TOL, ByteStream, chisquare_gof_integers
from scipy import stats

from isdp._validate import positive
from isdp.errors import ArgumentError
from isdp.exact import double_geometric_array, seeded_source, system_source
from isdp.exact._exact_draws import bernoulli_exp, double_geometric


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_has_mean_exp_minus_gamma(gamma):
    rng = seeded_source(11)
    n = 20_000
    hits = sum(bernoulli_exp(gamma.numerator, gamma.denominator, rng) for _ in range(n))
    p = math.exp(-gamma)
    se = math.sqrt(max(p * (1 - p), 1e-12) / n)
    assert abs(hits / n - p) <= Z_TOL * se, (gamma, hits / n, p)


@pytest.mark.parametrize("source", [lambda: seeded_source(5), system_source], ids=["seeded", "system"])
def test_one_double_geometric_at_a_time_follows_the_dg_law(source):
    """The scalar entry point (one array draw each call; the array sampler's law is tested below
    at three ε with 20,000 draws per source)."""
    rng = source()
    draws = np.array([double_geometric(Fraction(3, 2), rng) for _ in range(4_000)])
    support = np.arange(-40, 41)
    assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, 1.5)) > ALPHA


@pytest.mark.parametrize("eps", ["0.5", "24/125", "3"])
def test_the_array_double_geometric_follows_the_dg_law(eps):
    """The vectorised sampler of the release's exact route, from both sources, against DG(ε)."""
    e = positive("value", eps)
    support = np.arange(-60, 61)
    for rng, alpha in ((seeded_source(8), ALPHA), (system_source(), UNSEEDED_ALPHA)):
        draws = double_geometric_array(e, 20_000, rng)
        assert draws.dtype == np.int64
        assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, float(e))) > alpha


def test_uniform_integers_below_each_bound_are_uniform():
    from isdp.exact._exact_draws import _uniform_below

    m = np.repeat(np.array([3, 7, 2**40 + 1], dtype=np.uint64), 30_000)
    u = _uniform_below(m, seeded_source(2)).astype(object)
    assert all(0 <= v < b for v, b in zip(u, m.astype(object), strict=True))
    for bound in (3, 7):
        counts = np.bincount(np.array(u[m == bound], dtype=np.int64), minlength=bound)
        assert stats.chisquare(counts).pvalue > ALPHA
    big = np.array(u[m == 2**40 + 1], dtype=float) / float(2**40 + 1)
    assert stats.kstest(big, "uniform").pvalue > ALPHA


@pytest.mark.parametrize(
    ("num", "den", "name"),
    [
        (0.5, 1, "num"),
        (float("nan"), 1, "num"),
        (True, 1, "num"),
        (-1, 1, "num"),
        ("1", 2, "num"),
        (1, 0, "den"),
        (1, -2, "den"),
        (1, 2.5, "den"),
        (1, False, "den"),
    ],
)
def test_bernoulli_exp_refuses_what_is_not_an_integer_numerator_and_denominator(num, den, name):
    """γ = num/den in integers: 0.5 was truncated (a law of mean e⁻¹, not e^−0.5), NaN drew True."""
    with pytest.raises(ArgumentError, match=f"^{name} must be an integer"):
        bernoulli_exp(num, den, seeded_source(1))


def test_bernoulli_exp_takes_any_integers_exactly():
    """γ = 2**63/(2**63 + 1): the uniform integers below den·k exceed 2**64, which the stream's reader served
    with a negative shift."""
    from isdp.exact._compiled_draws import WordSource

    num, den, n = 2**63, 2**63 + 1, 20_000
    rng = WordSource(ByteStream(12))
    kept = sum(bernoulli_exp(num, den, rng) for _ in range(n))
    assert stats.binomtest(kept, n, math.exp(-num / den)).pvalue > ALPHA
    assert stats.binomtest(kept, n, math.exp(-0.9)).pvalue < ALPHA  # the test can fail


@pytest.mark.parametrize("eps", [Fraction(1234567891, 20_000_000_000), Fraction(2**31 + 1, 2**33)])
def test_any_denominator_is_served_with_the_dg_law(eps):
    """Denominators of 2**31 or more (a release's ε/(2T) at ε = 0.1234567891): one draw at a time in Python
    integers, and the array sampler too."""
    support = np.arange(-150, 151)
    rng = seeded_source(10)
    for draws in (
        np.array([double_geometric(eps, rng) for _ in range(4000)]),
        double_geometric_array(eps, 4000, seeded_source(11)),
    ):
        assert draws.dtype == np.int64
        assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, float(eps))) > ALPHA
        assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, 1.2 * float(eps))) < ALPHA


def test_any_numerator_is_served():
    """ε = 2**70/3: P(0) = tanh(ε/2) = 1 to double precision (numpy could not divide by the numerator)."""
    assert not double_geometric_array(Fraction(2**70, 3), 1000, seeded_source(1)).any()
    assert double_geometric(Fraction(2**70, 3), seeded_source(1)) == 0
    draws = double_geometric_array(Fraction(2**40 + 1, 2**40), 20_000, seeded_source(2))  # numerator above 2**31
    support = np.arange(-30, 31)
    assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, 1.0)) > ALPHA


@pytest.mark.parametrize(
    ("eps", "size", "name"),
    [
        (Fraction(1, 2**51), 3, "epsilon"),
        (0, 3, "epsilon"),
        (True, 3, "epsilon"),
        ("1_0", 3, "epsilon"),
        (float("nan"), 3, "epsilon"),
        (1, -1, "size"),
        (1, 2.5, "size"),
        (1, True, "size"),
    ],
)
def test_the_array_sampler_refuses_what_it_cannot_serve_naming_the_argument(eps, size, name):
    """Below ε = 2**-50 the draws (scale 1/ε) would not fit int64."""
    with pytest.raises(ArgumentError, match=f"^{name} "):
        double_geometric_array(eps, size, seeded_source(1))
    if name == "epsilon" and eps != Fraction(1, 2**51):
        with pytest.raises(ArgumentError, match="^eps "):
            double_geometric(eps, seeded_source(1))
