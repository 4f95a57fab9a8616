"""Tests of :mod:`isdp_papers.criteria`: every criterion kind can return every status it allows, a reading
chosen by fit is never a match, and evidence a criterion cannot judge is an error: NaN and ±inf anywhere in what a
comparison of any kind would use, a paper value whose type does not fit the measured one. And a criterion's
tolerance or bound is judged against the scale of the row's paper value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from criteria_support import judge
from isdp_papers import criteria
from isdp_papers.evidence import Measurement

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


# --------------------------------------------------------------------------- NaN and ±inf never reach a comparison

# per kind: (criterion, paper value, a measured value it matches, se) — the value is then poisoned
GOOD = {
    "equal": (
        {"kind": "equal", "tol": 0.005},
        {"rows": [20, 55], "total": 75.0},
        {"rows": [20, 55], "total": 75.0},
        None,
    ),
    "within_se": ({"kind": "within_se", "k": 3, "rounding": 0.005}, 0.5, 0.5, 0.01),
    "interval": ({"kind": "interval", "min": 0.0}, "one-sided: anything ≥ 0 matches", 1.0, None),
    "zscores": ({"kind": "zscores", "alpha": 0.01}, "unbiased", np.array([0.5, -1.0, 0.2]), None),
    "pvalues": ({"kind": "pvalues", "alpha": 0.01}, "fits", np.array([0.5, 0.2, 0.9]), None),
    "ordering": ({"kind": "ordering", "order": ["a", "b", "c"]}, "a < b < c", {"a": 1.0, "b": 2.0, "c": 3.0}, None),
    "calibrated": ({"kind": "calibrated", "min": 0.005}, "chosen", 0.5, None),
    "not-comparable": ({"kind": "not-comparable", "reason": "the paper prints no number"}, "words", 1.0, None),
}
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _poison(value, bad):
    """``value`` with one number replaced by ``bad``: the number itself, an element of an array, a cell of a
    mapping (a table)."""
    if isinstance(value, dict):
        first = next(iter(value))
        return {**value, first: _poison(value[first], bad)}
    if isinstance(value, np.ndarray | list):
        out = list(value)
        out[-1] = bad
        return np.array(out) if isinstance(value, np.ndarray) else out
    return bad


def test_every_kind_is_probed_with_non_finite_values():
    assert set(GOOD) == set(criteria.KINDS) == set(criteria.RULES)


@pytest.mark.parametrize("kind", list(GOOD))
def test_the_probes_match_when_finite(kind):
    criterion, paper, value, se = GOOD[kind]
    assert judge(criterion, paper, M(value, "", se=se)) in ("match", "calibrated", "not-comparable")


@pytest.mark.parametrize("bad", list(NON_FINITE))
@pytest.mark.parametrize("kind", list(GOOD))
def test_a_non_finite_measured_number_is_an_error_under_every_kind(kind, bad):
    """NaN or ±inf anywhere in the measured value (the number, an element of an array, a cell of a table): `error`
    with the reason, never match (nor differs, nor not-comparable)."""
    criterion, paper, value, se = GOOD[kind]
    status, why = criteria.verdict(criterion, paper, M(_poison(value, NON_FINITE[bad]), "", se=se))
    assert status == "error", why
    assert bad.lstrip("-") in why and "non-finite" in why


@pytest.mark.parametrize("bad", list(NON_FINITE))
@pytest.mark.parametrize("kind", list(GOOD))
def test_every_comparison_refuses_non_finite_numbers_itself(kind, bad):
    """Each kind's comparison checks what it compares, whatever evidence_problem let through: a NaN is never turned
    into a number by max(0.0, nan), nor into False by nan <= x, nor an inf into a pass of a one-sided bound."""
    criterion, paper, value, se = GOOD[kind]
    with pytest.raises(criteria.Unjudgeable, match="finite"):
        criteria.RULES[kind](criterion, paper, M(_poison(value, NON_FINITE[bad]), "", se=se))


@pytest.mark.parametrize("bad", list(NON_FINITE))
@pytest.mark.parametrize("kind", [k for k in GOOD if k not in ("not-comparable", "ordering")])
def test_non_finite_criterion_numbers_are_an_error_when_judged(kind, bad):
    """The registry refuses them when it loads; a criterion built otherwise is refused where it is compared."""
    criterion, paper, value, se = GOOD[kind]
    number = next(k for k in ("tol", "k", "min", "alpha") if k in criterion)
    status, why = criteria.verdict({**criterion, number: NON_FINITE[bad]}, paper, M(value, "", se=se))
    assert status == "error" and f"criterion.{number}" in why


@pytest.mark.parametrize("bad", list(NON_FINITE))
@pytest.mark.parametrize("kind", ["equal", "within_se"])
def test_a_non_finite_paper_value_is_an_error_where_it_is_compared(kind, bad):
    criterion, paper, value, se = GOOD[kind]
    status, why = criteria.verdict(criterion, _poison(paper, NON_FINITE[bad]), M(value, "", se=se))
    assert status == "error" and "paper" in why


@pytest.mark.parametrize("se", [math.nan, math.inf, -math.inf, 1e308])
def test_a_standard_error_that_is_not_finite_or_overflows_is_an_error(se):
    """k·SE with SE = 1e308 is inf: a bound that would pass anything."""
    criterion, paper, value, _ = GOOD["within_se"]
    assert judge(criterion, paper, M(1e6, "", se=se)) == "error"
    with pytest.raises(criteria.Unjudgeable):
        criteria.RULES["within_se"](criterion, paper, M(1e6, "", se=se))


def test_a_one_sided_interval_never_passes_infinity():
    """`min: 0` alone: inf is ≥ 0, so a comparison that let it through would read `match`."""
    assert judge({"kind": "interval", "min": 0}, "", M(math.inf, "")) == "error"
    assert judge({"kind": "interval", "max": 0}, "", M(-math.inf, "")) == "error"


def test_a_table_value_is_searched_to_its_cells():
    table = pd.DataFrame({"eps": [1.0, 2.0], "gap": [0.0, math.nan]})
    assert criteria.non_finite(table, "value") == "value[1, 1] = nan"
    assert criteria.non_finite({"a": [1, 2, {"b": -math.inf}]}, "value") == "value.a[2].b = -inf"
    assert criteria.non_finite(10**400, "value") == f"value = {10**400} (beyond the range of a float)"
    assert criteria.non_finite([True, "words", 3, np.float32(2.5)]) is None
    assert judge({"kind": "zscores", "alpha": 0.01}, "", M(pd.Series([0.1, math.inf]), "")) == "error"


def test_a_number_beyond_float_range_is_an_error_not_a_crash():
    assert judge({"kind": "equal"}, 10**400, M(10**400, "")) == "error"


# --------------------------------------------------------------------------- a paper value that does not fit


@pytest.mark.parametrize(
    "paper, value",
    [
        ([1, 2], 1.5),  # several values for one
        (1.5, [1.5]),  # one for several
        ({"a": 1}, [1]),  # named against positional
        (1, True),  # a number against a boolean (True == 1 in Python)
        (True, 1),
        ("11", 11),  # words against a number
        ({"rows": [1, "x"]}, {"rows": [1, 2]}),  # inside a table
    ],
)
def test_an_equal_paper_value_of_another_type_than_the_measured_one_is_an_error(paper, value):
    status, why = criteria.verdict({"kind": "equal"}, paper, M(value, ""))
    assert status == "error" and "does not fit the measure" in why


@pytest.mark.parametrize(
    "paper, value",
    [
        ([20, 55], [20, 55, 35]),  # a list of another length: a difference, not a type error
        ({"a": 1}, {"a": 1, "b": 2}),  # other keys
        ({"a": [1, 2]}, {"a": [1, 3]}),
    ],
)
def test_equal_values_of_the_same_type_that_differ_are_a_difference(paper, value):
    assert judge({"kind": "equal"}, paper, M(value, "")) == "differs"


def test_a_single_p_value_or_z_score_is_one_test():
    assert judge({"kind": "pvalues", "alpha": 0.01}, "", M(0.5, "")) == "match"
    assert judge({"kind": "pvalues", "alpha": 0.01}, "", M(0.001, "")) == "differs"
    assert judge({"kind": "zscores", "alpha": 0.01}, "", M(np.float64(2.0), "")) == "match"


# --------------------------------------------------------------------------- tolerances against the paper's scale


@pytest.mark.parametrize(
    "criterion, paper, message",
    [
        ({"kind": "equal", "tol": 30}, 50.5, "would pass anything"),  # more than half of 50.5
        ({"kind": "equal", "tol": 6e-7}, 1.0e-6, "would pass anything"),  # a value of 0.4e-6 would pass
        ({"kind": "equal", "tol": 0.6}, 0, "would pass anything"),  # paper 0: the natural scale, 1
        ({"kind": "equal", "tol": 3}, {"mean": 5.5, "variance": 100}, "would pass anything"),  # the smallest number
        ({"kind": "within_se", "k": 3, "rounding": 0.01}, 0.015, "would pass anything"),
        ({"kind": "interval", "max": 1e14}, {"median": 0.8, "q05": 0.75}, "would exclude nothing"),
        ({"kind": "interval", "max": 11}, "words: no number", "would exclude nothing"),
        ({"kind": "interval", "min": -1e12, "max": 1e12}, 10_000_000_000, "would exclude nothing"),
        ({"kind": "interval", "max": 1e-4}, 1e-6, "would exclude nothing"),  # a probability of order 1e-6
        ({"kind": "calibrated", "min": -20, "max": 0.995}, "chosen", "would exclude nothing"),
        ({"kind": "zscores", "alpha": 1e-30}, "unbiased", "no Monte Carlo difference"),
    ],
)
def test_a_tolerance_or_bound_beyond_the_paper_values_scale_is_refused(criterion, paper, message):
    with pytest.raises(ValueError, match=message):
        criteria.check_criterion(criterion, paper)


@pytest.mark.parametrize(
    "criterion, paper",
    [
        ({"kind": "equal", "tol": 5e-7}, 1.0e-6),  # half a unit of one printed significant digit: the limit itself
        ({"kind": "equal", "tol": 0.005}, [9.5, 19.5]),
        ({"kind": "equal", "tol": 1e-4}, 0),
        ({"kind": "within_se", "k": 3, "rounding": 0.005}, 0.75),
        ({"kind": "interval", "min": 9.5e9, "max": 10.5e9}, 10_000_000_000),
        ({"kind": "interval", "max": 3}, {"median": 0.8, "q05": 0.75}),
        ({"kind": "interval", "min": 3.43}, "words: the natural scale"),
        ({"kind": "interval", "max": 1e-6}, 1e-6),
        ({"kind": "zscores", "alpha": 0.0003}, "unbiased"),
    ],
)
def test_tolerances_and_bounds_at_the_paper_values_scale_are_accepted(criterion, paper):
    criteria.check_criterion(criterion, paper)


def test_a_measure_may_declare_its_natural_scale():
    """A statistic on another scale than order one (a count of counties) says so; its bounds scale with it."""
    with pytest.raises(ValueError, match="would exclude nothing"):
        criteria.check_criterion({"kind": "interval", "min": 1000}, "most counties")
    criteria.check_criterion({"kind": "interval", "min": 1000}, "most counties", natural_scale=3221)
    assert criteria.value_scale(0.01, natural_scale=3221) == 3221 and criteria.value_scale(0.01) == 0.01
    assert criteria.tolerance_scale({"a": 0, "b": 4}) == 1.0 and criteria.tolerance_scale([2, 4]) == 2
