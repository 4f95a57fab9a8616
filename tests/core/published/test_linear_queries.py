"""The queries a reader asks: group sums by key columns (first-seen order), and a queries file's combinations."""

import pytest

from isdp.errors import InputError, UsageError
from isdp.published._linear_queries import group_sums, read_queries
from isdp.tables import TableSet, load_table


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("county,sex,age,count\nB,F,1,1\nA,F,1,2\nB,M,2,3\nA,M,1,4\nB,F,2,5\n")
    return load_table(path)


def test_group_sums_add_each_group_s_cells_in_first_seen_order(table):
    W, names = group_sums(table, ["county"])
    assert names == ["county=B", "county=A"]
    assert (W @ table.x).tolist() == [1 + 3 + 5, 2 + 4]
    W, names = group_sums(table, ["sex", "age"])
    assert names == ["sex=F, age=1", "sex=M, age=2", "sex=M, age=1", "sex=F, age=2"]
    assert W.sum(axis=0).tolist() == [1] * 5  # every cell in exactly one group


def test_group_sums_refuse_an_unknown_column_and_several_tables(table):
    with pytest.raises(UsageError, match="no key column 'state'"):
        group_sums(table, ["state"])
    with pytest.raises(UsageError, match="queries file"):
        group_sums(TableSet((table,), ("t",)), ["county"])


def test_a_queries_file_names_cells_by_label_and_adds_repeats(table, tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("query,cell,coefficient\nd,B|F|1,1\nd,A|F|1,-1\ntwice,A|M|1,2\nd,B|F|1,1\n")
    W, names = read_queries(path, table)
    assert names == ["d", "twice"]
    assert W.toarray().tolist() == [[2, -1, 0, 0, 0], [0, 0, 0, 2, 0]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q,c,w\n", "header"),
        ("query,cell,coefficient\nd,Z|F|1,1\n", "no cell 'Z|F|1'"),
        ("query,cell,coefficient\nd,B|F|1,0.5\n", "not an integer"),
        ("query,cell,coefficient\nd,B|F|1\n", "not 3"),
        ("query,cell,coefficient\n", "no query"),
    ],
)
def test_a_bad_queries_file_is_refused_naming_the_line(table, tmp_path, text, message):
    path = tmp_path / "q.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_queries(path, table)
