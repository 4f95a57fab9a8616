"""Hostile input to `isdp release`, rounds three and four: layouts that can be read two ways, paths that
collide with an input or with each other or loop, numbers beyond 64 bits or written in other scripts,
near-dependent invariants, signals, other users, races, and faults in the middle of a write. Each probe
is a test; every refusal exits with the documented code, names the problem, and leaves nothing behind
(and never touches an input, nor an earlier release that --force would replace).

Children (`python -m isdp`) never depend on how the test run was started: they get this checkout's
sources, UTF-8 on their pipes whatever the locale (`_child_env`), and SIGINT and SIGTERM at their
defaults (`_default_signals`; a background job of a non-interactive shell, `nohup bash .ci/run &`,
starts with SIGINT ignored and every child would inherit it), and they are killed if a test fails
while they run."""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
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


def _only(tmp_path, *names):
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def _child_env(**extra) -> dict:
    """A child's environment: this checkout's sources, and UTF-8 on its pipes whatever the locale."""
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8", **extra}


def _default_signals() -> None:
    """In the child, before it runs Python: SIGINT and SIGTERM at their defaults, as in a terminal.
    Python installs its KeyboardInterrupt handler only when it starts with SIGINT not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _child(cmd, **kwargs):
    """``subprocess.Popen`` with :func:`_child_env` and :func:`_default_signals`, killed (and reaped)
    on the way out if it still runs: a failing test leaves no process behind."""
    run = subprocess.Popen(cmd, env=kwargs.pop("env", _child_env()), preexec_fn=_default_signals, **kwargs)
    try:
        yield run
    finally:
        if run.poll() is None:
            run.kill()
        run.wait()
        for stream in (run.stdout, run.stderr):
            if stream is not None:
                stream.close()


# --------------------------------------------------------------------------- layouts read two ways


@pytest.mark.parametrize(
    "text, message",
    [
        ("r1,5,3,8\nr2,2,9,4\nr3,7,1,6\n", "the label of column 2 is a number: the file may have no header row"),
        ("a,b,c\n5,3,8\n2,9,4\n7,1,6\n", "the row label on line 2 is a number: the file may have no row-label column"),
    ],
    ids=["no header row", "no row-label column"],
)
def test_counts_are_never_read_as_labels(tmp_path, capsys, text, message, release_cli):
    """Refused, the label named by its place: the message never quotes it (it may be a count)."""
    assert release_cli(text, "--invariant", "total", "--epsilon", "1") == 3
    err = capsys.readouterr().err
    assert message in err and "'5'" not in err
    _only(tmp_path, "t.csv")


def test_numeric_labels_pass_when_the_user_says_the_layout(tmp_path, release_cli):
    assert (
        release_cli(
            "year,2019,2020\nnorth,5,3\nsouth,2,9\n", "--invariant", "total", "--epsilon", "1", "--format", "wide"
        )
        == 0
    )


def test_a_repeated_count_column_is_refused(tmp_path, capsys, release_cli):
    assert release_cli("region,count,count\nN,5,7\nS,3,2\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "repeats the column 'count'" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_label_with_the_key_separator_is_refused(tmp_path, capsys, release_cli):
    """Rows 'a|b', 'a' and columns 'c', 'b|c' would name two cells 'a|b|c'."""
    assert release_cli("g,c,b|c\na|b,1,2\na,3,4\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "contains '|'" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


# --------------------------------------------------------------------------- paths


def test_the_statement_may_not_overwrite_the_release(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "out.csv"),
            "--statement",
            str(tmp_path / "out.csv"),
            *SEEDED,
        ]
    )
    assert code == 2 and "name the same file" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("which", ["output", "statement", "audit", "link to the input", "constraints"])
def test_no_output_may_be_an_input_even_with_force(tmp_path, capsys, which):
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,u|c,v|a,v|b,v|c\nall,1,1,1,1,1,1\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "t.csv")
    target = {
        "output": "t.csv",
        "statement": "t.csv",
        "audit": "t.csv",
        "link to the input": "link.csv",
        "constraints": "c.csv",
    }[which]
    flag = {"statement": "--statement", "audit": "--audit", "constraints": "--audit"}.get(which, "-o")
    out = [] if flag == "-o" else ["-o", str(tmp_path / "out.csv")]
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--constraints",
            str(tmp_path / "c.csv"),
            "--epsilon",
            "1",
            flag,
            str(tmp_path / target),
            *out,
            "--force",
            *SEEDED,
        ]
    )
    assert code == 2 and "refusing to overwrite an input" in capsys.readouterr().err
    assert (tmp_path / "t.csv").read_text() == TABLE and (tmp_path / "c.csv").read_text().startswith("constraint")
    _only(tmp_path, "t.csv", "c.csv", "link.csv")


@pytest.mark.parametrize("output", ["inds/released.parquet", "inds/released.csv", "inds/sub/"])
def test_an_output_inside_the_input_dataset_is_refused_even_with_force(tmp_path, monkeypatch, capsys, output):
    """A release written into the dataset it reads would leave released rows in the
    confidential input (and refuse its next release)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    (tmp_path / "inds").mkdir()
    pq.write_table(pa.table({"g": ["u", "u", "v"], "k": ["a", "b", "a"], "count": [1, 2, 3]}), "inds/p.parquet")
    before = (tmp_path / "inds" / "p.parquet").read_bytes()
    code = main(["release", "inds", "--invariant", "total", "--epsilon", "1", "-o", output, "--force", *SEEDED])
    assert code == 2 and "lies inside the input dataset inds" in capsys.readouterr().err
    assert os.listdir(tmp_path / "inds") == ["p.parquet"] and (tmp_path / "inds" / "p.parquet").read_bytes() == before
    _only(tmp_path, "inds")


