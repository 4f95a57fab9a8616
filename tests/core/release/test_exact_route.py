"""The exact routes' sampler of a plan (isdp.release._exact_route): how far a release's noise reaches, forecast
before anything is drawn (a plan whose noise could leave int64 is refused, one whose noise cannot is served), and a
block the exact sampler cannot serve refused with what would work."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from isdp.errors import UncertifiableError
from isdp.exact import ExactSampler
from isdp.release import Request, dry_run, make_release
from isdp.release._exact_route import NO_EXACT_SAMPLER, exact_sampler, refuse_noise_beyond_int64
from isdp.tables import load_table

BIG = np.array([[2147483647, 2147483647, 1]])  # a solved cell carries 2**32 − 2 times a free cell's noise


def _table(tmp_path):
    (tmp_path / "t.csv").write_text("k,count\na,3\nb,5\nc,4\n")
    return load_table(tmp_path / "t.csv")


def test_noise_that_could_leave_int64_is_refused_before_anything_is_drawn(tmp_path):
    """A coefficient of 2**31 − 1 at ε = 1e-9 puts a solved cell's noise within reach of 2**63: refused by the
    plan (exit 5, saying why) on every seed, where it was an OverflowError on some."""
    table = _table(tmp_path)
    for seed in (3, 6):
        with pytest.raises(UncertifiableError, match="64-bit integers") as err:
            make_release(table, BIG, ["big"], Request(epsilon="1e-9", free_cells=True, seed=seed))
        assert err.value.exit_code == 5
    with pytest.raises(UncertifiableError, match="64-bit integers"):
        dry_run(table, BIG, ["big"], Request(epsilon="1e-9", free_cells=True))
    release = make_release(table, BIG, ["big"], Request(epsilon="1", free_cells=True, seed=3))  # a scale it fits
    assert int(BIG[0] @ release.values) == int(BIG[0] @ table.x)


@pytest.mark.parametrize("unit, refused", [("1e-9", True), ("1e-8", True), ("1e-7", False), ("1", False)])
def test_the_forecast_refuses_where_the_tail_bound_passes_the_risk(unit, refused):
    """With a spread of 2**32 − 2 a free cell must reach K = ⌊2**62 / spread⌋ + 1 ≈ 1.07e9 for a solved cell to
    pass 2**62; its chance 2·e^(−unit·K) per free cell (two here) is above 2**-64 up to unit ≈ 4.3e-8."""
    exact = ExactSampler.build(BIG)
    req = Request(epsilon=unit, free_cells=True)
    if refused:
        with pytest.raises(UncertifiableError, match=r"2\*\*62 is within reach"):
            refuse_noise_beyond_int64(exact, req, Fraction(unit), 0.0)
    else:
        refuse_noise_beyond_int64(exact, req, Fraction(unit), 0.0)


def test_a_block_beyond_the_budget_is_refused_with_what_would_work():
    """Both margins of a 12 x 12 table at a small epsilon: the forecast exceeds --max-attempts 10, before any draw."""
    from isdp._sparse import as_sparse
    from isdp.lattice import table_margins

    A = as_sparse(table_margins(12, 12))
    with pytest.raises(UncertifiableError, match="What would work: .*--free-cells"):
        exact_sampler(A, Request(epsilon="1/10", max_attempts=10), Fraction(1, 20))
    exact, worst = exact_sampler(A, Request(epsilon="1/10", free_cells=True), Fraction(1, 20))
    assert exact.n_free == 121 and worst == 0.0  # the free-cell route forecasts nothing: it always accepts


def test_the_refusal_without_an_exact_sampler_names_the_study_route():
    assert "--allow-chain --delta D --seed N --reproducible-not-for-publication" in NO_EXACT_SAMPLER
