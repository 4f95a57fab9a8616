"""Tests of :mod:`isdp_papers.claims`: the claims registry (its schema checks, unique ids, known measures,
causes, ``same_fact_as``, the shared false-alarm budget, no paper value typed elsewhere, a paper value whose type fits
its measure) and its evaluator (a run's summary rows, the fit rule, a failing measure, a non-finite measurement,
the paper value withheld from a measure whose row does not declare reading it, a declared reading checked in the
measure's code, a measure returning no measurement, combining the experiments' rows).
The criteria themselves: test_criteria.py; the headline counts: test_reporting.py."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml
from census_support import python_output
from conftest import REGISTRY, ROOT
from isdp_papers import claims
from isdp_papers.evidence import Run

A_PRIORI = {"text": "the printed number as printed", "basis": "a priori"}
BY_FIT = {"text": "the one reading of three that fits", "basis": "chosen by fit"}
E9 = {"e9": {"targets": {"l1": {"lags": [10, 20]}}}}  # the lags the lag-spread measure expects in its table


# --------------------------------------------------------------------------- the registry


def test_registry_groups_claims_by_experiment_in_order(registry):
    """The summary concatenates the experiments in order, so the registry must list them so too."""
    numbers = [int(c["experiment"][1:]) for c in registry]
    assert numbers == sorted(numbers)


def test_registry_is_valid_with_unique_ids_and_known_measures(registry):
    assert len(registry) == len({c["id"] for c in registry})
    for c in registry:
        assert c["id"].split("-")[1] == c["experiment"], c["id"]
        claims.resolve_measure(c["measure"], c["id"])


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.update(criterion={"kind": "within_se"}), "k"),
        (lambda c: c.update(criterion={"kind": "interval"}), "criterion"),
        (lambda c: c.update(criterion={"kind": "equal", "typo": 1}), "typo"),
        (lambda c: c.pop("why"), "why"),
        (lambda c: c.update(document="Another paper"), "Another paper"),
        (lambda c: c.update(measure="e3.no_such_measure"), "unknown measure"),
        (lambda c: c.update(id="bad id"), "bad id"),
        (lambda c: c.pop("kind"), "kind"),
        (lambda c: c.update(kind="finding"), "finding"),
        (lambda c: c.update(reading={"text": "a reading of the words", "basis": "guessed"}), "guessed"),
        (lambda c: c.pop("reading"), "reading"),
        (lambda c: c.update(cause="bad luck"), "bad luck"),
        (
            lambda c: (
                c.update(criterion={"kind": "not-comparable", "reason": "figure only, no number"}) or c.pop("cause", 0)
            ),
            "cause",
        ),
    ],
)
def test_bad_registry_entries_are_rejected_with_their_location(tmp_path, registry, mutate, message):
    entry = dict(registry[0])
    mutate(entry)
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [entry]}, allow_unicode=True))
    with pytest.raises(ValueError, match=re.escape(message)):
        claims.load_registry(path)


def test_checking_the_registry_imports_no_statistics_or_qp_library():
    """Snakemake checks every claim whenever it parses the workflow, which imports every measure module; those
    import SciPy's statistics and qpsolvers (more than a second together) only in the functions that use them."""
    heavy = ("scipy.stats", "qpsolvers", "matplotlib", "sympy")
    loaded = python_output(
        "import sys\n"
        "from isdp_papers.claims import load_registry\n"
        f"load_registry({str(REGISTRY)!r})\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    assert loaded == "[]"


def test_a_summary_checks_the_measures_of_its_own_experiment_only(tmp_path, registry):
    """A summary job loads the registry for its experiment: another experiment's unknown measure (which the
    workflow refuses when it is parsed) is not imported there; its own is refused."""
    first = dict(registry[0])
    exp = "E8" if first["experiment"] != "E8" else "E7"
    other = {**first, "id": f"ISDP-{exp}-other", "experiment": exp, "measure": "e8.no_such_measure"}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [first, other]}, allow_unicode=True))
    loaded = claims.load_registry(path, experiments=[first["experiment"]])
    assert [c["id"] for c in loaded] == [first["id"], other["id"]]
    with pytest.raises(ValueError, match="unknown measure 'e8.no_such_measure'"):
        claims.load_registry(path)
    with pytest.raises(ValueError, match="unknown measure"):
        claims.load_registry(path, experiments=[other["experiment"]])


