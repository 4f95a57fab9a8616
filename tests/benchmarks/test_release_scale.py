"""The scale table of docs/release.md and the engines' table of docs/performance.md (benchmarks/release_scale.py):
each committed table is what the script writes from its committed CSV, a changed number changes it, and damaged
rows are an error."""

from __future__ import annotations

import csv
import os
import shutil

import pytest
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


def test_the_acceptance_tables_are_generated_from_the_committed_study(tmp_path):
    docs = (tmp_path / "release.md", tmp_path / "performance.md")
    shutil.copy(rs.DOC, docs[0])
    shutil.copy(rs.PERFORMANCE, docs[1])
    rs.write_acceptance_docs(rs.ACCEPTANCE_CSV, docs)
    assert docs[0].read_text(encoding="utf-8") == rs.DOC.read_text(encoding="utf-8")
    assert docs[1].read_text(encoding="utf-8") == rs.PERFORMANCE.read_text(encoding="utf-8")


def test_the_study_draws_one_total_directly_and_its_rejection_numbers_are_the_exact_acceptance():
    """A total's rejection proposals are 1/P(S_n = 0)·P(DG = 0) (sum_constraint_acceptance at ε = 1/2); a total is
    drawn directly (0 in log₁₀), the margins by rejection (the forecast in both columns)."""
    import math

    from isdp.exact import sum_constraint_acceptance

    rows = list(csv.DictReader(rs.ACCEPTANCE_CSV.open()))
    for row in rows:
        direct = row["invariants"].startswith("total")
        assert row["drawn_directly"] == str(direct)
        if direct:
            exact = -math.log10(sum_constraint_acceptance(int(row["cells"]), 0.5))
            assert (
                float(row["log10_expected_proposals"]) == 0
                and abs(float(row["log10_rejection_proposals"]) - exact) < 0.006
            )
        else:
            assert row["log10_expected_proposals"] == row["log10_rejection_proposals"]
    damaged = [dict(rows[0], drawn_directly="maybe")]
    with pytest.raises(ValueError, match="do not say"):
        rs.render_acceptance(damaged)


def _engine_rows():
    return list(csv.DictReader(rs.ENGINES_CSV.open()))


def test_the_engines_table_is_generated_from_the_committed_csv(tmp_path):
    doc = tmp_path / "performance.md"
    shutil.copy(rs.PERFORMANCE, doc)
    rs.write_engine_docs(rs.ENGINES_CSV, doc)
    assert doc.read_text(encoding="utf-8") == rs.PERFORMANCE.read_text(encoding="utf-8")


def test_the_committed_engines_csv_releases_each_shape_at_full_size_by_each_engine():
    rows = _engine_rows()
    assert {(r["shape"], int(r["cells"]), r["engine"]) for r in rows} == {
        (shape, rs.ENGINE_CELLS, engine) for shape in rs.ENGINE_SHAPES for engine in rs.ENGINES
    }
    assert all(int(r["input_files"]) == rs.ENGINE_CELLS // rs.FILE_ROWS for r in rows)


def test_the_engines_verdicts_are_computed_and_can_fail():
    rows = [r for r in _engine_rows() if r["shape"] == "blocks"]
    single = next(r for r in rows if r["engine"] == "single process")
    dask = next(r for r in rows if r["engine"] == "dask")

    def dask_line(**change):
        table = rs.render_engines([single, {**dask, **change}])
        return next(line for line in table.splitlines() if "| dask |" in line)

    slow = dask_line(seconds=str(float(single["seconds"]) * 1.25))
    assert "1.25 (beyond the 1.2× limit)" in slow
    assert "0.50 (within the 1.2× limit)" in dask_line(seconds=str(float(single["seconds"]) / 2))
    assert "DIFFERS" in dask_line(statement_sha256="0" * 64)
    assert "byte-identical" in dask_line(statement_sha256=single["statement_sha256"])


@pytest.mark.parametrize(
    "change, message",
    [
        ({"engine": "spark"}, "unknown shape or engine"),
        ({"seconds": "nan"}, "cannot be"),
        ({"seconds": "-1"}, "cannot be"),
        ({"peak_mb": "0"}, "cannot be"),
        ({"statement_sha256": "abc"}, "not a SHA-256"),
        ({"statement_sha256": "g" * 64}, "not a SHA-256"),
    ],
)
def test_damaged_engine_rows_are_an_error(change, message):
    rows = _engine_rows()
    rows[1] = {**rows[1], **change}
    with pytest.raises(ValueError, match=message):
        rs.render_engines(rows)


def test_an_engine_missing_or_twice_is_an_error():
    rows = _engine_rows()
    with pytest.raises(ValueError, match="lacks an engine"):
        rs.render_engines(rows[1:])
    with pytest.raises(ValueError, match="twice"):
        rs.render_engines([*rows, rows[0]])


def test_a_timed_process_may_write_its_bytecode_and_keeps_the_rest_of_the_environment(monkeypatch):
    """Where the machine forbids bytecode caches, a timed command would compile its imports at every start."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("ISDP_TIMED_ENV_PROBE", "kept")
    env = rs.timed_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["ISDP_TIMED_ENV_PROBE"] == "kept"
    assert env == {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
