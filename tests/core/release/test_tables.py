"""Tests of :mod:`isdp.release`' :func:`~isdp.release.read_table_csv`: malformed table files each give a clear error
naming the problem, never a wrong table; margins with the right sums are dropped, noise tables may be negative, and
the committed tables read unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from isdp.errors import InputError, InvariantError
from isdp.release import load_table, read_table_csv

GOOD = "county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n"


@pytest.mark.parametrize("text, message", [
    ("", "not a readable CSV"),
    ("county,Low,High\n", "no cells"),
    ("county,Low,High,Mid\nA,1,2,4\nB,3,-4,0\nC,5,0,2\n", "row 'B', column 'High': negative count$"),
    ("county,Low,High,Mid\nA,1,2,4\nB,3,4.5,0\nC,5,0,2\n", "row 'B', column 'High': not an integer count (a fraction"),
    ("county,Low,High,Mid\nA,1,2,4\nB,3,,0\nC,5,0,2\n", "row 'B', column 'High': not an integer count (empty"),
    ("county,Low,High,Mid\nA,1,2,x\nB,3,4,0\nC,5,0,2\n", "row 'A', column 'Mid': not an integer count (not a number"),
    ("county,Low,Low,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n", "duplicate column label 'Low'"),  # was read as 'Low.1'
    ("county,Low,low ,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n", "duplicate column label 'low'"),
    ("county,Low,High,Mid\nA,1,2,4\n,3,4,0\nC,5,0,2\n", "line 3: the row has no label"),
    ("county,Low,High,Mid,\nA,1,2,4,\nB,3,4,0,\nC,5,0,2,\n", "column 5 has no label"),
    ("county,Low,High,Mid\nA,1,2,4,9\nB,3,4,0\nC,5,0,2\n", "line 2 has 5 fields, the header 4"),  # named row 'B' before
    ("county,Low,High,Mid\nA,1,2\nB,3,4,0\nC,5,0,2\n", "line 2 has 3 fields, the header 4"),
    ("county;Low;High;Mid\nA;1;2;4\nB;3;4;0\n", "comma-separated"),
    ("county,Low,High,Mid\nA,1,2,99999999999999999999\nB,3,4,0\nC,5,0,2\n",
     "row 'A', column 'Mid': the entry is too large"),
    ("county,Low,High,Mid\nA,1,2,\u0664\nB,3,4,0\nC,5,0,2\n", "not an integer count (digits other than"),  # int(): 4
    ("county,Low,High,Mid\nA,1,2,1_0\nB,3,4,0\nC,5,0,2\n", "not an integer count (digits grouped"),  # int(): 10
    ("county,Low,High,Mid,Grand Total\nA,1,2,4,7\nB,3,4,0,8\nC,5,0,2,7\n",
     "margin column 'Grand Total' does not equal"),
    ("county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\nAll ages,9,6,5\n", "margin row 'All ages' does not equal"),
    ("county,Low,High,Mid\nA,1,2,4\nA,3,4,0\nC,5,0,2\n", "duplicate row label 'A'"),
    ("county,Low,High,Mid,Total\nA,1,2,4,7\nB,3,4,0,8\nC,5,0,2,7\n", "margin column 'Total' does not equal"),
    ("county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\nTotal,9,6,5\n", "margin row 'Total' does not equal"),
    ("county,Low,High,Mid,All\nA,1,2,4,7\nB,3,4,0,7\nC,5,0,2,7\nTotal,9,6,6,21\n", None),  # verified and dropped
    ("county,Total\nTotal,5\n", "no cells besides its margins"),
])
def test_malformed_tables(tmp_path, text, message):
    path = tmp_path / "table.csv"
    path.write_text(text)
    if message is None:
        cells, rows, cols = read_table_csv(path)
        assert cells.dtype == np.int64 and cells.shape == (3, 3) and "Total" not in rows and "All" not in cols
    else:
        with pytest.raises(InvariantError, match=message.replace("(", r"\(")):
            read_table_csv(path)


def test_non_utf8_file_is_named(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("county,Bas,Élevé,Moyen\nA,1,2,4\nB,3,4,0\nC,5,0,2\n".encode("latin-1"))
    with pytest.raises(InvariantError, match="not UTF-8"):
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


@pytest.mark.parametrize("raw", [("\ufeff" + GOOD).encode(), GOOD.replace("\n", "\r\n").encode(),
                                 GOOD.replace("\nB", "\n\nB").encode(), GOOD.replace(",", " , ").encode()])
def test_bom_crlf_blank_lines_and_padding_read_the_same_table(tmp_path, raw):
    path = tmp_path / "t.csv"
    path.write_bytes(raw)
    cells, rows, cols = read_table_csv(path)
    assert cells.tolist() == [[1, 2, 4], [3, 4, 0], [5, 0, 2]]
    assert rows == ["A", "B", "C"] and cols == ["Low", "High", "Mid"]


# --------------------------------------------------------------------------- no message quotes a count

SECRET = "987654"


@pytest.mark.parametrize("entry", [f"-{SECRET}", f"{SECRET}.5", f"{SECRET[:3]}_{SECRET[3:]}", f"{SECRET}x",
                                   "\u0669\u0668\u0667\u0666\u0665\u0664", SECRET * 4, f"{SECRET[:3]},{SECRET[3:]}",
                                   f"{SECRET}e3", f"+{SECRET}" + "0" * 5000])
@pytest.mark.parametrize("layout", ["wide", "long"])
def test_no_message_quotes_an_entry(tmp_path, entry, layout):
    """A refused count is named by its row and column (or line), with the kind of problem, never by its value."""
    path = tmp_path / "t.csv"
    if layout == "wide":
        path.write_text(f'g,a,b\nu,1,"{entry}"\nv,3,4\n', encoding="utf-8")
    else:
        path.write_text(f'g,count\nu,1\nv,"{entry}"\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_table(path)
    message = str(err.value).replace(str(path), "FILE")  # the temporary path may hold any digits
    assert message.startswith("FILE: ") and SECRET not in message and SECRET[:3] not in message
    assert "\u0669" not in message
    assert ("row 'u', column 'b'" if layout == "wide" else "line 3, column 'count'") in message
    assert any(kind in message for kind in ("negative count", "not an integer count (", "too large"))


def test_a_huge_number_of_digits_is_too_large_not_a_traceback(tmp_path):
    """int() refuses strings of over 4,300 digits with a ValueError."""
    path = tmp_path / "t.csv"
    path.write_text("g,a,b\nu,1," + "7" * 5000 + "\nv,3,4\n")
    with pytest.raises(InvariantError, match="row 'u', column 'b': the entry is too large"):
        read_table_csv(path)


# --------------------------------------------------------------------------- grand total, labels that look alike


@pytest.mark.parametrize("text", [
    "g,a,b,Total\nu,1,2,3\nv,4,5,9\nTotal,5,7,999\n",
    "g,a,b,Total\nu,1,2,3\nv,4,5,9\nTotal,5,7,0\n",
    "g,a,b,Total,Sum\nu,1,2,3,3\nv,4,5,9,9\nTotal,5,7,12,13\n",  # the second corner is wrong
])
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


LOOKALIKES = [("\u00e9", "e\u0301"), ("A", "A\u200b"), ("A", "\u200cA"), ("AB", "A\u200dB"), ("A", "A\ufeff"),
              ("A", "A\u2060"), ("AB", "A\u00adB"), ("A", "\uff21"), ("fi", "\ufb01"), ("A B", "A\u00a0B"),
              ("A B", "A  B"), ("A", "a")]


@pytest.mark.parametrize("first, second", LOOKALIKES, ids=[ascii(b) for _, b in LOOKALIKES])
@pytest.mark.parametrize("where", ["row", "column", "long key"])
@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_labels_that_look_the_same_are_duplicates(tmp_path, first, second, where, labels_only):
    text = {"row": f"g,x,y\n{first},1,2\n{second},3,4\n", "column": f"g,{first},{second}\nu,1,2\nv,3,4\n",
            "long key": f"g,h,count\n{first},k,1\n{second},k,2\n"}[where]
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    positions = {"row": "line 3: .* at line 2", "column": "column 3: .* at column 2",
                 "long key": "line 3: .* at line 2"}
    with pytest.raises(InputError, match=positions[where]) as err:
        load_table(path, labels_only=labels_only)
    assert "duplicate" in str(err.value)


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_a_label_of_invisible_characters_only_is_refused(tmp_path, labels_only):
    for text in ("g,x,y\n\u200b,1,2\nv,3,4\n", "g,x,\u2060\nu,1,2\nv,3,4\n", "g,count\n\ufeff\u200d,1\nv,3\n"):
        path = tmp_path / "t.csv"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match="invisible characters only"):
            load_table(path, labels_only=labels_only)


def test_labels_that_look_different_are_kept_as_written(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("g,count\ne,1\n\u00e9,2\nA B,3\nAB,4\n\u0391,5\n", encoding="utf-8")
    assert load_table(path).keys == [("e",), ("\u00e9",), ("A B",), ("AB",), ("\u0391",)]


# --------------------------------------------------------------------------- the dry run checks the labels alike


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
