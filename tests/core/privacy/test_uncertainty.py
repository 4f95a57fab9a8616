"""Each released cell's noise sd and interval for its true count: exact laws where known, coverage on repeated
releases of a known table within its binomial error, and the same columns for tables with the same invariants."""

import math
from fractions import Fraction

import numpy as np
import pytest

from isdp.errors import ArgumentError, UncertifiableError, UsageError
from isdp.exact import ExactSampler
from isdp.privacy import noise_interval
from isdp.privacy._uncertainty import (
    MAX_DRAWS,
    MIN_TAIL_DRAWS,
    UNCERTAINTY_COLUMNS,
    _dg_interval,
    cell_uncertainty,
    check_uncertainty,
    combination_law,
    simulated_draws,
)
from isdp.release import Request, make_release
from isdp.tables import constraint_matrix, load_table

LEVEL = 0.9


def _dg(eps: float, k: np.ndarray) -> np.ndarray:
    q = math.exp(-eps)
    return (1 - q) / (1 + q) * q ** np.abs(k)


def test_the_free_cell_route_s_intervals_are_exact():
    """Free cells: DG(1/2)'s tails beyond the interval are each at most 5 %, and one step narrower they are not;
    the solved cell of a total over three cells: the law of the sum of two, enumerated directly."""
    got = cell_uncertainty(
        ExactSampler.build(np.array([[1, 1, 1]])), 3, Request(epsilon="1", free_cells=True), Fraction(1, 2), LEVEL
    )
    k = np.arange(-200, 201)
    free = _dg(0.5, k)
    two = np.convolve(free, free)
    k2 = np.arange(-400, 401)
    tail = (1 - LEVEL) / 2
    for cell, (law, support) in enumerate([(free, k), (free, k), (two, k2)]):
        lo, hi = int(got["low"][cell]), int(got["high"][cell])
        below, above = law[support < lo].sum(), law[support > hi].sum()
        assert below <= tail + 1e-12 and above <= tail + 1e-12
        assert law[support < lo + 1].sum() > tail and law[support > hi - 1].sum() > tail  # the shortest such
        assert got["coverage"][cell] == pytest.approx(1 - below - above, abs=1e-9)
        assert got["sd"][cell] == pytest.approx(math.sqrt((law * support**2).sum()), rel=1e-9)
    assert got["draws"] == (0, 0)


def _table(tmp_path, counts, name="t.csv"):
    path = tmp_path / name
    path.write_text("group,cell,count\n" + "".join(f"g{i // 10},c{i},{c}\n" for i, c in enumerate(counts)))
    return load_table(path)


@pytest.mark.parametrize("options", [{}, {"free_cells": True}, {"norm": "gaussian", "delta": 1e-6}])
def test_coverage_on_repeated_releases_is_the_intervals_probability(tmp_path, options):
    """200 releases of a known table (three blocks of 10 under their totals): the share of cells whose interval
    holds the true count is the intervals' stated probability (at least LEVEL) within four binomial standard
    errors of 200 releases (a release's cells are dependent: its average varies at most as one cell does)."""
    counts = np.random.default_rng(0).poisson(20, 30)
    table = _table(tmp_path, counts)
    A, labels = constraint_matrix(table, ["by:group"])
    hits, probability = [], None
    for seed in range(200):
        release = make_release(table, A, labels, Request(epsilon="1", seed=seed, uncertainty=LEVEL, **options))
        lower, upper = release.uncertainty["lower"], release.uncertainty["upper"]
        assert np.all(lower <= release.values) and np.all(release.values <= upper)
        hits.append(np.mean((lower <= counts) & (counts <= upper)))
        if probability is None:
            plan_sd = release.uncertainty["noise_sd"]
            assert np.all(plan_sd > 0)
            got = cell_uncertainty(
                _sampler(A, options), 30, Request(epsilon="1", uncertainty=LEVEL, **options), _unit(options), LEVEL
            )
            probability = float(got["coverage"].mean())
    assert probability >= LEVEL - 3 * math.sqrt(LEVEL * (1 - LEVEL) / 200)
    se = math.sqrt(probability * (1 - probability) / len(hits))
    assert abs(np.mean(hits) - probability) <= 4 * se


def _sampler(A, options):
    return ExactSampler.build(A, gaussian=options.get("norm") == "gaussian")


def _unit(options):
    from isdp.release._plan import calibrate

    return calibrate(Request(epsilon="1", **options))


def test_tables_with_the_same_invariants_get_the_same_columns(tmp_path):
    a = _table(tmp_path, np.arange(30) % 7, "a.csv")
    b = _table(tmp_path, np.arange(30) % 5 + 100, "b.csv")
    out = []
    for table in (a, b):
        A, labels = constraint_matrix(table, ["by:group"])
        release = make_release(table, A, labels, Request(epsilon="1", uncertainty=LEVEL))
        cols = release.uncertainty
        out.append(
            (
                cols["noise_sd"],
                release.values - cols["lower"],
                cols["upper"] - release.values,
                release.statement["uncertainty"],
            )
        )
    for first, second in zip(*out, strict=True):
        assert first == second if isinstance(first, dict) else np.array_equal(first, second)


