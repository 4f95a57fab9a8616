"""The usual writers (isdp.files): complete files, or none."""

import json

import pandas as pd
import pytest

from isdp.files import write_json, write_table, write_text


def test_writers_round_trip(tmp_path):
    write_table(pd.DataFrame({"a": [1, 2]}), tmp_path / "t.csv")
    write_json({"x": [1]}, tmp_path / "sub" / "j.json")
    write_text("é\n", tmp_path / "t.txt")
    assert (tmp_path / "t.csv").read_bytes() == b"a\n1\n2\n"
    assert json.loads((tmp_path / "sub" / "j.json").read_text()) == {"x": [1]}
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == "é\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["j.json", "sub", "t.csv", "t.txt"]


def test_a_failed_serialisation_writes_nothing(tmp_path):
    with pytest.raises(TypeError):
        write_json({"x": object()}, tmp_path / "j.json")
    assert list(tmp_path.iterdir()) == []
