"""Tests of :mod:`isdp.tables._key_columns`: a Parquet table's keys held a column at a time read as the list of
tuples and the list of labels they stand for."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from isdp.tables import load_table
from isdp.tables._key_columns import CellLabels, KeyColumns


def test_keys_read_as_tuples_by_index_slice_and_iteration(monkeypatch):
    import isdp.tables._key_columns as key_columns

    monkeypatch.setattr(key_columns, "_CHUNK", 2)  # iteration in several chunks
    labels = [pa.array(["north", "south"]), pa.array(["0-4", "5+", "é"])]
    keys = KeyColumns(labels, [np.array([0, 0, 1, 1, 1], dtype=np.int32), np.array([0, 1, 0, 1, 2], dtype=np.int32)])
    expected = [("north", "0-4"), ("north", "5+"), ("south", "0-4"), ("south", "5+"), ("south", "é")]
    assert len(keys) == 5 and list(keys) == expected and keys == expected and expected == keys
    assert [keys[i] for i in range(-5, 5)] == expected + expected and keys[1:4] == expected[1:4]
    assert keys != expected[:4] and keys != [("north", "0-4")] * 5
    assert keys.column(1)[0].tolist() == [0, 1, 0, 1, 2] and keys.column(1)[1] == 3
    labels_of_cells = CellLabels(keys)
    assert list(labels_of_cells) == [f"{a}|{b}" for a, b in expected] == labels_of_cells
    assert labels_of_cells[-1] == "south|é" and labels_of_cells[:2] == ["north|0-4", "north|5+"]
    with pytest.raises(TypeError):
        hash(keys)


def test_labels_of_a_sliced_arrow_array_are_read_from_its_offset():
    labels = pa.array(["skipped", "a", "bb", "ccc"]).slice(1)
    keys = KeyColumns([labels], [np.array([2, 0, 1], dtype=np.int32)])
    assert list(keys) == [("ccc",), ("a",), ("bb",)] and keys[0] == ("ccc",)


def test_a_plain_parquet_tables_keys_are_held_as_codes_and_read_as_tuples(tmp_path):
    n = 600
    pq.write_table(
        pa.table(
            {
                "group": [f"b{i // 100}" for i in range(n)],
                "cell": pa.array(np.arange(n), pa.int32()),
                "count": pa.array(np.full(n, 3), pa.uint16()),
            }
        ),
        tmp_path / "t.parquet",
    )
    table = load_table(tmp_path / "t.parquet")
    assert isinstance(table.keys, KeyColumns) and all(codes.dtype == np.int32 for codes in table.keys.codes)
    assert isinstance(table.cell_labels, CellLabels)
    assert table.keys[101] == ("b1", "101") and table.keys[-1] == ("b5", "599") and table.cell_labels[7] == "b0|7"
    assert list(table.keys) == [(f"b{i // 100}", str(i)) for i in range(600)] == table.keys
    assert list(table.cell_labels) == [f"b{i // 100}|{i}" for i in range(600)] == table.cell_labels


def test_take_gives_the_keys_of_cells_in_chosen_columns_as_indexing_does():
    keys = KeyColumns([pa.array(["A", "B"]), pa.array(["F", "M"])], [np.array([0, 0, 1]), np.array([0, 1, 0])])
    cells = np.array([2, 0])
    assert keys.take(cells, [0, 1]) == [keys[2], keys[0]]
    assert keys.take(cells, [1]) == [("F",), ("F",)]
    assert keys.take(cells, []) == [(), ()]  # a total's label names no key column


def test_cell_labels_take_gives_the_labels_indexing_gives():
    labels = [pa.array(["north", "south"]), pa.array(["0-4", "5+", "é"])]
    keys = KeyColumns(labels, [np.array([0, 0, 1, 1, 1], dtype=np.int32), np.array([0, 1, 0, 1, 2], dtype=np.int32)])
    cell_labels = CellLabels(keys)
    cells = np.array([4, 0, 2, 4])
    assert (
        cell_labels.take(cells) == [cell_labels[i] for i in cells] == ["south|é", "north|0-4", "south|0-4", "south|é"]
    )
    assert cell_labels.take(np.zeros(0, dtype=np.int64)) == []


def test_integer_labels_read_as_the_text_arrow_casts_them_to_by_every_route(monkeypatch):
    """A column of integers keeps its labels as integers; each way of reading them gives their text."""
    import isdp.tables._key_columns as key_columns

    monkeypatch.setattr(key_columns, "_CHUNK", 2)
    labels = [pa.array([12, -5, 0], pa.int64()), pa.array(["x", "y"])]
    keys = KeyColumns(labels, [np.array([0, 1, 2, 1], dtype=np.int32), np.array([0, 0, 1, 1], dtype=np.int32)])
    expected = [("12", "x"), ("-5", "x"), ("0", "y"), ("-5", "y")]
    assert list(keys) == expected and [keys[i] for i in range(4)] == expected
    assert keys.take(np.array([3, 0]), [0]) == [("-5",), ("12",)] and keys.column(0)[1] == 3
    assert CellLabels(keys).take(np.array([2, 1])) == ["0|y", "-5|x"]
