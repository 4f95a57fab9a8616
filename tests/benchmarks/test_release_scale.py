"""The scale table of docs/release.md (benchmarks/release_scale.py): the committed table is what the script
writes from the committed benchmarks/results/release_scale.csv, and a changed number changes it."""

from __future__ import annotations

import csv
import shutil

import release_scale as rs


def test_the_docs_table_is_generated_from_the_committed_csv(tmp_path):
    doc = tmp_path / "release.md"
    shutil.copy(rs.DOC, doc)
    rs.write_docs(rs.SCALE, doc)
    assert doc.read_text(encoding="utf-8") == rs.DOC.read_text(encoding="utf-8")


def test_a_changed_number_changes_the_table(tmp_path):
    rows = list(csv.DictReader(rs.SCALE.open()))
    before = rs.render_table(rows)
    rows[0]["seconds"] = str(float(rows[0]["seconds"]) + 1)
    assert rs.render_table(rows) != before


def test_every_default_case_has_a_row_and_its_outcome():
    rows = {r["case"]: r for r in csv.DictReader(rs.SCALE.open())}
    assert set(rs.DEFAULT) <= set(rows)
    for case in rs.DEFAULT:
        line = rs.render_table([rows[case]]).splitlines()[-1]
        outcome = line.split(" | ")[4]
        assert outcome.startswith("refused") == rows[case]["route"].startswith("refused"), case
        if case.endswith("-gaussian"):  # the Gaussian route serves every case, with even noise within blocks
            assert outcome == "exact Gaussian, Klein's sampler" and float(rows[case]["variance_max_over_median"]) < 2
