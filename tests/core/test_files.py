"""Atomic writes (isdp.files): a failed write leaves the old file and no temporary file."""

import ast
import json
from pathlib import Path

import pandas as pd
import pytest

import isdp
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


def _renames(source: str) -> list[int]:
    """The lines of ``source`` that rename a file into place: ``os.replace``, ``os.rename``, ``shutil.move``, or a
    ``.replace(target)``/``.rename(target)`` of one argument (a Path's; ``str.replace`` takes two)."""
    tree = ast.parse(source)
    imported = {  # from os import replace (as ...)
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in ("os", "shutil")
        for alias in node.names
        if alias.name in ("replace", "rename", "move")
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in imported:
            found.append(node.lineno)
        elif isinstance(f, ast.Attribute) and f.attr in ("replace", "rename", "move"):
            module = f.value.id if isinstance(f.value, ast.Name) else None
            if module in ("os", "shutil") or (f.attr != "move" and len(node.args) == 1 and not node.keywords):
                found.append(node.lineno)
    return found


def test_the_scan_finds_every_way_of_renaming_a_file():
    source = (
        "import os, shutil\nfrom pathlib import Path\nfrom os import rename as mv\nfrom dataclasses import replace\n"
        "os.replace(a, b)\nos.rename(a, b)\nshutil.move(a, b)\nPath(a).replace(b)\nPath(a).rename(b)\nmv(a, b)\n"
        "'x'.replace('a', 'b')\ndf.rename(columns={'a': 'b'})\nreplace(plan, A=A)\n"
    )
    assert sorted(_renames(source)) == [5, 6, 7, 8, 9, 10]


def test_only_isdp_files_renames_files_into_place():
    """Every all-or-none write goes through isdp.files: no other module of the library renames a file."""
    src = Path(isdp.__file__).parent
    offences = [
        f"{path.relative_to(src)}:{line}"
        for path in sorted(src.rglob("*.py"))
        if path != src / "files.py"
        for line in _renames(path.read_text(encoding="utf-8"))
    ]
    assert not offences, "renames outside isdp.files (write through isdp.files.atomic_write or write_all):\n" + (
        "\n".join(offences)
    )