def test_every_not_comparable_row_names_its_cause(registry):
    """(The schema requires it; a run's differs rows are checked by the workflow tests.)"""
    assert all(c.get("cause") for c in registry if c["criterion"]["kind"] == "not-comparable")


def test_the_documents_claims_are_counted_apart_from_the_projects_checks(registry):
    kinds = [c["kind"] for c in registry]
    assert kinds.count("claim") >= 110 and kinds.count("check") >= 1


@pytest.mark.parametrize("target", ["ISDP-E1-nowhere", "self", "restating"])
def test_same_fact_as_must_name_another_counted_row(tmp_path, registry, target):
    first, second = dict(registry[0]), dict(registry[1])
    second["same_fact_as"] = first["id"]
    ok = tmp_path / "ok.yaml"
    ok.write_text(yaml.safe_dump({"claims": [first, second]}, allow_unicode=True))
    assert claims.load_registry(ok)[1]["same_fact_as"] == first["id"]
    bad = {"ISDP-E1-nowhere": target, "self": second["id"], "restating": second["id"]}[target]
    third = {**registry[2], "same_fact_as": bad} if target == "restating" else {**second, "same_fact_as": bad}
    path = tmp_path / "claims.yaml"
    path.write_text(
        yaml.safe_dump(
            {"claims": [first, second, third] if target == "restating" else [first, third]}, allow_unicode=True
        )
    )
    with pytest.raises(ValueError, match="same_fact_as"):
        claims.load_registry(path)


def test_the_hypothesis_test_rows_share_one_false_alarm_budget(registry):
    """Summed over the zscores/pvalues rows, α is at most 0.01: on one seed, a chance `differs` among them has
    probability below 1 % (docs/claims.md, "Criterion kinds"), so `make stability` expects no flip from them."""
    alphas = [c["criterion"]["alpha"] for c in registry if c["criterion"]["kind"] in ("zscores", "pvalues")]
    assert alphas and sum(alphas) <= 0.01 + 1e-12, f"{len(alphas)} rows spend α = {sum(alphas):.4f}"


def test_duplicate_ids_are_rejected(tmp_path, registry):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [registry[0], registry[0]]}, allow_unicode=True))
    with pytest.raises(ValueError, match="duplicate claim id"):
        claims.load_registry(path)


def _paper_literals(registry):
    """Distinctive numeric paper values: floats with three or more significant digits, integers ≥ 1000 that are
    not whole hundreds.

    Shorter numbers (0.6, 11, 130) and round sizes (1000: the papers' design counts) also occur as unrelated
    parameters, so they are not scanned.
    """
    found = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, float) and len(repr(v).lstrip("-0.").replace(".", "")) >= 3:
            found.add(repr(v))
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 1000 and v % 100:
            found.add(repr(v))

    for c in registry:
        walk(c["paper_value"])
    return found


def test_no_paper_value_is_typed_into_scripts_notebooks_or_tests(registry):
    literals = _paper_literals(registry)
    assert literals, "the registry should hold numeric paper values"
    files = [*ROOT.glob("workflow/scripts/*.py"), *ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("workflow/rules/*.smk")]
    files += list(ROOT.glob("tests/*.py"))
    for path in files:
        text = path.read_text()
        for lit in literals:
            assert not re.search(rf"(?<![\w.]){re.escape(lit)}(?![\w])", text), f"{path.name} contains {lit}"


# --------------------------------------------------------------------------- evaluation


def test_the_evaluator_applies_the_fit_rule(tmp_path):
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    pd.DataFrame({"target": ["l1", "l1"], "lag": [10, 20], "pairs": [5, 5], "converged_at": [100, 150]}).to_csv(
        tables / "e9_convergence.csv", index=False
    )
    entry = {
        "id": "ISDP-E9-lag-stability",
        "experiment": "E9",
        "kind": "claim",
        "document": "ISDP",
        "location": "Fig 4",
        "claim": "stable across lags",
        "paper_value": "stable",
        "measure": "lattice.run_tables.lag_spread",
        "args": {"exp": "e9", "norm": "l1"},
        "criterion": {"kind": "interval", "max": 2},
        "why": "test entry with a ratio of 1.5",
    }
    run = Run(tmp_path, E9)
    assert claims.evaluate([{**entry, "reading": A_PRIORI}], run).loc[0, "status"] == "match"
    row = claims.evaluate([{**entry, "reading": BY_FIT}], run).loc[0]
    assert row["status"] == "calibrated" and row["reading"].endswith("(chosen by fit)") and row["kind"] == "claim"


