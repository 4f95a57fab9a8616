"""Renaming complete files into place (isdp._atomic_files): a failed write leaves the old file and no temporary file."""

import ast
from pathlib import Path

import pytest

import isdp
from isdp._atomic_files import atomic_write


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


def test_only_the_atomic_files_module_renames_files_into_place():
    """Every atomic or all-or-none write goes through isdp._atomic_files: no other module of the library renames a
    file."""
    src = Path(isdp.__file__).parent
    offences = [
        f"{path.relative_to(src)}:{line}"
        for path in sorted(src.rglob("*.py"))
        if path != src / "_atomic_files.py"
        for line in _renames(path.read_text(encoding="utf-8"))
    ]
    assert not offences, "renames outside isdp._atomic_files (write through atomic_write or write_all):\n" + (
        "\n".join(offences)
    )
