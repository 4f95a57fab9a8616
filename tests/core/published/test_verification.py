"""``isdp verify``'s checks: every honest release passes (each route, wide and long, Parquet in parts, several
tables, a constraint file, the uncertainty columns), and each of a list of tamperings fails at the check it breaks."""

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from isdp.cli import main
from isdp.errors import InputError
from isdp.published import verify_release
from isdp.release import Request, release_partitioned

SEEDED = ["--seed", "4", "--reproducible-not-for-publication", "--quiet"]


def _long(tmp: Path, name: str = "blocks.csv", counties: int = 2) -> Path:
    rng = np.random.default_rng(5)
    lines = ["county,block,age,count"] + [
        f"c{c},b{b},a{a},{int(rng.integers(0, 20))}" for c in range(counties) for b in range(3) for a in range(4)
    ]
    path = tmp / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _release(tmp: Path, tables: list[Path], *options: str) -> tuple[list[Path], Path]:
    outputs = [tmp / f"out_{t.name}" for t in tables]
    args = ["release", *map(str, tables), *options, *SEEDED]
    for out in outputs:
        args += ["-o", str(out)]
    assert main(args) == 0
    return outputs, Path(f"{outputs[0]}.statement.json")


HONEST = {
    "l1, one total per block": lambda tmp: _release(
        tmp, [_long(tmp)], "--invariant", "by:county,block", "--epsilon", "1"
    ),
    "free cells": lambda tmp: _release(
        tmp, [_long(tmp)], "--invariant", "by:county,block", "--invariant", "by:age", "--epsilon", "1", "--free-cells"
    ),
    "gaussian, both margins": lambda tmp: _release(
        tmp,
        [_long(tmp)],
        *("--invariant", "by:county,block", "--invariant", "by:county,age"),
        *("--norm", "gaussian", "--epsilon", "1", "--delta", "1e-6"),
    ),
    "uncertainty columns": lambda tmp: _release(
        tmp, [_long(tmp)], "--invariant", "by:county,block", "--epsilon", "1", "--uncertainty", "0.9"
    ),
    "wide, both margins": lambda tmp: _release(
        tmp, [_wide(tmp)], "--invariant", "all-margins", "--epsilon", "2", "--format", "wide"
    ),
    "constraint file": lambda tmp: _release(
        tmp, [_wide(tmp)], "--constraints", str(_constraints(tmp)), "--epsilon", "1"
    ),
    "several tables, tied": lambda tmp: _release(
        tmp, [_county(tmp), _long(tmp, "county_blocks.csv")], "--tie", "by:county", "--epsilon", "1"
    ),
}


def _wide(tmp: Path) -> Path:
    path = tmp / "sex_by_age.csv"
    path.write_text("sex,young,middle,old,Total\nFemale,3,5,4,12\nMale,4,2,6,12\nTotal,7,7,10,24\n")
    return path


def _constraints(tmp: Path) -> Path:
    path = tmp / "invariants.csv"
    cells = ["Female|young", "Female|middle", "Female|old", "Male|young", "Male|middle", "Male|old"]
    path.write_text(f"constraint,{','.join(cells)}\ntotal,1,1,1,1,1,1\nyoung as old,1,0,-1,1,0,-1\n")
    return path


def _county(tmp: Path) -> Path:
    path = tmp / "county.csv"
    rows = _long(tmp, "county_blocks.csv").read_text().splitlines()[1:]
    totals: dict[str, int] = {}
    for row in rows:
        county, *_, count = row.split(",")
        totals[county] = totals.get(county, 0) + int(count)
    path.write_text("county,count\n" + "".join(f"{c},{n}\n" for c, n in totals.items()))
    return path


@pytest.mark.parametrize("case", HONEST, ids=list(HONEST))
def test_every_honest_release_is_verified(tmp_path, case):
    outputs, statement = HONEST[case](tmp_path)
    found = verify_release(outputs, statement, fmt="wide" if "wide" in case or "constraint" in case else "auto")
    assert found.passed, found.lines()
    assert [name for name, _, _ in found.checks] == [
        "statement",
        "table is integer",
        "invariants kept",
        "guarantee",
        "mechanism and route",
        *(["uncertainty columns"] if case == "uncertainty columns" else []),
        "randomness",
    ]


