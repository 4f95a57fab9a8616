"""Parquet tables in and out of ``isdp release`` (``isdp.tables._parquet_tables``): the same release and statement as
the CSV of the same table, a directory read as one table, the input's schema kept, and every refusal naming the
row with nothing written."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from release_support import SEEDED, only

from isdp.cli import main
from isdp.tables._parquet_tables import plain_columns


def _table(n: int = 600, block: int = 100) -> pa.Table:
    rng = np.random.default_rng(8)
    return pa.table(
        {
            "group": [f"b{i // block}" for i in range(n)],
            "cell": pa.array(np.arange(n), pa.int32()),
            "count": pa.array(rng.poisson(30, n), pa.uint16()),
        }
    )


BY_GROUP = ("--invariant", "by:group", "--epsilon", "1", "--quiet")  # each group's total kept, at ε = 1


def _csv(table: pa.Table, path) -> None:
    columns = table.to_pydict()
    lines = [",".join(table.schema.names)] + [
        ",".join(str(columns[k][i]) for k in table.schema.names) for i in range(table.num_rows)
    ]
    path.write_text("\n".join(lines) + "\n")


def test_a_parquet_table_gives_the_release_and_statement_of_its_csv_and_keeps_its_schema(tmp_path, release_cli, umask):
    table = _table()
    pq.write_table(table, tmp_path / "t.parquet")
    _csv(table, tmp_path / "t.csv")
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, out="r.parquet") == 0
    assert release_cli(tmp_path / "t.csv", *BY_GROUP, out="r.csv") == 0
    released = pq.read_table(tmp_path / "r.parquet")
    assert released.schema.names == table.schema.names and released.schema.field("cell").type == pa.int32()
    assert released.schema.field("count").type == pa.int64()
    assert released.column("cell").equals(table.column("cell"))
    values = released.column("count").to_numpy()
    as_csv = np.array([int(line.rsplit(",", 1)[1]) for line in (tmp_path / "r.csv").read_text().splitlines()[1:]])
    assert np.array_equal(values, as_csv) and not np.array_equal(values, table.column("count").to_numpy())
    x = table.column("count").to_numpy().astype(np.int64)
    assert np.array_equal(values.reshape(-1, 100).sum(axis=1), x.reshape(-1, 100).sum(axis=1))
    statements = [json.loads((tmp_path / f"r.{kind}.statement.json").read_text()) for kind in ("parquet", "csv")]
    assert statements[0] == statements[1]
    assert oct((tmp_path / "r.parquet").stat().st_mode & 0o777) == "0o644"  # publishable: as the umask (022) says


def test_a_directory_is_one_table_its_files_in_name_order(tmp_path, release_cli):
    table = _table()
    parts = tmp_path / "parts"
    parts.mkdir()
    pq.write_table(table.slice(300), parts / "part-1.parquet")  # written first, read second
    pq.write_table(table.slice(0, 300), parts / "part-0.parquet")
    (parts / "_SUCCESS").write_text("")  # a writer's marker, not a table
    pq.write_table(table.slice(0, 300), tmp_path / "t.parquet")
    pq.write_table(table, tmp_path / "whole.parquet")
    assert release_cli(parts, *BY_GROUP, out="from_parts.parquet") == 0
    assert release_cli(tmp_path / "whole.parquet", *BY_GROUP, out="from_whole.parquet") == 0
    assert pq.read_table(tmp_path / "from_parts.parquet").equals(pq.read_table(tmp_path / "from_whole.parquet"))
    audit = json.loads((tmp_path / "from_parts.parquet.audit.json").read_text())
    assert audit["input"]["cells"] == 600 and len(audit["input"]["sha256"]) == 64


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.set_column(2, "count", pa.array(np.full(600, 1.5))), "holds double, not integers"),
        (
            lambda t: t.set_column(0, "group", pa.array(["b0"] * 5 + [None] + ["b0"] * 594)),
            "line 7: a key field is empty",
        ),
        (lambda t: t.set_column(2, "count", pa.array([3] * 9 + [-1] + [3] * 590)), "line 11, column 'count': negative"),
        (lambda t: t.set_column(1, "cell", pa.array([0] + list(range(599)))), "line 3: duplicate cell"),
        (lambda t: t.rename_columns(["group", "cell", "n"]), "no count column 'count'"),
    ],
)
def test_a_bad_parquet_table_is_refused_naming_the_row_and_nothing_is_written(
    tmp_path, capsys, change, message, release_cli
):
    pq.write_table(change(_table()), tmp_path / "t.parquet")
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, out="r.parquet") == 3
    err = capsys.readouterr().err.replace(str(tmp_path), "TMP")  # the path may hold any number
    assert message in err and "1.5" not in err.replace(message, "")
    only(tmp_path, "t.parquet")


@pytest.mark.parametrize(
    "inside", ["sub/p2.parquet", "state=B/part-0.parquet", "notes.txt", "_p2.parquet", ".p2.parquet"]
)
def test_a_dataset_is_read_whole_or_refused_naming_what_it_would_leave_out(tmp_path, capsys, inside, release_cli):
    """A subdirectory (Hive-style too) or a file that is not one of the table's would be rows left out silently:
    refused, naming it; a writer's marker (``_SUCCESS``) holds no rows and is passed over."""
    table = _table()
    parts = tmp_path / "ds"
    (parts / inside).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.slice(0, 300), parts / "p1.parquet")
    pq.write_table(table.slice(300), parts / inside)
    (parts / "_SUCCESS").write_text("")
    assert release_cli(parts, *BY_GROUP, out="r.parquet") == 3
    err = capsys.readouterr().err
    assert f"{parts / inside.split('/')[0]}: " in err and "inside the Parquet dataset" in err
    only(tmp_path, "ds")


