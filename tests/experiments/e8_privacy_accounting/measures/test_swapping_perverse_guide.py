"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.swapping_perverse_guide`: the Swapping slides'
ways of lowering ε without more noise — more invariants, approximate DP, person units, one-day units — each matching
on the real measure and flipping where the way does not work (a variable that does not split the stratum, δ = 0,
households of one person, a person present one day)."""

from __future__ import annotations

from accounting_support import e8_run
from conftest import REGISTRY, row_verdict
from isdp_papers import claims
from isdp_papers.evidence import Run


def test_more_invariants_fails_when_the_added_variable_does_not_split_the_stratum(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("SWAP-E8-more-invariants", run)
    assert status == "match" and m.value == {"printed_lower": True, "exact_lower": True}
    coarse = claims.claim("SWAP-E8-more-invariants", REGISTRY)["args"]["coarse"]
    status, m = row_verdict("SWAP-E8-more-invariants", run, refined=[coarse])
    assert status == "differs" and m.value["exact_lower"] is False


def test_approximate_dp_shrinks_the_budget_only_with_a_positive_delta():
    assert row_verdict("SWAP-E8-approximate-dp", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-approximate-dp", None, deltas=[0.0])
    assert status == "differs" and m.value == 1.0


def test_person_units_lower_the_budget_only_for_households_of_several_persons():
    status, m = row_verdict("SWAP-E8-person-units", None)
    assert status == "match" and "× size 2: 1.000000" in m.text  # exactly ε_household / s
    singles = [[[[1, 0], [1, 1], [1, 2]], [0, 1, 2]]]
    status, m = row_verdict("SWAP-E8-person-units", None, strata=singles)
    assert status == "differs" and m.value == {"never_higher": True, "lower": False}


def test_one_day_units_lower_the_budget_unless_the_person_is_there_one_day():
    run = Run(".", {})
    status, m = row_verdict("SWAP-E8-one-day-unit", run)
    assert status == "match"
    days = claims.claim("SWAP-E8-one-day-unit", REGISTRY)["args"]["days"]
    for t in days:  # the ratio is 1/T for a person present every day
        assert f"{1 / t:.4f} (T = {t}" in m.text
    status, m = row_verdict("SWAP-E8-one-day-unit", run, days_present=1)
    assert status == "differs" and m.value["lower"] is False
