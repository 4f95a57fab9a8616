"""Tests of :mod:`isdp.release._tables`: a release's table read whatever its layout, a dry run's reading of the
labels alone (it refuses what a release refuses, and never reads a count), and tables released together."""

from __future__ import annotations

import pytest

from isdp.errors import InputError, UsageError
from isdp.release import TableSet, load_table, read_table_keys


@pytest.mark.parametrize("text", ["g,a,b\nu,?,?\nu,?,?\n", "g,a,A\nu,?,?\nv,?,?\n", "g,h,count\nu,k,?\nU,K,?\n",
                                  "g,count,count\nu,?,?\n", "g,a,b\n\u200b,?,?\n"])
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


@pytest.mark.parametrize("text, count_column", [("g,a,b,Total\nu,?,?,?\nv,?,?,?\n", None),
                                                ("state,year,count\nA,2019,?\nB,2019,?\n", "count")],
                         ids=["wide", "long"])
def test_read_table_keys_gives_the_dry_run_s_keys(tmp_path, text, count_column):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert read_table_keys(path, count_column) == load_table(path, labels_only=True).keys


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
