"""When splitting pays (benchmarks/engine_crossover.py): the committed table is the committed CSV's, the crossover
is where an engine starts and stays faster than one process, and damaged rows are an error."""

from __future__ import annotations

import csv
import shutil

import engine_crossover as ec
import pytest


def _rows(times: dict[int, tuple[float, float, float]]) -> list[dict]:
    return [
        {"cells": str(cells), "engine": engine, "seconds": str(s)}
        for cells, seconds in times.items()
        for engine, s in zip(ec.ENGINES, seconds, strict=True)
    ]


def test_the_docs_table_is_generated_from_the_committed_csv(tmp_path):
    doc = tmp_path / "performance.md"
    shutil.copy(ec.PERFORMANCE, doc)
    ec.write_docs(ec.CSV, doc)
    assert doc.read_text(encoding="utf-8") == ec.PERFORMANCE.read_text(encoding="utf-8")


def test_the_crossover_is_where_an_engine_starts_and_stays_faster():
    rows = _rows({1: (1.0, 2.0, 3.0), 2: (2.0, 1.5, 3.0), 4: (4.0, 4.5, 3.9), 8: (8.0, 5.0, 6.0)})
    assert ec.crossover(rows, "local, 2 workers") == 8  # faster at 2, slower at 4: only from 8 on
    assert ec.crossover(rows, "dask, 2 workers") == 4
    slower = _rows({1: (1.0, 2.0, 3.0), 2: (2.0, 2.5, 3.0)})
    assert ec.crossover(slower, "dask, 2 workers") is None
    assert "does not beat one process" in ec.render(slower)
    assert "local, 2 workers beats one process from 8 cells on" in ec.render(rows)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda rows: rows[0].update(seconds="nan"), "a time that cannot be"),
        (lambda rows: rows[0].update(engine="threads"), "an unknown engine"),
        (lambda rows: rows.pop(), "lacks an engine"),
        (lambda rows: rows.append(dict(rows[0])), "twice"),
    ],
)
def test_damaged_rows_are_an_error(damage, message):
    rows = list(csv.DictReader(ec.CSV.open()))
    damage(rows)
    with pytest.raises(ValueError, match=message):
        ec.render(rows)
