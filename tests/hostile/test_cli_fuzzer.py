"""The command line under generated options and hostile tables (CSV, Parquet files and datasets): its only
outcomes are the documented exit statuses, a refusal is one line on stderr (never a traceback), and a refusal
writes nothing — no output, no temporary file, an earlier output left byte for byte as it was.

Each example runs ``isdp.cli.main`` in this process on a tiny table in a folder of its own, with ``--quiet``;
the number of examples and the deadline per example are the loaded Hypothesis profile's (tests/conftest.py)."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from isdp.cli import main

#: the exit statuses a release without a Dask cluster may end with (isdp.cli.EXIT_CODES)
STATUSES = {0, 2, 3, 4, 5}
ERROR = "isdp release: error: "

LABELS = st.sampled_from(["a", "b", "c", "Total", "", "1", "2.5", "a|b", " a", "ä", "=1+1", "nan", "-0", "a"])
COUNTS = st.one_of(
    st.integers(0, 30).map(str),
    st.sampled_from(
        ["-1", "2.5", "", "nan", "1e3", "9007199254740993", "\u0663", " 4", "0x10", "1_000", "inf", "+3", "2" * 40]
    ),
)


@st.composite
def csv_tables(draw) -> tuple[str, str]:
    """A small CSV table, wide or long, with hostile labels and counts, sometimes ragged: (name, text)."""
    labels = LABELS if draw(_mostly(False, True)) else st.sampled_from(["a", "b", "c"])
    rows = draw(st.lists(labels, min_size=1, max_size=3, unique=labels is not LABELS))
    cols = draw(st.lists(labels, min_size=1, max_size=3, unique=labels is not LABELS))
    cell = st.one_of(st.integers(0, 9).map(str), COUNTS) if draw(_mostly(False, True)) else st.integers(0, 9).map(str)
    if draw(st.booleans()):  # wide: a row-label column, one column per category
        lines = [",".join(["g", *cols])] + [",".join([r, *(draw(cell) for _ in cols)]) for r in rows]
    else:  # long: key columns and a count column
        count = draw(st.sampled_from(["count", "n", "count"]))
        lines = [f"r,c,{count}"] + [f"{r},{c},{draw(cell)}" for r in rows for c in cols]
    if draw(st.integers(0, 9)) == 0:
        lines[-1] = lines[-1].rsplit(",", 1)[0]  # ragged
    return "t.csv", "\n".join(lines) + "\n"


_COUNT_TYPES = ["int64", "int32", "uint64", "float64", "string", "bool", "int64 with nulls", "Int64 big"]


@st.composite
def parquet_tables(draw) -> tuple[str, list[pa.Table]]:
    """A small long Parquet table, as one file or a dataset of one or two parts: (name, parts). The count
    column of a hostile type now and then, a repeated column name, input metadata."""
    rows = draw(
        st.lists(
            st.sampled_from(["a", "b", "c", "", "Total"]), min_size=1, max_size=3, unique=draw(_mostly(True, False))
        )
    )
    cols = draw(st.lists(st.sampled_from(["x", "y", "1"]), min_size=1, max_size=3, unique=draw(_mostly(True, False))))
    keys_r = [r for r in rows for _ in cols]
    keys_c = [c for _ in rows for c in cols]
    n = len(keys_r)
    values = draw(st.lists(st.integers(-2 if draw(_mostly(False, True)) else 0, 30), min_size=n, max_size=n))
    kind = draw(_mostly("int64", *_COUNT_TYPES))
    if kind == "int64 with nulls":
        count = pa.array([None if v < 0 else v for v in values], pa.int64())
    elif kind == "Int64 big":
        count = pa.array([2**62 if v < 0 else v for v in values], pa.int64())
    elif kind == "uint64":
        count = pa.array([2**64 - 1 if v < 0 else v for v in values], pa.uint64())
    elif kind == "float64":
        count = pa.array([v + 0.5 if v < 0 else float(v) for v in values], pa.float64())
    elif kind == "string":
        count = pa.array([str(v) for v in values], pa.string())
    elif kind == "bool":
        count = pa.array([v > 0 for v in values], pa.bool_())
    else:
        count = pa.array(values, pa.int64() if kind == "int64" else pa.int32())
    names = draw(_mostly(["r", "c", "count"], ["r", "r", "count"], ["r", "c", "n"]))
    table = pa.Table.from_arrays([pa.array(keys_r), pa.array(keys_c), count], names=names)
    if draw(st.booleans()):
        table = table.replace_schema_metadata({"confidential_note": "true counts"})
    if draw(st.booleans()) and n > 1:  # a dataset of two parts, the second of another count type now and then
        cut = draw(st.integers(1, n - 1))
        second = table.slice(cut)
        if draw(st.integers(0, 3)) == 0:
            second = second.cast(pa.schema([*table.schema][:2] + [pa.field(names[2], pa.int32())]), safe=False)
        return "ds", [table.slice(0, cut), second]
    return "t.parquet", [table]


def _mostly(usual, *hostile, rare: int = 4):
    """The usual value ``rare`` times in ``rare + 1``, else one of the hostile ones: most examples reach the
    release."""
    return st.sampled_from([usual] * (rare * len(hostile)) + list(hostile))


def run_options(rare: int = 4, output=None):
    """The options of one run: each hostile about once in ``rare + 1`` (the tables' tests: rarely)."""
    return st.fixed_dictionaries(
        {
            "invariant": st.one_of(
                *[
                    st.lists(
                        st.sampled_from(["total", "row-margins", "column-margins", "all-margins", "by:r", "by:c"]),
                        min_size=1,
                        max_size=2,
                    )
                ]
                * rare,
                st.lists(st.sampled_from(["total", "by:r,c", "by:nope", "bogus", "total@t", "by:"]), max_size=2),
            ),
            "epsilon": st.one_of(
                *[st.sampled_from(["1", "0.5", "2", "1/3", "0.1234567891", "1e-9", "700", "7/2000000000"])] * rare,
                st.sampled_from([None, "701", "0", "-1", "nan", "inf", "1_0", "", "abc", "\u0661", "1/0"]),
            ),
            "norm": st.sampled_from([None] * rare + ["gaussian"] * 3 + ["l1", "l2", "linf"]),
            "delta": _mostly("1e-6", "0.5", "0", "1", "nan", "1e-400", "-1e-6", "1/3", rare=rare),
            "pure_delta": _mostly(False, True, rare=2 * rare),  # a delta given to the pure l1 route too
            "flags": st.tuples(
                *(_mostly(None, flag) for flag in ("--free-cells", "--nonnegative", "--dry-run", "--force")),
                _mostly(None, "--allow-chain", rare=2 * rare),
            ).map(lambda f: [x for x in f if x]),
            "uncertainty": _mostly(None, "0.9", "0.5", "1", "0", "nan", "0.999999999", rare=rare),
            "max_attempts": _mostly(None, "2", "20000", "0", "1_0", "-5", "2.5", rare=rare),
            "seed": _mostly(
                None,
                ["--seed", "3", "--reproducible-not-for-publication"],
                ["--seed", "3"],
                ["--seed", "-1", "--reproducible-not-for-publication"],
                ["--seed", "x"],
                rare=rare,
            ),
            "format": _mostly(None, "auto", "wide", "long", "csv", rare=rare),
            "count_column": _mostly(None, "count", "n", "", rare=rare),
            "engine": _mostly(
                None,
                ["--engine", "dask"],
                ["--engine", "dask", "--scheduler", "foo"],
                ["--engine", "dask", "--workers", "100000"],
                ["--scheduler", "tcp://127.0.0.1:1"],
                ["--engine", "dask", "--scheduler", "http://127.0.0.1:8787"],
                rare=rare,
            ),
            "output": output
            if output is not None
            else _mostly("out.csv", "out.parquet", "out/", "INPUT", "sub/out.csv", ".", rare=rare),
            "earlier": _mostly(None, "file", "dangling link", rare=rare),
        }
    )


def _arguments(table: Path, options: dict) -> list[str]:
    args = ["release", str(table), "-q"]
    for rule in options["invariant"]:
        args += ["--invariant", rule]
    chain = options["norm"] == "l2" or "--allow-chain" in options["flags"]
    for name in ("epsilon", "norm", "delta", "uncertainty", "max_attempts", "format", "count_column"):
        if name == "delta" and not (chain or options["norm"] == "gaussian" or options["pure_delta"]):
            continue
        if options[name] is not None:
            args += [f"--{name.replace('_', '-')}", options[name]]
    if options["seed"] is not None and not chain:  # a seeded chain runs its certificate: seconds, not a probe
        args += options["seed"]
    args += options["flags"] + (options["engine"] or [])
    return args


def _files(folder: Path) -> dict[str, bytes | str]:
    """Every name under ``folder`` with its bytes (a link: where it points)."""
    found = {}
    for p in sorted(folder.rglob("*")):
        key = str(p.relative_to(folder))
        found[key] = f"-> {p.readlink()}" if p.is_symlink() else (p.read_bytes() if p.is_file() else "dir")
    return found


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as stop:  # argparse: a malformed option
            code = stop.code
    return code, out.getvalue(), err.getvalue()


def _probe(write_table, options: dict) -> None:
    """Run one release into a fresh folder and check its outcome."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        table = write_table(folder)
        output = str(table) if options["output"] == "INPUT" else str(folder / options["output"])
        if options["output"] == ".":
            output = str(folder) + "/."
        if options["earlier"] == "file" and not output.endswith("/") and options["output"] not in ("INPUT", "."):
            Path(output).parent.mkdir(exist_ok=True)
            Path(output).write_text("earlier release\n")
        elif options["earlier"] == "dangling link" and options["output"] == "out.csv":
            Path(output).symlink_to(folder / "missing.csv")
        args = _arguments(table, options)
        if "--dry-run" not in options["flags"] or options["output"] != "out.csv":
            args += ["-o", output]
        before = _files(folder)
        code, out, err = _run(args)
        event(f"exit {code}")
        assert code in STATUSES, (code, args, err)
        assert "Traceback" not in err, (args, err)
        if code != 0:
            lines = err.splitlines()
            assert lines and lines[-1].startswith(ERROR) and len(lines[-1]) > len(ERROR), (args, err)
            if not (code == 2 and lines[0].startswith("usage:")):  # argparse shows its usage first
                assert len(lines) == 1, (args, err)
            assert out == "", (args, out)
            assert _files(folder) == before, (args, err)  # nothing written, nothing removed, nothing changed
        elif "--dry-run" in options["flags"]:
            assert json.loads(out)["guarantee"], args
            assert _files(folder) == before, args
        else:
            assert out.startswith("released "), (args, out)
            statement = Path(output.rstrip("/") + ".statement.json")
            assert json.loads(statement.read_text())["guarantee"], args
            assert err in ("", "warning: seeded run — reproducible, NOT for publication\n"), (args, err)


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Compile the exact samplers once (numba), so that no example's deadline pays for it."""
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp, "t.csv")
        table.write_text("g,a,b\nu,1,2\nv,3,4\n")
        for extra in ([], ["--free-cells"], ["--norm", "gaussian", "--delta", "1e-6"]):
            code, _, err = _run(
                ["release", str(table), "--invariant", "all-margins", "--epsilon", "1", "-q", "--dry-run", *extra]
            )
            assert code == 0, err
            code, _, err = _run(
                [
                    "release",
                    str(table),
                    "--invariant",
                    "total",
                    "--epsilon",
                    "1",
                    "-q",
                    "--force",
                    "-o",
                    str(Path(tmp, "o.csv")),
                    *extra,
                ]
            )
            assert code == 0, err