@pytest.mark.parametrize(
    "output, message",
    [
        ("", "is not a file name"),
        (".", "is not a file name"),
        ("./", "is not a file name"),
        ("adir", "holds more than a released dataset's files"),
        ("adir/", "holds more than a released dataset's files"),
        ("t.csv/", "is not a directory"),
        ("empty", "a Parquet release is a long table"),
        ("link/", "is a symbolic link"),
    ],
)
def test_an_output_that_is_not_a_file_or_a_dataset_is_refused(tmp_path, monkeypatch, capsys, output, message):
    """A directory names a Parquet dataset: replaced with --force only when it holds a dataset's files alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir" / "notes.txt").write_text("mine")
    (tmp_path / "empty").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", "t.csv", "--invariant", "total", "--epsilon", "1", "-o", output, "--force", *SEEDED])
    assert code == 2 and message in capsys.readouterr().err
    assert (tmp_path / "adir" / "notes.txt").read_text() == "mine" and not any((tmp_path / "empty").iterdir())
    _only(tmp_path, "t.csv", "adir", "empty", "link")


def test_a_statement_inside_a_dataset_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("g,k,count\nu,a,1\nu,b,2\n")
    code = main(
        [
            "release",
            "t.csv",
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            "out/",
            "--statement",
            "out/s.json",
            *SEEDED,
        ]
    )
    assert code == 2 and "--statement out/s.json lies inside the dataset -o/--output out" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_device_is_never_replaced_even_with_force(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            os.devnull,
            "--force",
            *SEEDED,
        ]
    )
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
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "out" / "r.csv"),
            *SEEDED,
        ]
    )
    assert code == 2 and "is not writable: nothing was sampled" in capsys.readouterr().err


def test_a_release_created_meanwhile_is_not_replaced(tmp_path, monkeypatch, capsys, release_cli):
    """The check-then-write race: another run creates the output after the path checks. Without
    --force the files are created exclusively: this run refuses and leaves the other's file alone."""
    import isdp.release

    real = isdp.release.make_release

    def and_meanwhile(*args, **kwargs):
        release = real(*args, **kwargs)
        (tmp_path / "out.csv").write_text("the other run's release\n")
        return release

    monkeypatch.setattr(isdp.release, "make_release", and_meanwhile)
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 2
    assert "written by another run meanwhile" in capsys.readouterr().err
    assert (tmp_path / "out.csv").read_text() == "the other run's release\n"
    _only(tmp_path, "t.csv", "out.csv")


def test_a_release_being_written_is_not_replaced_even_with_force(tmp_path, capsys, release_cli):
    """Another run holds the write lock: this one refuses rather than interleave its files with the other's."""
    (tmp_path / ".out.csv.lock").touch()
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1", "--force") == 2
    assert "another run is writing" in capsys.readouterr().err
    _only(tmp_path, "t.csv", ".out.csv.lock")