def test_the_columns_are_written_and_refused_where_they_cannot_be(tmp_path):
    from isdp.cli import main

    table = tmp_path / "t.csv"
    table.write_text("group,cell,count\n" + "".join(f"g{i // 10},c{i},5\n" for i in range(20)))
    assert (
        main(
            [
                "release",
                str(table),
                "--invariant",
                "by:group",
                "--epsilon",
                "1",
                "--uncertainty",
                "0.9",
                "-o",
                str(tmp_path / "o.csv"),
                "--quiet",
            ]
        )
        == 0
    )
    header, first = (tmp_path / "o.csv").read_text().splitlines()[:2]
    assert header == "group,cell,count," + ",".join(UNCERTAINTY_COLUMNS) and len(first.split(",")) == 6
    wide = tmp_path / "w.csv"
    wide.write_text("sex,young,old\nF,3,5\nM,4,2\n")
    with pytest.raises(UsageError, match="is wide"):
        t = load_table(wide)
        make_release(t, *constraint_matrix(t, ["total"]), Request(epsilon="1", uncertainty=0.9))
    clash = tmp_path / "c.csv"
    clash.write_text("group,lower,count\ng,a,1\ng,b,2\n")
    with pytest.raises(UsageError, match="'lower' already"):
        t = load_table(clash)
        make_release(t, *constraint_matrix(t, ["total"]), Request(epsilon="1", uncertainty=0.9))
    for bad in ({"uncertainty": 1.0}, {"uncertainty": 0.9, "norm": "l2", "delta": 1e-3, "seed": 1}):
        with pytest.raises(UsageError, match="--uncertainty"):
            Request(epsilon="1", **bad).check()


def test_the_docs_state_the_constants_the_code_uses():
    from pathlib import Path

    from isdp.privacy import _uncertainty as u

    page = (Path(__file__).resolve().parents[3] / "docs" / "release.md").read_text()
    assert u.SIMULATED_CELLS == 2 * 10**7 and "⌈2·10⁷ / its cells⌉" in page
    assert (u.MIN_DRAWS, u.MAX_DRAWS) == (200, 20_000) and "between 200 and 20,000" in page
    assert u._GRID_TAIL == 1e-16 and "below 10⁻¹⁶" in page
    assert u.MAX_LAW_POINTS == 2**22 and "at most 2²² values (4,194,304)" in page
    assert u.MIN_TAIL_DRAWS == 10 and "at least 10 draws beyond each end" in page and "⌈20 / (1 − L)⌉" in page
    assert u.MAX_SIMULATED_CELLS == 5 * 10**7 and "exceed 5·10⁷" in page
    assert u.MIN_TAIL == 1e-9 and "down to 10⁻⁹" in page and "above 1 − 2·10⁻⁹" in page
    assert "releases a known table 200 times at LEVEL 0.9" in page and LEVEL == 0.9


@pytest.mark.parametrize("level", [1.5, float("nan"), 0, 1, True, "0.9x"])
def test_a_level_outside_the_open_unit_interval_is_refused_by_name(level):
    with pytest.raises(ArgumentError, match="^level must"):
        cell_uncertainty(
            ExactSampler.build(np.array([[1, 1, 1]])), 3, Request(epsilon="1", free_cells=True), Fraction(1, 2), level
        )


def test_intervals_are_refused_with_the_non_negative_projection(tmp_path):
    """One total over 20 cells, counts [200, 0×19]: the projection moves the 200 cell by the other cells'
    negative noise, and its 0.9 interval, centred on the projected count, held the count in about 75 % of
    releases. The combination is refused (exit 2), nothing written."""
    from isdp.cli import main

    with pytest.raises(UsageError, match="--uncertainty with --nonnegative"):
        Request(epsilon="1", uncertainty=0.9, nonnegative=True).check()
    table = tmp_path / "t.csv"
    table.write_text("cell,count\n" + "".join(f"c{i},{200 if i == 0 else 0}\n" for i in range(20)))
    out = tmp_path / "o.csv"
    for route in ([], ["--free-cells"], ["--norm", "gaussian", "--delta", "1e-6"]):
        assert (
            main(
                [
                    "release",
                    str(table),
                    "--invariant",
                    "total",
                    "--epsilon",
                    "1",
                    "--uncertainty",
                    "0.9",
                    "--nonnegative",
                    "-o",
                    str(out),
                    "--quiet",
                    *route,
                ]
            )
            == 2
        )
        assert not out.exists()