@given(table=csv_tables(), options=run_options(rare=12))
def test_csv_tables_and_options_end_in_a_documented_status(table, options):
    name, text = table

    def write(folder: Path) -> Path:
        (folder / name).write_text(text, encoding="utf-8")
        return folder / name

    _probe(write, options)


@given(table=parquet_tables(), options=run_options(rare=12, output=_mostly("out.parquet", "out/", "out.csv")))
def test_parquet_tables_and_options_end_in_a_documented_status(table, options):
    name, parts = table

    def write(folder: Path) -> Path:
        if name == "ds":
            (folder / name).mkdir()
            for k, part in enumerate(parts):
                pq.write_table(part, folder / name / f"part-{k}.parquet")
        else:
            pq.write_table(parts[0], folder / name)
        return folder / name

    _probe(write, options)


@given(options=run_options(), counts=st.lists(st.integers(0, 40), min_size=6, max_size=6))
def test_a_valid_table_under_any_options_ends_in_a_documented_status(options, counts):
    """A well-formed 2 x 3 table, so that the options, not the table, decide the outcome."""
    values = np.array(counts).reshape(2, 3)

    def write(folder: Path) -> Path:
        lines = ["r,c,count"] + [f"{r},{c},{values[i, j]}" for i, r in enumerate("ab") for j, c in enumerate("xyz")]
        (folder / "t.csv").write_text("\n".join(lines) + "\n")
        return folder / "t.csv"

    _probe(write, options)
