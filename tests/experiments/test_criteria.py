"""Tests of :mod:`isdp.experiments.criteria`: every criterion kind can return every status it allows, a reading
chosen by fit is never a match, and evidence a criterion cannot judge is an error."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.experiments import criteria
from isdp.experiments.criteria import judge
from isdp.experiments.evidence import Measurement

M = Measurement


CASES = [
    ({"kind": "equal"}, 11, M(11, ""), "match"),
    ({"kind": "equal"}, 11, M(1, ""), "differs"),
    ({"kind": "equal", "tol": 0.005}, 12.34, M(12.3449, ""), "match"),
    ({"kind": "equal", "tol": 0.005}, 12.34, M(12.3451, ""), "differs"),
    ({"kind": "equal"}, {"rows": [20, 55], "total": 75}, M({"rows": [20, 55], "total": 75}, ""), "match"),
    ({"kind": "equal"}, {"rows": [20, 35], "total": 75}, M({"rows": [20, 25], "total": 75}, ""), "differs"),
    ({"kind": "equal"}, True, M(True, ""), "match"),
    ({"kind": "equal"}, True, M(False, ""), "differs"),
    ({"kind": "within_se", "k": 3}, 0.021, M(0.0202, "", se=0.0003), "match"),
    ({"kind": "within_se", "k": 3}, 0.021, M(0.0198, "", se=0.0003), "differs"),
    ({"kind": "within_se", "k": 3, "rounding": 0.005}, 0.5, M(0.5075, "", se=0.001), "match"),
    ({"kind": "within_se", "k": 3, "rounding": 0.005}, 0.5, M(0.5085, "", se=0.001), "differs"),
    ({"kind": "interval", "max": 2}, "stable", M(1.5, ""), "match"),
    ({"kind": "interval", "max": 2}, "stable", M(2.5, ""), "differs"),
    ({"kind": "interval", "min": 0.8, "max": 1.2}, "on par", M(0.79, ""), "differs"),
    ({"kind": "zscores", "alpha": 0.01}, "unbiased", M(np.array([0.5, -2.0, 2.5]), ""), "match"),
    ({"kind": "zscores", "alpha": 0.01}, "unbiased", M(np.array([0.5, -4.0]), ""), "differs"),
    ({"kind": "pvalues", "alpha": 0.01}, "", M(np.array([0.2, 0.006]), ""), "match"),
    ({"kind": "pvalues", "alpha": 0.01}, "", M(np.array([0.2, 0.004, 0.003]), ""), "differs"),
    ({"kind": "ordering", "order": ["a", "c", "d"]}, "", M({"a": 1, "b": 9, "c": 2, "d": 3}, ""), "match"),
    ({"kind": "ordering", "order": ["a", "c", "d"]}, "", M({"a": 1, "c": 3, "d": 3}, ""), "differs"),
    ({"kind": "calibrated", "min": 0.005, "max": 0.995}, "", M(0.49, ""), "calibrated"),
    ({"kind": "calibrated", "min": 0.005, "max": 0.995}, "", M(0.999, ""), "differs"),
    ({"kind": "not-comparable", "reason": "data not public"}, "", M(1.0, ""), "not-comparable"),
]


@pytest.mark.parametrize("criterion, paper, measurement, status", CASES)
def test_each_criterion_kind_returns_each_status_it_allows(criterion, paper, measurement, status):
    assert judge(criterion, paper, measurement) == status


def test_every_kind_is_covered_by_the_status_table():
    assert {c[0]["kind"] for c in CASES} == set(criteria.KINDS)
    for kind in criteria.KINDS:  # both statuses of every two-way kind appear
        assert len({c[3] for c in CASES if c[0]["kind"] == kind}) == (1 if kind == "not-comparable" else 2)


def test_calibrated_is_never_a_match():
    for value in np.linspace(0, 1, 11):
        assert judge({"kind": "calibrated", "min": 0, "max": 1}, 44, M(value, "")) != "match"


A_PRIORI = {"text": "the printed number as printed", "basis": "a priori"}
BY_FIT = {"text": "the one reading of three that fits", "basis": "chosen by fit"}


@pytest.mark.parametrize("criterion, paper, measurement, status", CASES)
def test_a_reading_chosen_by_fit_is_never_a_match(criterion, paper, measurement, status):
    """Agreement under a fit-chosen reading is calibration; a difference stays a difference."""
    under_fit = criteria.fit_rule(judge(criterion, paper, measurement), BY_FIT)
    assert under_fit != "match"
    assert under_fit == {"match": "calibrated"}.get(status, status)
    assert criteria.fit_rule(status, A_PRIORI) == status



def test_within_se_without_a_standard_error_is_an_error():
    m = M(1.0, "")
    assert judge({"kind": "within_se", "k": 3}, 1.0, m) == "error"
    assert "standard error" in criteria.evidence_problem({"kind": "within_se", "k": 3}, m)


def test_bonferroni_threshold_grows_with_the_number_of_tests():
    assert criteria.z_threshold(0.01, 1) == pytest.approx(2.5758, abs=1e-4)
    assert criteria.z_threshold(0.01, 1000) > criteria.z_threshold(0.01, 10)
