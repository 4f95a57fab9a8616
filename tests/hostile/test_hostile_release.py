"""Hostile input to `isdp release`, round three: layouts that can be read two ways, paths that collide
with an input or with each other, numbers beyond 64 bits, signals, other users, races. Each probe of
the round is a test; every refusal exits with the documented code, names the problem, and leaves
nothing behind (and never touches an input)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from isdp.cli import main

SEEDED = ["--seed", "3", "--reproducible-not-for-publication", "--no-progress"]
TABLE = "g,a,b,c\nu,5,3,2\nv,1,4,6\n"


def _release(tmp_path, table_text, *args, name="t.csv", out="out.csv"):
    (tmp_path / name).write_text(table_text)
    return main(["release", str(tmp_path / name), *map(str, args), "-o", str(tmp_path / out), *SEEDED])


def _only(tmp_path, *names):
    assert sorted(os.listdir(tmp_path)) == sorted(names)


# --------------------------------------------------------------------------- layouts read two ways


@pytest.mark.parametrize("text, message", [
    ("r1,5,3,8\nr2,2,9,4\nr3,7,1,6\n", "the column label '5' is a number: the file may have no header row"),
    ("a,b,c\n5,3,8\n2,9,4\n7,1,6\n", "the row label '5' is a number: the file may have no row-label column"),
], ids=["no header row", "no row-label column"])
def test_counts_are_never_read_as_labels(tmp_path, capsys, text, message):
    assert _release(tmp_path, text, "--invariant", "total", "--epsilon", "1") == 3
    assert message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_numeric_labels_pass_when_the_user_says_the_layout(tmp_path):
    assert _release(tmp_path, "year,2019,2020\nnorth,5,3\nsouth,2,9\n", "--invariant", "total", "--epsilon", "1",
                    "--format", "wide") == 0


def test_a_repeated_count_column_is_refused(tmp_path, capsys):
    assert _release(tmp_path, "region,count,count\nN,5,7\nS,3,2\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "repeats the column 'count'" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_label_with_the_key_separator_is_refused(tmp_path, capsys):
    """Rows 'a|b', 'a' and columns 'c', 'b|c' would name two cells 'a|b|c'."""
    assert _release(tmp_path, "g,c,b|c\na|b,1,2\na,3,4\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "contains '|'" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


# --------------------------------------------------------------------------- paths


def test_the_statement_may_not_overwrite_the_release(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "-o",
                 str(tmp_path / "out.csv"), "--statement", str(tmp_path / "out.csv"), *SEEDED])
    assert code == 2 and "name the same file" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("which", ["output", "statement", "audit", "link to the input", "constraints"])
def test_no_output_may_be_an_input_even_with_force(tmp_path, capsys, which):
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,u|c,v|a,v|b,v|c\nall,1,1,1,1,1,1\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "t.csv")
    target = {"output": "t.csv", "statement": "t.csv", "audit": "t.csv", "link to the input": "link.csv",
              "constraints": "c.csv"}[which]
    flag = {"statement": "--statement", "audit": "--audit", "constraints": "--audit"}.get(which, "-o")
    out = [] if flag == "-o" else ["-o", str(tmp_path / "out.csv")]
    code = main(["release", str(tmp_path / "t.csv"), "--constraints", str(tmp_path / "c.csv"), "--epsilon", "1",
                 flag, str(tmp_path / target), *out, "--force", *SEEDED])
    assert code == 2 and "refusing to overwrite an input" in capsys.readouterr().err
    assert (tmp_path / "t.csv").read_text() == TABLE and (tmp_path / "c.csv").read_text().startswith("constraint")
    _only(tmp_path, "t.csv", "c.csv", "link.csv")


@pytest.mark.parametrize("output, message", [("", "is not a file name"), (".", "is not a file name"),
                                             ("adir", "is a directory")])
def test_an_output_that_is_not_a_file_is_refused(tmp_path, monkeypatch, capsys, output, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", "t.csv", "--invariant", "total", "--epsilon", "1", "-o", output, "--force", *SEEDED])
    assert code == 2 and message in capsys.readouterr().err
    _only(tmp_path, "t.csv", "adir")


def test_a_device_is_never_replaced_even_with_force(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "-o", os.devnull,
                 "--force", *SEEDED])
    assert code == 2 and "is not a regular file" in capsys.readouterr().err
    assert Path(os.devnull).is_char_device()


def test_an_unwritable_directory_is_refused_before_any_sampling(tmp_path, monkeypatch, capsys):
    import isdp.cli
    import isdp.release

    (tmp_path / "out").mkdir()
    real = os.access
    monkeypatch.setattr(isdp.cli.os, "access", lambda p, mode: False if Path(p) == tmp_path / "out" else real(p, mode))
    monkeypatch.setattr(isdp.release, "make_release", lambda *a, **k: pytest.fail("sampled before checking the paths"))
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "-o",
                 str(tmp_path / "out" / "r.csv"), *SEEDED])
    assert code == 2 and "is not writable: nothing was sampled" in capsys.readouterr().err


def test_a_release_created_meanwhile_is_not_replaced(tmp_path, monkeypatch, capsys):
    """The check-then-write race: another run creates the output after the path checks. Without
    --force the files are created exclusively: this run refuses and leaves the other's file alone."""
    import isdp.release

    real = isdp.release.make_release

    def and_meanwhile(*args, **kwargs):
        release = real(*args, **kwargs)
        (tmp_path / "out.csv").write_text("the other run's release\n")
        return release

    monkeypatch.setattr(isdp.release, "make_release", and_meanwhile)
    assert _release(tmp_path, TABLE, "--invariant", "total", "--epsilon", "1") == 2
    assert "written by another run meanwhile" in capsys.readouterr().err
    assert (tmp_path / "out.csv").read_text() == "the other run's release\n"
    _only(tmp_path, "t.csv", "out.csv")


