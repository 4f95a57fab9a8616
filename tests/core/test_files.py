"""Atomic writes (isdp.files): a failed write leaves the old file and no temporary file."""

import json

import pandas as pd
import pytest

from isdp.files import atomic_write, write_json, write_table, write_text


def test_writers_round_trip(tmp_path):
    write_table(pd.DataFrame({"a": [1, 2]}), tmp_path / "t.csv")
    write_json({"x": [1]}, tmp_path / "sub" / "j.json")
    write_text("é\n", tmp_path / "t.txt")
    assert (tmp_path / "t.csv").read_bytes() == b"a\n1\n2\n"
    assert json.loads((tmp_path / "sub" / "j.json").read_text()) == {"x": [1]}
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == "é\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["j.json", "sub", "t.csv", "t.txt"]


@pytest.mark.parametrize("fails_after_writing", [False, True])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, fails_after_writing):
    path = tmp_path / "out.csv"
    path.write_text("old\n")

    def write(tmp):
        if fails_after_writing:
            tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(path, write)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_a_failed_serialisation_writes_nothing(tmp_path):
    with pytest.raises(TypeError):
        write_json({"x": object()}, tmp_path / "j.json")
    assert list(tmp_path.iterdir()) == []


def test_without_replace_an_existing_file_is_kept(tmp_path):
    path = tmp_path / "out.txt"
    atomic_write(path, lambda tmp: tmp.write_text("first"), replace=False)
    with pytest.raises(FileExistsError):
        atomic_write(path, lambda tmp: tmp.write_text("second"), replace=False)
    assert path.read_text() == "first" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
