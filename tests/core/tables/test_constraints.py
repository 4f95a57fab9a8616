"""Tests of :mod:`isdp.tables._constraints` (:func:`~isdp.tables.constraint_matrix`,
:func:`~isdp.tables._constraints.read_constraint_file`): families of totals name the table's key columns and nest into
blocks, and a constraint file is read in the table's order or refused naming the line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp._sparse import first_rows
from isdp.errors import InfeasibleError, InputError, UsageError
from isdp.lattice import blocks, implied_by_partition
from isdp.tables import constraint_matrix, load_table
from isdp.tables._constraints import read_constraint_file


def _nested_table(path: Path) -> Path:
    """Two states (one of a single county) × counties × two age groups."""
    rows = [
        ("S", "c1", "a0", 3),
        ("S", "c1", "a1", 4),
        ("S", "c2", "a0", 5),
        ("S", "c2", "a1", 1),
        ("S", "c3", "a0", 2),
        ("S", "c3", "a1", 2),
        ("T", "d1", "a0", 6),
        ("T", "d1", "a1", 0),
    ]
    path.write_text("state,county,age,count\n" + "".join(f"{s},{c},{a},{v}\n" for s, c, a, v in rows))
    return path


def test_by_families_name_key_columns_and_nested_totals_fall_into_blocks(tmp_path):
    table = load_table(_nested_table(tmp_path / "t.csv"))
    A, labels = constraint_matrix(table, ["total", "by:state", "by:State,county", "by:state,age"])
    assert labels[:4] == ["total", "by state=S", "by state=T", "by state=S, county=c1"]
    dense = A.toarray()
    x = table.x
    assert dense[0] @ x == x.sum() and dense[1] @ x == 17 and dense[labels.index("by state=S, age=a1")] @ x == 7
    # the nation is the sum of the states, each state the sum of its counties, and T (its one county's
    # row, a repeat, is gone) the sum of its two age cells, each fixed by T's age margin: set aside
    assert "by state=T, county=d1" not in labels
    assert sorted(labels[i] for i in implied_by_partition(A)) == ["by state=S", "by state=T", "total"]
    parts = blocks(A)
    assert [list(cells) for cells, _ in parts] == [[0, 1, 2, 3, 4, 5], [6], [7]]
    with pytest.raises(UsageError, match="name key columns of .*state, county, age.*no 'region'"):
        constraint_matrix(table, ["by:region"])
    with pytest.raises(UsageError, match="each once"):
        constraint_matrix(table, ["by:state,state"])


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.tuples(*[st.sampled_from("abc")] * 3), min_size=1, max_size=12, unique=True),
    family=st.sampled_from(["total", "by:k0", "by:k1,k2", "by:k2,k0,k1"]),
)
def test_one_family_of_totals_on_one_table_has_no_row_twice(tmp_path_factory, keys, family):
    """One ``by:`` family (or the total) is given without comparing its rows: its groups are disjoint and none is
    empty. Checked against the comparison the matrix skips; the margins of a 1 × 1 table do repeat, and are dropped."""
    path = tmp_path_factory.mktemp("t") / "t.csv"
    path.write_text("k0,k1,k2,count\n" + "".join(f"{a},{b},{c},1\n" for a, b, c in keys))
    A, labels = constraint_matrix(load_table(path), [family])
    assert len(first_rows(A)) == A.shape[0] == len(labels) and (np.diff(A.indptr) > 0).all()


def test_the_margins_of_one_cell_are_one_row(tmp_path):
    (tmp_path / "t.csv").write_text("g,a\nu,5\n")
    A, labels = constraint_matrix(load_table(tmp_path / "t.csv"), ["all-margins"])
    assert A.toarray().tolist() == [[1]] and labels == ["row u"]


def test_the_margin_families_of_a_wide_table(tmp_path):
    (tmp_path / "t.csv").write_text("g,a,b,c\nu,1,2,3\nv,4,5,6\n")
    table = load_table(tmp_path / "t.csv")
    rows, labels = constraint_matrix(table, ["row-margins"])
    assert (rows @ table.x).tolist() == [6, 15] and len(labels) == 2
    columns, _ = constraint_matrix(table, ["column-margins"])
    assert (columns @ table.x).tolist() == [5, 7, 9]
    both, _ = constraint_matrix(table, ["all-margins"])
    assert both.shape == (5, 6) and both.dtype == np.int64
    with pytest.raises(UsageError, match="unknown invariant family 'diagonal'"):
        constraint_matrix(table, ["diagonal"])


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("constraint,u|a,u|b,v|a\nfirst,1,1,0\n", InputError, "must name the table's 4 cells"),
        (
            "constraint,u|a,u|b,v|a,v|b\nnone,0,0,0,0\n",
            InputError,
            "line 2: constraint 'none' has no non-zero coefficient",
        ),
        (
            "constraint,u|a,u|b,v|a,v|b\nhalf,1,0.5,0,0\n",
            InputError,
            "line 2: the coefficient of 'u|b' is not an integer",
        ),
        (
            "constraint,u|a,u|b,v|a,v|b,value\nall,1,1,1,1,99\n",
            InfeasibleError,
            "states the value 99, the table gives 10",
        ),
    ],
    ids=["wrong header", "no coefficient", "not an integer", "value disagrees"],
)
def test_a_constraint_file_is_refused_naming_the_problem(tmp_path, text, error, message):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text(text)
    with pytest.raises(error, match=message):
        read_constraint_file(tmp_path / "c.csv", load_table(tmp_path / "t.csv"))


def test_a_constraint_file_gives_its_rows_and_labels(tmp_path):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,v|a,v|b,value\nweighted,3,1,0,0,5\ndiagonal,1,0,0,1,5\n")
    rows, labels = read_constraint_file(tmp_path / "c.csv", load_table(tmp_path / "t.csv"))
    assert [r.tolist() for r in rows] == [[3, 1, 0, 0], [1, 0, 0, 1]] and labels == ["weighted", "diagonal"]
