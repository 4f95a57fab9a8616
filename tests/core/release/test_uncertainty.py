"""Each released cell's noise sd and interval for its true count: exact laws where known, coverage on repeated
releases of a known table within its binomial error, and the same columns for tables with the same invariants."""

import math
from fractions import Fraction

import numpy as np
import pytest

from isdp.errors import UsageError
from isdp.exact import ExactSampler
from isdp.release import Request, constraint_matrix, load_table, make_release
from isdp.release._uncertainty import COLUMNS, cell_uncertainty

LEVEL = 0.9


def _dg(eps: float, k: np.ndarray) -> np.ndarray:
    q = math.exp(-eps)
    return (1 - q) / (1 + q) * q ** np.abs(k)


def test_the_free_cell_route_s_intervals_are_exact():
    """Free cells: DG(1/2)'s tails beyond the interval are each at most 5 %, and one step narrower they are not;
    the solved cell of a total over three cells: the law of the sum of two, enumerated directly."""
    got = cell_uncertainty(ExactSampler.build(np.array([[1, 1, 1]])), 3, Request(epsilon="1", free_cells=True),
                           Fraction(1, 2), LEVEL)
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
            got = cell_uncertainty(_sampler(A, options), 30, Request(epsilon="1", uncertainty=LEVEL, **options),
                                   _unit(options), LEVEL)
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
        out.append((cols["noise_sd"], release.values - cols["lower"], cols["upper"] - release.values,
                    release.statement["uncertainty"]))
    for first, second in zip(*out, strict=True):
        assert first == second if isinstance(first, dict) else np.array_equal(first, second)


def test_the_columns_are_written_and_refused_where_they_cannot_be(tmp_path):
    from isdp.cli import main

    table = tmp_path / "t.csv"
    table.write_text("group,cell,count\n" + "".join(f"g{i // 10},c{i},5\n" for i in range(20)))
    assert main(["release", str(table), "--invariant", "by:group", "--epsilon", "1", "--uncertainty", "0.9", "-o",
                 str(tmp_path / "o.csv"), "--quiet"]) == 0
    header, first = (tmp_path / "o.csv").read_text().splitlines()[:2]
    assert header == "group,cell,count," + ",".join(COLUMNS) and len(first.split(",")) == 6
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

    from isdp.release import _uncertainty as u

    page = (Path(__file__).resolve().parents[3] / "docs" / "release.md").read_text()
    assert u.SIMULATED_CELLS == 2 * 10**7 and "⌈2·10⁷ / its cells⌉" in page
    assert (u.MIN_DRAWS, u.MAX_DRAWS) == (200, 20_000) and "between 200 and 20,000" in page
    assert u._TAIL == 1e-15 and "(its tails below 10⁻¹⁵ left out)" in page and "below 10⁻¹⁶" in page
    assert "releases a known table 200 times at LEVEL 0.9" in page and LEVEL == 0.9
