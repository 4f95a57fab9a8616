"""Tests of :mod:`isdp.tables._long_tables` (``read_long_table``): the count column found by
its name as it looks, the other fields kept as each cell's key and written back unchanged, and keys a release
would publish wrongly refused, naming the line or column."""

from __future__ import annotations

import pytest

import isdp.tables._long_tables as long_tables
from isdp.errors import InvariantError
from isdp.tables._long_tables import read_long_table


def test_the_count_column_may_be_anywhere_and_the_lines_are_written_back_as_read(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("state,Persons,year\nA,3,2019\nA,4,2020\nB,-1,2019\n")
    table = read_long_table(path, count_column="persons", counts=False)  # matched ignoring case
    assert table.count_column == 1 and table.key_columns == [0, 2]
    assert table.keys == [("A", "2019"), ("A", "2020"), ("B", "2019")] and table.counts.tolist() == [3, 4, -1]
    assert table.with_cells([5, 0, 2]) == [
        ["state", "Persons", "year"],
        ["A", "5", "2019"],
        ["A", "0", "2020"],
        ["B", "2", "2019"],
    ]
    with pytest.raises(InvariantError, match="line 4, column 'Persons': negative count"):
        read_long_table(path, count_column="persons")


@pytest.mark.parametrize(
    "text, count_column, message",
    [
        ("state,year,count\nA,2019,3\n", "n", "no count column 'n' in the header"),
        ("state,count,Count\nA,3,4\n", "count", "the header repeats the column 'Count' .columns 2 and 3."),
        ("state,year,count\nA,,3\n", "count", "line 2: a key field is empty .column 'year'."),
        ("state,count\nA,3\nTotal,3\n", "count", "line 3: the key in column 'state' is labelled as a margin"),
        ("state,year,count\nA,2019,3\nA,2019,4\n", "count", "line 3: duplicate cell .'A', '2019'., as at line 2"),
        (
            "state,n,count\nA,3,9\nB,4,9\n",
            "count",
            "column 2, 'n', is named like a count column and holds only integers",
        ),
    ],
    ids=["no count column", "two count columns", "empty key", "total line", "repeated key", "counts as keys"],
)
def test_keys_a_release_would_publish_wrongly_are_refused(tmp_path, text, count_column, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InvariantError, match=message):
        read_long_table(path, count_column=count_column)


_TABLES = {  # each read by the column-at-a-time checks and by the line-by-line ones: the same outcome
    "plain": "state,year,count\nA,2019,3\nA,2020,+4\nB,2019,007\n",
    "spaced duplicate": "area,count\nNew  York,3\nnew york,4\n",
    "case duplicate": "area,sex,count\nA,F,1\na,f,2\n",
    "margin inside a word": "area,count\nTotally,3\nsmall,4\nsummer,5\n",
    "margin label": "area,count\nA,3\nAll ages,4\n",
    "margin word": "area,count\nA,3\nGrand total,4\n",
    "non-ASCII": "area,count\nZürich,3\nZu\u0308rich,4\n",
    "invisible": "area,count\nA,3\n\u200b,4\n",
    "tab": 'area,count\n"a\tb",3\nc,4\n',
    "empty second key": "area,sex,count\nA,F,3\nB,,4\n",
    "seventeen digits": "area,count\nA,3\nB,12345678901234567\n",
    "too large": "area,count\nA,3\nB,9007199254740993\n",
    "negative": "area,count\nA,3\nB,-4\n",
    "fraction": "area,count\nA,3\nB,4.5\n",
}


@pytest.mark.parametrize("name", list(_TABLES))
def test_the_column_at_a_time_checks_agree_with_the_line_by_line_ones(tmp_path, monkeypatch, name):
    path = tmp_path / "t.csv"
    path.write_text(_TABLES[name], encoding="utf-8")

    def outcome():
        try:
            table = read_long_table(path)
        except InvariantError as err:
            return str(err)
        return table.keys, table.counts.tolist()

    fast = outcome()
    monkeypatch.setattr(long_tables, "_plain_keys", lambda columns: None)
    monkeypatch.setattr(long_tables, "_plain_counts", lambda column, counts: None)
    assert fast == outcome()
    assert isinstance(fast, tuple) == (name in ("plain", "margin inside a word", "tab"))


def test_a_missing_file_or_a_count_column_that_is_not_a_name_is_refused_naming_it(tmp_path):
    from isdp.errors import UsageError

    with pytest.raises(InvariantError, match="t.csv: cannot read the table .No such file or directory."):
        read_long_table(tmp_path / "t.csv")
    (tmp_path / "t.csv").write_text("g,count\na,1\n")
    with pytest.raises(UsageError, match="count_column must be a column's name .str., got NoneType"):
        read_long_table(tmp_path / "t.csv", count_column=None)
