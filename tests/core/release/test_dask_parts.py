"""A release's parts on a Dask cluster: the single process's statement and, seeded, its very counts; a worker
that dies publishes nothing and keeps the earlier release; a scheduler address is checked for its form, and a
scheduler joined only once it has greeted as one, within a bounded time."""

import contextlib
import logging
import os
import re
import signal
import socket
import threading
import time

import numpy as np
import pytest
from release_support import NESTED_RULES, nested_parquet, release_in_parts

import isdp.release._dask_parts as dask_parts
from isdp.cli import main
from isdp.errors import ReleaseError, UsageError
from isdp.release import DaskParts, Request, release_partitioned
from isdp.release._workers import WORKERS_PER_CORE, cores

pytest.importorskip("distributed")


@pytest.fixture
def table(tmp_path):
    return nested_parquet(tmp_path / "t.parquet")


def test_the_cluster_gives_the_single_process_s_statement_and_seeded_counts(table, tmp_path):
    options = {"norm": "gaussian", "delta": 1e-6, "seed": 9}
    local = release_in_parts(table, tmp_path / "local", None, **options)
    on_dask = release_in_parts(table, tmp_path / "dask", DaskParts(workers=2, progress=False), **options)
    assert on_dask[0] == local[0]
    assert np.array_equal(on_dask[1], local[1])


def test_one_part_is_released_in_this_process_with_the_cluster_s_draws(tmp_path, monkeypatch, capsys):
    """A table of one part starts no cluster (its start-up would gain nothing) and says so in one line; its
    statement and seeded counts are those of the same part drawn by a worker."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "small.parquet"
    cells = np.arange(7_000)
    pq.write_table(pa.table({"group": cells // 100, "cell": cells, "count": np.full(7_000, 5)}), path)
    req = Request(epsilon="1", rules=("by:group",), seed=3)
    files = [tmp_path / "w.parquet", tmp_path / "w.json", tmp_path / "wa.json"]
    release_partitioned(path, req.rules, req, *files, run_parts=None)  # one part, this process
    started = []
    monkeypatch.setattr(DaskParts, "_connected", lambda self: started.append(self) or contextlib.nullcontext())
    on_dask = [tmp_path / "d.parquet", tmp_path / "d.json", tmp_path / "da.json"]
    release_partitioned(path, req.rules, req, *on_dask, run_parts=DaskParts(workers=2))
    assert not started
    assert "Dask: the table is one part: released in this process" in capsys.readouterr().err
    assert on_dask[1].read_bytes() == files[1].read_bytes()
    assert on_dask[0].read_bytes() == files[0].read_bytes()


def test_a_running_scheduler_is_joined_by_its_address(table, tmp_path):
    from distributed import LocalCluster

    local = release_in_parts(table, tmp_path / "local", None, free_cells=True, seed=2)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        joined = release_in_parts(
            table,
            tmp_path / "joined",
            DaskParts(scheduler=cluster.scheduler_address, progress=False),
            free_cells=True,
            seed=2,
        )
        assert cluster.scheduler.status.name == "running"  # joined, not closed: the cluster is the caller's
    assert joined[0] == local[0] and np.array_equal(joined[1], local[1])


@pytest.mark.parametrize("dataset", [False, True], ids=["file", "dataset"])
def test_a_worker_that_dies_publishes_nothing_and_keeps_the_earlierrelease_in_parts(table, tmp_path, dataset):
    files = [f"{tmp_path}/o/" if dataset else tmp_path / "o.parquet", tmp_path / "o.json", tmp_path / "o.audit.json"]
    req = Request(epsilon="1", rules=NESTED_RULES, free_cells=True, progress=False)
    if dataset:  # an earlier dataset of four part files
        release_partitioned(table, NESTED_RULES, req, *files, part_cells=3_000)
    else:
        for f in files:
            f.write_text("earlier")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    dask = DaskParts(workers=2, progress=False)

    def killing(release_one, parts):
        def one(k):
            if k == 2:  # the worker drawing part 2 is killed mid-release
                os.kill(os.getpid(), signal.SIGKILL)
            return release_one(k)

        return dask(one, parts)

    with pytest.raises(ReleaseError, match=r"lost part \d .KilledWorker"):
        release_partitioned(table, NESTED_RULES, req, *files, force=True, part_cells=3_000, run_parts=killing)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["t.parquet", "o" if dataset else "o.parquet", "o.json", "o.audit.json"]
    )


def test_isdp_release_engine_dask(table, tmp_path, capsys, caplog, monkeypatch):
    """With progress on, the parts done are counted on stderr and nothing is logged as an error (Dask's own bar
    left a cancelled task's traceback at the cluster's close)."""
    import isdp.release

    monkeypatch.setattr(isdp.release.PartitionedRelease, "PART_CELLS", 3_000)  # the command's parts
    args = [
        "release",
        str(table),
        *[a for r in NESTED_RULES for a in ("--invariant", r)],
        "--epsilon",
        "1",
        "--free-cells",
        "-o",
        str(tmp_path / "o.parquet"),
    ]
    assert main([*args, "--engine", "dask", "--workers", "2"]) == 0
    out, err = capsys.readouterr()
    assert "(12,000 cells, 441 invariants kept exactly, in 4 parts)" in out
    assert "parts released: started, 4 steps" in err and "Traceback" not in err
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert main([*args, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "add --engine dask" in capsys.readouterr().err
    csv = tmp_path / "t.csv"
    csv.write_text("state,age,count\nA,1,2\nA,2,3\n")
    assert (
        main(
            [
                "release",
                str(csv),
                "--invariant",
                "total",
                "--epsilon",
                "1",
                "-o",
                str(tmp_path / "c.csv"),
                "--engine",
                "dask",
            ]
        )
        == 2
    )
    assert "releases one Parquet table" in capsys.readouterr().err


def _release_on(table, tmp_path, *dask_options):
    return main(
        [
            "release",
            str(table),
            "--invariant",
            "by:state",
            "--epsilon",
            "1",
            "--free-cells",
            "-q",
            "-o",
            str(tmp_path / "o.parquet"),
            "--engine",
            "dask",
            *dask_options,
        ]
    )


@pytest.mark.parametrize(
    "address",
    [
        "foo",
        "http://127.0.0.1:8787",
        "tcp://127.0.0.1",
        "tcp://127.0.0.1:99999",
        "tcp://127.0.0.1:8786/status",
        "inproc://127.0.0.1/1/2",
        "tcp://:8786",
        "tcp://user@127.0.0.1:8786",
        "tcp://127.0.0.1:0",
        "tcp://١٢٧.0.0.1:8786",
    ],
)
def test_a_scheduler_address_of_another_form_is_refused_before_anything(table, tmp_path, capsys, address):
    assert _release_on(table, tmp_path, "--scheduler", address) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--scheduler {address!r} is not a Dask scheduler's address" in err
    assert "dashboard" in err if address.startswith("http") else "dashboard" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]


@contextlib.contextmanager
def _listener(answer: bytes | None):
    """A TCP server on the loopback for one test: every connection gets ``answer`` (None: silence until the
    client leaves). It stops with the test: its socket times out, and its thread is a daemon."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        held = []
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            if answer is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(answer)
            held.append(conn)
        for conn in held:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        server.close()


