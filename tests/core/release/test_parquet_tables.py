"""Parquet tables in and out of ``isdp release`` (``isdp.release._parquet_tables``): the same release and statement as
the CSV of the same table, a directory read as one table, the input's schema kept, and every refusal naming the
row with nothing written."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from release_support import SEEDED, only

from isdp.cli import main


def _table(n: int = 600, block: int = 100) -> pa.Table:
    rng = np.random.default_rng(8)
    return pa.table({"group": [f"b{i // block}" for i in range(n)], "cell": pa.array(np.arange(n), pa.int32()),
                     "count": pa.array(rng.poisson(30, n), pa.uint16())})


def _release(tmp_path, table, out, *extra) -> int:
    return main(["release", str(table), "--invariant", "by:group", "--epsilon", "1", "-o", str(tmp_path / out),
                 "--quiet", *SEEDED, *extra])


def _csv(table: pa.Table, path) -> None:
    columns = table.to_pydict()
    lines = [",".join(table.schema.names)] + [",".join(str(columns[k][i]) for k in table.schema.names)
                                              for i in range(table.num_rows)]
    path.write_text("\n".join(lines) + "\n")


def test_a_parquet_table_gives_the_release_and_statement_of_its_csv_and_keeps_its_schema(tmp_path):
    table = _table()
    pq.write_table(table, tmp_path / "t.parquet")
    _csv(table, tmp_path / "t.csv")
    assert _release(tmp_path, tmp_path / "t.parquet", "r.parquet") == 0
    assert _release(tmp_path, tmp_path / "t.csv", "r.csv") == 0
    released = pq.read_table(tmp_path / "r.parquet")
    assert released.schema.names == table.schema.names and released.schema.field("cell").type == pa.int32()
    assert released.schema.field("count").type == pa.int64()
    assert released.column("cell").equals(table.column("cell"))
    values = released.column("count").to_numpy()
    as_csv = np.array([int(line.rsplit(",", 1)[1]) for line in (tmp_path / "r.csv").read_text().splitlines()[1:]])
    assert np.array_equal(values, as_csv) and not np.array_equal(values, table.column("count").to_numpy())
    x = table.column("count").to_numpy().astype(np.int64)
    assert np.array_equal(values.reshape(-1, 100).sum(axis=1), x.reshape(-1, 100).sum(axis=1))
    statements = [json.loads((tmp_path / f"r.{kind}.statement.json").read_text()) for kind in ("parquet", "csv")]
    assert statements[0] == statements[1]
    assert oct((tmp_path / "r.parquet").stat().st_mode & 0o777) == "0o600"


def test_a_directory_is_one_table_its_files_in_name_order(tmp_path):
    table = _table()
    parts = tmp_path / "parts"
    parts.mkdir()
    pq.write_table(table.slice(300), parts / "part-1.parquet")  # written first, read second
    pq.write_table(table.slice(0, 300), parts / "part-0.parquet")
    (parts / "_SUCCESS").write_text("")  # a writer's marker, not a table
    pq.write_table(table.slice(0, 300), tmp_path / "t.parquet")
    pq.write_table(table, tmp_path / "whole.parquet")
    assert _release(tmp_path, parts, "from_parts.parquet") == 0
    assert _release(tmp_path, tmp_path / "whole.parquet", "from_whole.parquet") == 0
    assert pq.read_table(tmp_path / "from_parts.parquet").equals(pq.read_table(tmp_path / "from_whole.parquet"))
    audit = json.loads((tmp_path / "from_parts.parquet.audit.json").read_text())
    assert audit["input"]["cells"] == 600 and len(audit["input"]["sha256"]) == 64


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.set_column(2, "count", pa.array(np.full(600, 1.5))), "holds double, not integers"),
    (lambda t: t.set_column(0, "group", pa.array(["b0"] * 5 + [None] + ["b0"] * 594)), "line 7: a key field is empty"),
    (lambda t: t.set_column(2, "count", pa.array([3] * 9 + [-1] + [3] * 590)), "line 11, column 'count': negative"),
    (lambda t: t.set_column(1, "cell", pa.array([0] + list(range(599)))), "line 3: duplicate cell"),
    (lambda t: t.rename_columns(["group", "cell", "n"]), "no count column 'count'"),
])
def test_a_bad_parquet_table_is_refused_naming_the_row_and_nothing_is_written(tmp_path, capsys, change, message):
    pq.write_table(change(_table()), tmp_path / "t.parquet")
    assert _release(tmp_path, tmp_path / "t.parquet", "r.parquet") == 3
    err = capsys.readouterr().err
    assert message in err and "1.5" not in err.replace(message, "")
    only(tmp_path, "t.parquet")


def test_parts_whose_columns_differ_or_an_empty_directory_are_refused(tmp_path, capsys):
    parts = tmp_path / "parts"
    parts.mkdir()
    assert _release(tmp_path, parts, "r.parquet") == 3
    assert "a directory without .parquet files" in capsys.readouterr().err
    pq.write_table(_table().slice(0, 300), parts / "a.parquet")
    pq.write_table(_table().slice(300).rename_columns(["group", "cell", "n"]), parts / "b.parquet")
    assert _release(tmp_path, parts, "r.parquet") == 3
    assert "differ from the first file's" in capsys.readouterr().err
    only(tmp_path, "parts")


def test_a_wide_reading_of_parquet_and_a_parquet_release_of_a_wide_table_are_refused(tmp_path, capsys):
    pq.write_table(_table(), tmp_path / "t.parquet")
    assert _release(tmp_path, tmp_path / "t.parquet", "r.csv", "--format", "wide") == 2
    assert "a Parquet table is long" in capsys.readouterr().err
    (tmp_path / "w.csv").write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    code = main(["release", str(tmp_path / "w.csv"), "--invariant", "total", "--epsilon", "1", "-o",
                 str(tmp_path / "w.parquet"), "--quiet", *SEEDED])
    assert code == 2 and "a Parquet release is a long table" in capsys.readouterr().err
    only(tmp_path, "t.parquet", "w.csv")


def test_a_long_csv_table_can_be_released_as_parquet_its_keys_as_text(tmp_path):
    _csv(_table(), tmp_path / "t.csv")
    assert _release(tmp_path, tmp_path / "t.csv", "r.parquet") == 0
    released = pq.read_table(tmp_path / "r.parquet")
    assert released.schema.field("cell").type == pa.string() and released.column("cell")[5].as_py() == "5"


def test_a_hundred_thousand_cell_parquet_release_keeps_every_block_total(tmp_path):
    table = _table(100_000)
    pq.write_table(table, tmp_path / "t.parquet")
    assert _release(tmp_path, tmp_path / "t.parquet", "r.parquet") == 0
    values = pq.read_table(tmp_path / "r.parquet").column("count").to_numpy()
    x = table.column("count").to_numpy().astype(np.int64)
    assert values.dtype == np.int64 and not np.array_equal(values, x)
    assert np.array_equal(values.reshape(-1, 100).sum(axis=1), x.reshape(-1, 100).sum(axis=1))
