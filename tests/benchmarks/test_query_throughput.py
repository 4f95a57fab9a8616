"""The query-cost table of docs/performance.md (benchmarks/query_throughput.py): the committed table is what the
script writes from the committed CSV, its verdicts are computed and can fail, damaged rows are an error, and a tiny
release is released and queried end to end."""

from __future__ import annotations

import shutil

import pytest
import query_throughput as qt


def _rows() -> list[dict]:
    return qt.read_rows(qt.THROUGHPUT)


def test_the_docs_table_is_generated_from_the_committed_csv(tmp_path):
    doc = tmp_path / "performance.md"
    shutil.copy(qt.DOC, doc)
    qt.write_docs(qt.THROUGHPUT, doc)
    assert doc.read_text(encoding="utf-8") == qt.DOC.read_text(encoding="utf-8")


def test_a_changed_number_changes_the_table():
    rows = _rows()
    before = qt.render_table(rows)
    rows[0]["query_seconds"] = str(float(rows[0]["query_seconds"]) + 1)
    assert qt.render_table(rows) != before


def test_the_committed_csv_answers_every_route_at_the_targets_scale_exactly():
    rows = _rows()
    assert [r["route"] for r in rows] == list(qt.ROUTES)
    for row in rows:
        assert int(row["cells"]) == qt.TARGET_CELLS and int(row["queries"]) == qt.TARGET_QUERIES
        assert int(row["exact"]) == qt.TARGET_QUERIES, row  # sums within one total: exact on every route
    assert len({r["sampler_mups"] for r in rows}) == 1  # one run, one machine speed


def test_the_verdicts_are_computed_and_can_fail():
    row = _rows()[0]

    def line(**change):
        return [s for s in qt.render_table([{**row, **change}]).splitlines() if s.startswith("| ")][-1]  # the row's

    assert "BEYOND the 30 s target (1.10×)" in line(query_seconds="33")
    assert "within the 30 s target (0.50×)" in line(query_seconds="15")
    assert "within the 30 s target (1.00×)" in line(query_seconds="30")
    assert "not the target's scale" in line(cells="10000", queries="100", exact="100")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"route": "l2"}, "unknown route"),
        ({"query_seconds": "nan"}, "cannot be"),
        ({"query_seconds": "0"}, "cannot be"),
        ({"read_seconds": "-1"}, "cannot be"),
        ({"query_peak_mb": "0"}, "cannot be"),
        ({"queries": "99999"}, "cannot be"),
        ({"cells": "10000001"}, "cannot be"),
        ({"repeats": "0"}, "no run"),
        ({"exact": "99999"}, "do not add up"),
        ({"exact": "100001", "fixed": "-1"}, "do not add up"),
    ],
)
def test_damaged_rows_are_an_error(change, message):
    rows = _rows()
    rows[1] = {**rows[1], **change}
    with pytest.raises(ValueError, match=message):
        qt.render_table(rows)


def test_a_route_twice_is_an_error():
    rows = _rows()
    with pytest.raises(ValueError, match="twice"):
        qt.render_table([*rows, rows[0]])


def test_the_table_has_the_census_shape(tmp_path):
    import pyarrow.parquet as pq

    qt.write_table(tmp_path / "t.parquet", 20_000)
    table = pq.read_table(tmp_path / "t.parquet").to_pydict()
    keys = list(zip(table["county"], table["block"], table["age"], strict=True))
    assert len(set(keys)) == len(keys) == 20_000
    assert [len(set(table[c])) for c in ("county", "block", "age")] == [2, 100, 100]
    with pytest.raises(ValueError, match="multiple of 10,000"):
        qt.write_table(tmp_path / "u.parquet", 15_000)


def test_a_tiny_release_is_released_and_queried_end_to_end():
    (row,) = qt.run(10_000, ["gaussian"])
    assert row["route"] == "gaussian" and row["queries"] == row["exact"] == 100 and row["repeats"] == 1
    assert row["query_seconds"] > 0 and row["query_peak_mb"] > 0 and row["answer_peak_mb"] > 0
    assert "not the target's scale" in qt.render_table([{k: str(v) for k, v in row.items()} | {"sampler_mups": ""}])
