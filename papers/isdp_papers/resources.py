"""What a job cost: its wall time, CPU time and peak memory (:func:`job_resources`).

:func:`isdp_papers.jobs.run_step` ends every step's log with :func:`resources_line`, the line
:data:`RESOURCES_LINE` matches and ``benchmarks/workflow_times.py`` reads.
"""

from __future__ import annotations

import os
import re
import sys
import time

#: matches the line :func:`resources_line` writes (``benchmarks/workflow_times.py`` reads it)
RESOURCES_LINE = re.compile(r"resources: wall_s=([\d.]+) cpu_s=([\d.]+) max_rss_mb=([\d.]+)")


def resources_line(started: float | None = None) -> str:
    """``resources: wall_s=… cpu_s=… max_rss_mb=…`` of this process so far (:func:`job_resources`)."""
    return "resources: " + " ".join(f"{k}={v:.3f}" for k, v in job_resources(started).items())


def process_start() -> float:
    """When this process started (Unix time): what a job's wall time counts from.

    On Linux, from the kernel's own count of the process's start since boot (10 ms ticks, ``/proc/self/stat``) and
    the clock since boot. Without procfs, psutil's ``create_time``; it is not used on Linux because it adds the boot
    time that ``/proc/stat`` gives in whole seconds, so it falls up to a second early, and every job's recorded wall
    time with it.
    """
    try:
        with open("/proc/self/stat") as stat:  # field 22 (start time) is the 20th after the ")" closing field 2
            ticks = int(stat.read().rpartition(")")[2].split()[19])
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        return time.time() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, AttributeError, ValueError, IndexError):  # no procfs or no CLOCK_BOOTTIME (not Linux)
        import psutil  # here: loaded by the jobs that time themselves, when they do

        return psutil.Process().create_time()


def job_resources(started: float | None = None) -> dict[str, float]:
    """Return this process's wall time, CPU time and peak resident memory.

    The wall time since it started (or since ``started``, Unix time: when the job's own process started, for a
    step the step server ran in a process forked for it, :mod:`isdp_papers.step_server`), the CPU time with that
    of the children it waited for, the peak resident memory in MB.

    The script rules record these themselves instead of declaring Snakemake's ``benchmark:``, whose
    sampler reads every job process's memory maps twice a second for the job's first 15 s: in a
    national run that cost ~35 s of CPU in Snakemake's own process and slowed the jobs beside it
    (docs/performance.md, "Snakemake itself").
    """
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    rss_unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return {
        "wall_s": time.time() - (process_start() if started is None else started),
        "cpu_s": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
        "max_rss_mb": max(own.ru_maxrss, children.ru_maxrss) * rss_unit / 2**20,
    }
