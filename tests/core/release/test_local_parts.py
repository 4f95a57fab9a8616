"""The local engine's worker processes: the single process's statement and, seeded, its very counts; a failing part
fails the run and stops the others; the workers are bounded by the cores; `--workers` reaches the local engine."""

import functools
import multiprocessing
import operator
import os
import signal
import threading
import time

import numpy as np
import pytest
from release_support import nested_parquet, release_in_parts

from isdp.cli import main
from isdp.errors import ReleaseError, UsageError
from isdp.release import Request
from isdp.release._local_parts import LocalParts
from isdp.release._partitioned_release import POOL_CELLS
from isdp.release._workers import WORKERS_PER_CORE, cores


@pytest.fixture
def table(tmp_path):
    return nested_parquet(tmp_path / "t.parquet")


def test_two_workers_give_the_single_process_s_statement_and_seeded_counts(table, tmp_path):
    options = {"norm": "gaussian", "delta": 1e-6, "seed": 11}
    alone = release_in_parts(table, tmp_path / "one", None, **options)  # 12,000 cells: this process, part after part
    two = release_in_parts(table, tmp_path / "two", LocalParts(2, progress=False), **options)
    assert alone[0] == two[0]
    assert np.array_equal(alone[1], two[1])
    other = release_in_parts(table, tmp_path / "other", None, **{**options, "seed": 12})
    assert not np.array_equal(alone[1], other[1])  # the comparison can fail: another seed, other counts


def test_a_failing_part_fails_the_run_and_the_results_come_in_order(capsys):
    run = LocalParts(2, progress=True)
    assert list(run(functools.partial(operator.mul, 3), [4, 1, 7])) == [12, 3, 21]
    assert "parts released: started, 3 steps" in capsys.readouterr().err
    with pytest.raises(ZeroDivisionError):
        list(run(functools.partial(operator.truediv, 1), [1, 0, 2, 4]))
    with pytest.raises(ValueError, match="non-negative"):  # a later part's failure ends the run, a slow part or not
        list(run(time.sleep, [0.5, -1]))
    assert list(LocalParts(1, progress=False)(functools.partial(operator.neg), [5, 6])) == [-5, -6]  # no pool


def test_a_worker_that_dies_fails_the_run_instead_of_waiting_for_it():
    """multiprocessing.Pool waited forever for the part of a worker killed (as by the kernel's out-of-memory
    killer); the release now fails with the cluster's exit status, 1."""

    def kill_a_worker():
        while not multiprocessing.active_children():
            time.sleep(0.05)
        os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_a_worker, daemon=True)
    killer.start()
    with pytest.raises(ReleaseError, match="a worker process of the local engine died") as err:
        list(LocalParts(2, progress=False)(time.sleep, [30, 30]))  # parts that outlast the kill
    assert type(err.value) is ReleaseError  # the base class: exit status 1
    killer.join()


@pytest.mark.parametrize("workers", [0, True, 2.5, "2"])
def test_workers_are_a_whole_number(workers):
    with pytest.raises(UsageError, match="--workers must be an integer"):
        LocalParts(workers)
    with pytest.raises(UsageError, match="--workers must be an integer"):
        Request(epsilon="1", workers=workers).check()


def test_workers_are_bounded_by_the_cores(table, tmp_path, capsys):
    most = WORKERS_PER_CORE * cores()
    with pytest.raises(UsageError, match=f"--workers must be at most {most}"):
        LocalParts(most + 1)
    assert LocalParts().workers == cores()
    args = ["release", str(table), "--invariant", "by:state", "--epsilon", "1", "-q", "-o", str(tmp_path / "o.parquet")]
    assert main([*args, "--workers", str(most + 1)]) == 2
    assert f"--workers must be at most {most}" in capsys.readouterr().err
    assert main([*args, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "add --engine dask" in capsys.readouterr().err


def test_the_threshold_the_docs_and_help_state_is_the_engine_s(capsys):
    from pathlib import Path

    assert POOL_CELLS == 2**23
    docs = "".join(
        (Path(__file__).parents[3] / "docs" / page).read_text() for page in ("release.md", "release-reference.md")
    )
    assert docs.count("2²³ cells") == 2
    with pytest.raises(SystemExit):
        main(["release", "--help"])
    assert " ".join(capsys.readouterr().out.split()).count("from 2**23 cells") == 2
