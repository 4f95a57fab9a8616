"""Tests of :mod:`isdp_papers.reporting`: the headline counts of a run's summary (the documents' claims apart
from the project's checks, differs rows by cause, a restating row counted once), their Markdown block, and README's
generated block agreeing with the registry."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import ROOT
from isdp_papers import claims


def _summary_rows(rows):
    return pd.DataFrame(
        [
            dict(
                zip(
                    claims.COLUMNS,
                    [
                        "X-E1-a",
                        "E1",
                        kind,
                        "c",
                        "s",
                        "p",
                        "r",
                        "k",
                        "read (a priori)",
                        status,
                        cause,
                        "",
                        "1 values",
                        same,
                    ],
                    strict=True,
                )
            )
            for kind, status, cause, *same in ((*r, "") if len(r) == 3 else r for r in rows)
            for same in same
        ]
    )


def test_counts_separate_claims_from_checks_with_causes(tmp_path):
    from isdp_papers import reporting

    summary = _summary_rows(
        [
            ("claim", "match", ""),
            ("claim", "differs", "paper error"),
            ("claim", "differs", "data vintage"),
            ("claim", "differs", "data vintage"),
            ("claim", "match", "reading"),  # a cause on a match row is not counted
            ("check", "match", ""),
            ("check", "not-comparable", "not public"),
        ]
    )
    counts = reporting.claim_counts(summary)
    assert counts["count"].sum() == len(summary)
    md = reporting.counts_markdown(counts, "a test")
    assert "| the documents' claims (5) | this project's own checks (2) |" in md
    assert "| differs | 3 (data vintage 2, paper error 1) | 0 |" in md
    assert "| match | 2 | 1 |" in md and "| not-comparable | 0 | 1 (not public 1) |" in md
    # a row restating another row's fact is counted once, under that row, and the footnote says so
    restating = pd.concat([summary, _summary_rows([("claim", "differs", "data vintage", "X-E1-a")])], ignore_index=True)
    assert reporting.claim_counts(restating).equals(counts)
    once = reporting.counts_markdown(reporting.claim_counts(restating), "a test", restated=1)
    assert once.split("<sub>")[0] == md.split("<sub>")[0] and "1 further row restates another row's fact" in once
    readme, block = tmp_path / "README.md", tmp_path / "counts.md"
    block.write_text(md)
    readme.write_text(f"intro\n{reporting.README_START}\nold\n{reporting.README_END}\noutro\n")
    reporting.update_readme(readme, block)
    assert readme.read_text() == f"intro\n{reporting.README_START}\n{md}{reporting.README_END}\noutro\n"
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="claim-counts"):
        reporting.update_readme(readme, block)


def test_readme_counts_are_a_generated_block_that_agrees_with_the_registry(registry):
    """README's headline counts come only from `make readme-counts`; when filled, its totals of
    claims and checks are the registry's."""
    from isdp_papers import reporting

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split(reporting.README_START)[1].split(reporting.README_END)[0]
    if block.strip():
        kinds = [c["kind"] for c in registry if "same_fact_as" not in c]
        assert f"claims ({kinds.count('claim')})" in block and f"checks ({kinds.count('check')})" in block
        assert "Generated from" in block


def _verdict_row(status):
    """A summary row with ``status``, as :func:`isdp_papers.claims.claim_markdown` reads it."""
    return {
        "id": "X-E1-a",
        "claim": "c",
        "source": "s",
        "kind": "claim",
        "paper_value": "p",
        "reproduced_value": "r",
        "reading": "read",
        "criterion": "k",
        "status": status,
        "cause": "",
        "note": "",
    }


def test_the_badge_font_draws_every_verdict_badge():
    """Every glyph of every verdict the notebooks show is in the embedded font, not only in emoji fonts, and
    the font (so the rendered HTML) is the same from run to run."""
    import io
    import re

    from fontTools.ttLib import TTFont
    from isdp_papers import reporting

    font = reporting.badge_font()
    assert font == reporting.badge_font()
    drawn = TTFont(io.BytesIO(font)).getBestCmap()
    for status in claims.STATUSES:
        badge = re.search(r"\*Verdict:\* \*\*(.+?)\*\*", claims.claim_markdown(_verdict_row(status))).group(1)
        assert status.replace("-", " ") in badge  # also in words
        missing = {c for c in badge if ord(c) > 127 and c != "\ufe0f" and ord(c) not in drawn}
        assert not missing, f"{status}: {missing} not in the badge font (add them to BADGE_GLYPHS)"


def test_notebook_html_publishes_the_notebook_without_preamble_or_paths(tmp_path, monkeypatch):
    """The executed copy loses Snakemake's preamble and papermill's temporary path, in place and for good;
    the HTML embeds the badge font and shows the verdicts as the notebook does."""
    import nbformat
    from isdp_papers import reporting
    from isdp_papers.jobs import Job
    from isdp_papers.notebook import PREAMBLE_TAG

    monkeypatch.chdir(tmp_path)
    preamble = nbformat.v4.new_code_cell(
        f"import sys; sys.path.extend([{str(tmp_path)!r}])", metadata={"tags": [PREAMBLE_TAG]}
    )
    verdict = nbformat.v4.new_code_cell(
        "show('X-E1-a')",
        outputs=[
            nbformat.v4.new_output("display_data", data={"text/markdown": claims.claim_markdown(_verdict_row("match"))})
        ],
    )
    nb = nbformat.v4.new_notebook(
        cells=[preamble, verdict],
        metadata={
            "papermill": {
                "input_path": str(tmp_path / ".snakemake" / "scripts" / "tmpx.a_review.py.ipynb"),
                "duration": 1.0,
            }
        },
    )
    executed = tmp_path / "results" / "notebooks" / "a_review.ipynb"
    executed.parent.mkdir(parents=True)
    nbformat.write(nb, executed)
    job = Job(params={"notebook": "results/notebooks/a_review.ipynb"}, output={"html": "results/notebooks/a.html"})
    reporting.notebook_html(job)
    html, published = (tmp_path / "results" / "notebooks" / "a.html").read_text(), executed.read_text()
    for text in (html, published):
        assert str(tmp_path) not in text and "sys.path" not in text and "a_review.context.json" in text
    assert "✅ match" in html and f'font-family: "{reporting.BADGE_FONT}"' in html
    assert "<title>a_review</title>" in html
    assert nbformat.reads(published, as_version=4).metadata.papermill == {"duration": 1.0}
    reporting.notebook_html(job)  # again, e.g. --forcerun: nothing changes
    assert executed.read_text() == published and (tmp_path / "results" / "notebooks" / "a.html").read_text() == html
