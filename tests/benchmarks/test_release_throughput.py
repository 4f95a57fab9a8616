"""The noise-throughput table of docs/performance.md (benchmarks/release_throughput.py): the committed table is
what the script writes from the committed CSV, the CSV's derived column agrees with its sources, and a row can
be measured."""

from __future__ import annotations

import csv
import math
import shutil

import release_throughput as rt


def _rows() -> list[dict]:
    with rt.THROUGHPUT.open() as fh:
        return list(csv.DictReader(fh))


def test_the_docs_table_is_generated_from_the_committed_csv(tmp_path):
    doc = tmp_path / "performance.md"
    shutil.copy(rt.DOC, doc)
    rt.write_docs(rt.THROUGHPUT, doc)
    assert doc.read_text(encoding="utf-8") == rt.DOC.read_text(encoding="utf-8")


def test_a_changed_number_changes_the_table():
    rows = _rows()
    before = rt.render_table(rows, 1.0)
    rows[0]["seconds"] = str(float(rows[0]["seconds"]) + 1)
    assert rt.render_table(rows, 1.0) != before


def test_the_committed_csv_has_every_default_row_and_consistent_rates():
    rows = _rows()
    assert {(r["sampler"], int(r["cells"])) for r in rows} == {(s, n) for s, sizes in rt.DEFAULT.items() for n in sizes}
    assert len({r["sampler_mups"] for r in rows}) == 1  # one run, one machine speed
    for row in rows:
        seconds, cells = float(row["seconds"]), int(row["cells"])
        assert math.isfinite(seconds) and seconds > 0 and int(row["peak_mb"]) > 0
        assert abs(int(row["cells_per_second"]) - cells / seconds) <= 0.01 * cells / seconds + 1, row


def test_a_noise_row_is_measured_in_its_own_process():
    row = rt.measure("isdp-dg-compiled", 1000)
    assert row["sampler"] == "isdp-dg-compiled" and row["cells"] == 1000
    assert row["seconds"] > 0 and row["peak_mb"] > 0


def test_the_command_lines_are_computed_from_the_rows_and_can_change():
    """The whole command over its kernel (at the command's largest size, the kernel's fastest rate) and OpenDP's
    noise alone over the command (at the sizes both ran), from the rows, not typed."""
    rows = [
        {"sampler": "isdp-release-l1-parquet", "cells": "1000000", "seconds": "2.0", "cells_per_second": "500000"},
        {"sampler": "isdp-l1-one-total", "cells": "1000000", "seconds": "0.1", "cells_per_second": "10000000"},
        {"sampler": "opendp-laplace", "cells": "1000000", "seconds": "12.0", "cells_per_second": "83333"},
    ]
    lines = "\n".join(rt._command_lines(rows))
    assert "ℓ1, blocks of 100, one process, 1,000,000 cells: 20.0×" in lines  # 2 s over 0.1 s
    assert "ℓ1, blocks of 100, one process, 1,000,000 cells: 6.0×" in lines  # 12 s over 2 s
    rows[0]["seconds"] = "3.0"
    assert "4.0×" in "\n".join(rt._command_lines(rows))
    assert rt._command_lines(rows[1:]) == []