def test_two_releases_at_once_never_both_succeed(tmp_path):
    (tmp_path / "t.csv").write_text(TABLE)
    cmd = [
        sys.executable,
        "-m",
        "isdp",
        "release",
        str(tmp_path / "t.csv"),
        "--invariant",
        "total",
        "--epsilon",
        "1",
        "-o",
        str(tmp_path / "out.csv"),
        "--no-progress",
    ]
    for _ in range(3):
        with (
            _child(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as one,
            _child(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as other,
        ):
            codes = sorted(run.wait(timeout=120) for run in (one, other))
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
    run = subprocess.run(
        [
            *AS_NOBODY,
            sys.executable,
            "-m",
            "isdp",
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "out.csv"),
            "--no-progress",
        ],
        capture_output=True,
        encoding="utf-8",
        env=_child_env(),
        preexec_fn=_default_signals,
        timeout=300,
    )
    assert run.returncode == 3 and "cannot read the table" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become another user")
def test_another_user_without_a_home_can_release(shared_dir):
    """An installed package directory this user cannot write and no writable HOME: numba has nowhere to
    cache, and the command once failed; it now gets a private cache of its own."""
    tmp_path = shared_dir
    (tmp_path / "t.csv").write_text(TABLE)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    run = subprocess.run(
        [
            *AS_NOBODY,
            sys.executable,
            "-m",
            "isdp",
            "release",
            "t.csv",
            "--invariant",
            "total",
            "--norm",
            "l2",
            "--epsilon",
            "1",
            "--delta",
            "0.3",
            "-o",
            "out.csv",
            *SEEDED,
        ],
        capture_output=True,
        encoding="utf-8",
        cwd=tmp_path,
        preexec_fn=_default_signals,
        env={**env, "HOME": "/nonexistent", "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]


# --------------------------------------------------------------------------- numbers beyond 64 bits


def test_a_constraint_value_is_checked_exactly(tmp_path, capsys, release_cli):
    """Cell 2**53 with coefficient 2**31: the product wraps in int64; checked exactly, the stated value
    agrees, and the run then stops at the documented limit on invariants (exit 3, not a crash)."""
    big = 2**53
    table = f"g,a,b\nu,{big},0\nv,1,2\n"
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b,value\nweighted,{2**31},0,0,1,{big * 2**31 + 2}\n")
    assert release_cli(table, "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 3
    assert "beyond ±2**53" in capsys.readouterr().err
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b,value\nweighted,{2**11},0,0,0,0\n")
    assert (
        release_cli(f"g,a,b\nu,{big},0\nv,1,2\n", "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 4
    )  # 2**53 · 2**11 = 2**64 wraps to 0 in int64; the exact value is not 0
    assert "states the value 0" in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


def test_a_total_beyond_2_53_is_refused_with_exit_3(tmp_path, capsys, release_cli):
    assert release_cli(f"g,a,b\nu,{2**53},{2**53}\nv,1,2\n", "--invariant", "total", "--epsilon", "1") == 3
    assert "the invariant 'total' is" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "row, message",
    [(f"big,{2**63},1,1,1", "beyond ±2**31"), ("none,0,0,0,0", "no non-zero")],
    ids=["coefficient 2**63", "all-zero row"],
)
def test_bad_constraint_rows_exit_3(tmp_path, capsys, row, message, release_cli):
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,v|a,v|b\n{row}\n")
    assert release_cli("g,a,b\nu,1,2\nv,3,4\n", "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 3
    assert message in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


# --------------------------------------------------------------------------- signals and small things


def test_sigint_is_a_clean_refusal(tmp_path):
    """SIGINT once the work has started (the progress line on stderr says so): exit 130, no traceback.
    The child gets SIGINT's default disposition whatever this run inherited (under
    `nohup bash .ci/run &` it inherited SIGINT ignored, the test waited 120 s and left the child
    running), and is killed if the test fails."""
    import select

    (tmp_path / "t.csv").write_text(TABLE)
    cmd = [
        sys.executable,
        "-m",
        "isdp",
        "release",
        str(tmp_path / "t.csv"),
        "--invariant",
        "total",
        "--norm",
        "l2",
        "--epsilon",
        "0.01",
        "--delta",
        "0.3",
        "--pairs",
        "100000",
        "-o",
        str(tmp_path / "out.csv"),
        "--seed",
        "3",
        "--reproducible-not-for-publication",
    ]
    with _child(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8") as run:
        ready, _, _ = select.select([run.stderr], [], [], 120)
        assert ready and "certifying the chain" in run.stderr.readline()
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=120)
    assert run.returncode == 130 and "interrupted: nothing written" in err and "Traceback" not in err
    _only(tmp_path, "t.csv")


def test_children_get_default_signals_whatever_this_run_inherited():
    """This run as a background job of a non-interactive shell would have it (`nohup bash .ci/run &`):
    SIGINT and SIGTERM ignored here. A child started by `_child` still has Python's KeyboardInterrupt
    handler and SIGTERM's default, so the SIGINT test does not depend on how the run was started."""
    probe = (
        "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
        "signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)"
    )
    saved = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with _child([sys.executable, "-c", probe], stdout=subprocess.PIPE, encoding="utf-8") as run:
            out, _ = run.communicate(timeout=60)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert out.split() == ["True", "True"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epsilon", "nan"], "--epsilon must be a positive number"),
        (["--epsilon", "inf"], "--epsilon must be"),
        (["--epsilon", "1", "--norm", "l2", "--delta", "nan"], "--delta must lie in (0, 1)"),
        (
            ["--epsilon", "1", "--norm", "l2", "--delta", "0.3", "--pairs", "1000000000"],
            "--pairs must be an integer in [2, 100000]",
        ),
    ],
    ids=["eps nan", "eps inf", "delta nan", "a billion pairs"],
)
def test_numbers_that_are_not_parameters_exit_2(tmp_path, capsys, args, message, release_cli):
    assert release_cli(TABLE, "--invariant", "total", *args) == 2
    assert message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_the_smallest_epsilon_is_accepted_and_a_negative_seed_refused(tmp_path, capsys):
    (tmp_path / "t.csv").write_text(TABLE)
    assert main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1e-9", "--dry-run"]) == 0
    capsys.readouterr()
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "o.csv"),
            "--seed",
            "-1",
            "--reproducible-not-for-publication",
        ]
    )
    assert code == 2 and "non-negative" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


# --------------------------------------------------------------------------- faults mid-write


def _digests(tmp_path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(tmp_path.iterdir()) if p.is_file()}


class _FaultAt:
    """Fail the n-th call (1-based) of the write's steps — the temporary files' fsync, the backups'
    hard links and the renames into place — whose paths lie in ``where``; count them all."""

    def __init__(self, monkeypatch, where: Path, n: int, also: int | None = None):
        self.where, self.n, self.also, self.calls = str(where), n, also, []
        for name in ("fsync", "link", "replace"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._wrap(name, real))

    def _wrap(self, name, real):
        def step(*args, **kwargs):
            mine = name == "fsync" or any(str(a).startswith(self.where) for a in args[:2])
            if mine:
                self.calls.append(name)
                if len(self.calls) in (self.n, self.also):
                    if name == "fsync":
                        raise OSError(27, "File too large")
                    raise OSError(28, "No space left on device", str(args[1]))
            return real(*args, **kwargs)

        return step


FORCE_STEPS = 9  # three fsyncs, then per file: a backup link and a rename
EXCLUSIVE_STEPS = 6  # three fsyncs, then three links


@pytest.mark.parametrize("step", range(1, FORCE_STEPS + 1))
def test_force_and_a_failed_write_never_change_an_earlier_release(tmp_path, monkeypatch, capsys, step, release_cli):
    """`-o keep.csv --force` replaced the old table, failed, and removed it. A fault at any step
    leaves the earlier release's three files byte for byte, and nothing else."""
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 0
    before = _digests(tmp_path)
    capsys.readouterr()
    fault = _FaultAt(monkeypatch, tmp_path, step)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "2",
            "-o",
            str(tmp_path / "out.csv"),
            "--force",
            "--seed",
            "4",
            "--reproducible-not-for-publication",
            "-q",
        ]
    )
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2 and "; nothing written; the earlier files are as they were" in err
    assert _digests(tmp_path) == before, fault.calls
    assert fault.calls[:3] == ["fsync"] * min(3, step)  # every file complete before any name changed
    assert len(fault.calls) >= step


