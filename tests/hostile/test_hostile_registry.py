"""Hostile registry entries (config/claims.yaml): every field typed and checked, unknown keys
refused, criteria that would pass any value at the scale of the row's paper value refused, paper values
whose type does not fit the measure refused (a YAML date among them), a key given twice refused with its
line, claims of experiments not run listed and summary rows the registry does not hold refused."""

from __future__ import annotations

import datetime
import re

import pandas as pd
import pytest
import yaml
from isdp_papers import claims, criteria


def _entry(registry, claim_id):
    return dict(claims.claim(claim_id, registry))


def _load(tmp_path, entries):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": entries}, allow_unicode=True))
    return claims.load_registry(path)


# (claim to start from, change, text the error must hold)
BAD = [
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": float("inf")}}, "not a finite number"),
    (
        "ISDP-E1-l1-lag-stability",
        {"criterion": {"kind": "interval", "min": float("-inf"), "max": float("inf")}},
        "not a finite number",
    ),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": float("nan")}}, "not a finite number"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "min": 3, "max": 2}}, "is empty"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": "2"}}, "not of type 'number'"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "interval", "max": 2, "extra": 1}}, "extra"),
    ("ISDP-E1-l1-lag-stability", {"criterion": {"kind": "between", "max": 2}}, "between"),
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": float("inf")}}, "not a finite number"),
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": -1}}, "less than the minimum"),
    # finite numbers that still pass anything
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "equal", "tol": 1e300}}, "would pass anything"),
    (
        "ISDP-E1-l1-lag-stability",
        {"criterion": {"kind": "interval", "min": -1e308, "max": 1e308}},
        "would exclude nothing",
    ),
    ("CDP-E5-acceptance", {"criterion": {"kind": "within_se", "k": 1e300}}, "no Monte Carlo difference"),
    ("CDP-E5-acceptance", {"criterion": {"kind": "within_se", "k": 3, "rounding": 1e300}}, "would pass anything"),
    # finite numbers that pass anything at the scale of the row's paper value: the ±1e15 cap let these
    # through, and `max: 1e14` turned the row's `differs` into `match`
    ("SDP-E6-reading-release-sd", {"criterion": {"kind": "interval", "max": 1e14}}, "would exclude nothing"),
    ("SWAP-E8-ma1940-table", {"criterion": {"kind": "interval", "max": 1e14}}, "would exclude nothing"),
    ("TDA-E8-cells", {"criterion": {"kind": "interval", "min": 1, "max": 1e12}}, "would exclude nothing"),
    ("TDA-E8-less-privacy-probability", {"criterion": {"kind": "interval", "max": 1e-4}}, "would exclude nothing"),
    ("SWAP-E8-tda-epsilon", {"criterion": {"kind": "equal", "tol": 30}}, "would pass anything"),
    ("TDA-E8-failure-probability", {"criterion": {"kind": "equal", "tol": 1e-6}}, "would pass anything"),
    ("CDP-E7-trivial-invariants", {"criterion": {"kind": "equal", "tol": 0.6}}, "would pass anything"),
    ("CDP-E5-acceptance", {"criterion": {"kind": "within_se", "k": 3, "rounding": 0.01}}, "would pass anything"),
    ("ISDP-E1-unbiased", {"criterion": {"kind": "zscores", "alpha": 1e-30}}, "no Monte Carlo difference"),
    # a paper value whose type does not fit the measure
    ("ISDP-E1-l1-lag-stability", {"paper_value": [1, 2]}, "ignores its paper value"),
    # a row whose measure reads its (mapping) paper value, stripped of the declaration that hands it over
    ("SDP-E6-reading-release-sd", {"reads_paper_value": False}, "does not declare reads_paper_value"),
    ("SDP-E6-reading-release-sd", {"reads_paper_value": "yes"}, "not of type 'boolean'"),
    ("CDP-E5-acceptance", {"paper_value": [0.01, 0.02]}, "does not fit a within_se criterion"),
    ("CDP-E5-acceptance", {"paper_value": "about 1.7 %"}, "does not fit a within_se criterion"),
    ("CDP-E5-acceptance", {"paper_value": True}, "does not fit a within_se criterion"),
    ("SWAP-E8-ma1940-table", {"paper_value": None}, "paper_value is empty"),
    ("SWAP-E8-ma1940-table", {"paper_value": "  "}, "paper_value is empty"),
    ("SDP-E6-reading-release-sd", {"paper_value": {}}, "paper_value is empty"),
    ("SDP-E6-reading-release-sd", {"paper_value": {"median": []}}, "paper_value.median is empty"),
    ("SWAP-E8-ma1940-table", {"paper_value": float("nan")}, "paper_value = nan"),
    ("SWAP-E8-ma1940-table", {"paper_value": [1.0, float("inf")]}, "paper_value[1] = inf"),
    ("SWAP-E8-ma1940-table", {"paper_value": datetime.date(2020, 1, 1)}, "is not of type 'string', 'number'"),
    ("SWAP-E8-ma1940-table", {"paper_value": {"first": datetime.date(2020, 1, 1)}}, "is not of type 'string'"),
    ("SWAP-E8-ma1940-table", {"args": {"table": datetime.date(2020, 1, 1)}}, "is not of type 'string'"),
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