def test_a_release_in_parts_to_a_parquet_dataset_is_verified(tmp_path):
    rng = np.random.default_rng(2)
    cells = 20_000
    path = tmp_path / "big.parquet"
    pq.write_table(
        pa.table({"group": np.arange(cells) // 50, "age": np.arange(cells) % 50, "count": rng.integers(0, 9, cells)}),
        path,
    )
    req = Request(epsilon="1", seed=3, rules=("by:group",))
    done = release_partitioned(
        path, ["by:group"], req, f"{tmp_path}/out/", tmp_path / "s.json", tmp_path / "a.json", part_cells=7_000
    )
    assert done.audit["partitions"]["parts"] > 1
    found = verify_release(tmp_path / "out", tmp_path / "s.json")
    assert found.passed, found.lines()


def _edit_json(key_path, value):
    def edit(doc: dict) -> None:
        *head, last = key_path
        for key in head:
            doc = doc[key]
        doc[last] = value(doc[last]) if callable(value) else value

    return edit


#: (name, what is changed, the check that fails)
TAMPERINGS = [
    ("a cell moved by one", "table", "invariants kept"),
    ("a cell not an integer", "table", "table is integer"),
    ("sigma", _edit_json(["mechanism", "sigma"], "5"), "guarantee"),
    ("epsilon per person", _edit_json(["guarantee", "per_person", "epsilon"], lambda e: e / 2), "guarantee"),
    ("delta per person", _edit_json(["guarantee", "per_person", "delta"], 1e-9), "guarantee"),
    (
        "the guarantee's text",
        _edit_json(["guarantee", "per_person", "text"], lambda t: t.replace("(1,", "(0.5,")),
        "guarantee",
    ),
    ("the requested epsilon", _edit_json(["requested", "epsilon_per_person"], "2"), "mechanism and route"),
    ("an invariant's value", _edit_json(["invariants", 0, "value"], lambda v: v + 1), "invariants kept"),
    ("an invariant removed", _edit_json(["invariants"], lambda v: v[:-1]), "statement describes the table"),
    (
        "an invariant relabelled",
        _edit_json(["invariants", 0, "label"], "by county=c9, block=b0"),
        "statement describes the table",
    ),
    ("the neighbours", _edit_json(["neighbouring_relation"], "anyone"), "mechanism and route"),
    ("the route's blocks", _edit_json(["route", "blocks", 0, "cells"], 99), "mechanism and route"),
    ("the checks", _edit_json(["checks"], lambda c: c[:1]), "mechanism and route"),
    ("publishable though seeded", _edit_json(["publishable"], True), "randomness"),
    ("the format", _edit_json(["isdp_privacy_statement"], 2), "statement"),
    ("the cells' count", _edit_json(["cells", "count"], 7), "statement describes the table"),
    ("the statement truncated", "truncate", "statement"),
]


@pytest.mark.parametrize(("name", "change", "check"), TAMPERINGS, ids=[t[0] for t in TAMPERINGS])
def test_each_tampering_fails_at_the_check_it_breaks(tmp_path, name, change, check):
    (out,), statement = HONEST["gaussian, both margins"](tmp_path)
    assert verify_release(out, statement).passed
    if change == "table":
        lines = out.read_text().splitlines()
        fields = lines[3].split(",")
        fields[-1] = "3.5" if "integer" in name else str(int(fields[-1]) + 1)
        lines[3] = ",".join(fields)
        out.write_text("\n".join(lines) + "\n")
    elif change == "truncate":
        statement.write_text(statement.read_text()[:-40])
    else:
        doc = json.loads(statement.read_text())
        change(doc)
        statement.write_text(json.dumps(doc, indent=1))
    found = verify_release(out, statement)
    assert not found.passed
    failed = [n for n, ok, _ in found.checks if not ok]
    assert failed == [check], found.lines()
    assert found.lines()[-1].startswith("FAILED")


def test_the_free_cell_route_s_solved_cells_and_variances_are_checked(tmp_path):
    (out,), statement = HONEST["free cells"](tmp_path)
    for edit in (
        _edit_json(["route", "solved_cells", 0], "c0|b0|a0"),
        _edit_json(["route", "noise_variance", "free_cell"], 1.0),
    ):
        doc = json.loads(statement.read_text())
        kept = json.dumps(doc)
        edit(doc)
        statement.write_text(json.dumps(doc))
        found = verify_release(out, statement)
        assert [n for n, ok, _ in found.checks if not ok] == ["mechanism and route"]
        statement.write_text(kept)


@pytest.mark.parametrize("column", ["lower", "upper", "noise_sd"])
def test_an_edited_uncertainty_column_fails(tmp_path, column):
    (out,), statement = HONEST["uncertainty columns"](tmp_path)
    lines = out.read_text().splitlines()
    k = lines[0].split(",").index(column)
    fields = lines[2].split(",")
    fields[k] = str(float(fields[k]) + 1) if column == "noise_sd" else str(int(fields[k]) - 1)
    lines[2] = ",".join(fields)
    out.write_text("\n".join(lines) + "\n")
    found = verify_release(out, statement)
    assert [n for n, ok, _ in found.checks if not ok] == ["uncertainty columns"], found.lines()
    assert column in found.lines()[-1]


def test_a_missing_file_is_an_input_error_not_a_disagreement(tmp_path):
    (out,), statement = HONEST["l1, one total per block"](tmp_path)
    with pytest.raises(InputError, match="no such file"):
        verify_release(out, tmp_path / "missing.json")
    with pytest.raises(InputError, match="no such file"):
        verify_release(tmp_path / "missing.csv", statement)


def test_the_command_prints_each_check_and_exits_by_the_verdict(tmp_path, capsys):
    (out,), statement = HONEST["l1, one total per block"](tmp_path)
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "verified: the release agrees with its statement" and len(printed) == 7
    doc = json.loads(statement.read_text())
    doc["guarantee"]["per_person"]["epsilon"] = 0.1
    statement.write_text(json.dumps(doc))
    assert main(["verify", str(out), "--statement", str(statement)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "NOT verified" and printed[-2].startswith("FAILED  guarantee")
    assert main(["verify", str(tmp_path / "none.csv")]) == 3
    assert "isdp verify: error:" in capsys.readouterr().err