@pytest.mark.parametrize("step", range(1, EXCLUSIVE_STEPS + 1))
def test_a_failed_write_without_force_leaves_nothing(tmp_path, monkeypatch, capsys, step, release_cli):
    (tmp_path / "t.csv").write_text(TABLE)
    _FaultAt(monkeypatch, tmp_path, step)
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 2
    monkeypatch.undo()
    assert "; nothing written" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_write_that_cannot_put_the_earlier_release_back_names_the_backup(tmp_path, monkeypatch, capsys, release_cli):
    """The statement's backup link fails after the table was replaced, and so does putting the table back:
    the earlier table is kept under the backup name the message gives, byte for byte, and the statement
    and the audit record hold their earlier bytes."""
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 0
    before = _digests(tmp_path)
    capsys.readouterr()
    _FaultAt(monkeypatch, tmp_path, 6, also=7)  # fsync×3, link, replace, link (fails), restore (fails)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "2",
            "-o",
            str(tmp_path / "out.csv"),
            "--force",
            "-q",
            "--seed",
            "4",
            "--reproducible-not-for-publication",
        ]
    )
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 2 and "putting the earlier files back failed too" in err
    backups = [p for p in tmp_path.iterdir() if p.name.endswith(".backup")]
    assert len(backups) == 1 and str(backups[0]) in err and backups[0].name.startswith(".out.csv.")
    assert hashlib.sha256(backups[0].read_bytes()).hexdigest() == before["out.csv"]
    after = _digests(tmp_path)
    assert after["out.csv.statement.json"] == before["out.csv.statement.json"]
    assert after["out.csv.audit.json"] == before["out.csv.audit.json"]


