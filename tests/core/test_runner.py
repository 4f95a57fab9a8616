"""What every sampler entry point shares (isdp._runner): the argument checks, the chunked run loop and the
streams spread over threads."""

from __future__ import annotations

import logging

import numba
import numpy as np
import pytest

from isdp._runner import (
    DG_EPS_RANGE,
    check_dg_eps,
    check_grid,
    check_positive,
    check_range,
    over_streams,
    run_chunked,
)


def test_a_positive_number_is_finite_and_above_zero():
    assert check_positive("eps", 2) == 2.0
    for bad in (0, -1.0, float("nan"), float("inf"), "x", None):
        with pytest.raises(ValueError, match="eps must be a positive number"):
            check_positive("eps", bad)


def test_a_double_geometric_eps_lies_where_its_law_is_not_degenerate():
    lo, hi = DG_EPS_RANGE
    assert check_dg_eps("eps", lo) == lo and check_dg_eps("eps", hi) == hi
    for bad in (lo / 2, 2 * hi):
        with pytest.raises(ValueError, match="numerically degenerate"):
            check_dg_eps("eps", bad)
    with pytest.raises(ValueError, match="positive number"):
        check_dg_eps("eps", 0.0)


def test_a_grid_is_a_non_empty_list_of_usable_eps():
    np.testing.assert_array_equal(check_grid("grid", [0.5, 1]), [0.5, 1.0])
    for bad, message in (
        ([], "non-empty"),
        ([[0.5]], "non-empty"),
        ("ab", "list of numbers"),
        ([0.5, 1e4], r"grid\[1\]"),
    ):
        with pytest.raises(ValueError, match=message):
            check_grid("grid", bad)


def test_a_range_is_an_ordered_pair_within_its_bounds():
    assert check_range("r", (0.2, 0.6)) == (0.2, 0.6)
    for bad in ((0.6, 0.2), (-0.1, 0.5), (0.1, float("nan")), (0.1,), 3):
        with pytest.raises(ValueError, match="r"):
            check_range("r", bad)


def test_the_chunks_cover_the_iterations_in_order():
    calls = []
    seconds = run_chunked(
        lambda t, n: calls.append((t, n)), 1000, log=logging.getLogger("test"), label="x", min_chunk=3
    )
    assert calls[0] == (0, 3) and sum(n for _, n in calls) == 1000 and seconds >= 0
    assert all(t == sum(n for _, n in calls[:i]) for i, (t, _) in enumerate(calls))
    assert run_chunked(lambda t, n: calls.append((t, n)), 0, log=logging.getLogger("test"), label="x") >= 0


def _squares(lo, hi, out):
    for c in range(lo, hi):
        out[c] = c * c


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_the_streams_are_covered_once_whatever_the_thread_count(monkeypatch, threads):
    monkeypatch.setattr(numba, "get_num_threads", lambda: threads)
    ranges = []

    def kernel(lo, hi, out):
        ranges.append((lo, hi))
        _squares(lo, hi, out)

    out = np.zeros(7, dtype=np.int64)
    over_streams(kernel, 7, out)
    assert out.tolist() == [c * c for c in range(7)]
    assert sorted(ranges)[0][0] == 0 and sum(hi - lo for lo, hi in ranges) == 7 and len(ranges) == min(threads, 7)
    ranges.clear()
    over_streams(kernel, 0, out)
    assert ranges == []


def test_an_error_in_any_range_is_raised(monkeypatch):
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)

    def kernel(lo, hi):
        if lo > 0:
            raise RuntimeError(f"range {lo}..{hi}")

    with pytest.raises(RuntimeError, match="range 2..4"):
        over_streams(kernel, 4)
