"""The command line (isdp.cli, ``isdp release``, ``python -m isdp``): a release end to end, its files
and its options, and each kind of refusal with its exit status, leaving nothing behind."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from release_support import only, run_release

from isdp.cli import main
from isdp.errors import ArgumentError, CertificationError, DrawsError, InvariantError, UsageError

E5_TABLE = ROOT / "data" / "e5" / "sex_by_age.csv"
E5_INVARIANTS = ROOT / "data" / "release" / "sex_by_age_invariants.csv"


def test_the_seeded_release_shown_in_the_release_guide_is_the_one_the_command_gives(tmp_path):
    """docs/release.md shows one seeded release of the worked example; its seed and table are read from the
    page, so a change of sampler that changes the draws fails here until the page shows the new ones."""
    page = (ROOT / "docs" / "release.md").read_text(encoding="utf-8")
    seed = int(re.search(r"One\s+release \(drawn with `--seed (\d+) --reproducible", page)[1])
    shown = re.search(r"so it can be shown here[^`]*?```\n(.*?)```", page, re.S)[1]
    out = tmp_path / "r.csv"
    code = main(
        [
            "release",
            str(E5_TABLE),
            "--format",
            "wide",
            "--constraints",
            str(E5_INVARIANTS),
            "--epsilon",
            "1",
            "--seed",
            str(seed),
            "--reproducible-not-for-publication",
            "--quiet",
            "-o",
            str(out),
        ]
    )
    assert code == 0 and out.read_text() == shown and "-" in shown.split("\n", 1)[1]  # it shows a negative cell


def test_end_to_end_on_the_e5_example(tmp_path, umask):
    code, out, statement, audit = run_release(
        tmp_path, E5_TABLE, "--constraints", E5_INVARIANTS, "--epsilon", "1", "--format", "wide"
    )  # its age labels 20 and 21 are numbers
    assert code == 0
    released = [line.split(",") for line in out.read_text().splitlines()]
    original = [line.split(",") for line in E5_TABLE.read_text().splitlines()]
    assert released[0] == original[0] and [r[0] for r in released] == [r[0] for r in original]
    cells = np.array([[int(v) for v in r[1:]] for r in released[1:]])
    x = np.array([[int(v) for v in r[1:]] for r in original[1:]])
    assert cells.shape == x.shape and not np.array_equal(cells, x)
    p = json.loads(statement.read_text())
    labels = [f"{r[0]}|{col}" for r in original[1:] for col in original[0][1:]]  # the cells, in the table's order
    assert p["cells"] == {"count": len(labels), "labels": "the released table's, in its order"}
    assert "invariant_rules" not in p  # a constraint file's invariants are stated by their coefficients
    A = np.array([[inv["coefficients"].get(label, 0) for label in labels] for inv in p["invariants"]])
    assert np.array_equal(A @ cells.ravel(), A @ x.ravel())
    assert [inv["value"] for inv in p["invariants"]] == (A @ x.ravel()).tolist()
    assert p["route"]["name"] == "exact" and p["guarantee"]["kind"] == "pure"
    # the table and the statement are published: their mode as the umask says; the audit record its owner's only
    assert [path.stat().st_mode & 0o777 for path in (out, statement, audit)] == [0o644, 0o644, 0o600]
    # ε per person 1 is the paper's ε = 1/2 per unit ℓ1 distance (one person moving changes two cells)
    assert p["mechanism"]["epsilon_per_unit_l1_distance"] == "1/2"
    assert p["guarantee"]["per_person"]["epsilon"] == 1 and p["guarantee"]["two_persons"]["epsilon"] == 2
    assert p["publishable"] is False and p["seed"] == 7 and p["package"]["version"]
    record = json.loads(audit.read_text())
    assert record["input"]["sha256"] == hashlib.sha256(E5_TABLE.read_bytes()).hexdigest()
    assert record["note"].startswith("CONFIDENTIAL") and record["exact_sampler"]["accepted"]
    only(tmp_path, "out.csv", "out.csv.statement.json", "out.csv.audit.json")


def test_the_example_invariants_are_e5s(tmp_path):
    from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints

    from isdp.tables import read_table_csv

    _, rows, cols = read_table_csv(E5_TABLE)
    A, _ = sex_by_age_constraints(rows, cols, "18-19")
    lines = [line.split(",") for line in E5_INVARIANTS.read_text().splitlines()[1:]]
    assert np.array_equal(np.array([[int(v) for v in line[1:-1]] for line in lines]), A)


def test_the_files_it_names_are_labelled_as_the_statement_says(tmp_path, capsys):
    """A seeded statement says "publishable": false; the line naming it says so too, not "(publishable)"."""
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    assert run_release(tmp_path, table, "--invariant", "total", "--epsilon", "1")[0] == 0
    assert "privacy statement (NOT publishable: a seeded run): " in capsys.readouterr().out
    out = tmp_path / "fresh.csv"
    assert main(["release", str(table), "--invariant", "total", "--epsilon", "1", "-o", str(out), "-q"]) == 0
    assert f"privacy statement (publishable): {out}.statement.json" in capsys.readouterr().out


def test_same_seed_same_release_and_os_entropy_by_default(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    outs = []
    for k in range(2):
        d = tmp_path / str(k)
        d.mkdir()
        assert run_release(d, table, "--invariant", "all-margins", "--epsilon", "1")[0] == 0
        outs.append((d / "out.csv").read_text())
    assert outs[0] == outs[1]
    out = tmp_path / "fresh.csv"
    assert main(["release", str(table), "--invariant", "total", "--epsilon", "1", "-o", str(out), "--no-progress"]) == 0
    p = json.loads(Path(str(out) + ".statement.json").read_text())
    assert p["randomness"].startswith("operating-system entropy") and p["seed"] is None and p["publishable"]


def test_wide_margins_are_kept_and_long_tables_round_trip(tmp_path):
    wide = tmp_path / "w.csv"
    wide.write_text("region,a,b,Total\nN,5,3,8\nS,1,4,5\nTotal,6,7,13\n")
    assert run_release(tmp_path, wide, "--invariant", "row-margins", "--epsilon", "1")[0] == 0
    lines = [line.split(",") for line in (tmp_path / "out.csv").read_text().splitlines()]
    assert [r[0] for r in lines] == ["region", "N", "S", "Total"] and lines[0] == ["region", "a", "b", "Total"]
    cells = np.array([[int(v) for v in r[1:3]] for r in lines[1:3]])
    assert [int(r[3]) for r in lines[1:3]] == [8, 5] == cells.sum(axis=1).tolist()
    assert [int(v) for v in lines[3][1:]] == [*cells.sum(axis=0).tolist(), 13]

    d = tmp_path / "long"
    d.mkdir()
    long = d / "l.csv"
    long.write_text("sex,age,count\nF,young,5\nF,old,3\nM,young,1\nM,old,4\n")
    assert run_release(d, long, "--invariant", "column-margins", "--epsilon", "1")[0] == 0
    lines = [line.split(",") for line in (d / "out.csv").read_text().splitlines()]
    assert [r[:2] for r in lines] == [r[:2] for r in (line.split(",") for line in long.read_text().splitlines())]
    counts = [int(r[2]) for r in lines[1:]]
    assert counts[0] + counts[2] == 6 and counts[1] + counts[3] == 7


BAD_TABLES = {
    "ragged.csv": ("g,a,b\nu,1,2\nv,3\n", "line 3 has 2 fields"),
    "fraction.csv": ("g,a,b\nu,1,2.5\nv,3,4\n", "not an integer count"),
    "negative.csv": ("g,a,b\nu,1,-2\nv,3,4\n", "negative count"),
}


@pytest.mark.parametrize("name", sorted(BAD_TABLES))
def test_bad_tables_exit_3_and_write_nothing(tmp_path, capsys, name):
    text, message = BAD_TABLES[name]
    (tmp_path / name).write_text(text)
    code, *_ = run_release(tmp_path, tmp_path / name, "--invariant", "total", "--epsilon", "1")
    assert code == 3 and message in capsys.readouterr().err
    only(tmp_path, name)


def test_constraint_file_of_the_wrong_shape_exits_3(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,v|a\nfirst,1,1,0\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--constraints", tmp_path / "c.csv", "--epsilon", "1")
    assert code == 3 and "must name the table's 4 cells" in capsys.readouterr().err
    only(tmp_path, "t.csv", "c.csv")


@pytest.mark.parametrize(
    "constraints, message",
    [
        ("constraint,u|a,u|b,v|a,v|b\npin,1,0,0,0\n", "they fix every cell"),
        ("constraint,u|a,u|b,v|a,v|b,value\nall,1,1,1,1,99\n", "states the value 99, the table gives 10"),
    ],
    ids=["no room for noise", "stated value disagrees"],
)
def test_infeasible_invariants_exit_4(tmp_path, capsys, constraints, message):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text(constraints)
    code, *_ = run_release(
        tmp_path,
        tmp_path / "t.csv",
        "--invariant",
        "all-margins",
        "--constraints",
        tmp_path / "c.csv",
        "--epsilon",
        "1",
    )
    assert code == 4 and message in capsys.readouterr().err
    only(tmp_path, "t.csv", "c.csv")


def test_seed_without_its_flag_is_refused(tmp_path, capsys):
    """As every bad option: one line of the release command's (argparse's top-level usage and prefix came first)."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "--seed",
            "1",
            "-o",
            str(tmp_path / "o.csv"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("isdp release: error: --seed makes") and err.count("\n") == 1
    assert "--reproducible-not-for-publication" in err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--norm", "l2", "--epsilon", "1", "--delta", "0.2", "--max-iter", "2"],
            "of 16 pilot pairs did not meet within 2 iterations",
        ),
        (["--norm", "l2", "--epsilon", "1", "--delta", "1e-6"], "a certified chain cannot state a delta below"),
        (["--norm", "l2", "--epsilon", "1", "--delta", "0.2", "--pairs", "50"], "--pairs 50 cannot certify"),
        (["--epsilon", "0.01", "--max-attempts", "2"], "proposals for one draw of a block of 6 cells"),
        (["--epsilon", "0.01", "--max-attempts", "2"], "What would work: --max-attempts "),
    ],
    ids=["chain budget", "delta below resolution", "too few pairs", "exact budget", "exact budget advice"],
)
def test_uncertifiable_requests_exit_5(tmp_path, capsys, args, message):
    (tmp_path / "t.csv").write_text("g,a,b,c\nu,0,0,2\nv,0,4,0\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "all-margins", *args)
    assert code == 5 and message in capsys.readouterr().err
    only(tmp_path, "t.csv")


def test_the_isdp_console_script_is_declared():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"isdp": "isdp.cli:main"}