def test_without_hard_links_the_backups_are_copies_and_still_restore(tmp_path, monkeypatch, capsys, release_cli):
    """A filesystem without hard links (link(2) fails with EPERM): the backups are copies; a rename that
    then fails still gives every name its earlier bytes, and a run without a fault leaves no backup."""
    import errno

    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 0
    before = _digests(tmp_path)
    real_link, real_replace = os.link, os.replace

    def no_hard_links(src, dst, **kwargs):
        if str(dst).endswith(".backup"):
            raise OSError(errno.EPERM, "Operation not permitted", str(dst))
        return real_link(src, dst, **kwargs)

    def audit_fails(src, dst):
        if str(dst).endswith("out.csv.audit.json") and not str(src).endswith(".backup"):
            raise OSError(28, "No space left on device", str(dst))
        return real_replace(src, dst)

    run = [
        "release",
        str(tmp_path / "t.csv"),
        "--invariant",
        "total",
        "--epsilon",
        "2",
        "-o",
        str(tmp_path / "out.csv"),
        "--force",
        "-q",
        "--seed",
        "4",
        "--reproducible-not-for-publication",
    ]
    monkeypatch.setattr(os, "link", no_hard_links)
    monkeypatch.setattr(os, "replace", audit_fails)
    assert main(run) == 2 and "the earlier files are as they were" in capsys.readouterr().err
    assert _digests(tmp_path) == before
    monkeypatch.setattr(os, "replace", real_replace)
    assert main(run) == 0
    after = _digests(tmp_path)
    assert sorted(after) == sorted(before) and after["out.csv.statement.json"] != before["out.csv.statement.json"]


def test_a_file_size_limit_leaves_the_earlier_release(tmp_path, release_cli):
    """The probe itself: RLIMIT_FSIZE below the statement's size in a child run with --force. It fails
    (exit 2, the file named) and the earlier release is unchanged."""
    assert release_cli(TABLE, "--invariant", "total", "--epsilon", "1") == 0
    before = _digests(tmp_path)

    def limited():
        _default_signals()
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # the table fits, the statement does not

    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "isdp",
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "2",
            "-o",
            str(tmp_path / "out.csv"),
            "--force",
            "-q",
        ],
        capture_output=True,
        encoding="utf-8",
        env=_child_env(),
        preexec_fn=limited,
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert "out.csv.statement.json: File too large; nothing written; the earlier files are as they were" in run.stderr
    assert _digests(tmp_path) == before


# --------------------------------------------------------------------------- paths and numbers


