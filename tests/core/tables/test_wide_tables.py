"""Tests of :mod:`isdp.tables._wide_tables` (:func:`~isdp.tables.read_table_csv`,
``read_wide_table``): malformed table files each give a clear error naming the problem, never a
wrong table; margins with the right sums are dropped and rewritten, noise tables may be negative, and the committed
tables read unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from isdp.errors import InvariantError
from isdp.tables import load_table, read_table_csv


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "not a readable CSV"),
        ("county,Low,High\n", "no cells"),
        ("county,Low,High,Mid\nA,1,2,4\nB,3,-4,0\nC,5,0,2\n", "row 'B', column 'High': negative count$"),
        (
            "county,Low,High,Mid\nA,1,2,4\nB,3,4.5,0\nC,5,0,2\n",
            "row 'B', column 'High': not an integer count (a fraction",
        ),
        ("county,Low,High,Mid\nA,1,2,4\nB,3,,0\nC,5,0,2\n", "row 'B', column 'High': not an integer count (empty"),
        (
            "county,Low,High,Mid\nA,1,2,x\nB,3,4,0\nC,5,0,2\n",
            "row 'A', column 'Mid': not an integer count (not a number",
        ),
        ("county,Low,Low,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n", "duplicate column label 'Low'"),  # was read as 'Low.1'
        ("county,Low,low ,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n", "duplicate column label 'low'"),
        ("county,Low,High,Mid\nA,1,2,4\n,3,4,0\nC,5,0,2\n", "line 3: the row has no label"),
        ("county,Low,High,Mid,\nA,1,2,4,\nB,3,4,0,\nC,5,0,2,\n", "column 5 has no label"),
        (
            "county,Low,High,Mid\nA,1,2,4,9\nB,3,4,0\nC,5,0,2\n",
            "line 2 has 5 fields, the header 4",
        ),  # named row 'B' before
        ("county,Low,High,Mid\nA,1,2\nB,3,4,0\nC,5,0,2\n", "line 2 has 3 fields, the header 4"),
        ("county;Low;High;Mid\nA;1;2;4\nB;3;4;0\n", "comma-separated"),
        (
            "county,Low,High,Mid\nA,1,2,99999999999999999999\nB,3,4,0\nC,5,0,2\n",
            "row 'A', column 'Mid': the entry is too large",
        ),
        (
            "county,Low,High,Mid\nA,1,2,\u0664\nB,3,4,0\nC,5,0,2\n",
            "not an integer count (digits other than",
        ),  # int(): 4
        ("county,Low,High,Mid\nA,1,2,1_0\nB,3,4,0\nC,5,0,2\n", "not an integer count (digits grouped"),  # int(): 10
        (
            "county,Low,High,Mid,Grand Total\nA,1,2,4,7\nB,3,4,0,8\nC,5,0,2,7\n",
            "margin column 'Grand Total' does not equal",
        ),
        ("county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\nAll ages,9,6,5\n", "margin row 'All ages' does not equal"),
        ("county,Low,High,Mid\nA,1,2,4\nA,3,4,0\nC,5,0,2\n", "duplicate row label 'A'"),
        ("county,Low,High,Mid,Total\nA,1,2,4,7\nB,3,4,0,8\nC,5,0,2,7\n", "margin column 'Total' does not equal"),
        ("county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\nTotal,9,6,5\n", "margin row 'Total' does not equal"),
        ("county,Low,High,Mid,All\nA,1,2,4,7\nB,3,4,0,7\nC,5,0,2,7\nTotal,9,6,6,21\n", None),  # verified and dropped
        ("county,Total\nTotal,5\n", "no cells besides its margins"),
    ],
)
def test_malformed_tables(tmp_path, text, message):
    path = tmp_path / "table.csv"
    path.write_text(text)
    if message is None:
        cells, rows, cols = read_table_csv(path)
        assert cells.dtype == np.int64 and cells.shape == (3, 3) and "Total" not in rows and "All" not in cols
    else:
        with pytest.raises(InvariantError, match=message.replace("(", r"\(")):
            read_table_csv(path)


def test_committed_tables_read_unchanged():
    cells, rows, cols = read_table_csv(ROOT / "data" / "e2" / "delinquent_children.csv")
    assert cells.shape == (4, 4) and rows[0] == "Alpha" and cols[-1] == "Very High"
    cells, rows, cols = read_table_csv(ROOT / "data" / "e5" / "sex_by_age.csv")
    assert cells.shape == (2, 23) and rows == ["Female", "Male"]


def test_a_margin_column_with_the_right_sums_is_dropped(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("county,Low,High,Mid,Total\nA,1,2,4,7\nB,3,4,0,7\nC,5,0,2,7\n")
    cells, _, cols = read_table_csv(path)
    assert cols == ["Low", "High", "Mid"] and cells.sum() == 21


def test_noise_tables_may_be_negative(tmp_path):
    path = tmp_path / "noise.csv"
    path.write_text("county,Low,High,Total\nA,-1,1,0\nB,3,-3,0\nTotal,2,-2,0\n")
    cells, rows, cols = read_table_csv(path, counts=False)
    assert cells.tolist() == [[-1, 1], [3, -3]] and rows == ["A", "B"] and cols == ["Low", "High"]
    with pytest.raises(InvariantError, match="negative count"):
        read_table_csv(path)
    for name in ("paper_table1_l1_draw.csv", "paper_table3_l2_draw.csv"):
        assert read_table_csv(ROOT / "data" / "e2" / name, counts=False)[0].shape == (4, 4)


# --------------------------------------------------------------------------- the grand total


@pytest.mark.parametrize(
    "text",
    [
        "g,a,b,Total\nu,1,2,3\nv,4,5,9\nTotal,5,7,999\n",
        "g,a,b,Total\nu,1,2,3\nv,4,5,9\nTotal,5,7,0\n",
        "g,a,b,Total,Sum\nu,1,2,3,3\nv,4,5,9,9\nTotal,5,7,12,13\n",  # the second corner is wrong
    ],
)
def test_a_wrong_grand_total_is_refused_naming_the_margins_not_the_values(tmp_path, text):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InvariantError, match="the grand total where margin row 'Total' meets margin column") as err:
        read_table_csv(path)
    message = str(err.value).replace(str(path), "FILE")
    assert "999" not in message and "12" not in message and "0" not in message


def test_a_right_grand_total_is_dropped_and_rewritten(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("g,a,b,Total\nu,1,2,3\nv,4,5,9\nTotal,5,7,12\n")
    table = load_table(path)
    assert table.x.tolist() == [1, 2, 4, 5]
    assert table.with_cells([2, 1, 5, 4])[-1] == ["Total", "7", "5", "12"]
