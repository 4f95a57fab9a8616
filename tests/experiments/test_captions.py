"""The captions' result sentences (isdp_papers.captions): which rows a fragment states, that it follows a
changed verdict, and that a caption including it renders as the report renders captions (docutils, from the
run directory)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from docutils.core import publish_parts
from isdp_papers.captions import caption_results, fragment, rst_escape, select
from isdp_papers.claims import COLUMNS
from isdp_papers.jobs import Job
from isdp_papers.scorecard import assign, registry_items


def _row(id_, source, status="match", cause="", value="0.5") -> dict:
    row = dict.fromkeys(COLUMNS, "")
    row.update(
        id=id_,
        source=source,
        status=status,
        cause=cause,
        kind="claim",
        experiment="E3",
        claim=f"claim {id_}",
        reproduced_value=value,
        paper_value="*0.4* |x|",
    )
    return row


SUMMARY = pd.DataFrame(
    [
        _row("ISDP-E3-unbiased", "ISDP §5 Fig 2; App. E.4 Fig 8", value="max |z| = 2.1"),
        _row(
            "ISDP-E3-illinois-das-bias",
            "ISDP §5 Fig 2",
            status="differs",
            cause="data vintage",
            value="slope -0.2 (p 0.4)",
        ),
        _row("SDP-E3-audit-negative", "Subspace DP §1, Fig 1 (left)"),
        _row("SDP-E3-audit-sign", "Subspace DP §1, Fig 1 (left)", status="not-run"),
    ]
)
REGISTRY = pd.DataFrame(
    [
        {
            "experiment": "e3",
            "title": "E3 t",
            "notebook": "e3_x",
            "outputs": "",
            "items": json.dumps(
                [
                    {
                        "document": "ISDP",
                        "where": "§5",
                        "item": "Fig 2",
                        "output": "results/figures/f2.png",
                        "label": "ISDP Fig 2",
                    },
                    {
                        "document": "ISDP",
                        "where": "App. E.4",
                        "item": "Fig 8",
                        "output": "results/figures/f8.png",
                        "label": "Fig 8",
                    },
                ]
            ),
        }
    ]
)


def _rows(summary=SUMMARY):
    items = registry_items(REGISTRY)
    return assign(summary, items), items


def test_select_by_item_and_by_id_pattern():
    rows, items = _rows()
    assert list(select(rows, ["ISDP Fig 2"], items)["id"]) == ["ISDP-E3-unbiased", "ISDP-E3-illinois-das-bias"]
    assert list(select(rows, ["ISDP Fig 8"], items)["id"]) == ["ISDP-E3-unbiased"]
    assert list(select(rows, ["SDP-E3-audit-*"], items)["id"]) == ["SDP-E3-audit-negative", "SDP-E3-audit-sign"]
    both = select(rows, ["SDP-E3-audit-sign", "ISDP Fig 8"], items)
    assert list(both["id"]) == ["ISDP-E3-unbiased", "SDP-E3-audit-sign"]  # summary order, each once


@pytest.mark.parametrize("selector", ["ISDP Fig 9", "SDP-E3-audit-nothing*", "CDP-E7-typo"])
def test_a_selector_naming_nothing_is_refused(selector):
    rows, items = _rows()
    with pytest.raises(ValueError, match="names no registered item and no claim id"):
        select(rows, [selector], items)


def test_fragment_states_counts_values_and_causes():
    rows, items = _rows()
    text = fragment(select(rows, ["ISDP Fig 2"], items))
    assert text.startswith("**This run** (2 rows of the claims registry): 1 match · 1 differs.")
    assert "``ISDP-E3-illinois-das-bias`` **differs** (data vintage) — this run slope -0.2 (p 0.4)" in text
    assert r"max \|z\| = 2.1" in text and r"paper \*0.4\* \|x\|" in text  # markup escaped


def test_fragment_follows_a_changed_verdict():
    """Rewrite one row of the summary: the fragment of the figure that row speaks of changes with it."""
    rows, items = _rows()
    before = fragment(select(rows, ["ISDP Fig 2"], items))
    changed = SUMMARY.copy()
    changed.loc[changed["id"] == "ISDP-E3-illinois-das-bias", ["status", "cause", "reproduced_value"]] = [
        "match",
        "",
        "slope -3.1 (p 0.001)",
    ]
    after = fragment(select(*_rows(changed)[:1], ["ISDP Fig 2"], items))
    assert "1 differs" in before and "2 match." in after and "differs" not in after
    assert "slope -3.1 (p 0.001)" in after and "data vintage" not in after


def test_rst_escape_keeps_text_literal():
    assert rst_escape("a_b *c* `d` |e|\n  f") == r"a\_b \*c\* \`d\` \|e\| f"
    html = publish_parts(rst_escape("x_ *y* `z` |w| [1]_ <u>"), writer="html")["body"]
    assert "System Message" not in html and "*y*" in html and "|w|" in html


def test_the_step_writes_fragments_a_caption_includes_from_the_run_directory(tmp_path, monkeypatch):
    """The mechanism the report relies on: the caption's relative include is read from the working directory
    (Snakemake runs `--report` in the run directory), after Jinja has rendered the caption."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "tables").mkdir(parents=True)
    SUMMARY.to_csv("results/tables/reproduction_summary.csv", index=False)
    REGISTRY.to_csv("results/tables/experiments.csv", index=False)
    out = "results/report/captions/e3_fig2.rst"
    caption_results(
        Job(
            input={"summary": "results/tables/reproduction_summary.csv", "registry": "results/tables/experiments.csv"},
            output={"fragments": [out]},
            params={"captions": {"e3_fig2": ["ISDP Fig 2"]}},
        )
    )
    caption = "**Fig 2: Illinois.** What is plotted.\n\n.. include:: results/report/captions/e3_fig2.rst\n"
    html = publish_parts(caption, writer="html")["body"]
    assert "System Message" not in html and "What is plotted" in html
    assert "ISDP-E3-illinois-das-bias" in html and "data vintage" in html