def test_evaluate_builds_rows_from_a_run(tmp_path):
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    pd.DataFrame({"target": ["l1", "l1"], "lag": [10, 20], "pairs": [5, 5], "converged_at": [100, 300]}).to_csv(
        tables / "e9_convergence.csv", index=False
    )
    registry = [
        {
            "id": "ISDP-E9-lag-stability",
            "experiment": "E9",
            "kind": "claim",
            "document": "ISDP",
            "location": "Fig 4",
            "claim": "stable across lags",
            "reading": A_PRIORI,
            "paper_value": "stable",
            "measure": "lattice.run_tables.lag_spread",
            "args": {"exp": "e9", "norm": "l1"},
            "criterion": {"kind": "interval", "max": 2},
            "why": "test entry with a ratio of 3",
        }
    ]
    rows = claims.evaluate(registry, Run(tmp_path, E9))
    assert list(rows.columns) == claims.COLUMNS
    assert rows.loc[0, "status"] == "differs" and "3.00" in rows.loc[0, "reproduced_value"]
    assert rows.loc[0, "criterion"].endswith("Why: test entry with a ratio of 3")
    with pytest.raises(ValueError, match="no claim for experiment"):
        claims.evaluate(registry, Run(tmp_path, E9), experiment="E8")


def test_a_failing_measure_names_its_claim(tmp_path):
    registry = [
        {
            "id": "ISDP-E9-x",
            "experiment": "E9",
            "kind": "claim",
            "document": "ISDP",
            "location": "Fig 4",
            "claim": "c",
            "reading": A_PRIORI,
            "paper_value": 1,
            "measure": "lattice.run_tables.lag_spread",
            "args": {"exp": "e9", "norm": "l1"},
            "criterion": {"kind": "interval", "max": 2},
            "why": "missing outputs",
        }
    ]
    rows = claims.evaluate(registry, Run(tmp_path))
    assert rows.loc[0, "status"] == "error" and "e9_convergence.csv: missing" in rows.loc[0, "note"]
    with pytest.raises(claims.ClaimErrors, match="ISDP-E9-x"):
        claims.check_errors(rows)
    claims.check_errors(rows, "report")