def test_python_m_isdp_help_explains_the_command():
    run = subprocess.run(
        [sys.executable, "-m", "isdp", "release", "--help"],
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"},
        check=True,
        timeout=300,
    )  # the same help whatever the terminal
    for needle in (
        "--epsilon",
        "--invariant",
        "--constraints",
        "exit codes",
        "--delta",
        "--dry-run",
        "per person",
        "nothing is written",
    ):
        assert needle in run.stdout


# --------------------------------------------------------------------------- refusals before the noise, signals, bugs


def test_a_dangling_symbolic_link_as_output_is_refused_before_anything_is_drawn(tmp_path, capsys, monkeypatch):
    """Found only at the end, once the noise was drawn, as an output 'written by another run meanwhile'."""
    import isdp.release as release

    monkeypatch.setattr(release, "make_release", lambda *a, **k: pytest.fail("drawn before the refusal"))
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "out.csv").symlink_to(tmp_path / "missing.csv")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1")
    err = capsys.readouterr().err
    assert code == 2 and "out.csv is a symbolic link to nothing (a dangling link)" in err
    only(tmp_path, "t.csv", "out.csv")
    assert not (tmp_path / "out.csv").exists()


# A child that releases a 12,000-cell Parquet table in parts of 3,000 cells and sends itself SIGTERM, as `timeout`,
# SLURM or systemd would, once part 0's file is written and part 1 begins.
_TERMINATED_CHILD = """
import os, signal, sys
import isdp.release
import isdp.release._partitioned_release as partitioned
from isdp.cli import main

isdp.release.PartitionedRelease.PART_CELLS = 3_000
release_part = partitioned.release_part

def part(layout, k, *args, **kwargs):
    if k == 1:
        os.kill(os.getpid(), signal.SIGTERM)
    return release_part(layout, k, *args, **kwargs)

partitioned.release_part = part
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_is_handled_as_sigint_and_leaves_no_part_behind(tmp_path):
    """SIGTERM killed the release and left `.OUT.*.parts/part-000000.parquet`: noisy cells never published."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cells = np.arange(12_000)
    pq.write_table(pa.table({"g": cells // 100, "cell": cells, "count": np.full(12_000, 5)}), tmp_path / "t.parquet")
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            _TERMINATED_CHILD,
            "release",
            str(tmp_path / "t.parquet"),
            "--invariant",
            "by:g",
            "--epsilon",
            "1",
            "--free-cells",
            "-o",
            str(tmp_path / "o.parquet"),
        ],
        capture_output=True,
        encoding="utf-8",
        timeout=600,
        preexec_fn=_default_sigterm,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"},
    )
    assert run.returncode == 143, run.stderr
    assert "isdp release: terminated: nothing written" in run.stderr and "Traceback" not in run.stderr
    only(tmp_path, "t.parquet")


def _default_sigterm() -> None:
    """In the child: SIGTERM at its default, whatever this run inherited (the command leaves an ignored one be)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raising(error: BaseException):
    def make_release(*args, **kwargs):
        raise error

    return make_release


def test_an_unexpected_error_exits_70_and_names_the_file_holding_its_details(tmp_path, capsys, monkeypatch):
    """A bug is never a traceback on stderr, nor silent: one line names a file of this user's only that holds the
    traceback and the versions."""
    import tempfile

    import isdp
    import isdp.release as release

    monkeypatch.setattr(release, "make_release", _raising(KeyError("a bug")))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1")
    err = capsys.readouterr().err
    assert code == 70 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("isdp release: internal error: KeyError, a bug in isdp: the details (a traceback) are in ")
    details = Path(re.search(r"are in (\S+);", err)[1])
    assert details.parent == tmp_path / "tmp" and details.stat().st_mode & 0o777 == 0o600
    text = details.read_text()
    assert text.startswith(f"isdp {isdp.__version__}, Python ") and "Traceback" in text and "KeyError: 'a bug'" in text
    only(tmp_path, "t.csv", "tmp")


def test_an_unexpected_error_whose_details_cannot_be_saved_still_says_so(tmp_path, capsys, monkeypatch):
    import tempfile

    import isdp.release as release

    monkeypatch.setattr(release, "make_release", _raising(RuntimeError("a bug")))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1")
    err = capsys.readouterr().err
    assert code == 70 and err.count("\n") == 1
    assert "internal error: RuntimeError, a bug in isdp; its details could not be saved (" in err


@pytest.mark.parametrize(
    "error, status",
    [
        (ArgumentError("sigma must be a positive number, got -2", "sigma"), 2),
        (InvariantError("A admits no integer noise"), 4),
        (CertificationError("not certified: 100 pairs cannot resolve 0.01"), 5),
        (DrawsError("draws.nc: missing"), 1),
        (UsageError("--epsilon must be a positive number"), 2),
    ],
    ids=["argument", "invariant", "certification", "other", "usage"],
)
def test_library_errors_reaching_the_command_line_exit_by_their_kind(tmp_path, capsys, monkeypatch, error, status):
    import isdp.release as release

    monkeypatch.setattr(release, "make_release", _raising(error))
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1")
    assert code == status and capsys.readouterr().err == f"isdp release: error: {error}\n"
    only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "option, value",
    [
        ("--max-attempts", "1_000"),
        ("--max-attempts", "١٠٠٠"),
        ("--max-iter", " 1000"),
        ("--pairs", "1e3"),
        ("--seed", "3.0"),
    ],
)
def test_integer_options_are_whole_numbers_in_ascii_digits(tmp_path, capsys, option, value):
    """int() would read 1_000 as 1000, and digits of other scripts."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    with pytest.raises(SystemExit) as exc:
        main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", option, value, "--dry-run"])
    assert exc.value.code == 2
    assert f"argument {option}: must be a whole number in ASCII digits" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0.٩", "nan", "9_0e-2", "1.5"])
def test_the_uncertainty_level_is_read_as_the_other_numbers(tmp_path, capsys, value):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(
        tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1", "--uncertainty", value
    )
    assert code == 2 and "--uncertainty must lie in (0, 1)" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize("family", ["total", "row-margins"])
def test_a_table_of_margins_only_is_refused_by_the_dry_run_as_by_the_release(tmp_path, capsys, family):
    """The dry run read the labels only, and ended in an IndexError (or 'no invariants') on a table whose one column is
    its margin."""
    (tmp_path / "t.csv").write_text("g,Total\na,0\n")
    for extra in (["--dry-run"], ["-o", str(tmp_path / "o.csv")]):
        code = main(["release", str(tmp_path / "t.csv"), "--invariant", family, "--epsilon", "1", "-q", *extra])
        assert code == 3 and "the table has no cells besides its margins" in capsys.readouterr().err
    only(tmp_path, "t.csv")


def test_only_the_process_s_own_command_line_freezes_its_objects(tmp_path, monkeypatch, capsys):
    """The console script (no argv) collects young objects 50,000 at a time and freezes what is left, so the
    interpreter's last collections skip it; a caller's ``main(argv)`` leaves its process's collector as it was."""
    import gc

    before, thresholds = gc.get_freeze_count(), gc.get_threshold()
    try:
        assert main(["example", "sex_by_age", "--dir", str(tmp_path / "a")]) == 0
        assert gc.get_freeze_count() == before and gc.get_threshold() == thresholds
        monkeypatch.setattr(sys, "argv", ["isdp", "example", "sex_by_age", "--dir", str(tmp_path / "b")])
        assert main() == 0
        assert gc.get_freeze_count() > before
        assert gc.get_threshold() == (50_000, *thresholds[1:]) and gc.isenabled()
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    capsys.readouterr()


def test_the_command_s_modules_load_with_the_collector_paused_in_its_own_process_only():
    import gc

    from isdp.cli import _loading

    before = gc.get_freeze_count()
    try:
        with _loading(False):
            assert gc.isenabled()
        assert gc.get_freeze_count() == before
        with pytest.raises(KeyError), _loading(True):
            assert not gc.isenabled()
            raise KeyError("a failed import")
        assert gc.isenabled() and gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
