"""The release's three files (isdp.release.write_release): all or none — a write that fails after some
of them landed leaves none behind; a Parquet dataset (a directory) is published and given back as a file is."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from release_support import only, run_release

from isdp.errors import UsageError
from isdp.release import Request, make_release, write_release
from isdp.release._files import json_text
from isdp.tables import constraint_matrix, load_table
from isdp.tables._parquet_tables import read_parquet_arrow


@pytest.mark.parametrize("force", [False, True], ids=["exclusive", "--force"])
def test_a_failed_write_leaves_no_output(tmp_path, monkeypatch, capsys, force):
    """The audit record fails to land after the release and the statement have: both are removed again."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    name = "replace" if force else "link"
    real = getattr(os, name)

    def fail_on_audit(src, dst):
        if str(dst).endswith(".audit.json"):
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, name, fail_on_audit)
    code, *_ = run_release(
        tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1", *(["--force"] if force else [])
    )
    assert code == 2 and "No space left on device; nothing written" in capsys.readouterr().err
    only(tmp_path, "t.csv")


def _release(tmp_path, seed=1):
    """A release made by the library, not written (``release_cli`` runs the command, which writes it)."""
    path = tmp_path / "t.csv"
    path.write_text("g,k,count\nu,a,1\nu,b,2\nv,a,3\nv,b,4\n")
    table = load_table(path)
    A, labels = constraint_matrix(table, ["by:g"])
    return make_release(table, A, labels, Request(epsilon="1", seed=seed, progress=False))


def _files(tmp_path):
    return {p.relative_to(tmp_path): p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}


