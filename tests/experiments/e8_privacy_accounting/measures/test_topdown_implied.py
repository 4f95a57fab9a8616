"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_implied`: the TopDown talk's implied
constraints — the region margins (and a misprinted total), the integer gap of two marginals (absent on an instance
without a hole), and the fractional extension that fails when implied constraints are missing."""

from __future__ import annotations

import numpy as np
import pandas as pd
from accounting_support import e8_run
from conftest import REGISTRY, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting.measures.topdown_implied import region_margins


def test_region_margins_fail_on_a_misprinted_total(tmp_path):
    run = e8_run(tmp_path)
    c = claims.claim("TDA-E8-region-margins", REGISTRY)
    assert row_verdict("TDA-E8-region-margins", run)[0] == "match"
    wrong = {**c["paper_value"], "A": {**c["paper_value"]["A"], "rows": [r + 1 for r in c["paper_value"]["A"]["rows"]]}}
    assert judge(c["criterion"], wrong, region_margins(run, wrong)) == "differs"


def test_region_margins_note_compares_fractional_and_integer_parents(tmp_path):
    m = row_verdict("TDA-E8-region-margins", e8_run(tmp_path))[1]
    assert "the same parents" in m.note and "NOT" not in m.note


def _write_margins(path, region_a, region_b, parent):
    rows = [
        (name, i + 1, j + 1, int(v))
        for name, table in (("top", region_a), ("left", region_b), ("right", parent))
        for (i, j), v in np.ndenumerate(table)
    ]
    pd.DataFrame(rows, columns=["margin", "i", "j", "count"]).to_csv(path, index=False)


def test_two_marginals_gap_matches_and_fails_on_an_instance_without_a_hole(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("TDA-E8-two-marginals-integer-gap", run)
    assert status == "match"
    # the margins of an integer 6 × 4 × 3 table always extend with integer counts: no hole, so the row differs
    table = np.random.default_rng(7).integers(0, 3, size=(6, 4, 3))
    _write_margins(tmp_path / "no_hole.csv", table.sum(2), table.sum(1), table.sum(0))
    status, m = row_verdict("TDA-E8-two-marginals-integer-gap", run, instance=str(tmp_path / "no_hole.csv"))
    assert status == "differs" and m.value["size_3_gap"] is False


def test_fractional_extension_fails_when_implied_constraints_are_missing(run):
    cid = "TDA-E8-implied-fractional-extension"
    assert row_verdict(cid, run)[0] == "match"
    for k in (1, 2):
        status, m = row_verdict(cid, run, max_combination=k)
        assert status == "differs" and "at most" in m.text
