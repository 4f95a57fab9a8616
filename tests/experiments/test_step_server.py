"""Tests of :mod:`isdp_papers.step_server`: a job handed to the server runs in a process forked for it, in the job's
directory and environment, and its process exits with the step's status; a job whose process is stopped has its step
stopped; with no server to take it, or more than one thread, the job's own process runs the step; the server ends with
the process that started it, and starts only where the jobs run on this machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from isdp_papers import step_server
from isdp_papers.jobs import SERVED

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the step server runs on Linux")

STEPS = """\
import os, sys, time

def record(job):
    with open(job.output.out, "w") as f:
        f.write(f"{os.getpid()} {os.getcwd()} {os.environ.get('STEP_SERVER_TEST', '')}")

def fail(job):
    raise RuntimeError("the step failed on purpose")

def leave(job):
    sys.exit(3)

def linger(job):
    with open(job.output.out, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(120)
"""


def _wait(condition, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A step server on a socket of its own, the test steps importable by it; yields (address, steps' folder)."""
    folder = tmp_path_factory.mktemp("steps")
    (folder / "server_steps.py").write_text(STEPS)
    address = str(folder / "socket")
    env = {**os.environ, **step_server.ONE_THREAD, "PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}
    proc = subprocess.Popen([sys.executable, "-m", "isdp_papers.step_server", address], stdin=subprocess.PIPE, env=env)
    assert _wait(lambda: os.path.exists(address)), "the server never listened"
    yield address, folder, proc.pid
    proc.stdin.close()
    proc.wait(timeout=30)


def _client(tmp_path, server, step, threads=1, address=None):
    """Start a job's process (what step.py runs) for ``server_steps.<step>``; return (process, output, log).

    ``address`` overrides the server's.
    """
    steps = server[1]
    address = address or server[0]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    out, log = work / f"{step}.out", work / f"{step}.log"
    smk = SimpleNamespace(
        input={},
        output={"out": str(out)},
        params={"step": f"server_steps.{step}"},
        wildcards={},
        log=[str(log)],
        threads=threads,
        config={},
        rule=step,
    )
    code = (
        "import pickle, sys\n"
        "from isdp_papers.step_server import run\n"
        f"sys.path.insert(0, {str(steps)!r})\n"
        f"run(pickle.loads({__import__('pickle').dumps(smk)!r}))\n"
    )
    env = {**os.environ, step_server.ENV_VAR: address, "STEP_SERVER_TEST": "from the client"}
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=work, env=env)
    return proc, out, log


def test_a_served_step_runs_in_a_process_of_its_own_in_the_jobs_directory_and_environment(tmp_path, server):
    proc, out, log = _client(tmp_path, server, "record")
    assert proc.wait(timeout=60) == 0
    pid, cwd, env = out.read_text().split(" ", 2)
    assert int(pid) != proc.pid  # forked by the server, not the job's own process
    assert cwd == str(tmp_path / "work") and env == "from the client"
    assert SERVED in log.read_text() and "resources: wall_s=" in log.read_text().splitlines()[-1]
    # its libraries loaded, the server forks with no thread of its own beside the main one (jemalloc's, which pyarrow
    # starts and which handles a fork itself, apart)
    tasks = Path(f"/proc/{server[2]}/task")
    names = sorted((t / "comm").read_text().strip() for t in tasks.iterdir() if int(t.name) != server[2])
    assert set(names) <= {"jemalloc_bg_thd"}, names


def test_a_served_steps_failure_is_its_jobs_exit_status_with_the_traceback_in_its_log(tmp_path, server):
    proc, _, log = _client(tmp_path, server, "fail")
    assert proc.wait(timeout=60) == 1
    assert "RuntimeError: the step failed on purpose" in log.read_text()
    proc, _, _ = _client(tmp_path, server, "leave")
    assert proc.wait(timeout=60) == 3


def test_stopping_a_jobs_process_stops_its_served_step(tmp_path, server):
    proc, out, _ = _client(tmp_path, server, "linger")
    assert _wait(lambda: out.exists() and out.read_text().strip()), "the step never started"
    step_pid = int(out.read_text())
    assert step_pid != proc.pid and _alive(step_pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert _wait(lambda: not _alive(step_pid), timeout=20), "the step outlived its job"


@pytest.mark.parametrize("case", ["no server", "two threads"])
def test_a_job_no_server_takes_runs_its_step_itself(tmp_path, server, case):
    if case == "no server":
        proc, out, _ = _client(tmp_path, server, "record", address=str(tmp_path / "nothing-listens-here"))
    else:
        proc, out, _ = _client(tmp_path, server, "record", threads=2)
    assert proc.wait(timeout=120) == 0
    assert int(out.read_text().split()[0]) == proc.pid
    assert SERVED not in (tmp_path / "work" / "record.log").read_text()


def test_the_server_ends_with_the_process_that_started_it(tmp_path):
    address = str(tmp_path / "socket")
    proc = subprocess.Popen([sys.executable, "-m", "isdp_papers.step_server", address], stdin=subprocess.PIPE)
    assert _wait(lambda: os.path.exists(address))
    proc.stdin.close()  # what the end of Snakemake's process does to the pipe
    assert proc.wait(timeout=60) == 0
    assert not os.path.exists(address)


def test_a_server_starts_only_for_jobs_run_on_this_machine(monkeypatch):
    monkeypatch.setattr(step_server, "_server", None)
    monkeypatch.delenv(step_server.ENV_VAR, raising=False)
    assert step_server.start(SimpleNamespace(local_exec=False)) is None
    monkeypatch.setenv(step_server.ENV_VAR, step_server.OFF)
    assert step_server.start(SimpleNamespace(local_exec=True)) is None
    assert step_server._server is None
