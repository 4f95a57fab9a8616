"""The exact draws of the release path (isdp.exact: Bernoulli(exp), the double geometric) against their exact laws."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof_integers
from scipy import stats

from isdp.exact import (
    as_fraction,
    bernoulli_exp,
    double_geometric,
    double_geometric_array,
    seeded_source,
    system_source,
)


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
    e = as_fraction(eps)
    support = np.arange(-60, 61)
    for rng in (seeded_source(8), system_source()):
        draws = double_geometric_array(e, 20_000, rng)
        assert draws.dtype == np.int64
        assert chisquare_gof_integers(draws, support, stats.dlaplace.pmf(support, float(e))) > ALPHA


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