def test_a_parquet_table_that_repeats_a_column_name_or_has_no_key_is_refused_naming_why(tmp_path, capsys, release_cli):
    pq.write_table(
        pa.table([pa.array(["a", "b"]), pa.array(["x", "y"]), pa.array([1, 2])], names=["k", "k", "count"]),
        tmp_path / "t.parquet",
    )
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, out="r.parquet") == 3
    assert "the header repeats the column 'k' (columns 1 and 2)" in capsys.readouterr().err
    pq.write_table(pa.table({"count": [1, 2]}), tmp_path / "t.parquet")
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, out="r.parquet") == 3
    assert "no key column: the table has its count column 'count' only" in capsys.readouterr().err
    only(tmp_path, "t.parquet")


def test_files_that_differ_only_in_whether_a_column_may_hold_nulls_are_one_table(tmp_path, release_cli):
    table = _table()
    strict = pa.schema([pa.field(f.name, f.type, nullable=False) for f in table.schema])
    parts = tmp_path / "ds"
    parts.mkdir()
    pq.write_table(table.slice(0, 300), parts / "p1.parquet")
    pq.write_table(table.slice(300).cast(strict), parts / "p2.parquet")
    pq.write_table(table, tmp_path / "whole.parquet")
    assert release_cli(parts, *BY_GROUP, out="from_parts.parquet") == 0
    assert release_cli(tmp_path / "whole.parquet", *BY_GROUP, out="from_whole.parquet") == 0
    assert pq.read_table(tmp_path / "from_parts.parquet").equals(pq.read_table(tmp_path / "from_whole.parquet"))


#: metadata a Parquet input may carry about its counts, of the file and of a column
_CONFIDENTIAL = {"confidential_note": "true counts: A=8,B=10"}


def _published_metadata(path) -> list:
    """Every metadata of a released file: of its schema, of each field, and of the Arrow schema stored in it."""
    schema = pq.read_schema(path)
    found = [schema.metadata] + [f.metadata for f in schema]
    stored = (schema.metadata or {}).get(b"ARROW:schema")
    if stored is not None:
        import base64

        arrow = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(stored)))
        found += [arrow.metadata] + [f.metadata for f in arrow]
    return found


@pytest.mark.parametrize("output", ["r.parquet", "d/"], ids=["file", "dataset"])
def test_no_metadata_of_the_input_reaches_a_released_file(tmp_path, output):
    table = _table()
    schema = pa.schema([f.with_metadata(_CONFIDENTIAL) for f in table.schema], metadata=_CONFIDENTIAL)
    pq.write_table(table.cast(schema), tmp_path / "t.parquet")
    assert (
        main(
            [
                "release",
                str(tmp_path / "t.parquet"),
                "--invariant",
                "by:group",
                "--epsilon",
                "1",
                "-o",
                f"{tmp_path}/{output}",
                "--quiet",
                *SEEDED,
            ]
        )
        == 0
    )
    files = [tmp_path / output] if output.endswith(".parquet") else list((tmp_path / output).iterdir())
    assert len(files) == 1
    for file in files:
        assert b"true counts" not in file.read_bytes()
        assert [m for m in _published_metadata(file) if m and set(m) != {b"ARROW:schema"}] == []


