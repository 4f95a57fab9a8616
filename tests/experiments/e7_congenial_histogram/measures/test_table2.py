"""Tests of :mod:`isdp_papers.e7_congenial_histogram.measures.table2`: the expectation measure names the symbol the
exact mean equals, and the CDP-E7-example41-density row matches and differs at the wrong scale."""

from __future__ import annotations

import pytest
from closed_form_support import table2_run
from conftest import row_verdict
from criteria_support import judge
from isdp_papers.e7_congenial_histogram.measures import table2


def test_e7_expectation_measure_names_the_symbol_the_exact_mean_equals(tmp_path):
    run = table2_run(tmp_path, (3, 9))
    m = table2.expectation(run, {"m1": "sbar", "m2": "sbar"}, mechanism="l2")
    assert m.value == {"m1": "s1", "m2": "s2"}
    assert judge({"kind": "equal"}, {"m1": "sbar", "m2": "sbar"}, m) == "differs"
    assert judge({"kind": "equal"}, {"m1": "s1", "m2": "s2"}, m) == "match"
    with pytest.raises(ValueError, match="cannot be told apart"):
        table2.expectation(table2_run(tmp_path, (4, 4)), {"m1": "s1", "m2": "s2"}, mechanism="l2")


def test_example41_density_row_matches_and_fails_at_the_wrong_scale(run):
    assert row_verdict("CDP-E7-example41-density", run)[0] == "match"
    status, m = row_verdict("CDP-E7-example41-density", run, bin_scale=1.0)
    assert status == "differs" and m.value > 1
