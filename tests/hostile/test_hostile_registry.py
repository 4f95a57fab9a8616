"""Hostile registry entries (config/claims.yaml): every field typed and checked, unknown keys
refused, criteria that would pass any value refused, and claims of experiments not run listed."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml
from conftest import REGISTRY

from isdp.experiments import claims, criteria


@pytest.fixture(scope="module")
def registry():
    return claims.load_registry(REGISTRY)


def _entry(registry, claim_id):
    return dict(claims.claim(claim_id, registry))


def _load(tmp_path, entries):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": entries}, allow_unicode=True))
    return claims.load_registry(path)


# (claim to start from, change, text the error must hold)
BAD = [
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": float("inf")}}, "not a finite number"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": float("-inf"), "max": float("inf")}},
     "not a finite number"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": float("nan")}}, "not a finite number"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": 3, "max": 2}}, "is empty"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": "2"}}, "not of type 'number'"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": 2, "extra": 1}}, "extra"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "between", "max": 2}}, "between"),
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": float("inf")}}, "not a finite number"),
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": -1}}, "less than the minimum"),
    # finite numbers that still pass anything (round three)
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": 1e300}}, "would pass anything"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": -1e308, "max": 1e308}},
     "would exclude nothing"),
    ("CDP-E5-acceptance", {"criterion": {"kind": "within_se", "k": 1e300}}, "no Monte Carlo difference"),
    ("CDP-E5-acceptance", {"criterion": {"kind": "within_se", "k": 3, "rounding": 1e300}}, "would pass anything"),
    ("SWAP-E8-ma1940-table", {"paper_value": float("nan")}, "paper_value = nan"),
    ("SWAP-E8-ma1940-table", {"paper_value": [1.0, float("inf")]}, "paper_value[1] = inf"),
    ("SWAP-E8-ma1940-table", {"surprise": True}, "surprise"),
    ("SWAP-E8-ma1940-table", {"args": {"table": "e8_swap_ma1940", "typo": 1}}, "typo"),
    ("SWAP-E8-ma1940-table", {"args": {}}, "table"),
    ("SWAP-E8-ma1940-table", {"args": "table"}, "not of type 'object'"),
    ("SWAP-E8-ma1940-table", {"experiment": "8"}, "does not match"),
    ("SWAP-E8-ma1940-table", {"why": 42}, "not of type 'string'"),
]


@pytest.mark.parametrize("claim_id, change, message", BAD)
def test_a_malformed_entry_is_refused_naming_the_problem(tmp_path, registry, claim_id, change, message):
    entry = {**_entry(registry, claim_id), **change}
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(tmp_path, [entry])


def test_within_se_and_pvalues_parameters_must_be_finite_and_positive(tmp_path, registry):
    base = _entry(registry, "SWAP-E8-ma1940-table")
    for criterion in ({"kind": "within_se", "k": float("inf")}, {"kind": "within_se", "k": 3, "rounding": float("nan")},
                      {"kind": "within_se", "k": 0}, {"kind": "pvalues", "alpha": 1.0},
                      {"kind": "zscores", "alpha": float("nan")}):
        with pytest.raises(ValueError):
            _load(tmp_path, [{**base, "criterion": criterion}])


def test_an_unknown_top_level_key_is_refused(tmp_path, registry):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [registry[0]], "claimz": []}, allow_unicode=True))
    with pytest.raises(ValueError, match="claimz"):
        claims.load_registry(path)


def test_the_shipped_registry_passes_the_new_checks(registry):
    assert len(registry) > 50
    for c in registry:
        criteria.check_criterion(c["criterion"])


# --------------------------------------------------------------------------- not-run


def _summary_row(c, status="match"):
    return {"id": c["id"], "experiment": c["experiment"], "kind": c["kind"], "claim": c["claim"], "source": "s",
            "paper_value": "p", "reproduced_value": "r", "criterion": "k", "reading": "r (a priori)",
            "status": status, "cause": "", "note": "", "evidence": "1 values"}


def test_claims_of_an_experiment_not_configured_are_listed_as_not_run(tmp_path, registry):
    e8 = [c for c in registry if c["experiment"] == "E8"]
    e9 = {**e8[0], "id": "SWAP-E9-hypothetical", "experiment": "E9"}
    summary = tmp_path / "e8.csv"
    pd.DataFrame([_summary_row(c) for c in e8]).to_csv(summary, index=False)
    out = tmp_path / "all.csv"
    df = claims.combine([summary], out, registry=[*e8, e9], experiments=["e8"])
    row = df.set_index("id").loc["SWAP-E9-hypothetical"]
    assert row["status"] == "not-run" and "E9 is not configured" in row["note"]
    assert df["id"].tolist() == [c["id"] for c in [*e8, e9]]  # registry order, nothing dropped
    assert pd.read_csv(out)["status"].tolist()[-1] == "not-run"


def test_an_empty_per_experiment_summary_is_refused(tmp_path):
    summary = tmp_path / "e8.csv"
    summary.write_text(",".join(claims.COLUMNS) + "\n")
    with pytest.raises(claims.EvidenceError, match="e8.csv"):
        claims.combine([summary], tmp_path / "all.csv")
    assert not (tmp_path / "all.csv").exists()