@pytest.mark.parametrize("options", [{}, {"norm": "gaussian", "delta": 1e-6}])
def test_a_level_the_simulation_cannot_resolve_is_refused_before_anything_is_drawn(tmp_path, options):
    """0.999999999 was stated for the range of 20,000 draws ([−12, 16], an exact miss probability of 2.4·10⁻⁵),
    with a Monte Carlo standard error of 0.0; 0.999 is served, with M expecting 10 draws beyond each end."""
    from isdp.release import Plan

    table = _table(tmp_path, [5, 3, 8])
    A, labels = constraint_matrix(table, ["total"])
    with pytest.raises(UncertifiableError, match="beyond what a simulated law resolves.*at most 0.999"):
        Plan.make(A, labels, Request(epsilon="1", uncertainty=0.999999999, **options))
    release = make_release(table, A, labels, Request(epsilon="1", seed=1, uncertainty=0.999, **options))
    record = release.statement["uncertainty"]
    assert record["monte_carlo_standard_error"] == pytest.approx(math.sqrt(0.999 * 0.001 / 20_000), abs=1e-6)
    assert simulated_draws(3, 0.999) * (1 - 0.999) / 2 >= MIN_TAIL_DRAWS


def test_the_draws_rise_with_the_level_within_the_simulation_s_limit():
    assert simulated_draws(10**5, 0.9) == 200 and simulated_draws(10**5, 0.95) == 400
    assert simulated_draws(10**5, 0.99) == 2000 and simulated_draws(10, 0.9) == MAX_DRAWS
    big = ExactSampler.build(np.ones((1, 10**5), dtype=np.int64), gaussian=True)
    req = Request(norm="gaussian", delta=1e-6, epsilon="1")
    check_uncertainty(big, req, Fraction(4), 0.95)  # 400 draws of 10⁵ cells: 4·10⁷ cell draws
    with pytest.raises(UncertifiableError, match="100,000 cells would need 2,000 simulated draws"):
        check_uncertainty(big, req, Fraction(4), 0.99)


def test_a_free_cell_s_interval_is_in_closed_form_at_any_epsilon():
    """DG(ε)'s interval was found on an array over its range, about 35/ε values: 1 TiB at ε = 10⁻⁹."""
    import tracemalloc

    for eps in (0.5, 0.05, 0.003):
        k = np.arange(-int(80 / eps), int(80 / eps) + 1)
        for level in (0.5, 0.9, 0.999999):
            assert _dg_interval(eps, level) == pytest.approx(noise_interval(k, _dg(eps, k), level), rel=1e-9)
    tracemalloc.start()
    low, high, coverage = _dg_interval(1e-9, 0.9)
    assert tracemalloc.get_traced_memory()[1] < 10**5
    tracemalloc.stop()
    assert -low == high == math.ceil(math.log(0.05 * (1 + math.exp(-1e-9))) / -1e-9) - 1  # P(u > h) = q^(h+1)/(1+q)
    assert coverage == pytest.approx(0.9, abs=1e-8) and coverage >= 0.9


@pytest.mark.parametrize("epsilon", ["1e-6", "1e-9"])
def test_a_solved_cell_s_law_too_wide_to_compute_is_refused_before_any_allocation(tmp_path, epsilon):
    """--free-cells --uncertainty at ε 10⁻⁶ and 10⁻⁹ tried to allocate 4 GiB and 1 TiB for one FFT."""
    import tracemalloc

    from isdp.release import Plan

    table = _table(tmp_path, [5, 3, 8])
    A, labels = constraint_matrix(table, ["total"])
    tracemalloc.start()
    with pytest.raises(UncertifiableError, match=r"spreads over about [\d,]+ values, beyond the 4,194,304"):
        Plan.make(A, labels, Request(epsilon=epsilon, free_cells=True, uncertainty=0.9))
    assert tracemalloc.get_traced_memory()[1] < 10**7
    tracemalloc.stop()
    with pytest.raises(UncertifiableError, match="spreads over"):
        combination_law([1, 1], 1e-9)


def test_a_free_cell_level_below_the_exact_laws_precision_is_refused():
    total = ExactSampler.build(np.array([[1, 1, 1]]))
    req = Request(epsilon="1", free_cells=True)
    check_uncertainty(total, req, Fraction(1, 2), 0.999999998)  # tails of 10⁻⁹: computed
    with pytest.raises(UncertifiableError, match="below the 1e-09"):
        check_uncertainty(total, req, Fraction(1, 2), 0.9999999999)


def test_a_long_sum_s_law_is_computed_on_a_grid_of_its_spread():
    """The Chernoff bound at a fixed λ = ε/4 put a sum of 10⁴ DG(1/2) within ±11,457 (41 standard deviations);
    optimised over λ, within 2,406 (8.6 of them), and the law is the same."""
    values, pmf = combination_law(np.ones(10_000, dtype=np.int64), 0.5)
    sd = math.sqrt(10_000 * 2 * math.exp(-0.5) / math.expm1(-0.5) ** 2)
    assert values[-1] < 9 * sd and math.sqrt(pmf @ values.astype(float) ** 2) == pytest.approx(sd, rel=1e-9)