def _refused_port() -> str:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"  # closed on return: nothing listens there


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
        b"SSH-2.0-OpenSSH_9.6\r\n",
        (8).to_bytes(8, "little") + (5).to_bytes(8, "little"),
        None,
        "refused",
    ],
    ids=["http server", "ssh server", "frames that do not add up", "silent listener", "refused"],
)
def test_a_listener_that_is_not_a_dask_scheduler_is_refused_in_bounded_time(
    table, tmp_path, capsys, monkeypatch, answer
):
    """Dask's connection would wait for a silent listener's greeting for ever, and would try to allocate the 3 EiB
    an HTTP server's first 8 bytes claim; a refused port was reported as the output's failure."""
    monkeypatch.setattr(dask_parts, "CONNECT_TIMEOUT", 1.0)
    with contextlib.ExitStack() as stack:
        address = _refused_port() if answer == "refused" else stack.enter_context(_listener(answer))
        started = time.monotonic()
        assert _release_on(table, tmp_path, "--scheduler", address) == 1
        assert time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert err.startswith(f"isdp release: error: --scheduler {address}: no Dask scheduler answered within 1 s")
    assert err.count("\n") == 1 and "o.parquet" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]


@pytest.mark.parametrize(
    "workers, message",
    [
        (1000, "--workers must be at most"),
        (0, "--workers must be an integer in [1, inf]"),
        (True, "--workers must be an integer"),
        (2.5, "--workers must be an integer"),
    ],
)
def test_a_local_cluster_s_workers_are_bounded_by_the_cores(workers, message):
    """1,000 workers were started on 2 cores; the check comes before Dask is loaded, so no process starts."""
    with pytest.raises(UsageError, match=re.escape(message)):
        DaskParts(workers=workers)


def test_isdp_release_refuses_more_workers_than_the_cores_can_run(table, tmp_path, capsys):
    most = WORKERS_PER_CORE * cores()
    assert _release_on(table, tmp_path, "--workers", str(most + 1)) == 2
    assert f"--workers must be at most {most}" in capsys.readouterr().err
    assert _release_on(table, tmp_path, "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786") == 2
    assert "the cluster has its own workers" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]
