"""How many worker processes a release may start: the cores this process may run on, at most 4 workers a core.

The local engine (:class:`~isdp.release._local_parts.LocalParts`, ``Request.workers``) and a local Dask
cluster (:class:`~isdp.release.DaskParts`) read ``--workers`` through :func:`checked_workers`; more
workers than that only share the cores and add memory.
"""

from __future__ import annotations

import os

from .. import _validate as check
from ..errors import UsageError

#: the most worker processes per core: more only share the cores and add memory
WORKERS_PER_CORE = 4


def cores() -> int:
    """Return the cores this process may run on (its CPU affinity where the system has one, as under SLURM).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from isdp.release._workers import cores
    >>> cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def checked_workers(workers) -> int:
    """Return ``workers`` checked: a whole number of worker processes in [1, 4 × the cores this process may use].

    Examples
    --------
    >>> from isdp.release._workers import checked_workers
    >>> checked_workers(1)
    1
    """
    workers, most = check.integer("--workers", workers, 1, error=UsageError), WORKERS_PER_CORE * cores()
    if workers > most:
        raise UsageError(
            f"--workers must be at most {most} ({WORKERS_PER_CORE} per core: more would only share the {cores()} "
            f"cores and add memory), got {workers}"
        )
    return workers
