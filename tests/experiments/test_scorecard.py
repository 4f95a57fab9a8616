"""The scorecard (isdp_papers.scorecard): the location parser on the registry's real strings, which rows
speak of which registered item, and the page a hand-made run gives."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from conftest import REGISTRY
from isdp_papers.claims import COLUMNS, STATUSES, load_registry, schema
from isdp_papers.jobs import Job
from isdp_papers.scorecard import (
    CAUSE_MEANINGS,
    STATUS_MEANINGS,
    ItemRef,
    assign,
    data_line,
    documents,
    experiment_registry,
    names_figure_or_table,
    parse_location,
    registry_items,
    render,
    scorecard,
    speaks_of,
    split_source,
    status_counts,
    unregistered,
)
from isdp_papers.scorecard import (
    page as scorecard_page,
)

# Locations as config/claims.yaml writes them, with the figures and tables they name.
PAPER_CASES = [
    ("ISDP", "§5 Fig 2", ["Fig 2"]),
    ("ISDP", "App. E.3 Table 3", ["Table 3"]),
    ("ISDP", "§5 Fig 2; App. E.4 Fig 8", ["Fig 2", "Fig 8"]),
    ("ISDP", "App. Fig 10; Subspace DP §1", ["Fig 10"]),
    ("ISDP", "App. E.4 (the states of Fig 2 and Fig 8)", ["Fig 2", "Fig 8"]),
    (
        "ISDP",
        "§5 (Fig 1: 'estimated with 200 independent coupled chains'); App. E.3 (Fig 6, likewise; Fig 7: "
        "'the boxplot of 1000 realizations')",
        ["Fig 1", "Fig 6", "Fig 7"],
    ),
    ("ISDP", "§5 Table 1 and App. E.3 Table 3 (one instance each of the ℓ1 and the ℓ2 noise)", ["Table 1", "Table 3"]),
    # the documents' own words are quoted, and a comparison names no item
    (
        "ISDP",
        "App. E.4 (comparison with TopDown: 'if we infuse the county-level counts with errors from the "
        "proposed generalized Laplace mechanism (shown in Fig. 2 and 8)')",
        [],
    ),
    (
        "ISDP",
        "App. E.3 Table 3 (the ℓ2 analogue of Table 1, 'obtained after the chain has achieved empirical convergence')",
        ["Table 3"],
    ),
    ("ISDP", "App. D.2 ('we employ L values …'), for §5's delinquent children table", []),
    ("ISDP", "App. E.2, Fig 4 (not in E.2's surviving text; the statement may be in Fig 4's caption)", ["Fig 4"]),
    ("Subspace DP", "§1, Fig 1 (left)", ["Fig 1 (left)"]),
    ("Subspace DP", "§5.1 (Fig 1 right)", ["Fig 1 (right)"]),
    ("Subspace DP", "§1 (the TopDown paragraph: 'tends to associate …'); Fig 1 caption (left)", ["Fig 1 (left)"]),
    ("Subspace DP", "§1 (state population totals); Fig 1 caption ('when the state population is held')", ["Fig 1"]),
    ("Congenial DP", "§2.2 Algorithm 1; §3 Fig 1 (c)", ["Fig 1 (c)"]),
    ("Congenial DP", "§3 Fig 1 (not reported)", ["Fig 1"]),
    ("Congenial DP", "§3 Fig 1 and the sentence after it", ["Fig 1"]),
    ("Congenial DP", "§3 after Fig 1", []),  # a position: the statement follows the figure
    ("Congenial DP", "§4 after Table 2; App. A", []),
    ("Congenial DP", "§4 Table 2 (f_L1, Var(m1))", ["Table 2"]),
    ("Congenial DP", "§3 Table 1 (bottom) and caption", ["Table 1 (bottom)"]),
    (
        "Congenial DP",
        "§3 (the 2 × 23 sex × age table: 'This data structure corresponds to the 2010 Census Table #P12')",
        [],
    ),
]
SLIDE_CASES = [
    (
        "Swapping slides",
        "'What if the 2020 Census used swapping?', note",
        [("What if the 2020 Census used swapping?", "note", "")],
    ),
    (
        "Swapping slides",
        "'Numerical demonstration: 1940 Census full count data', table 'Conversion of swap rate to ε'",
        [
            ("Numerical demonstration: 1940 Census full count data", "table", ""),
            ("Conversion of swap rate to ε", "", "table"),
        ],
    ),
    (
        "Swapping slides",
        "slide 'Examples from the US Decennial Censuses' (TopDown row: Invariants, 'Population (state)')",
        [("Examples from the US Decennial Censuses", "", "slide")],
    ),
    # a title may hold parentheses; the remark in parentheses is dropped
    (
        "Swapping slides",
        "'The TopDown Algorithm (TDA) (Abowd et al. 2022)', step 2; 'Theorem: TDA satisfies DP, "
        "subject to its Invariants'",
        [
            ("The TopDown Algorithm (TDA) (Abowd et al. 2022)", "step 2", ""),
            ("Theorem: TDA satisfies DP, subject to its Invariants", "", ""),
        ],
    ),
    (
        "TopDown talk",
        "'zCDP/RDP vs. Pure DP', first slide 'RDP/zCDP' ('Moderate: δ = 10⁻⁶. Rough interpretation: "
        "each bit of a person's record has probability 10⁻⁶')",
        [("zCDP/RDP vs. Pure DP", "first slide", ""), ("RDP/zCDP", "", "first slide")],
    ),
]

ITEMS = [  # (experiment, document, where, item, output, label), as register() would record them
    ("e2", "ISDP", "§5", "Fig 1", "results/figures/fig1.png", "ISDP Fig 1"),
    ("e2", "ISDP", "App. E.3", "Table 3", "results/tables/table3.csv", "ISDP Table 3"),
    ("e2", "ISDP", "§5", "Table 1", "results/tables/table1.csv", "ISDP Table 1"),
    ("e3", "ISDP", "§5", "Fig 2", "results/figures/fig2.png", "ISDP Fig 2"),
    ("e3", "Subspace DP", "§1", "Fig 1 (left)", "results/figures/slopes.png", "SDP Fig 1 (left)"),
    (
        "e8",
        "Swapping slides",
        "",
        "'Numerical demonstration: 1940 Census full count data', table",
        "results/tables/ma1940.csv",
        "1940 table",
    ),
]


def _registry(items=ITEMS) -> pd.DataFrame:
    rows = []
    for exp in dict.fromkeys(i[0] for i in items):
        mine = [
            dict(zip(("document", "where", "item", "output", "label"), i[1:], strict=True))
            for i in items
            if i[0] == exp
        ]
        rows.append(
            {
                "experiment": exp,
                "title": f"{exp.upper()} title",
                "notebook": f"{exp}_x",
                "outputs": "",
                "items": json.dumps(mine),
            }
        )
    return pd.DataFrame(rows)


def _row(id_, source, status="match", cause="", kind="claim", experiment="E2", value="1.0") -> dict:
    row = dict.fromkeys(COLUMNS, "")
    row.update(
        id=id_,
        source=source,
        status=status,
        cause=cause,
        kind=kind,
        experiment=experiment,
        claim=f"claim {id_}",
        reproduced_value=value,
        paper_value="2.0",
    )
    return row


SUMMARY = pd.DataFrame(
    [
        _row("A-fig1", "ISDP §5 Fig 1"),
        _row(
            "A-fig1-b",
            "ISDP §5 (Fig 1: 'words'); App. E.3 (Fig 6, likewise)",
            status="differs",
            cause="Monte Carlo",
            value="3.5 ± 0.1",
        ),
        _row("A-both", "ISDP §5 Table 1 and App. E.3 Table 3 (one each)", status="calibrated"),
        _row("A-fig2", "ISDP §5 Fig 2; App. E.4 Fig 8", status="not-run", experiment="E3"),
        _row("A-none", "ISDP §2 Prop 6", kind="check", experiment="E1"),
        _row(
            "S-left",
            "Subspace DP §1 (the DAS bias audit of Fig 1 left)",
            status="differs",
            cause="data vintage",
            experiment="E3",
        ),
        _row("S-right", "Subspace DP §5.1 (Fig 1 right)", experiment="E4"),
        _row(
            "W-conv",
            "Swapping slides 'Numerical demonstration: 1940 Census full count data', table 'Conversion'",
            experiment="E8",
        ),
        _row(
            "W-cap",
            "Swapping slides 'Numerical demonstration: 1940 Census full count data', table caption",
            experiment="E8",
        ),
        _row(
            "W-mape",
            "Swapping slides 'Numerical demonstration: 1940 Census full count data', MAPE boxplots",
            status="not-comparable",
            cause="not public",
            experiment="E8",
        ),
        _row("W-guide", "Swapping slides 'A Perverse Guide', item 2", experiment="E8"),
    ]
)


@pytest.mark.parametrize(("document", "location", "expected"), PAPER_CASES)
def test_paper_locations_name_their_figures_and_tables(document, location, expected):
    assert [str(r) for r in parse_location(document, location)] == expected


@pytest.mark.parametrize(("document", "location", "expected"), SLIDE_CASES)
def test_slide_locations_name_their_slides(document, location, expected):
    assert [(r.name, r.part, r.lead) for r in parse_location(document, location)] == expected


def test_every_registry_location_parses():
    """The parser reads every location of the real registry; a paper reference is a numbered figure or table."""
    for c in load_registry(REGISTRY):
        for ref in parse_location(c["document"], c["location"]):
            assert ref.kind == "slide" or re.fullmatch(r"\d+", ref.name), (c["id"], ref)


def test_speaks_of_panels_and_slide_parts():
    left, fig1 = ItemRef("Fig", "1", "left"), ItemRef("Fig", "1")
    assert speaks_of(fig1, left) and speaks_of(left, fig1) and speaks_of(left, left)
    assert not speaks_of(ItemRef("Fig", "1", "right"), left) and not speaks_of(ItemRef("Table", "1"), fig1)
    table = ItemRef("slide", "Numerical", "table")
    assert speaks_of(ItemRef("slide", "Numerical", "table caption"), table)
    assert speaks_of(ItemRef("slide", "Numerical", "table"), table)
    assert not speaks_of(ItemRef("slide", "Numerical", "county table"), table)
    assert not speaks_of(ItemRef("slide", "Numerical", ""), table)
    assert speaks_of(ItemRef("slide", "What if", "note"), ItemRef("slide", "What if", "", "table"))
    assert names_figure_or_table(ItemRef("slide", "Implied Constraints", "tables Region A and Region B"))
    assert not names_figure_or_table(ItemRef("slide", "A Perverse Guide", "item 2"))


def test_split_source_takes_the_longest_document_name():
    assert split_source("Swapping slides 'What if', note") == ("Swapping slides", "'What if', note")
    assert split_source("ISDP §5 Fig 2") == ("ISDP", "§5 Fig 2")
    with pytest.raises(ValueError, match="names none"):
        split_source("Unknown paper §1")


def test_items_come_in_the_documents_order():
    items = registry_items(_registry())
    assert list(items["document"]) == ["ISDP"] * 4 + ["Subspace DP", "Swapping slides"]
    # by section (§5 before App. E.3), then as registered: Fig 1, Table 1 (E2), Fig 2 (E3), Table 3
    assert list(items["item"][:4]) == ["Fig 1", "Table 1", "Fig 2", "Table 3"]
    assert documents()[0] == "ISDP" and len(documents()) == 5


def test_an_item_must_name_one_figure_and_be_registered_once():
    with pytest.raises(ValueError, match="names 2 figures"):
        registry_items(_registry([("e1", "ISDP", "§5", "Fig 1 and Fig 2", "a.png", "x")]))
    with pytest.raises(ValueError, match="registered twice"):
        registry_items(
            _registry([("e1", "ISDP", "§5", "Fig 1", "a.png", "x"), ("e2", "ISDP", "§5", "Fig 1", "b.png", "y")])
        )


def test_rows_are_assigned_to_the_items_their_locations_name():
    rows = assign(SUMMARY, registry_items(_registry())).set_index("id")
    assert rows.loc["A-fig1", "items"] == ("ISDP Fig 1",)
    assert rows.loc["A-fig1-b", "items"] == ("ISDP Fig 1",) and rows.loc["A-fig1-b", "unregistered"] == ("Fig 6",)
    assert rows.loc["A-both", "items"] == ("ISDP Table 1", "ISDP Table 3")
    assert rows.loc["A-fig2", "items"] == ("ISDP Fig 2",) and rows.loc["A-fig2", "unregistered"] == ("Fig 8",)
    assert rows.loc["A-none", "items"] == () and rows.loc["A-none", "unregistered"] == ()
    assert rows.loc["S-left", "items"] == ("Subspace DP Fig 1 (left)",) and rows.loc["S-right", "items"] == ()
    assert rows.loc["S-right", "unregistered"] == ("Fig 1 (right)",)
    table = "Swapping slides 'Numerical demonstration: 1940 Census full count data', table"
    assert rows.loc["W-conv", "items"] == (table,) and rows.loc["W-cap", "items"] == (table,)
    assert rows.loc["W-mape", "items"] == () and rows.loc["W-mape", "unregistered"] != ()
    assert rows.loc["W-guide", "items"] == () and rows.loc["W-guide", "unregistered"] == ()
    lost = unregistered(rows.reset_index())
    assert set(lost["id"]) == {"A-fig1-b", "A-fig2", "S-right", "W-mape"}


def test_status_counts_list_every_status():
    counts = status_counts(SUMMARY)
    assert list(counts) == ["match", "differs", "calibrated", "not-comparable", "error", "not-run"]
    assert counts["match"] == 6 and counts["differs"] == 2 and counts["not-run"] == 1 and counts["error"] == 0


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        self.targets += [v for k, v in attrs if k in ("href", "src") and v]


def _fake_run(tmp_path: Path) -> None:
    from PIL import Image

    for item in ITEMS:
        path = tmp_path / item[4]
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".png":
            Image.new("RGB", (800, 600), "steelblue").save(path)
        else:
            pd.DataFrame({"a": [1.5, 2.25], "b": ["x", "y"]}).to_csv(path, index=False)
    for exp in ("e2", "e3", "e8"):
        (tmp_path / "results" / "notebooks").mkdir(parents=True, exist_ok=True)
        (tmp_path / "results" / "notebooks" / f"{exp}_review.html").write_text("<html></html>")
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    SUMMARY.to_csv(tmp_path / "results" / "tables" / "reproduction_summary.csv", index=False)


def test_the_scorecard_step_writes_a_standalone_page_and_the_landing_text(tmp_path, monkeypatch):
    _fake_run(tmp_path)
    monkeypatch.chdir(tmp_path)
    experiments = {
        exp: {
            "title": f"{exp.upper()} title",
            "notebook": f"{exp}_x",
            "outputs": [],
            "items": [
                dict(zip(("document", "where", "item", "output", "label"), i[1:], strict=True))
                for i in ITEMS
                if i[0] == exp
            ],
        }
        for exp in ("e2", "e3", "e8")
    }
    experiment_registry(Job(params={"experiments": experiments}, output={"table": "results/tables/experiments.csv"}))
    registry = pd.read_csv("results/tables/experiments.csv")
    assert list(registry.columns) == ["experiment", "title", "notebook", "outputs", "items"]
    assert json.loads(registry.loc[0, "items"])[0]["item"] == "Fig 1"
    scorecard(
        Job(
            input={"summary": "results/tables/reproduction_summary.csv", "registry": "results/tables/experiments.csv"},
            output={"html": "results/scorecard.html", "landing": "results/report/scorecard.html"},
        )
    )
    page = Path("results/scorecard.html").read_text()
    parser = _Links()
    parser.feed(page)
    local = [t for t in parser.targets if not t.startswith(("#", "data:"))]
    assert local and all((tmp_path / "results" / t).exists() for t in local), local
    assert "figures/fig1.png" in local and "notebooks/e2_review.html" in local
    assert sum(t.startswith("data:image/jpeg") for t in parser.targets) == 3  # a thumbnail per figure
    # the differs row with its cause and value, the not-run row counted, the statements group, the lost items
    assert "A-fig1-b" in page and "Monte Carlo" in page and "3.5 ± 0.1" in page
    assert "1 not-run" in page and "Statements that belong to no figure or table" in page
    assert "no experiment registers" in page and "MAPE boxplots" in page
    assert page.index(">Fig 1<") < page.index(">Table 1<") < page.index(">Fig 2<") < page.index('id="doc-1"')
    landing = Path("results/report/scorecard.html").read_text()
    assert "<img" not in landing and "javascript:app.setView" in landing
    assert "resultPath:&quot;results/figures/fig1.png&quot;" in landing


def test_render_shows_a_document_without_items():
    rows = assign(SUMMARY.iloc[:1], registry_items(_registry(ITEMS[:1])))
    html = render(rows, registry_items(_registry(ITEMS[:1])), {"e2": "E2 title"}, base=None)
    assert "no figure or table of this document is reproduced in this run" in html


def test_the_legend_says_what_every_status_and_every_cause_means(tmp_path, monkeypatch):
    _fake_run(tmp_path)  # the standalone page reads the figures for its thumbnails
    monkeypatch.chdir(tmp_path)
    causes = schema()["properties"]["claims"]["items"]["properties"]["cause"]["enum"]
    assert list(STATUS_MEANINGS) == list(STATUSES) and sorted(CAUSE_MEANINGS) == sorted(causes)
    rows = assign(SUMMARY, registry_items(_registry()))
    for base in (None, "results"):
        html = render(rows, registry_items(_registry()), {e: f"{e} title" for e in ("e2", "e3", "e8")}, base=base)
        assert "How to read the verdicts" in html and all(f"<b>{c}</b>" in html for c in causes)


def test_the_header_says_how_its_counts_relate_to_the_readmes():
    restating = SUMMARY.assign(same_fact_as=["", "A-fig1", *[""] * (len(SUMMARY) - 2)])
    html = render(assign(restating, registry_items(_registry())), registry_items(_registry()), {}, base=None)
    claims_rows = int((SUMMARY["kind"] == "claim").sum())
    assert f"{claims_rows} statements of the documents" in html
    assert "Of the statements, 1 restate another row's fact" in html
    assert f"counts each fact once, {claims_rows - 1} claims" in html


def test_a_fallback_to_another_data_vintage_is_stated_at_the_top():
    fallback = {
        "source_used": "embedded",
        "vintage_used": "20210608",
        "vintage_requested": "20201116",
        "reason": "the download failed (no network)",
    }
    line = data_line(fallback)
    assert "vintage 20210608" in line and "not the vintage 20201116 the paper used" in line and "no network" in line
    assert "not the vintage" not in data_line({**fallback, "vintage_requested": "20210608"})
    assert data_line(None) == ""
    rows = assign(SUMMARY, registry_items(_registry()))
    html = render(rows, registry_items(_registry()), {}, base=None, source=fallback)
    assert html.index("not the vintage 20201116") < html.index('id="doc-0"')


def test_inside_the_report_tables_open_as_text_and_the_standalone_page_disarms_its_links(tmp_path, monkeypatch):
    _fake_run(tmp_path)
    monkeypatch.chdir(tmp_path)
    rows = assign(SUMMARY, registry_items(_registry()))
    landing = render(rows, registry_items(_registry()), {"e2": "E2 title"}, base=None)
    table = re.search(r'href="(javascript:[^"]*results/tables/table1\.csv[^"]*)"', landing)
    assert table and "content:&#x27;text&#x27;" in table.group(1) and "TextDecoder" in table.group(1)
    assert "showResultInfo" not in landing  # which only offered the download
    page = Path(tmp_path / "page.html")
    page.write_text(scorecard_page("<a href='figures/fig1.png'>x</a>"))
    assert "location.protocol" in page.read_text() and "removeAttribute('href')" in page.read_text()
