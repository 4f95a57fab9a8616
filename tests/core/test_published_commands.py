"""``isdp query`` and ``isdp verify`` on the command line: the CSV written, the summary, and each exit status."""

import contextlib
import csv
import io
from pathlib import Path

import pytest

from isdp.cli import main
from isdp.published._published_release import PublishedRelease


@pytest.fixture
def release(tmp_path, capsys):
    table = tmp_path / "blocks.csv"
    table.write_text(
        "county,block,age,count\n"
        + "".join(f"c{c},b{b},a{a},{(3 * c + 5 * b + a) % 11}\n" for c in range(2) for b in range(2) for a in range(3))
    )
    out = tmp_path / "release.csv"
    seeded = ["--seed", "2", "--reproducible-not-for-publication", "--quiet"]
    assert (
        main(["release", str(table), "--invariant", "by:county,block", "--epsilon", "1", *seeded, "-o", str(out)]) == 0
    )
    capsys.readouterr()
    return out


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_query_by_columns_writes_one_line_per_group_and_a_summary(release, capsys):
    assert main(["query", str(release), "--by", "county,age"]) == 0
    got = capsys.readouterr()
    rows = _rows(got.out)
    assert list(rows[0]) == ["query", "value", "noise_sd", "lower", "upper", "coverage", "coverage_se", "method"]
    assert [r["query"] for r in rows][:2] == ["county=c0, age=a0", "county=c0, age=a1"] and len(rows) == 6
    assert all(int(r["lower"]) <= int(r["value"]) <= int(r["upper"]) and r["method"] == "exact" for r in rows)
    assert got.err.startswith("6 queries at level 0.9: 6 exact")
    published = PublishedRelease.read(release, Path(f"{release}.statement.json"))
    answer = published.query(*published.group_sums(["county", "age"]), level=0.9)
    assert [int(r["lower"]) for r in rows] == answer["lower"].tolist()


def test_query_writes_a_file_from_a_queries_file_and_simultaneously(release, tmp_path, capsys):
    queries = tmp_path / "q.csv"
    queries.write_text(
        "query,cell,coefficient\nc0 minus c1,c0|b0|a0,1\nc0 minus c1,c1|b0|a0,-1\nblock,c0|b1|a0,1\n"
        "block,c0|b1|a1,1\nblock,c0|b1|a2,1\n"
    )
    out = tmp_path / "answer.csv"
    assert main(["query", str(release), "--queries", str(queries), "--simultaneous", "-o", str(out)]) == 0
    rows = _rows(out.read_text())
    assert [r["method"] for r in rows] == ["exact", "fixed"] and rows[1]["lower"] == rows[1]["upper"]
    assert "for all at once (each at 0.95)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--by", "county", "--queries", "q.csv"], 2, "not allowed with"),
        (["--by", "state"], 2, "no key column 'state'"),
        (["--by", "age", "--level", "2"], 2, "level"),
        (["--by", "age", "--statement", "none.json"], 3, "no such file"),
        (["--by", "age", "--level", "0.9999999999999"], 5, "below the 1e-09"),
        (["--by", "age", "-o", "release.csv"], 2, "is a released table"),
    ],
)
def test_query_refusals_exit_with_their_status(release, capsys, monkeypatch, args, status, message):
    monkeypatch.chdir(release.parent)
    with pytest.raises(SystemExit) if status == 2 and "--queries" in args else contextlib.nullcontext() as raised:
        got = main(["query", str(release), *args])
    err = capsys.readouterr().err
    assert (raised.value.code if raised else got) == status
    assert message in err


def test_the_commands_are_listed_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "query" in out and "verify" in out
