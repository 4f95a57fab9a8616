"""Tests of :mod:`isdp_papers.resources`: what a job cost (wall time, CPU time, peak memory) measured on a fresh
process, and the resources line a step's log ends with read back by ``benchmarks/workflow_times.py``."""

from __future__ import annotations

import sys

from census_support import python_output as _run
from conftest import ROOT


def test_job_resources_measure_this_process():
    """A process that burns 0.4 s of CPU and holds 200 MB reports at least that much CPU and
    memory, and a wall time at least its CPU time (it runs one thread: OpenBLAS's threads too would add CPU time)."""
    out = _run(
        "import os\n"
        "os.environ['OPENBLAS_NUM_THREADS'] = '1'\n"
        "import time, numpy as np\n"
        "from isdp_papers.resources import job_resources\n"
        "block = np.ones(200 * 2**20 // 8)\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.4: pass\n"
        "r = job_resources()\n"
        "print(r['wall_s'], r['cpu_s'], r['max_rss_mb'], block.sum() > 0)"
    )
    wall, cpu, rss, held = out.split()
    assert held == "True"
    assert float(cpu) >= 0.4 and float(wall) >= float(cpu) - 0.05
    assert 200 <= float(rss) < 2000


def test_resources_line_round_trips_to_workflow_times(tmp_path):
    """The line run_step logs is what benchmarks/workflow_times.py reads, beside Snakemake's benchmark files."""
    import logging

    from isdp_papers.resources import RESOURCES_LINE, resources_line

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import workflow_times
    finally:
        sys.path.pop(0)
    (tmp_path / "results" / "logs").mkdir(parents=True)
    (tmp_path / "results" / "benchmarks").mkdir()
    log = tmp_path / "results" / "logs" / "e3_states_TX+DC.log"
    handler = logging.FileHandler(log)
    logger = logging.getLogger("isdp_papers.jobs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.info(resources_line())
    finally:
        logger.removeHandler(handler)
        handler.close()
    (tmp_path / "results" / "benchmarks" / "e1_notebook.tsv").write_text(
        "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
        "6.2\t0:00:06\t180.5\t900\t150\t160\t0\t1\t0\t5.9\n"
    )
    jobs = workflow_times.read_jobs(tmp_path).set_index("job")
    assert RESOURCES_LINE.search(log.read_text())
    assert list(jobs.index) == ["e3_states_TX+DC", "e1_notebook"]
    assert list(jobs["rule"]) == ["e3_states", "e1_notebook"]
    assert jobs.loc["e1_notebook", "seconds"] == 6.2 and jobs.loc["e3_states_TX+DC", "seconds"] > 0
    assert [workflow_times.rule_of(j) for j in ("e1_fig5_boxplots", "e5_fig1", "e1_draws_l2", "fetch_v20100101")] == [
        "e1_boxplots",
        "e5_fig1",
        "e1_draws",
        "fetch",
    ]


def test_process_start_is_when_the_process_started():
    """A fresh process's start lies between the moment before it was launched and its own first line, to the
    kernel's 10 ms tick: a start taken from the boot time in whole seconds (psutil's) can fall up to 1 s early."""
    import time

    before = time.time()
    start, first_line = map(
        float,
        _run(
            "import time\nfrom isdp_papers.resources import process_start\nprint(process_start(), time.time())"
        ).split(),
    )
    assert before - 0.02 <= start <= first_line
