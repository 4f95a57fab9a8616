"""Tests of :mod:`isdp.tables._labels`: the labelled lines of a table file (a byte-order mark, CRLF, blank
lines and padding read alike; a file that is not UTF-8 is named), and labels compared as they will look once
published: labels that look the same are duplicates, a label of invisible characters only is refused."""

from __future__ import annotations

import pytest

from isdp.errors import InputError, InvariantError
from isdp.tables import load_table, read_table_csv

GOOD = "county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\n"


def test_non_utf8_file_is_named(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("county,Bas,Élevé,Moyen\nA,1,2,4\nB,3,4,0\nC,5,0,2\n".encode("latin-1"))
    with pytest.raises(InvariantError, match="not UTF-8"):
        read_table_csv(path)


@pytest.mark.parametrize(
    "raw",
    [
        ("\ufeff" + GOOD).encode(),
        GOOD.replace("\n", "\r\n").encode(),
        GOOD.replace("\nB", "\n\nB").encode(),
        GOOD.replace(",", " , ").encode(),
    ],
)
def test_bom_crlf_blank_lines_and_padding_read_the_same_table(tmp_path, raw):
    path = tmp_path / "t.csv"
    path.write_bytes(raw)
    cells, rows, cols = read_table_csv(path)
    assert cells.tolist() == [[1, 2, 4], [3, 4, 0], [5, 0, 2]]
    assert rows == ["A", "B", "C"] and cols == ["Low", "High", "Mid"]


# --------------------------------------------------------------------------- labels that look alike


LOOKALIKES = [
    ("\u00e9", "e\u0301"),
    ("A", "A\u200b"),
    ("A", "\u200cA"),
    ("AB", "A\u200dB"),
    ("A", "A\ufeff"),
    ("A", "A\u2060"),
    ("AB", "A\u00adB"),
    ("A", "\uff21"),
    ("fi", "\ufb01"),
    ("A B", "A\u00a0B"),
    ("A B", "A  B"),
    ("A", "a"),
]


@pytest.mark.parametrize("first, second", LOOKALIKES, ids=[ascii(b) for _, b in LOOKALIKES])
@pytest.mark.parametrize("where", ["row", "column", "long key"])
@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_labels_that_look_the_same_are_duplicates(tmp_path, first, second, where, labels_only):
    text = {
        "row": f"g,x,y\n{first},1,2\n{second},3,4\n",
        "column": f"g,{first},{second}\nu,1,2\nv,3,4\n",
        "long key": f"g,h,count\n{first},k,1\n{second},k,2\n",
    }[where]
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    positions = {
        "row": "line 3: .* at line 2",
        "column": "column 3: .* at column 2",
        "long key": "line 3: .* at line 2",
    }
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
