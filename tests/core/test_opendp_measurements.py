"""The release routes inside OpenDP (isdp.opendp_measurements; the optional extra isdp[opendp]): their
privacy maps per person, composition with OpenDP's own measurements under one budget, and this
project's exact double geometric against OpenDP's integer Laplace (same law, two implementations)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof

pytest.importorskip("opendp")

from isdp import table_margins  # noqa: E402
from isdp.exact_sampling import double_geometric_array, seeded_source  # noqa: E402
from isdp.opendp_measurements import (  # noqa: E402
    make_counts_as_l1,
    make_isdp_gaussian,
    make_isdp_laplace,
)

TOTAL3 = np.ones((1, 3), dtype=np.int64)


def test_the_l1_route_as_a_measurement_releases_and_maps_per_person():
    m = make_isdp_laplace(TOTAL3, "1/2")
    assert m.map(1) == 0.5 and m.map(2) == 1.0
    out = m([5, 0, 7])
    assert all(isinstance(v, int) for v in out) and sum(out) == 12


def test_the_free_cell_route_as_a_measurement_draws_its_own_law():
    """2 × 3 margins, ε = 2 per person (1 per unit ℓ1): the first cell's noise is DG(1) on the free-cell
    route, P(0) = (1 − e⁻¹)/(1 + e⁻¹); the generalized Laplace's P(0) is far from it (enumerated)."""
    m = make_isdp_laplace(table_margins(2, 3), "2", free_cells=True)
    assert m.map(1) == 2.0
    x = np.array([5, 3, 2, 1, 4, 6])
    noise = np.array([m(x.tolist()) for _ in range(1000)]) - x
    assert not np.any(noise @ table_margins(2, 3).T)
    r = math.exp(-1)
    free, se = (1 - r) / (1 + r), math.sqrt(0.25 / 1000)
    grid = np.arange(-30, 31)
    a, b = np.meshgrid(grid, grid, indexing="ij")
    w = np.exp(-2 * (np.abs(a) + np.abs(b) + np.abs(a + b)))  # the generalized Laplace on this lattice
    laplace = w[a == 0].sum() / w.sum()
    assert abs(np.mean(noise[:, 0] == 0) - free) <= 4 * se < abs(laplace - free)


def test_the_gaussian_route_maps_to_zcdp_per_person():
    m = make_isdp_gaussian(table_margins(2, 3), "3/2")
    assert m.map(1) == pytest.approx(1 / 1.5**2) and m.map(2) == pytest.approx(4 / 1.5**2)
    out = np.array(m([5, 3, 2, 1, 4, 6])).reshape(2, 3)
    assert out.sum(axis=1).tolist() == [10, 11] and out.sum(axis=0).tolist() == [6, 7, 8]


def test_it_composes_with_opendp_own_measurements_under_one_budget():
    import opendp.prelude as dp

    isdp_release = make_isdp_laplace(TOTAL3, 1)
    opendp_counts = make_counts_as_l1(3) >> dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=3), dp.l1_distance(T=dp.i64), scale=4.0)
    both = dp.c.make_composition([isdp_release, opendp_counts])
    # one person: ε = 1 from isdp, and 2 (ℓ1) / 4 (scale) = 0.5 from OpenDP's Laplace
    assert both.map(1) == pytest.approx(1.5)
    released, counts = both([5, 0, 7])
    assert sum(released) == 12 and len(counts) == 3


def test_our_double_geometric_and_opendp_integer_laplace_draw_one_law():
    """Both against the exact law P(k) ∝ exp(-|k|/2) (scale 2, ε = 1/2), and against each other."""
    import opendp.prelude as dp
    from scipy.stats import chi2_contingency

    n, rng = 20_000, seeded_source(11)
    ours = double_geometric_array(Fraction(1, 2), n, rng)
    lap = dp.m.make_laplace(dp.atom_domain(T=dp.i64), dp.absolute_distance(T=dp.i64), scale=2.0)
    theirs = np.array([lap(0) for _ in range(n)])
    edges = np.arange(-12, 13)
    r = np.exp(-0.5)
    exact = (1 - r) / (1 + r) * r ** np.abs(edges)
    exact[0] += r**13 / (1 + r)  # the two tails folded into the end bins
    exact[-1] += r**13 / (1 + r)
    for draws in (ours, theirs):
        assert chisquare_gof(np.clip(draws, -12, 12) + 12, exact / exact.sum()) > ALPHA
    table = np.array([np.bincount(np.clip(d, -12, 12) + 12, minlength=25) for d in (ours, theirs)])
    keep = table.sum(axis=0) >= 10
    assert chi2_contingency(table[:, keep]).pvalue > ALPHA
