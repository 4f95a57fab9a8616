"""Run the workflow's steps in processes forked from one that has their libraries loaded.

Every rule runs ``workflow/scripts/step.py`` in a Python process of its own, and a step's own work is
often a second or two, while loading pandas, SciPy, numba, SymPy, matplotlib and ArviZ costs a job two to
five seconds (docs/performance.md, "Job start-up"). When Snakemake runs the jobs on this machine, the
workflow's ``onstart`` calls :func:`start`: a *step server* loads those libraries once, then forks a
process for each job it is handed, in the job's working directory, with its environment and its standard
streams. The job's own process (:func:`run`, what ``step.py`` calls) hands over the job and exits with
the status of the forked process.

A job stays what it was: Snakemake starts, times and stops the job's own process; the step runs through
:func:`isdp_papers.jobs.run_step` as it would there; stopping the job's process stops the step (its whole
process group); outputs do not depend on where a step ran, its randomness coming from the seeds it is
given. Where no server takes the job, the job's process runs the step itself: under a cluster executor
(whose jobs run elsewhere), for a job of more than one thread (the server loads the libraries with one
BLAS and OpenMP thread, as Snakemake gives every rule here), off Linux, or when the server has stopped.

The server listens on a Unix socket in a directory only its user may enter, and stops when the Snakemake
process that started it ends, however it ends: it watches a pipe whose other end only that process holds.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import pickle
import pkgutil
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
import warnings

from isdp_papers.resources import process_start

#: where :func:`start` tells the jobs' processes the server listens; set to :data:`OFF` beforehand, no server starts
ENV_VAR = "ISDP_STEP_SERVER"
OFF = "0"
#: the thread settings of the server's libraries, those Snakemake gives a one-thread job
ONE_THREAD = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS",
        "GOTO_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "NUMEXPR_NUM_THREADS",
    )
}
#: what the server loads before it takes a job: what most steps import (docs/performance.md, "Job start-up")
PRELOAD = (
    "numpy",
    "pandas",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.stats",
    "numba",
    "sympy",
    "xarray",
    "matplotlib.pyplot",
    "seaborn",
    "isdp",
    "isdp.convergence",
    "isdp.lattice",
    "isdp.mcmc",
    "isdp_papers.jobs",
    "isdp_papers.reporting",
)
STARTED = b"S"  # the server's first reply: a process runs the job
_STATUS = struct.Struct("!i")
_LENGTH = struct.Struct("!Q")
_STOP_GRACE_S = 10.0  # between SIGTERM and SIGKILL when a job's process goes away
_server: subprocess.Popen | None = None  # keeps the pipe the server watches open in Snakemake's process


def start(workflow) -> str | None:
    """Start a step server for this Snakemake run and tell the jobs where it listens.

    Called from the Snakefile's ``onstart``. Starts nothing (returns None) when the jobs do not run on
    this machine (``workflow.local_exec`` false), the platform lacks what the server uses (Linux's
    ``os.pidfd_open``, Unix sockets), or the environment sets ``ISDP_STEP_SERVER=0`` (each job then loads its
    libraries itself).

    Parameters
    ----------
    workflow : snakemake.workflow.Workflow
        The running workflow (the Snakefile's ``workflow``).

    Returns
    -------
    str or None
        The socket's path, also set in ``os.environ[ENV_VAR]`` for the jobs; None when no server started.

    Examples
    --------
    In the Snakefile::

        onstart:
            from isdp_papers.step_server import start
            start(workflow)
    """
    global _server
    if os.environ.get(ENV_VAR) == OFF or not getattr(workflow, "local_exec", False) or not hasattr(os, "pidfd_open"):
        return None
    if _server is not None:
        return os.environ[ENV_VAR]
    directory = tempfile.mkdtemp(prefix="isdp-steps-")  # mode 0700: only this user connects
    address = os.path.join(directory, "socket")
    if len(address.encode()) > 100:  # a Unix socket's path holds about 100 bytes
        os.rmdir(directory)
        return None
    _server = subprocess.Popen(
        [sys.executable, "-m", "isdp_papers.step_server", address],
        stdin=subprocess.PIPE,
        env={**os.environ, **ONE_THREAD},
    )
    os.environ[ENV_VAR] = address
    return address


def run(smk) -> None:
    """Run the step of the job Snakemake injected: by the step server when one takes it, else here.

    What ``workflow/scripts/step.py`` calls. Exits with the step's status when the server ran it.

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The job's ``snakemake`` object.

    Examples
    --------
    ``workflow/scripts/step.py``::

        from isdp_papers.step_server import run

        run(snakemake)
    """
    address = os.environ.get(ENV_VAR, OFF)
    if address != OFF and int(smk.threads) == 1:
        status = _submit(address, smk)
        if status is not None:
            sys.exit(status)
    from isdp_papers.jobs import run_step  # here: the job's own process loads the step's modules itself

    run_step(smk)


def _submit(address: str, smk) -> int | None:
    """Hand the job to the server at ``address``; return its process's exit status, None when none took it."""
    job = pickle.dumps(
        {"smk": smk, "cwd": os.getcwd(), "env": dict(os.environ), "started": process_start()},
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        try:
            conn.connect(address)
            socket.send_fds(conn, [_LENGTH.pack(len(job))], [0, 1, 2])
            conn.sendall(job)
            if conn.recv(1) != STARTED:
                return None
        except OSError:
            return None
        reply = _recv_exactly(conn, _STATUS.size)
    if reply is None:
        print(f"isdp: the step server at {address} stopped while it ran this job", file=sys.stderr)
        return 1
    return _STATUS.unpack(reply)[0]


def _recv_exactly(conn: socket.socket, n: int) -> bytes | None:
    """Read ``n`` bytes from ``conn``; None if it closes first."""
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve(address: str) -> None:
    """Listen at ``address`` until standard input (a pipe from :func:`start`) closes; fork a process per job.

    The socket is bound first, so that jobs queue while the libraries of :data:`PRELOAD` load.
    """
    parent = sys.stdin
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the per-job monitors are reaped as they end
    # Ctrl-C reaches Snakemake's whole process group: the server ends when Snakemake does, a monitor when its job's
    # process does (stopping the step), not on the key itself, which would leave a step running with no monitor
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The one thread besides the server's own is jemalloc's background thread, started when pandas loads pyarrow;
    # jemalloc takes and releases its locks around a fork (pthread_atfork) and runs without it in the child, so
    # Python's warning on forking a process with threads (3.12 on) does not apply
    warnings.filterwarnings("ignore", r"This process .* is multi-threaded", DeprecationWarning)
    try:
        while True:
            ready, _, _ = select.select([listener, parent], [], [])
            if parent in ready and not os.read(parent.fileno(), 4096):
                return
            if listener in ready:
                conn, _ = listener.accept()
                _take(conn, listener)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(address)
            os.rmdir(os.path.dirname(address))


def _preload() -> None:
    """Import :data:`PRELOAD`, every step module and ArviZ, then keep them out of the collector's way.

    A library that fails to load is reported and left out: a job that needs it fails on its own import,
    with the message it would have had in a process of its own.
    """
    import numpy as np  # here and below: the server loads these, a job's own process never needs them

    import isdp_papers

    names = [*PRELOAD]
    for package in pkgutil.iter_modules(isdp_papers.__path__):
        if package.ispkg:
            names.append(f"isdp_papers.{package.name}.steps")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # ArviZ 0.x announces 1.x on import
        for name in names:
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as err:
                if err.name != name:  # a package without a steps module is expected, a missing library is not
                    print(f"isdp step server: could not load {name}: {err}", file=sys.stderr)
            except Exception as err:  # noqa: BLE001 — reported; the job meets the same error itself
                print(f"isdp step server: could not load {name}: {err}", file=sys.stderr)
        # ArviZ, whichever generation isdp uses, loads on the first diagnostic; 0.x also writes a once-a-day stamp
        # file on import, which jobs importing it at once would race on
        from isdp.convergence import ess

        ess(np.zeros((2, 8)) + np.arange(8))
    gc.collect()
    gc.freeze()  # the loaded modules' objects are never collected: forked processes share their pages


def _take(conn: socket.socket, listener: socket.socket) -> None:
    """Fork the monitor of the job arriving on ``conn``; the server itself goes back to listening."""
    fds: list[int] = []
    try:
        header, fds, _, _ = socket.recv_fds(conn, _LENGTH.size, 3)
        job = _recv_exactly(conn, _LENGTH.unpack(header)[0]) if len(header) == _LENGTH.size else None
        if job is None or len(fds) != 3:
            raise OSError("incomplete job")
    except OSError:  # the client went away: nothing of it is kept
        conn.close()
        for fd in fds:
            os.close(fd)
        return
    if os.fork() == 0:
        status = 1
        try:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            status = _monitor(conn, job, fds)
        finally:
            os._exit(status)
    conn.close()
    for fd in fds:
        os.close(fd)


def _monitor(conn: socket.socket, job: bytes, fds: list[int]) -> int:
    """Fork the job's process, tell the client, and wait for whichever ends first: the job or the client.

    The client gone (Snakemake stopped the job), the job's process group is stopped: SIGTERM, then SIGKILL.
    """
    pid = os.fork()
    if pid == 0:
        conn.close()
        os._exit(_run_job(job, fds))
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    conn.sendall(STARTED)
    ready, _, _ = select.select([pidfd, conn.fileno()], [], [])
    if pidfd not in ready:  # the client closed its end: it was stopped
        _stop(pid, pidfd)
        return 0
    _, wait_status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        code = os.waitstatus_to_exitcode(wait_status)
        conn.sendall(_STATUS.pack(code if code >= 0 else 128 - code))  # killed by signal N: 128 + N, as a shell says
    return 0


def _stop(pid: int, pidfd: int) -> None:
    """Stop the job's process group: SIGTERM, then SIGKILL if it is still there after a grace period."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    ready, _, _ = select.select([pidfd], [], [], _STOP_GRACE_S)
    if not ready:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _run_job(job: bytes, fds: list[int]) -> int:
    """Run the job in this forked process, with the client's streams, directory and environment; return its status."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setpgid(0, 0)  # its own group, which a stopped job's monitor stops whole
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin, sys.stdout, sys.stderr = (
            open(0, closefd=False),  # noqa: SIM115 — the process's own streams, open until it exits
            open(1, "w", closefd=False),  # noqa: SIM115
            open(2, "w", closefd=False),  # noqa: SIM115
        )
        request = pickle.loads(job)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from isdp_papers.jobs import run_step  # loaded by the server already: a lookup

        run_step(request["smk"], started=request["started"])
        return 0
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:  # noqa: BLE001 — reported as the interpreter would report it, status 1
        traceback.print_exc()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m isdp_papers.step_server SOCKET (started by the workflow's onstart)")
    serve(sys.argv[1])
