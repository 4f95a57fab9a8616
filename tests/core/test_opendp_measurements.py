"""The release routes inside OpenDP (isdp.opendp_measurements; the optional extra isdp[opendp]): their
privacy maps per person (whole persons only, rounded up), composition with OpenDP's own measurements
under one budget, no feature left enabled behind the user's back, and this project's exact double
geometric against OpenDP's integer Laplace (same law, two implementations)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, UNSEEDED_ALPHA, chisquare_gof

pytest.importorskip("opendp")

from isdp.exact import double_geometric_array, seeded_source  # noqa: E402
from isdp.lattice import table_margins  # noqa: E402
from isdp.opendp_measurements import (
    FEATURES,
    counts_domain,
    make_counts_as_l1,
    make_isdp_gaussian,
    make_isdp_laplace,
    persons_metric,
)

TOTAL3 = np.ones((1, 3), dtype=np.int64)


@pytest.fixture
def features():
    """OpenDP's process-wide feature set, emptied for the test and given back as it was afterwards."""
    from opendp.mod import GLOBAL_FEATURES

    before = set(GLOBAL_FEATURES)
    GLOBAL_FEATURES.clear()
    yield GLOBAL_FEATURES
    GLOBAL_FEATURES.clear()
    GLOBAL_FEATURES.update(before)


@pytest.fixture
def contrib(features):
    """OpenDP's `contrib` only, as a user of OpenDP's own constructors enables it (never honest-but-curious)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return features


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


def test_it_composes_with_opendp_own_measurements_under_one_budget(contrib):
    import opendp.prelude as dp

    isdp_release = make_isdp_laplace(TOTAL3, 1)
    opendp_counts = make_counts_as_l1(3) >> dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=3), dp.l1_distance(T=dp.i64), scale=4.0
    )
    both = dp.c.make_composition([isdp_release, opendp_counts])
    # one person: ε = 1 from isdp, and 2 (ℓ1) / 4 (scale) = 0.5 from OpenDP's Laplace
    assert both.map(1) == pytest.approx(1.5)
    released, counts = both([5, 0, 7])
    assert sum(released) == 12 and len(counts) == 3
    assert contrib == {"contrib"}  # honest-but-curious was enabled while isdp built its own, and only then


def test_no_feature_is_left_enabled_and_the_measurements_still_work(features):
    """Calling the module once switched on contrib and honest-but-curious for the whole process."""
    built = [
        persons_metric(),
        counts_domain(3),
        make_counts_as_l1(3),
        make_isdp_laplace(TOTAL3, 1),
        make_isdp_laplace(TOTAL3, 1, free_cells=True),
        make_isdp_gaussian(TOTAL3, 2),
    ]
    assert features == set()
    to_l1, laplace, free, gauss = built[2:]
    assert to_l1.map(1) == 2 and laplace.map(1) == 1.0 and free.map(2) == 2.0 and gauss.map(1) == 0.25
    assert sum(laplace([5, 0, 7])) == 12 and sum(gauss([5, 0, 7])) == 12 and to_l1([1, 2, 3]) == [1, 2, 3]
    import opendp.prelude as dp

    dp.enable_features(*FEATURES)  # the user's own choice is kept: never disabled by a call
    make_isdp_laplace(TOTAL3, 1)
    assert features == set(FEATURES)


MAKERS = {
    "laplace": lambda: make_isdp_laplace(TOTAL3, 1),
    "free cells": lambda: make_isdp_laplace(TOTAL3, 1, True),
    "gaussian": lambda: make_isdp_gaussian(TOTAL3, 2),
    "counts as l1": lambda: make_counts_as_l1(3),
}


def _refused(meas, d_in) -> None:
    from opendp.mod import OpenDPException

    with pytest.raises(OpenDPException, match="a distance in persons is a whole number >= 0"):
        meas.map(d_in)


@pytest.mark.parametrize("make", MAKERS)
def test_maps_refuse_distances_that_are_not_whole_persons(make):
    """`.map(-1)` returned -1, .map(0.5) returned 0.5, make_counts_as_l1(3).map(-1) returned -2."""
    meas = MAKERS[make]()
    for d_in in (-1, 0.5):
        _refused(meas, d_in)


@pytest.mark.parametrize("d_in", [-0.5, 1.5, float("inf"), float("nan"), True, "1"])
def test_the_laplace_map_refuses_every_other_kind_of_distance(d_in):
    _refused(make_isdp_laplace(TOTAL3, 1), d_in)


def test_maps_take_whole_persons_in_any_integer_type():
    m, to_l1 = make_isdp_laplace(TOTAL3, "1/2"), make_counts_as_l1(3)
    assert m.map(0) == 0.0 and m.map(np.int64(3)) == 1.5 and m.map(2.0) == 1.0
    assert to_l1.map(0) == 0 and to_l1.map(np.int32(4)) == 8


@pytest.mark.parametrize("epsilon, k", [("1/3", 1), ("1/3", 7), ("0.1", 3), ("2/7", 5), ("1e-9", 1)])
def test_the_laplace_map_rounds_the_loss_up(epsilon, k):
    """OpenDP's convention: a map never understates the loss. k·ε exactly, rounded up to the next float."""
    stated = make_isdp_laplace(TOTAL3, epsilon).map(k)
    exact = Fraction(epsilon) * k
    assert Fraction(stated) >= exact and Fraction(math.nextafter(stated, -math.inf)) < exact


@pytest.mark.parametrize("sigma, k", [("3", 1), ("3", 2), ("7/3", 1), ("1.1", 3)])
def test_the_gaussian_map_rounds_rho_up(sigma, k):
    stated = make_isdp_gaussian(TOTAL3, sigma).map(k)
    exact = Fraction(k) ** 2 / Fraction(sigma) ** 2
    assert Fraction(stated) >= exact and Fraction(math.nextafter(stated, -math.inf)) < exact


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: make_isdp_laplace(TOTAL3, "1e-20"), "the exact sampler draws with ε per unit ℓ1 distance"),
        (lambda: make_isdp_gaussian(TOTAL3, 10**15), "the exact sampler draws with ε per unit ℓ1 distance"),
        (lambda: make_isdp_laplace(TOTAL3, 0), "epsilon must be a positive number"),
        (lambda: make_isdp_laplace([[2, 4, 6]], 1), "the exact route does not apply"),
    ],
    ids=["tiny epsilon", "huge sigma", "zero epsilon", "no integral solve"],
)
def test_unusable_parameters_are_refused_when_built_with_a_message(make, message):
    """A too-small ε raised an OpenDPException with an empty message when the measurement ran."""
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("x", [[1, 2, 3, 4], [1, 2]], ids=["4 cells", "2 cells"])
def test_a_table_of_the_wrong_length_is_refused_with_a_message(x):
    from opendp.mod import OpenDPException

    with pytest.raises(OpenDPException) as err:
        make_isdp_laplace(TOTAL3, 1)(x)
    assert f"the table has {len(x)} cells; this measurement's invariants have 3" in str(err.value)


def test_our_double_geometric_and_opendp_integer_laplace_draw_one_law(contrib):
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
    for draws, alpha in ((ours, ALPHA), (theirs, UNSEEDED_ALPHA)):  # OpenDP's are unseeded
        assert chisquare_gof(np.clip(draws, -12, 12) + 12, exact / exact.sum()) > alpha
    table = np.array([np.bincount(np.clip(d, -12, 12) + 12, minlength=25) for d in (ours, theirs)])
    keep = table.sum(axis=0) >= 10
    assert chi2_contingency(table[:, keep]).pvalue > UNSEEDED_ALPHA
