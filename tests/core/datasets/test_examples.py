"""The example tables installed with the package (isdp.datasets) and ``isdp example``."""

from __future__ import annotations

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

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
    with pytest.raises(UsageError, match="example must be one of sex_by_age; got 'census'"):
        copy_example("census", tmp_path)
    (tmp_path / "a_file").write_text("mine\n")
    with pytest.raises(UsageError, match="directory .*a_file' is a file, not a folder"):
        copy_example("sex_by_age", tmp_path / "a_file")


@settings(max_examples=200, deadline=None)
@given(
    name=st.one_of(st.text(max_size=12), st.binary(max_size=4), st.integers(), st.none(), st.just("sex_by_age ")),
    directory=st.one_of(
        st.none(), st.integers(), st.binary(max_size=4), st.just(""), st.just("sub"), st.just("a_file")
    ),
)
def test_any_other_name_or_folder_is_refused_by_name_and_writes_nothing(tmp_path_factory, name, directory):
    """Every name but an example's, and every folder argument but a path to a folder, raises the UsageError that
    names the argument; a valid call into a fresh folder writes the example. Nothing else is ever written."""
    root = tmp_path_factory.mktemp("examples")
    (root / "a_file").write_text("mine\n")
    target = root / directory if isinstance(directory, str) and directory else directory
    valid_name = name in EXAMPLES
    valid_folder = isinstance(directory, str) and directory not in ("", "a_file")
    if valid_name and valid_folder:
        assert [p.name for p in copy_example(name, target)] == [p.name for p in EXAMPLES[name]["files"]]
        return
    with pytest.raises(UsageError) as refused:
        copy_example(name, target)
    assert refused.value.argument == ("example" if not valid_name else "directory")
    assert sorted(p.name for p in root.rglob("*")) == ["a_file"]


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
    assert main(["example", "census"]) == 2
    assert "NAME must be one of sex_by_age; got 'census'" in capsys.readouterr().err
    assert main(["example", "sex_by_age", "--dir", str(tmp_path / "sex_by_age.csv")]) == 2
    assert "--dir" in capsys.readouterr().err
    command = EXAMPLES["sex_by_age"]["try"].split()[1:]  # the command it suggests releases the files it wrote
    out_name = command[command.index("--output") + 1]
    command[command.index("--output") + 1] = str(tmp_path / out_name)
    command = [str(tmp_path / a) if a.endswith(".csv") and a != out_name else a for a in command]
    assert main([*command, "--quiet"]) == 0
    assert (tmp_path / f"{out_name}.statement.json").is_file()
