"""What the HTML report and the scorecard of a CI-profile run hold (``make test`` runs it into $ISDP_CI_RESULTS):
every document figure and table the experiment registry names is in the report once, under its own label;
the report opens on the scorecard; the captions' result sentences are this run's verdicts and follow a
changed one."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter

import pandas as pd
import pytest
from isdp_papers import captions, scorecard
from isdp_papers.jobs import Job

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def report(run_dir) -> dict:
    """The data the report embeds: its results (path -> labels, caption, …), categories and landing text."""
    text = (run_dir / "results" / "report.html").read_text(encoding="utf-8")

    def var(name):
        m = re.search(rf'<script id="{name}">\s*var \w+ = (.*?);\s*</script>', text, re.S)
        assert m, f"the report embeds no {name}"
        return json.loads(m.group(1))

    return {"results": var("results"), "categories": var("categories"), "landing": var("workflow-desc")}


@pytest.fixture(scope="module")
def loaded(run_dir):
    """The run's summary rows with their items, the registered items and the report categories."""
    tables = run_dir / "results" / "tables"
    return scorecard.load(tables / "reproduction_summary.csv", tables / "experiments.csv")


def test_every_registered_item_is_in_the_report_once_with_its_label(report, loaded):
    _, items, titles = loaded
    results = report["results"]
    assert len(items) >= 20 and set(items["document"]) == set(scorecard.documents())
    for it in items.itertuples():
        assert it.output in results, f"{it.document} {it.item}: {it.output} is not in the report"
        assert it.output in report["categories"][titles[it.experiment]]["Other"], it
        assert it.label in results[it.output]["labels"].values(), (it, results[it.output]["labels"])
    labels = Counter(lab for res in results.values() for lab in (res["labels"] or {}).values())
    assert all(labels[lab] == 1 for lab in items["label"]), {lab: labels[lab] for lab in items["label"]}


def test_no_two_results_of_a_category_share_their_labels(report):
    """The report lists a category's results by their labels: two results with the same labels show as one
    (E2's Fig 1 and Fig 6 once did)."""
    for cat, subcats in report["categories"].items():
        for paths in subcats.values():
            keys = [tuple(sorted((report["results"][p]["labels"] or {"file": p}).items())) for p in paths]
            dup = [k for k, n in Counter(keys).items() if n > 1]
            assert not dup, f"{cat}: results share the labels {dup}"


def test_the_report_opens_on_the_scorecard(report, loaded):
    """The landing text is the scorecard: every item, linked to its result in the report, with its counts;
    and the first category of the menu (sorted by name) holds the standalone scorecard."""
    rows, items, _ = loaded
    landing = report["landing"]
    assert re.search(rf"Scorecard: {len(rows)} rows of the claims registry", landing)
    # every link of the landing text opens a result the report holds, every item among them
    targets = re.findall(r"(?:resultPath:|showResultInfo\()&quot;(.+?)&quot;", landing)
    assert set(items["output"]) <= set(targets), set(items["output"]) - set(targets)
    assert not set(targets) - set(report["results"]), set(targets) - set(report["results"])
    first = sorted(report["categories"], key=str.lower)[0]
    assert "results/scorecard.html" in report["categories"][first]["Other"]
    assert "System Message" not in landing


def test_the_scorecard_counts_every_row_once_per_item_it_names(run_dir, loaded):
    rows, items, _ = loaded
    page = (run_dir / "results" / "scorecard.html").read_text(encoding="utf-8")
    assert f"Scorecard: {len(rows)} rows" in page
    for it in items.itertuples():
        assert f">{html.escape(it.item)}</a>" in page, it.item
        mine = scorecard.rows_of(rows, scorecard.item_key(it.document, it.item))
        assert len(mine) > 0, f"no row of the registry speaks of {it.document} {it.item}"
    for r in rows[rows["status"] == "differs"].itertuples():
        assert r.id in page, r.id


def test_locations_naming_unregistered_items_are_the_known_ones(loaded):
    """Rows whose location names a figure or table no experiment registers: the document items this project
    does not reproduce. A new one means a claim names a figure that needs registering (or adding here)."""
    rows, _, _ = loaded
    lost = scorecard.unregistered(rows)
    assert set(lost["id"]) == {
        "SWAP-E8-ma1940-invariants",  # the 1940 county table (not reproduced: its microdata are not public)
        "SWAP-E8-ma1940-rate",  # its caption
        "SWAP-E8-ma1940-mape",  # the MAPE box plots
        "TDA-E8-region-margins",  # the talk's Region A and B tables, checked as printed
    }, lost


def test_captions_state_this_runs_verdicts(report, loaded):
    """A caption's result sentence is the run's: the report's caption of ISDP Fig 2 lists the verdict of every
    row that speaks of it."""
    rows, items, _ = loaded
    fig2 = items[(items["document"] == "ISDP") & (items["item"] == "Fig 2")].iloc[0]
    caption = report["results"][fig2.output]["caption"]
    assert "This run" in caption and "System Message" not in caption
    for r in captions.select(rows, ["ISDP Fig 2"], items).itertuples():
        assert r.id in caption and r.status in caption, r.id
    assert all("System Message" not in res["caption"] for res in report["results"].values())


def test_a_changed_verdict_changes_the_caption_fragment(run_dir, tmp_path, monkeypatch):
    """In a copy of the run's tables, one row of ISDP Fig 2 changes its verdict: the step writes a fragment
    that follows it (and, unchanged, the run's own fragment)."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    for name in ("reproduction_summary.csv", "experiments.csv"):
        shutil.copy(run_dir / "results" / "tables" / name, tables / name)
    monkeypatch.chdir(tmp_path)
    job = Job(
        input={"summary": "results/tables/reproduction_summary.csv", "registry": "results/tables/experiments.csv"},
        output={"fragments": ["results/report/captions/e3_fig2.rst"]},
        params={"captions": {"e3_fig2": ["ISDP Fig 2"]}},
    )
    captions.caption_results(job)
    fragment = tmp_path / "results" / "report" / "captions" / "e3_fig2.rst"
    assert fragment.read_text() == (run_dir / "results" / "report" / "captions" / "e3_fig2.rst").read_text()
    summary = pd.read_csv(tables / "reproduction_summary.csv", dtype=str, keep_default_na=False)
    row = summary["id"] == "ISDP-E3-illinois-das-bias"
    old = summary.loc[row, "status"].item()
    new = "match" if old != "match" else "differs"
    summary.loc[row, ["status", "cause", "reproduced_value"]] = [new, "data vintage", "a changed value 12345"]
    summary.to_csv(tables / "reproduction_summary.csv", index=False)
    captions.caption_results(job)
    text = fragment.read_text()
    assert f"``ISDP-E3-illinois-das-bias`` **{new}**" in text and "a changed value 12345" in text