@pytest.mark.parametrize(
    "which, code, message",
    [
        ("table", 3, "loop: cannot read the table: it is a loop of symbolic links"),
        ("constraints", 3, "loop: cannot read the constraint file: it is a loop of symbolic links"),
        ("output", 2, "-o/--output {loop} is a loop of symbolic links"),
        ("output --force", 2, "-o/--output {loop} is a loop of symbolic links"),
        ("statement", 2, "--statement {loop} is a loop of symbolic links"),
        ("audit", 2, "--audit {loop} is a loop of symbolic links"),
        ("table --dry-run", 3, "loop: cannot read the table: it is a loop of symbolic links"),
    ],
)
def test_a_symlink_loop_is_a_clean_refusal(tmp_path, capsys, which, code, message):
    """A symlink loop once gave `RuntimeError: Symlink loop` from cli._same_file, a traceback."""
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,u|c,v|a,v|b,v|c\nall,1,1,1,1,1,1\n")
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    table = loop if which.startswith("table") else tmp_path / "t.csv"
    invariants = ["--constraints", str(loop)] if which == "constraints" else ["--invariant", "total"]
    paths = {"statement": ["--statement", str(loop)], "audit": ["--audit", str(loop)]}.get(which, [])
    out = (
        ["--dry-run"]
        if "dry-run" in which
        else ["-o", str(loop if which.startswith("output") else tmp_path / "out.csv")]
    )
    got = main(
        [
            "release",
            str(table),
            *invariants,
            "--epsilon",
            "1",
            *paths,
            *out,
            *(["--force"] if "force" in which else []),
            "-q",
        ]
    )
    assert got == code and message.format(loop=loop) in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv", "loop", "loop2")
    assert os.readlink(loop) == str(tmp_path / "loop2")


@pytest.mark.parametrize(
    "epsilon", ["1_0", "١", "１", "1٠", " 1", "1 ", "+1", "0x10", "1e-6/2", "½", "1e99999", "nan", "1/0"]
)
def test_epsilon_in_other_forms_than_ascii_decimals_is_refused(tmp_path, capsys, epsilon):
    """`--epsilon 1_0` was read as 10, Arabic-Indic digits were accepted (Python's Fraction reads both)."""
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", epsilon, "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and "--epsilon must be a positive number" in err and repr(epsilon) in err
    assert "written as" in err and "ASCII digits" in err or epsilon == "1/0" and "divides by zero" in err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("delta", ["1_0e-7", "١e-6", "1e-６", "-1e-6", "inf", "1e-6 ", "1/0"])
def test_delta_in_other_forms_than_ascii_decimals_is_refused(tmp_path, capsys, delta):
    (tmp_path / "t.csv").write_text(TABLE)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            "--norm",
            "gaussian",
            f"--delta={delta}",
            "--dry-run",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--delta must lie in (0, 1)" in err and repr(delta) in err


@pytest.mark.parametrize(
    "epsilon, exact",
    [("1", "1"), ("0.5", "1/2"), ("1/3", "1/3"), ("1e-6", "1/1000000"), (".5", "1/2"), ("2.", "2"), ("25E-1", "5/2")],
)
def test_the_documented_forms_of_epsilon_are_read_exactly(tmp_path, capsys, epsilon, exact):
    from fractions import Fraction

    from isdp.release import Request

    assert Request(epsilon=epsilon).check() is None and Request(epsilon=epsilon).epsilon_person == Fraction(exact)
    (tmp_path / "t.csv").write_text(TABLE)
    assert main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", epsilon, "--dry-run"]) == 0
    assert f'"epsilon_per_person": "{epsilon}"' in capsys.readouterr().out