def test_parts_whose_columns_differ_or_an_empty_directory_are_refused(tmp_path, capsys, release_cli):
    parts = tmp_path / "parts"
    parts.mkdir()
    assert release_cli(parts, *BY_GROUP, out="r.parquet") == 3
    assert "a directory without .parquet files" in capsys.readouterr().err
    pq.write_table(_table().slice(0, 300), parts / "a.parquet")
    pq.write_table(_table().slice(300).rename_columns(["group", "cell", "n"]), parts / "b.parquet")
    assert release_cli(parts, *BY_GROUP, out="r.parquet") == 3
    assert "differ from the first file's" in capsys.readouterr().err
    only(tmp_path, "parts")


@pytest.mark.parametrize("output", ["w.parquet", "w/"])
def test_a_wide_reading_of_parquet_and_a_parquet_release_of_a_wide_table_are_refused(
    tmp_path, capsys, monkeypatch, output, release_cli
):
    import isdp.release._release

    pq.write_table(_table(), tmp_path / "t.parquet")
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, "--format", "wide", out="r.csv") == 2
    assert "a Parquet table is long" in capsys.readouterr().err
    (tmp_path / "w.csv").write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")

    def never(*args, **kwargs):
        raise AssertionError("sampled before the refusal")

    monkeypatch.setattr(isdp.release, "make_release", never)  # refused before anything is drawn
    code = main(
        [
            "release",
            str(tmp_path / "w.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            f"{tmp_path}/{output}",
            "--quiet",
            *SEEDED,
        ]
    )
    assert code == 2 and "a Parquet release is a long table" in capsys.readouterr().err
    only(tmp_path, "t.parquet", "w.csv")


def test_a_long_csv_table_can_be_released_as_parquet_its_keys_as_text(tmp_path, release_cli):
    _csv(_table(), tmp_path / "t.csv")
    assert release_cli(tmp_path / "t.csv", *BY_GROUP, out="r.parquet") == 0
    released = pq.read_table(tmp_path / "r.parquet")
    assert released.schema.field("cell").type == pa.string() and released.column("cell")[5].as_py() == "5"


def test_a_hundred_thousand_cell_parquet_release_keeps_every_block_total(tmp_path, release_cli):
    table = _table(100_000)
    pq.write_table(table, tmp_path / "t.parquet")
    assert release_cli(tmp_path / "t.parquet", *BY_GROUP, out="r.parquet") == 0
    values = pq.read_table(tmp_path / "r.parquet").column("count").to_numpy()
    x = table.column("count").to_numpy().astype(np.int64)
    assert values.dtype == np.int64 and not np.array_equal(values, x)
    assert np.array_equal(values.reshape(-1, 100).sum(axis=1), x.reshape(-1, 100).sum(axis=1))


_KEYS = {  # (key columns, counts) each read a column at a time and row by row: the same outcome
    "plain": ({"state": ["A", "A", "B"], "year": [2019, 2020, 2019]}, [3, 4, 5]),
    "spaces stripped": ({"area": [" A", "B  "]}, [3, 4]),
    "spaced duplicate": ({"area": ["New  York", "new york"]}, [3, 4]),
    "stripped duplicate": ({"area": ["A ", " a"]}, [3, 4]),
    "case duplicate": ({"area": ["A", "a"], "sex": ["F", "f"]}, [1, 2]),
    "integer duplicate": ({"area": ["A", "B", "A"], "year": [2019, 2019, 2019]}, [1, 2, 3]),
    "negative integer keys": ({"area": ["A", "A"], "shift": [-1, 1]}, [1, 2]),
    "keys alike once joined": ({"a": ["x", "x y"], "b": ["y z", "z"]}, [1, 2]),
    "margin inside a word": ({"area": ["Totally", "small", "summer"]}, [3, 4, 5]),
    "margin label": ({"area": ["A", "All ages"]}, [3, 4]),
    "margin word": ({"area": ["A", "Grand total"]}, [3, 4]),
    "non-ASCII": ({"area": ["Zürich", "Zu\u0308rich"]}, [3, 4]),
    "invisible": ({"area": ["A", "\u200b"]}, [3, 4]),
    "tab": ({"area": ["a\tb", "c"]}, [3, 4]),
    "empty key": ({"area": ["A", "B"], "sex": ["F", ""]}, [3, 4]),
    "null key": ({"area": ["A", None]}, [3, 4]),
    "bar": ({"area": ["A|B", "C"]}, [3, 4]),
    "count-like key": ({"area": ["A", "B"], "n": [1, 2]}, [3, 4]),
    "too large": ({"area": ["A", "B"]}, [3, 2**53 + 1]),
    "negative": ({"area": ["A", "B"]}, [3, -4]),
    "negative zero": ({"area": ["A", "A"], "x": [0.0, -0.0]}, [3, 4]),
}


@pytest.mark.parametrize("name", list(_KEYS))
def test_the_column_at_a_time_checks_agree_with_the_row_by_row_ones(tmp_path, monkeypatch, name):
    import isdp.tables._tables as tables
    from isdp.errors import InputError
    from isdp.tables import load_table

    keys, counts = _KEYS[name]
    pq.write_table(pa.table({**keys, "count": pa.array(counts, pa.int64())}), tmp_path / "t.parquet")

    def outcome():
        try:
            table = load_table(tmp_path / "t.parquet")
        except InputError as err:
            return str(err)
        return table.keys, table.x.tolist(), table.with_cells(table.x)

    fast = outcome()
    table = pq.read_table(tmp_path / "t.parquet")
    plain = name in (
        "plain",
        "spaces stripped",
        "margin inside a word",
        "keys alike once joined",
        "negative integer keys",
    )
    assert (plain_columns(tmp_path, table, table.num_columns - 1) is not None) == plain
    monkeypatch.setattr(tables, "plain_columns", lambda *args: None)
    assert fast == outcome()
    assert isinstance(fast, tuple) == (plain or name == "tab")


def test_rows_are_told_apart_also_when_their_codes_must_be_renumbered():
    """Columns whose numbers of codes multiply beyond 2**62: the combinations seen so far are renumbered first."""
    from isdp.tables._parquet_tables import _distinct_rows

    columns = [(np.array([0, 1, 0]), 2**40), (np.array([0, 0, 0]), 2**40), (np.array([1, 2, 1]), 2**40)]
    assert not _distinct_rows(columns, 3)
    columns[2] = (np.array([1, 2, 3]), 2**40)
    assert _distinct_rows(columns, 3)
    assert _distinct_rows([(np.array([0, 0, 1]), 2), (np.array([0, 1, 2]), 3)], 3)  # a column of distinct values


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=12), st.booleans())
def test_rows_are_distinct_exactly_when_no_two_have_the_same_codes(rows, in_order):
    """Against a set of the rows: in key order (the strictly ascending shortcut) and as drawn."""
    from isdp.tables._parquet_tables import _distinct_rows

    rows = sorted(rows) if in_order else rows
    columns = []
    for a in (0, 1):  # a column's codes and their number, as a table's key column holds them
        seen: dict[int, int] = {}
        columns.append((np.array([seen.setdefault(r[a], len(seen)) for r in rows]), len(seen)))
    assert _distinct_rows(columns, len(rows)) == (len(set(rows)) == len(rows))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["A", "A ", "b", "B", "c|d", "", "7"]), min_size=1, max_size=12),
    st.permutations(range(7)),
)
def test_a_dictionary_key_column_reads_as_its_text_does(words, order):
    """Codes read from a dictionary column (its words in any order, a word held twice) give the text's labels,
    codes and refusals."""
    vocabulary = ["A", "A ", "b", "B", "c|d", "", "7", "A"]  # "A" held twice
    dictionary = pa.array([vocabulary[i] for i in order] + ["A"])
    at = {w: [i for i, v in enumerate(dictionary.to_pylist()) if v == w] for w in set(words)}
    indices = pa.array([at[w][k % len(at[w])] for k, w in enumerate(words)], type=pa.int32())
    coded = pa.chunked_array([pa.DictionaryArray.from_arrays(indices, dictionary)])
    n = len(words)
    counts = pa.chunked_array([np.arange(n)])
    as_text = plain_columns("t", pa.table({"key": pa.array(words), "cell": np.arange(n), "count": counts}), 2)
    as_codes = plain_columns("t", pa.table({"key": coded, "cell": np.arange(n), "count": counts}), 2)
    if as_text is None:
        assert as_codes is None
        return
    assert as_codes is not None and as_codes[0] == as_text[0]
    assert as_codes[1].take(np.arange(n), [0]) == as_text[1].take(np.arange(n), [0])
    assert as_codes[2].tolist() == as_text[2].tolist()