@pytest.mark.parametrize(
    "claim_id, change, message",
    [b for b in BAD if "pass anything" in b[2] or "exclude nothing" in b[2] or "paper_value" in b[2]],
)
def test_a_refusal_names_the_registry_file_and_the_row(tmp_path, registry, claim_id, change, message):
    entry = {**_entry(registry, claim_id), **change}
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / 'claims.yaml'}: claim {claim_id!r}: ")):
        _load(tmp_path, [entry])


def test_the_loosest_accepted_tolerance_is_half_a_printed_digit(tmp_path, registry):
    """TDA-E8-failure-probability: 10⁻⁶ printed with one significant digit, tol 5e-7: at the limit, accepted; any
    looser is refused."""
    entry = _entry(registry, "TDA-E8-failure-probability")
    assert entry["criterion"]["tol"] == criteria.RELATIVE_TOLERANCE * abs(entry["paper_value"])
    _load(tmp_path, [entry])
    with pytest.raises(ValueError, match="would pass anything"):
        _load(tmp_path, [{**entry, "criterion": {"kind": "equal", "tol": 5.01e-7}}])


def test_within_se_and_pvalues_parameters_must_be_finite_and_positive(tmp_path, registry):
    base = _entry(registry, "SWAP-E8-ma1940-table")
    for criterion in (
        {"kind": "within_se", "k": float("inf")},
        {"kind": "within_se", "k": 3, "rounding": float("nan")},
        {"kind": "within_se", "k": 0},
        {"kind": "pvalues", "alpha": 1.0},
        {"kind": "zscores", "alpha": float("nan")},
    ):
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
        measure = claims.resolve_measure(c["measure"], c["id"])
        criteria.check_criterion(c["criterion"], c["paper_value"], getattr(measure, "natural_scale", None))
        claims.check_paper_value(c, measure)


# --------------------------------------------------------------------------- the registry's YAML


def test_a_key_given_twice_in_a_registry_row_is_refused_with_its_line(tmp_path, registry):
    entry = claims.claim("SWAP-E8-ma1940-table", registry)
    text = yaml.safe_dump({"claims": [entry]}, allow_unicode=True, sort_keys=False, width=1000)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("paper_value:"))
    lines.insert(at + 1, lines[at])  # a second paper_value, which YAML would keep silently
    path = tmp_path / "claims.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        claims.RegistryError,
        match=rf"{re.escape(str(path))}: .*the key 'paper_value' is given twice"
        rf".*line {at + 2}",
    ):
        claims.load_registry(path)


def test_a_merge_key_may_still_override_in_the_registry_yaml():
    data = claims._read_registry("base: &b {x: 1, y: 2}\nmerged: {<<: *b, y: 3}\n", "t.yaml")
    assert data["merged"] == {"x": 1, "y": 3}


def test_a_registry_that_is_not_yaml_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("claims: [\n")
    with pytest.raises(claims.RegistryError, match=rf"{re.escape(str(path))}: not a readable claims registry"):
        claims.load_registry(path)


@pytest.mark.parametrize(
    "paper",
    ["2020-01-01", "[1, 2020-01-01]", "{first: 2001-12-14t21:59:43.10-05:00}", "!!binary aGk=", "!!set {a: null}"],
)
def test_a_yaml_date_or_other_non_json_value_is_refused_as_a_paper_value(tmp_path, registry, paper):
    entry = claims.claim("SWAP-E8-ma1940-table", registry)
    text = yaml.safe_dump({"claims": [{**entry, "paper_value": "PAPER"}]}, allow_unicode=True, width=1000)
    path = tmp_path / "claims.yaml"
    path.write_text(text.replace("paper_value: PAPER", f"paper_value: {paper}"))
    with pytest.raises(
        claims.RegistryError,
        match=r"at claims/0/paper_value.* \(claim 'SWAP-E8-ma1940-table'\): "
        r".* is not of type 'string', 'number'",
    ):
        claims.load_registry(path)


# --------------------------------------------------------------------------- not-run


def _summary_row(c, status="match"):
    return {
        "id": c["id"],
        "experiment": c["experiment"],
        "kind": c["kind"],
        "claim": c["claim"],
        "source": "s",
        "paper_value": "p",
        "reproduced_value": "r",
        "criterion": "k",
        "reading": "r (a priori)",
        "status": status,
        "cause": "",
        "note": "",
        "evidence": "1 values",
    }


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


def test_combine_refuses_a_summary_row_the_registry_does_not_hold(tmp_path, registry):
    e8 = [c for c in registry if c["experiment"] == "E8"]
    rows = [
        {
            "id": c["id"],
            "experiment": "E8",
            "kind": c["kind"],
            "claim": "c",
            "source": "s",
            "paper_value": "p",
            "reproduced_value": "r",
            "criterion": "k",
            "reading": "r (a priori)",
            "status": "match",
            "cause": "",
            "note": "",
            "evidence": "1 values",
            "same_fact_as": "",
        }
        for c in e8
    ]
    summary = tmp_path / "e8.csv"
    pd.DataFrame([*rows, {**rows[0], "id": "SWAP-E8-nowhere"}]).to_csv(summary, index=False)
    with pytest.raises(claims.RegistryError, match=r"the registry does not hold: \['SWAP-E8-nowhere'\]"):
        claims.combine([summary], tmp_path / "all.csv", registry=e8, experiments=["e8"])
    assert not (tmp_path / "all.csv").exists()
