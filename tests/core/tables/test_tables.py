"""Tests of :mod:`isdp.tables._tables`: a release's table read whatever its layout, a dry run's reading of the
labels alone (it refuses what a release refuses, and never reads a count), and tables released together."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from isdp.errors import InputError, UsageError
from isdp.release import Request, make_release
from isdp.tables import Table, TableSet, constraint_matrix, load_table
from isdp.tables._tables import read_table_keys


@pytest.mark.parametrize(
    "text",
    [
        "g,a,b\nu,?,?\nu,?,?\n",
        "g,a,A\nu,?,?\nv,?,?\n",
        "g,h,count\nu,k,?\nU,K,?\n",
        "g,count,count\nu,?,?\n",
        "g,a,b\n\u200b,?,?\n",
    ],
)
def test_a_dry_run_refuses_the_labels_a_release_refuses_without_reading_a_count(tmp_path, text):
    """Counts written '?' would be refused by a full read: the dry run's refusal comes from the labels alone."""
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="duplicate|repeats the column|invisible"):
        load_table(path, labels_only=True)


def test_a_dry_run_never_reads_a_count(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("state,year,count\nA,2019,?\nA,2020,-5\nB,2019,1_0\n")
    table = load_table(path, labels_only=True)
    assert table.x is None and table.keys == [("A", "2019"), ("A", "2020"), ("B", "2019")]
    assert table.key_names == ("state", "year")
    with pytest.raises(UsageError, match="labels only"):  # nothing to write the cells into
        table.with_cells([1, 2, 3])
    A, labels = constraint_matrix(table, ["total"])
    with pytest.raises(UsageError, match="labels only"):  # nor any count to release
        make_release(table, A, labels, Request(epsilon="1", seed=2, progress=False))


@pytest.mark.parametrize(
    "text, count_column",
    [("g,a,b,Total\nu,?,?,?\nv,?,?,?\n", None), ("state,year,count\nA,2019,?\nB,2019,?\n", "count")],
    ids=["wide", "long"],
)
def test_read_table_keys_gives_the_dry_run_s_keys(tmp_path, text, count_column):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert read_table_keys(path, count_column) == load_table(path, labels_only=True).keys


# --------------------------------------------------------------------------- a table made by a caller

_KEYS = [("A", "F"), ("A", "M"), ("B", "F")]


@pytest.mark.parametrize(
    "x, message",
    [
        (np.array([3.0, 4.0, 5.0]), "integer dtype, got float64 .a count is an integer, not a float."),
        (np.array([3.5, 4.0, 5.0]), "integer dtype, got float64"),
        (np.array([3, 4, 5], dtype=object), "integer dtype, got object"),
        (np.array([3, 2**63 + 1, 5], dtype=np.uint64), "include one beyond 2..53 .cell 1."),
        (np.array([3, 2**53 + 1, 5]), "include one beyond 2..53 .cell 1."),
        (pd.array([3, None, 5], dtype="Int64"), "have a missing value"),
        (np.array([3, None, 5], dtype=object), "have a missing value"),
        (np.array([3, -4, 5]), "include a negative count .cell 1."),
        (np.array([True, False, True]), "integer dtype, got bool"),
        (np.array([3, 4]), "one per cell .3., got shape .2,."),
        (np.array([[3, 4, 5]]), "one per cell .3., got shape .1, 3."),
    ],
    ids=[
        "whole floats",
        "floats",
        "objects",
        "uint64 beyond int64",
        "beyond 2**53",
        "pandas NA",
        "None",
        "negative",
        "bools",
        "too few",
        "two-dimensional",
    ],
)
def test_a_table_s_counts_are_refused_as_the_command_line_refuses_them(x, message):
    """Counts the command line would refuse in a file are refused when a caller makes the table: never an
    AssertionError (or a negative count accepted) further on."""
    with pytest.raises(InputError, match=f"t.csv: the counts .x. .*{message}"):
        Table("t.csv", x, _KEYS, None, ("g", "k"))


@pytest.mark.parametrize(
    "x",
    [
        np.array([3, 4, 5], dtype=np.uint64),
        np.array([3, 4, 5], dtype=np.int8),
        pd.Series([3, 4, 5], dtype="Int64"),
        [3, 4, 5],
    ],
    ids=["uint64", "int8", "pandas Int64", "list"],
)
def test_integer_counts_of_any_dtype_are_released_as_int64(tmp_path, x):
    path = tmp_path / "t.csv"
    path.write_text("g,k,count\nA,F,3\nA,M,4\nB,F,5\n")
    read = load_table(path)
    table = Table(path, x, read.keys, read.layout, read.key_names)
    assert table.x.dtype == np.int64 and table.x.tolist() == [3, 4, 5]
    A, labels = constraint_matrix(table, ["by:g"])
    release = make_release(table, A, labels, Request(epsilon="1", seed=2, progress=False))
    assert release.values.dtype == np.int64 and release.values[:2].sum() == 7 and release.values[2] == 5


@pytest.mark.parametrize(
    "args, kwargs, argument",
    [
        ((None,), {}, "path"),
        ((5,), {}, "path"),
        (("t.csv",), {"count_column": 5}, "count_column"),
        (("t.parquet",), {"count_column": None}, "count_column"),
        (("t.csv",), {"count_column": b"count"}, "count_column"),
    ],
    ids=["no path", "a number as path", "a number as count column", "None as count column", "bytes as count column"],
)
def test_a_path_or_count_column_that_is_not_a_name_is_refused_naming_the_argument(
    tmp_path, monkeypatch, args, kwargs, argument
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("g,count\na,1\nb,2\n")
    (tmp_path / "t.parquet").write_bytes(b"")
    with pytest.raises(UsageError, match=f"^{argument} must be") as err:
        load_table(*args, **kwargs)
    assert err.value.argument == argument


# --------------------------------------------------------------------------- tables released together


def test_a_table_set_joins_its_tables_in_order_and_names_them_by_their_stems(tmp_path):
    (tmp_path / "county.csv").write_text("county,count\nA,7\nB,5\n")
    (tmp_path / "sex.csv").write_text("g,F,M\nA,3,4\nB,5,0\n")
    tables = TableSet.of([load_table(tmp_path / "county.csv"), load_table(tmp_path / "sex.csv")])
    assert tables.x.tolist() == [7, 5, 3, 4, 5, 0] and tables.position("sex") == 1
    assert tables.cell_labels[1:3] == ["county|B", "sex|A|F"]
    assert [g.tolist() for g in tables.groups] == [[0, 1], [2, 3, 4, 5]]
    with pytest.raises(UsageError, match="no table called 'age'"):
        tables.position("age")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "sex.csv").write_text("g,F,M\nA,1,1\n")
    with pytest.raises(UsageError, match="distinct file names"):
        TableSet.of([load_table(tmp_path / "sex.csv"), load_table(tmp_path / "other" / "sex.csv")])