@pytest.mark.parametrize(
    "delta, printed",
    [("0.999999", "0.999999"), ("1/3", "0.3333333333333333"), ("1e-6", "1e-06"), ("0.9999999", "0.9999999")],
)
def test_a_delta_is_printed_exactly_never_rounded(tmp_path, capsys, delta, printed):
    """'(0.999999, 1)-DP' was printed for δ = 0.999999 (δ to 3 significant digits)."""
    (tmp_path / "t.csv").write_text(TABLE)
    assert (
        main(
            [
                "release",
                str(tmp_path / "t.csv"),
                "--invariant",
                "total",
                "--epsilon",
                "1",
                "--norm",
                "gaussian",
                "--delta",
                delta,
                "--dry-run",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f", {printed})-DP" in out and ", 1)-DP" not in out


@pytest.mark.parametrize("delta", ["1", "1.0", "2", "0"])
def test_a_delta_outside_0_1_is_refused(tmp_path, capsys, delta):
    (tmp_path / "t.csv").write_text(TABLE)
    assert (
        main(
            [
                "release",
                str(tmp_path / "t.csv"),
                "--invariant",
                "total",
                "--epsilon",
                "1",
                "--norm",
                "gaussian",
                "--delta",
                delta,
                "--dry-run",
            ]
        )
        == 2
    )
    assert "--delta must lie in (0, 1)" in capsys.readouterr().err


def test_near_dependent_big_coefficients_are_released_exactly(tmp_path, capsys, release_cli):
    """Two rows of about 2**31 that differ by one in each coefficient fooled the floating-point
    rank (`AssertionError: the exact sampler's solve does not span Λ(A)`). Decided in exact integers, the
    release keeps both invariants exactly (checked in Python integers)."""
    a = 2**31 - 1
    rows = [[a, a - 1, 1], [a - 1, a - 2, 1]]
    (tmp_path / "c.csv").write_text(
        "constraint,u|a,u|b,u|c\n" + "".join(f"r{i},{','.join(map(str, row))}\n" for i, row in enumerate(rows))
    )
    for norm in (["--epsilon", "1"], ["--epsilon", "1", "--norm", "gaussian", "--delta", "1e-6"]):
        assert release_cli("g,a,b,c\nu,5,3,7\n", "--constraints", tmp_path / "c.csv", *norm, "--force") == 0
        released = [int(v) for v in (tmp_path / "out.csv").read_text().splitlines()[1].split(",")[1:]]
        assert [sum(c * v for c, v in zip(row, released, strict=True)) for row in rows] == [
            sum(c * v for c, v in zip(row, [5, 3, 7], strict=True)) for row in rows
        ]
    assert "Traceback" not in capsys.readouterr().err


def test_near_dependent_rows_beyond_the_exact_limit_are_refused_with_a_reason(
    tmp_path, monkeypatch, capsys, release_cli
):
    import isdp.exact

    monkeypatch.setattr(isdp.exact._integer_l1_sampler, "EXACT_SOLVE_LIMIT", 0)
    a = 2**31 - 1
    (tmp_path / "c.csv").write_text(f"constraint,u|a,u|b,u|c\nr1,{a},{a - 1},1\nr2,{a - 1},{a - 2},1\n")
    assert release_cli("g,a,b,c\nu,5,3,7\n", "--constraints", tmp_path / "c.csv", "--epsilon", "1") == 3
    err = capsys.readouterr().err
    assert "too close to linearly dependent for floating-point arithmetic" in err and "Traceback" not in err
    _only(tmp_path, "t.csv", "c.csv")


# --------------------------------------------------------------------------- small things


def test_a_dry_run_into_a_closed_pipe_stops_quietly(tmp_path):
    """`isdp release --dry-run | head` ended in a BrokenPipeError traceback. It now stops as
    other Unix tools do: nothing on stderr, status 141 (128 + SIGPIPE)."""
    (tmp_path / "t.csv").write_text(TABLE)
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        with _child(
            [
                sys.executable,
                "-m",
                "isdp",
                "release",
                str(tmp_path / "t.csv"),
                "--invariant",
                "total",
                "--epsilon",
                "1",
                "--dry-run",
            ],
            stdout=write,
            stderr=subprocess.PIPE,
            encoding="utf-8",
        ) as run:
            _, err = run.communicate(timeout=120)
    finally:
        os.close(write)
    assert run.returncode == 141 and err == ""


@pytest.mark.parametrize(
    "invariants, counts",
    [
        (["--invariant", "total"], "(6 cells, 1 invariant kept exactly)"),
        (["--invariant", "all-margins"], "(6 cells, 5 invariants kept"),
    ],
)
def test_counts_in_messages_agree_in_number(tmp_path, capsys, invariants, counts, release_cli):
    """A count agrees with its noun in number: never "1 invariants"."""
    assert release_cli(TABLE, *invariants, "--epsilon", "1") == 0
    assert counts in capsys.readouterr().out


def test_one_table_with_two_outputs_is_counted_in_the_singular(tmp_path):
    from isdp.errors import UsageError
    from isdp.release import Request, make_release, write_release
    from isdp.tables import constraint_matrix, load_table

    (tmp_path / "t.csv").write_text(TABLE)
    table = load_table(tmp_path / "t.csv")
    release = make_release(table, *constraint_matrix(table, ["total"]), Request(epsilon="1", seed=1))
    with pytest.raises(UsageError, match=r"^1 table needs 1 output \(one -o each, in order\); got 2$"):
        write_release(release, [tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "s.json", tmp_path / "u.json")
    _only(tmp_path, "t.csv")
