"""The example tables installed with the package (isdp.datasets) and ``isdp example``."""

from __future__ import annotations

import pytest
from conftest import ROOT

from isdp.cli import main
from isdp.datasets import EXAMPLES, copy_example
from isdp.errors import UsageError

#: where each installed file comes from in the repository (data/, with its provenance)
COMMITTED = {
    "sex_by_age.csv": ROOT / "data" / "e5" / "sex_by_age.csv",
    "sex_by_age_invariants.csv": ROOT / "data" / "release" / "sex_by_age_invariants.csv",
}


def test_each_installed_file_is_its_committed_input_byte_for_byte():
    files = [path for example in EXAMPLES.values() for path in example["files"]]
    assert sorted(p.name for p in files) == sorted(COMMITTED)
    for path in files:
        assert path.read_bytes() == COMMITTED[path.name].read_bytes(), path.name


def test_copy_writes_every_file_and_never_over_one(tmp_path):
    written = copy_example("sex_by_age", tmp_path / "new")
    assert [p.read_bytes() for p in written] == [COMMITTED[p.name].read_bytes() for p in written]
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "sex_by_age_invariants.csv").write_text("mine\n")
    with pytest.raises(UsageError, match="sex_by_age_invariants.csv exists: nothing written"):
        copy_example("sex_by_age", tmp_path / "taken")
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["sex_by_age_invariants.csv"]
    assert (tmp_path / "taken" / "sex_by_age_invariants.csv").read_text() == "mine\n"
    with pytest.raises(UsageError, match="no example 'census': the examples are sex_by_age"):
        copy_example("census", tmp_path)


def test_the_command_lists_writes_and_names_the_release_to_try(tmp_path, capsys):
    assert main(["example"]) == 0
    assert capsys.readouterr().out.startswith("sex_by_age: the congenial paper's")
    assert main(["example", "sex_by_age", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"wrote {tmp_path / 'sex_by_age.csv'}, {tmp_path / 'sex_by_age_invariants.csv'}",
        f"try: cd {tmp_path} && {EXAMPLES['sex_by_age']['try']}",
    ]
    assert main(["example", "sex_by_age", "--dir", str(tmp_path)]) == 2
    assert "exists: nothing written" in capsys.readouterr().err
    command = EXAMPLES["sex_by_age"]["try"].split()[1:]  # the command it suggests releases the files it wrote
    out_name = command[command.index("--output") + 1]
    command[command.index("--output") + 1] = str(tmp_path / out_name)
    command = [str(tmp_path / a) if a.endswith(".csv") and a != out_name else a for a in command]
    assert main([*command, "--quiet"]) == 0
    assert (tmp_path / f"{out_name}.statement.json").is_file()
