"""The worker processes a release may start: the cores this process may use (its affinity), at most 4 a core."""

import os

import pytest

from isdp.errors import UsageError
from isdp.release._workers import WORKERS_PER_CORE, checked_workers, cores


def test_the_cores_are_this_process_s_affinity():
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert cores() == expected >= 1


def test_workers_run_from_one_to_four_a_core():
    most = WORKERS_PER_CORE * cores()
    assert checked_workers(1) == 1 and checked_workers(most) == most
    with pytest.raises(UsageError, match=f"--workers must be at most {most} .*got {most + 1}"):
        checked_workers(most + 1)


@pytest.mark.parametrize("workers", [0, -1, True, 2.5, "2", None])
def test_workers_are_a_whole_number(workers):
    with pytest.raises(UsageError, match="--workers must be an integer"):
        checked_workers(workers)