def test_a_release_being_written_is_not_replaced_even_with_force(tmp_path, capsys):
    """Another run holds the write lock: this one refuses rather than interleave its files with the other's."""
    (tmp_path / ".out.csv.lock").touch()
    assert _release(tmp_path, TABLE, "--invariant", "total", "--epsilon", "1", "--force") == 2
    assert "another run is writing" in capsys.readouterr().err
    _only(tmp_path, "t.csv", ".out.csv.lock")


def test_two_releases_at_once_never_both_succeed(tmp_path):
    (tmp_path / "t.csv").write_text(TABLE)
    cmd = [sys.executable, "-m", "isdp", "release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1",
           "-o", str(tmp_path / "out.csv"), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for _ in range(3):
        runs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for _ in range(2)]
        codes = sorted(run.wait() for run in runs)
        assert codes == [0, 2], codes
        for path in tmp_path.iterdir():
            if path.name != "t.csv":
                path.unlink()


@pytest.fixture
def shared_dir():
    """A directory another user can reach (pytest's tmp_path sits below a 0700 directory)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="isdp-hostile-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path)


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become another user")
def test_an_unreadable_input_exits_3(shared_dir):
    tmp_path = shared_dir
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "t.csv").chmod(0o600)
    run = subprocess.run([*AS_NOBODY, sys.executable, "-m", "isdp",
                          "release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "-o",
                          str(tmp_path / "out.csv"), "--no-progress"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert run.returncode == 3 and "cannot read the table" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become another user")
def test_another_user_without_a_home_can_release(shared_dir):
    """An installed package directory this user cannot write and no writable HOME: numba has nowhere to
    cache, and the command once failed; it now gets a private cache of its own."""
    tmp_path = shared_dir
    (tmp_path / "t.csv").write_text(TABLE)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    run = subprocess.run([*AS_NOBODY, sys.executable, "-m", "isdp", "release", "t.csv", "--invariant", "total",
                          "--norm", "l2", "--epsilon", "1", "--delta", "0.3", "-o", "out.csv", *SEEDED],
                         capture_output=True, text=True, cwd=tmp_path,
                         env={**env, "HOME": "/nonexistent", "PYTHONPATH": str(ROOT / "src")})
    assert run.returncode == 0, run.stderr[-2000:]


# --------------------------------------------------------------------------- numbers beyond 64 bits


def test_a_constraint_value_is_checked_exactly(tmp_path, capsys):
    """Cell 2**53 with coefficient 2**31: the product wraps in int64; checked exactly, the stated value
    agrees, and the run then stops at the documented limit on invariants (exit 3, not a crash)."""
    big = 2**53
    table = f"g,a,b\nu,{big},0\nv,1,2\n"
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b,value\nweighted,{2**31},0,0,1,{big * 2**31 + 2}\n")
    assert _release(tmp_path, table, "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 3
    assert "beyond ±2**53" in capsys.readouterr().err
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b,value\nweighted,{2**11},0,0,0,0\n")
    assert _release(tmp_path, f"g,a,b\nu,{big},0\nv,1,2\n", "--constraints", tmp_path / "c.csv",
                    "--epsilon", "1") == 4  # 2**53 · 2**11 = 2**64 wraps to 0 in int64; the exact value is not 0
    assert "states the value 0" in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


def test_a_total_beyond_2_53_is_refused_with_exit_3(tmp_path, capsys):
    assert _release(tmp_path, f"g,a,b\nu,{2**53},{2**53}\nv,1,2\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "the invariant 'total' is" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("row, message", [(f"big,{2**63},1,1,1", "beyond ±2**31"), ("none,0,0,0,0", "no non-zero")],
                         ids=["coefficient 2**63", "all-zero row"])
def test_bad_constraint_rows_exit_3(tmp_path, capsys, row, message):
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b\n{row}\n")
    assert _release(tmp_path, "g,a,b\nu,1,2\nv,3,4\n", "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 3
    assert message in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


# --------------------------------------------------------------------------- signals and small things


def test_sigint_is_a_clean_refusal(tmp_path):
    """SIGINT once the work has started (the progress line on stderr says so): exit 130, no traceback."""
    import select

    (tmp_path / "t.csv").write_text(TABLE)
    cmd = [sys.executable, "-m", "isdp", "release", str(tmp_path / "t.csv"), "--invariant", "total", "--norm", "l2",
           "--epsilon", "0.01", "--delta", "0.3", "--pairs", "100000", "-o", str(tmp_path / "out.csv"),
           "--seed", "3", "--reproducible-not-for-publication"]
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    ready, _, _ = select.select([run.stderr], [], [], 120)
    assert ready and "certifying the chain" in run.stderr.readline()
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130 and "interrupted: nothing written" in err and "Traceback" not in err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("args, message", [
    (["--epsilon", "nan"], "--epsilon must be a positive number"), (["--epsilon", "inf"], "--epsilon must be"),
    (["--epsilon", "1", "--norm", "l2", "--delta", "nan"], "--delta must lie in (0, 1)"),
    (["--epsilon", "1", "--norm", "l2", "--delta", "0.3", "--pairs", "1000000000"], "--pairs must lie in"),
], ids=["eps nan", "eps inf", "delta nan", "a billion pairs"])
def test_numbers_that_are_not_parameters_exit_2(tmp_path, capsys, args, message):
    assert _release(tmp_path, TABLE, "--invariant", "total", *args) == 2
    assert message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_the_smallest_epsilon_is_accepted_and_a_negative_seed_refused(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    assert main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1e-9", "--dry-run"]) == 0
    capsys.readouterr()
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "-o",
                 str(tmp_path / "o.csv"), "--seed", "-1", "--reproducible-not-for-publication"])
    assert code == 2 and "non-negative" in capsys.readouterr().err
    _only(tmp_path, "t.csv")
