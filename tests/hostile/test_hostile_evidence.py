"""Hostile evidence: no empty, NaN, infinite, wrong-shaped or truncated evidence reads as `match`,
for every criterion kind (the claims evaluator, isdp.experiments.claims)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import REGISTRY
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from isdp.experiments import claims, criteria
from isdp.experiments.claims import Measurement, judge

# one criterion of every kind that can say `match` (or `calibrated`), with a paper value it accepts
CRITERIA = {
    "equal": ({"kind": "equal", "tol": 0.5}, 1.0),
    "within_se": ({"kind": "within_se", "k": 3}, 1.0),
    "interval": ({"kind": "interval", "min": -10, "max": 10}, "in range"),
    "zscores": ({"kind": "zscores", "alpha": 0.01}, "unbiased"),
    "pvalues": ({"kind": "pvalues", "alpha": 0.01}, "fits"),
    "ordering": ({"kind": "ordering", "order": ["a", "b"]}, "a < b"),
    "calibrated": ({"kind": "calibrated", "min": -10, "max": 10}, "chosen"),
}
BAD_VALUES = {
    "empty list": [],
    "empty array": np.array([]),
    "empty mapping": {},
    "None": None,
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "NaN in an array": np.array([0.1, math.nan]),
    "inf in a list": [0.5, math.inf],
    "NaN in a mapping": {"a": math.nan, "b": 1.0},
    "empty part": {"a": [], "b": 1.0},
}


def test_every_kind_that_can_match_is_probed():
    assert set(CRITERIA) == set(criteria.KINDS) - {"not-comparable"}


@pytest.mark.parametrize("kind", CRITERIA)
@pytest.mark.parametrize("label", BAD_VALUES)
def test_broken_evidence_is_an_error_never_a_match(kind, label):
    criterion, paper = CRITERIA[kind]
    m = Measurement(BAD_VALUES[label], "text", se=0.1)
    assert judge(criterion, paper, m) == "error"
    assert claims.evidence_problem(criterion, m)


@pytest.mark.parametrize("kind", CRITERIA)
def test_a_measure_that_used_no_values_is_an_error(kind):
    criterion, paper = CRITERIA[kind]
    good = {"equal": 1.0, "within_se": 1.0, "interval": 0.0, "zscores": np.array([0.1]),
            "pvalues": np.array([0.5]), "ordering": {"a": 1, "b": 2}, "calibrated": 0.0}[kind]
    assert judge(criterion, paper, Measurement(good, "", se=0.1)) in ("match", "calibrated")  # the probe can pass
    assert judge(criterion, paper, Measurement(good, "", se=0.1, n=0)) == "error"


@pytest.mark.parametrize("se", [None, math.nan, math.inf, -0.1])
def test_within_se_needs_a_finite_standard_error(se):
    assert judge({"kind": "within_se", "k": 3}, 1.0, Measurement(1.0, "", se=se)) == "error"


@pytest.mark.parametrize("criterion, value", [
    ({"kind": "pvalues", "alpha": 0.01}, np.array([0.5, 1.5])),      # not a p-value
    ({"kind": "interval", "max": 1}, np.array([0.5, 0.6])),            # one number expected
    ({"kind": "interval", "max": 1}, "small"),                         # a string is not a number
    ({"kind": "zscores", "alpha": 0.01}, [True, False]),               # booleans are not z-scores
    ({"kind": "ordering", "order": ["a", "b"]}, {"a": 1}),             # a missing key
    ({"kind": "ordering", "order": ["a", "b"]}, [1, 2]),               # not named
])
def test_wrong_shaped_evidence_is_an_error(criterion, value):
    assert judge(criterion, "paper", Measurement(value, "")) == "error"


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["zscores", "pvalues"]),
       values=st.lists(finite, max_size=20), bad=non_finite, at=st.integers(0, 20))
def test_one_non_finite_value_anywhere_makes_an_array_criterion_an_error(kind, values, bad, at):
    values.insert(min(at, len(values)), bad)
    criterion, paper = CRITERIA[kind]
    assert judge(criterion, paper, Measurement(np.array(values), "")) == "error"


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(list(CRITERIA)),
       value=st.one_of(non_finite, hnp.arrays(float, st.integers(0, 0)), st.just([]), st.just({})))
def test_no_non_finite_or_empty_value_matches_any_kind(kind, value):
    criterion, paper = CRITERIA[kind]
    assert judge(criterion, paper, Measurement(value, "", se=1.0)) == "error"


# --------------------------------------------------------------------------- truncated results on disk


def _claim(claim_id):
    return claims.claim(claim_id, claims.load_registry(REGISTRY))


@pytest.mark.parametrize("damage", ["header only", "empty file", "missing", "binary junk"])
def test_a_truncated_results_table_gives_error_naming_the_file(tmp_path, damage):
    """The E8 swap-table claim reads results/tables/e8_swap_ma1940.csv: damaged, it is `error`."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    path = tables / "e8_swap_ma1940.csv"
    good = pd.DataFrame({"epsilon": [1.0], "epsilon_printed": [1.0], "gap": [0.0]})
    content = {"header only": ",".join(good.columns) + "\n", "empty file": "", "binary junk": "\x00\x01\x02\n\x03"}
    if damage in content:
        path.write_text(content[damage])
    rows = claims.evaluate([_claim("SWAP-E8-ma1940-table")], claims.Run(tmp_path))
    assert rows.loc[0, "status"] == "error"
    assert "e8_swap_ma1940.csv" in rows.loc[0, "note"]
    with pytest.raises(claims.ClaimErrors, match="SWAP-E8-ma1940-table"):
        claims.check_errors(rows)


def test_the_same_table_intact_is_judged(tmp_path):
    """Control for the test above: the claim can match on a good table."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    pd.DataFrame({"epsilon": [1.0], "epsilon_printed": [1.0], "gap": [0.0]}).to_csv(
        tables / "e8_swap_ma1940.csv", index=False)
    rows = claims.evaluate([_claim("SWAP-E8-ma1940-table")], claims.Run(tmp_path))
    assert rows.loc[0, "status"] == "match" and rows.loc[0, "evidence"] == "results/tables/e8_swap_ma1940.csv: 1 rows"


def test_the_summary_step_writes_nothing_on_an_error(tmp_path, monkeypatch):
    from isdp.experiments.jobs import Job
    from isdp.experiments.reporting import claims_summary

    (tmp_path / "results" / "tables").mkdir(parents=True)
    (tmp_path / "results" / "tables" / "e8_swap_ma1940.csv").write_text("epsilon,epsilon_printed,gap\n")
    registry = tmp_path / "claims.yaml"
    import yaml
    registry.write_text(yaml.safe_dump({"claims": [_claim("SWAP-E8-ma1940-table")]}, allow_unicode=True))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "results" / "tables" / "summary.csv"
    job = Job(input={"registry": str(registry)}, output={"summary": str(out)},
              params={"experiment": "E8", "repo": str(tmp_path)}, config={})
    with pytest.raises(claims.ClaimErrors, match="header only"):
        claims_summary(job)
    assert not out.exists() and not list(out.parent.glob("*.tmp"))
    claims_summary(Job(input=job.input, output=job.output, params=job.params,
                       config={"claims": {"on_error": "report"}}))
    assert pd.read_csv(out)["status"].tolist() == ["error"]
