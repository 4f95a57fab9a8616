"""Tests of :mod:`isdp.experiments.reporting`: the headline counts of a run's summary (the documents' claims apart
from the project's checks, differs rows by cause, a restating row counted once), their Markdown block, and README's
generated block agreeing with the registry."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import REGISTRY, ROOT

from isdp.experiments import claims


@pytest.fixture(scope="module")
def registry():
    return claims.load_registry(REGISTRY)


def _summary_rows(rows):
    return pd.DataFrame([dict(zip(claims.COLUMNS, ["X-E1-a", "E1", kind, "c", "s", "p", "r", "k", "read (a priori)",
                                                   status, cause, "", "1 values", same], strict=True))
                         for kind, status, cause, *same in ((*r, "") if len(r) == 3 else r for r in rows)
                         for same in same])


def test_counts_separate_claims_from_checks_with_causes(tmp_path):
    from isdp.experiments import reporting

    summary = _summary_rows([("claim", "match", ""), ("claim", "differs", "paper error"),
                             ("claim", "differs", "data vintage"), ("claim", "differs", "data vintage"),
                             ("claim", "match", "reading"),  # a cause on a match row is not counted
                             ("check", "match", ""), ("check", "not-comparable", "not public")])
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
    from isdp.experiments import reporting

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split(reporting.README_START)[1].split(reporting.README_END)[0]
    if block.strip():
        kinds = [c["kind"] for c in registry if "same_fact_as" not in c]
        assert f"claims ({kinds.count('claim')})" in block and f"checks ({kinds.count('check')})" in block
        assert "Generated from" in block