def test_a_dataset_is_a_directory_of_part_files_replaced_only_with_force(tmp_path, umask):
    out = tmp_path / "out"
    write_release(_release(tmp_path), f"{out}/", tmp_path / "s.json", tmp_path / "a.json")
    assert [p.name for p in out.iterdir()] == ["part-000000.parquet"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o755  # publishable: as the umask (022) says
    assert stat.S_IMODE((out / "part-000000.parquet").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o600  # the audit record: its owner's only
    first = read_parquet_arrow(out).column("count").to_numpy()
    assert first.sum() == 10 and first.dtype == np.int64
    with pytest.raises(UsageError, match="exists"):  # an existing directory names a dataset: refused without force
        write_release(_release(tmp_path, 2), out, tmp_path / "s2.json", tmp_path / "a2.json")
    write_release(_release(tmp_path, 2), out, tmp_path / "s.json", tmp_path / "a.json", force=True)
    second = read_parquet_arrow(out).column("count").to_numpy()
    assert not np.array_equal(first, second) and sorted(p.name for p in tmp_path.iterdir()) == [
        "a.json",
        "out",
        "s.json",
        "t.csv",
    ]  # the earlier dataset's backup is gone


@pytest.mark.parametrize("other", ["notes.txt", "sub/part-000000.parquet", ".hidden"])
def test_force_never_replaces_a_directory_that_holds_more_than_a_dataset(tmp_path, other):
    out = tmp_path / "folder"
    (out / other).parent.mkdir(parents=True)
    (out / other).write_text("keep me")
    before = _files(tmp_path)
    with pytest.raises(UsageError, match="never replaced"):
        write_release(_release(tmp_path), out, tmp_path / "s.json", tmp_path / "a.json", force=True)
    assert _files(tmp_path) == {**before, Path("t.csv"): (tmp_path / "t.csv").read_bytes()}


@pytest.mark.parametrize("force", [False, True], ids=["exclusive", "--force"])
def test_a_failed_write_gives_a_dataset_s_name_back_what_it_held(tmp_path, monkeypatch, force):
    """The audit record fails to land after the dataset and the statement have: the dataset's name holds the
    earlier dataset again (with --force), or nothing; no temporary or backup is left."""
    out = tmp_path / "out"
    if force:
        write_release(_release(tmp_path, 3), f"{out}/", tmp_path / "s.json", tmp_path / "a.audit.json")
    before = _files(tmp_path)
    real = {name: getattr(os, name) for name in ("link", "replace")}

    def failing(name):
        def call(src, dst, **kw):
            if str(dst).endswith(".audit.json") and not str(src).endswith(".backup"):
                raise OSError(28, "No space left on device", str(dst))
            return real[name](src, dst, **kw)

        return call

    for name in real:
        monkeypatch.setattr(os, name, failing(name))
    with pytest.raises(OSError, match="No space left"):
        write_release(_release(tmp_path, 4), f"{out}/", tmp_path / "s.json", tmp_path / "a.audit.json", force=force)
    assert _files(tmp_path) == {**before, Path("t.csv"): (tmp_path / "t.csv").read_bytes()}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["t.csv", *(["a.audit.json", "out", "s.json"] if force else [])]
    )


def _dataset_release(tmp_path):
    """A release of the Parquet dataset ``tmp_path/in`` (one file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "in").mkdir()
    pq.write_table(
        pa.table({"g": ["u", "u", "v", "v"], "k": ["a", "b", "a", "b"], "count": [1, 2, 3, 4]}),
        tmp_path / "in" / "p.parquet",
    )
    table = load_table(tmp_path / "in")
    A, labels = constraint_matrix(table, ["by:g"])
    return make_release(table, A, labels, Request(epsilon="1", seed=1, progress=False))


@pytest.mark.parametrize("where", ["output", "statement", "audit", "link", "inside", "holds"])
def test_no_file_of_a_release_overwrites_its_input_also_with_force(tmp_path, where):
    """The table, the statement or the audit record written on the input (also through a link), a table written
    inside the input dataset, or a dataset output that holds the input: refused, nothing written."""
    release = _dataset_release(tmp_path) if where in ("inside", "holds") else _release(tmp_path)
    files = {"output": tmp_path / "o.csv", "statement": tmp_path / "s.json", "audit": tmp_path / "a.json"}
    if where in files:
        files[where] = release.table.path
    elif where == "link":
        (tmp_path / "o.csv").symlink_to(release.table.path)
    elif where == "inside":
        files["output"] = tmp_path / "in" / "released.parquet"
    else:
        files["output"] = f"{tmp_path}/"
    before = _files(tmp_path)
    with pytest.raises(UsageError, match="an input is never overwritten; nothing written"):
        write_release(release, *files.values(), force=True)
    assert _files(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["o.csv", "t.csv"] if where == "link" else ["in"] if where in ("inside", "holds") else ["t.csv"]
    )


@pytest.mark.parametrize(
    "position, value, argument",
    [
        (0, "release.json", "release"),
        (1, None, "output"),
        (1, 3, "output"),
        (1, "", "output"),
        (2, None, "statement_path"),
        (3, 7, "audit_path"),
    ],
)
def test_an_argument_that_is_not_a_release_or_a_file_name_is_refused_naming_it(tmp_path, position, value, argument):
    args = [_release(tmp_path), tmp_path / "o.csv", tmp_path / "s.json", tmp_path / "a.json"]
    args[position] = value
    with pytest.raises(UsageError, match=f"^{argument} ") as err:
        write_release(*args)
    assert err.value.argument == argument
    only(tmp_path, "t.csv")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_json_text_reads_back_as_the_payload(payload):
    text = json_text(payload)
    assert json.loads(text) == payload
    assert "\n" not in text or isinstance(payload, dict | list)  # only containers span lines


def test_json_text_writes_a_list_item_a_line():
    payload = {"invariants": [{"label": "total", "value": 7}, {"label": "by state=A", "value": 3}], "empty": {}}
    lines = json_text(payload).splitlines()
    assert lines[2:4] == ['  {"label": "total", "value": 7},', '  {"label": "by state=A", "value": 3}']
    assert lines[-2] == ' "empty": {}'


def test_a_csv_writes_noise_sd_to_six_digits_and_the_release_still_verifies(tmp_path):
    """noise_sd's 17 digits were the float's, not a reader's: six significant digits, which `isdp verify` accepts."""
    from isdp.published import verify_release

    path = tmp_path / "t.csv"
    path.write_text("g,k,count\n" + "".join(f"{g},{k},{3 * k + i}\n" for i, g in enumerate("uvw") for k in range(4)))
    table = load_table(path)
    A, labels = constraint_matrix(table, ["by:g"])
    release = make_release(table, A, labels, Request(epsilon="1", seed=5, uncertainty=0.9, progress=False))
    out = tmp_path / "r.csv"
    write_release(release, out, tmp_path / "r.csv.statement.json", tmp_path / "a.json")
    written = [line.split(",")[3] for line in out.read_text().splitlines()[1:]]
    assert written == [f"{sd:.6g}" for sd in release.uncertainty["noise_sd"]]
    assert max(len(w.replace(".", "").lstrip("0")) for w in written) <= 6
    found = verify_release([out], tmp_path / "r.csv.statement.json")
    assert found.passed and any(name == "uncertainty columns" for name, _, _ in found.checks), found.lines()


@given(
    st.lists(st.dictionaries(st.text(), st.text() | st.integers() | st.booleans() | st.none(), max_size=4), max_size=4)
)
def test_a_list_s_items_are_written_as_json_dumps_writes_them(items):
    """Flat dicts of text and integers take the quick path, any other value json.dumps: the same bytes either way."""
    assert json_text(items).splitlines()[1:-1] == [" " + json.dumps(item) + "," for item in items[:-1]] + (
        [" " + json.dumps(items[-1])] if items else []
    )