def test_combine_rejects_unknown_status_and_duplicate_ids(tmp_path):
    row = dict(
        zip(
            claims.COLUMNS,
            ["ISDP-E1-a", "E1", "claim", "c", "s", "p", "r", "k", "read (a priori)", "match", "", "", "1 values", ""],
            strict=True,
        )
    )
    good = tmp_path / "a.csv"
    pd.DataFrame([row]).to_csv(good, index=False)
    with pytest.raises(ValueError, match="duplicate"):
        claims.combine([good, good], tmp_path / "out.csv")
    bad = tmp_path / "b.csv"
    pd.DataFrame([{**row, "id": "ISDP-E1-b", "status": "ok"}]).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="unknown status"):
        claims.combine([good, bad], tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


# --------------------------------------------------------------------------- a paper value's type fits its measure


def _takes_words(run, paper: str):
    return claims.Measurement(len(paper), "")


def _takes_a_number_or_words(run, paper: float | str, *, scale: int = 1):
    return claims.Measurement(paper, "")


def _ignores_it(run, paper):
    """Reads nothing of ``paper``: the docstring's mention is not a use."""
    return claims.Measurement(1.0, "")


def _reads_it(run, paper_value):
    return claims.Measurement(sum(paper_value.values()), "")


def _row(paper, kind="interval", reads=False, **criterion):
    return {
        "id": "ISDP-E9-x",
        "measure": "e9.m",
        "paper_value": paper,
        "reads_paper_value": reads,
        "criterion": {"kind": kind, **({"max": 2} if kind == "interval" else {}), **criterion},
    }


def _evaluated(monkeypatch, measure, **row):
    """The summary row of a registry row (``row`` changes it) whose measure is ``measure``."""
    entry = {
        "id": "ISDP-E9-x",
        "experiment": "E9",
        "kind": "claim",
        "document": "ISDP",
        "location": "Fig 4",
        "claim": "c",
        "reading": A_PRIORI,
        "paper_value": {"a": 2.5, "b": 15.5},
        "measure": "e9.m",
        "criterion": {"kind": "interval", "max": 20},
        "why": "a measure that sums its paper value",
        **row,
    }
    monkeypatch.setattr(claims, "resolve_measure", lambda name, claim_id="?": measure)
    return claims.evaluate([entry], Run(".")).loc[0]


def test_a_measure_receives_the_paper_value_only_where_its_row_declares_it(monkeypatch):
    received = []

    def spy(run, paper):
        received.append(paper)
        return claims.Measurement(1.0, "")

    _evaluated(monkeypatch, spy, paper_value="about 18")
    _evaluated(monkeypatch, spy, reads_paper_value=True)
    assert received == [None, {"a": 2.5, "b": 15.5}]


def test_a_measure_that_secretly_reads_its_paper_value_cannot_use_it(monkeypatch):
    """Without ``reads_paper_value`` the measure is handed None, never the value it is judged against: a measure
    that reads it anyway fails, and its row is an error, not a verdict computed from the paper's own number."""
    assert _evaluated(monkeypatch, _reads_it, reads_paper_value=True)["status"] == "match"  # 2.5 + 15.5 ≤ 20
    row = _evaluated(monkeypatch, _reads_it, paper_value="about 18")
    assert row["status"] == "error" and "'NoneType' object has no attribute 'values'" in row["note"]


@pytest.mark.parametrize(
    "measure, paper, reads, message",
    [
        (_takes_words, [1, 2], True, "does not fit measure e9.m, which takes paper: str"),
        (_takes_words, 4, True, "which takes paper: str"),
        (
            _takes_words,
            4,
            False,
            "which takes paper: str",
        ),  # the annotation is checked even where the value is withheld
        (_takes_a_number_or_words, {"a": 1}, True, "which takes paper: float | str"),
        (_takes_a_number_or_words, True, True, "which takes paper"),
        (_ignores_it, [1, 2], False, "ignores its paper value"),
        (_ignores_it, {"median": 0.8}, False, "ignores its paper value"),
        (_reads_it, {"a": 2.5, "b": 15.5}, False, "the row does not declare reads_paper_value: true"),
    ],
)
def test_a_paper_value_that_does_not_fit_its_measure_is_refused(measure, paper, reads, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        claims.check_paper_value(_row(paper, reads=reads), measure)


@pytest.mark.parametrize(
    "measure, row",
    [
        (_takes_words, _row("4 values (data/e9/paper_table.csv)", reads=True)),
        (_takes_a_number_or_words, _row(0.5, reads=True)),
        (_takes_a_number_or_words, _row("about a half", reads=True)),
        (_ignores_it, _row("stable across lags")),
        (_ignores_it, _row(1)),
        (_ignores_it, _row({"rounds": 5, "first": 2001}, kind="not-comparable")),  # only reported: any shape
        (_ignores_it, _row([9.5, 19.5], kind="equal")),  # compared as it is, when judged
        (_reads_it, _row({"a": 2.5, "b": 15.5}, reads=True)),
    ],
)
def test_a_paper_value_that_fits_is_accepted(measure, row):
    claims.check_paper_value(row, measure)


def test_a_non_finite_measurement_is_an_error_row_with_the_reason(tmp_path, registry, monkeypatch):
    """NaN reaches no comparison: the row is `error`, its note says which number, the summary job fails."""
    entry = claims.claim("SDP-E6-reading-release-sd", registry)
    monkeypatch.setattr(
        claims,
        "resolve_measure",
        lambda name, claim_id="?": lambda run, paper, **kw: claims.Measurement(float("nan") if paper else 0.0, "nan"),
    )
    rows = claims.evaluate([entry], Run(tmp_path))
    assert rows.loc[0, "status"] == "error" and "value = nan" in rows.loc[0, "note"]
    with pytest.raises(claims.ClaimErrors, match="SDP-E6-reading-release-sd"):
        claims.check_errors(rows)


def test_an_equal_row_whose_paper_value_does_not_fit_the_measured_value_is_an_error(tmp_path, registry, monkeypatch):
    entry = claims.claim("SWAP-E8-swapping-range", registry)  # paper: a list of two numbers
    assert isinstance(entry["paper_value"], list)
    monkeypatch.setattr(
        claims,
        "resolve_measure",
        lambda name, claim_id="?": lambda run, paper, **kw: claims.Measurement(paper[0], "one"),
    )
    row = claims.evaluate([{**entry, "reads_paper_value": True}], Run(tmp_path)).loc[0]  # this measure reads it
    assert row["status"] == "error" and "does not fit the measure" in row["note"]


# --------------------------------------------------------------------------- a declaration checked, not trusted


def _lag_table(tmp_path, converged_at=(100, 150)):
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"target": ["l1", "l1"], "lag": [10, 20], "pairs": [5, 5], "converged_at": list(converged_at)}).to_csv(
        tables / "e9_convergence.csv", index=False
    )
    return Run(tmp_path, E9)


