"""Tests of :mod:`isdp_papers.lattice_study.measures.composition`: composition and post-processing (ISDP
Props 6–7, §2 after Prop 7) on exact laws. Each row matches on the right law and differs on a plausibly wrong one:
ISDP-E1-joint-invariant-inference (not for nested invariants), ISDP-E1-composition-relations and -delta (not when
the budgets do not add) and ISDP-E1-post-processing-randomized (not for a map that reads the data)."""

from __future__ import annotations

import pytest
from conftest import row_verdict
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.measures import composition
from lattice_support import assert_row_flips, registry_row, row_status


def test_two_different_invariants_determine_what_neither_does_and_nested_ones_do_not():
    c = registry_row("ISDP-E1-joint-invariant-inference")
    m = composition.joint_invariant_inference(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    nested = [c["args"]["invariants"][0]] * 2
    m = composition.joint_invariant_inference(Run(".", {}), c["paper_value"], **{**c["args"], "invariants": nested})
    assert row_status(c, m) == "differs" and m.value["together"] is False


@pytest.mark.parametrize("row", ["ISDP-E1-composition-relations", "ISDP-E1-composition-delta"])
def test_composition_rows_fail_when_the_budgets_do_not_add(run, row):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    status, m = row_verdict(row, run, rule="max")
    assert status == "differs", m.text


FLIPS = {"ISDP-E1-post-processing-randomized": {"reads_data": True}}  # the map adds the confidential cell


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    """ISDP-E1-post-processing-randomized matches for a randomized map of the release and differs for one that adds the
    confidential cell."""
    assert_row_flips(row, run, FLIPS[row])