def _lag_row(registry, **change):
    """The lag-stability row (its measure, ``lag_spread``, never reads its paper value) on the E9 table above."""
    entry = claims.claim("ISDP-E1-l1-lag-stability", registry)
    return {**entry, "id": "ISDP-E9-lag-stability", "experiment": "E9", "args": {"exp": "e9", "norm": "l1"}, **change}


@pytest.mark.parametrize("paper", [[1, 2], {"median": 0.8}, "stable across lags"])
def test_a_declared_reading_of_the_paper_value_by_a_measure_that_ignores_it_is_an_error(tmp_path, registry, paper):
    """``reads_paper_value: true`` on a row whose measure never reads its paper value: the row is an ``error`` naming
    it and the measure, never a ``match`` beside a paper value the verdict never used."""
    run = _lag_table(tmp_path)
    row = claims.evaluate([_lag_row(registry, paper_value=paper, reads_paper_value=True)], run).loc[0]
    assert row["status"] == "error"
    assert "claim 'ISDP-E9-lag-stability'" in row["note"] and "lattice.run_tables.lag_spread never reads" in row["note"]
    assert claims.evaluate([_lag_row(registry)], run).loc[0, "status"] == "match"  # the row as written


def test_the_loader_refuses_a_declared_reading_the_measure_never_does(tmp_path, registry):
    entry = {**claims.claim("ISDP-E1-l1-lag-stability", registry), "reads_paper_value": True}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [entry]}, allow_unicode=True))
    with pytest.raises(claims.RegistryError, match=r"claim 'ISDP-E1-l1-lag-stability': .*declares reads_paper_value"):
        claims.load_registry(path)


def _loads_in_a_closure(run, paper):
    return claims.Measurement((lambda: paper)(), "")


def _takes_and_drops_it(run, paper, *, scale=1):
    del scale
    return claims.Measurement(1.0, "")


@pytest.mark.parametrize(
    ("measure", "reads"),
    [
        (_reads_it, True),
        (_takes_words, True),
        (_loads_in_a_closure, True),
        (_ignores_it, False),
        (_takes_and_drops_it, False),
        (lambda run, paper: claims.Measurement(1.0, ""), False),
    ],
)
def test_reading_the_paper_value_is_seen_in_the_measures_code(measure, reads):
    assert claims._reads_paper(measure) is reads


def test_every_row_that_declares_reading_its_paper_value_has_a_measure_that_reads_it(registry):
    declared = [c for c in registry if c.get("reads_paper_value")]
    assert len(declared) > 20
    for c in declared:
        assert claims._reads_paper(claims.resolve_measure(c["measure"], c["id"])), c["id"]


@pytest.mark.parametrize("returned", [0.5, None, {"value": 1.0}, "1.5"])
def test_a_measure_that_returns_no_measurement_is_an_error_naming_it(monkeypatch, returned):
    row = _evaluated(monkeypatch, lambda run, paper: returned, paper_value="about 18")
    assert row["status"] == "error" and row["reproduced_value"] == "—"
    assert f"measure e9.m failed: EvidenceError: it returned {claims._format_paper(returned)}" in row["note"]
    assert f"(a {type(returned).__name__}), not a Measurement" in row["note"]
