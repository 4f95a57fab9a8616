"""The job runner's process settings (isdp.experiments.jobs), what a job cost (isdp.experiments.resources)
and the batching of per-state jobs (isdp.experiments.e3_census_counties.scheduling)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("NUMBA_NUM_THREADS", None)
    return subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_numba_threads_are_set_without_importing_numba():
    out = _run("import sys\n"
               "from isdp.experiments.jobs import set_numba_threads\n"
               "set_numba_threads(1)\n"
               "loaded = 'numba' in sys.modules\n"
               "import numba\n"
               "print(loaded, numba.get_num_threads())")
    assert out == "False 1"


def test_numba_threads_are_set_after_numba_is_imported():
    out = _run("import numba\n"
               "from isdp.experiments.jobs import set_numba_threads\n"
               "set_numba_threads(1)\n"
               "print(numba.get_num_threads())")
    assert out == "1"


def test_balanced_batches_cover_every_item_once_and_balance_the_weights():
    from isdp.experiments.e3_census_counties.scheduling import balanced_batches

    rng = np.random.default_rng(7)
    items = [f"s{i}" for i in range(40)]
    weights = dict(zip(items, rng.integers(1, 300, size=40) ** 2, strict=True))
    for n in (1, 3, 6, 40, 100):
        batches = balanced_batches(items, weights, n)
        assert len(batches) == min(n, 40)
        assert sorted(it for b in batches for it in b) == sorted(items)
        loads = [sum(weights[it] for it in b) for b in batches]
        # the guarantee of largest-first scheduling: no batch exceeds the lightest by more than one item
        assert max(loads) - min(loads) <= max(weights.values())
    assert balanced_batches(items, weights, None) == [[it] for it in sorted(items, key=lambda it: -weights[it])]
    assert balanced_batches(["a", "b", "c"], {"a": 1, "b": 1, "c": 1}, 2) == [["a", "c"], ["b"]]
    with pytest.raises(ValueError, match="at least 1"):
        balanced_batches(items, weights, 0)
    with pytest.raises(ValueError, match="no items"):
        balanced_batches([], {}, 2)


def test_the_national_batches_put_texas_alone():
    """config/national.yaml's state_jobs, weighted as the workflow does (squared county counts of the
    committed county file): Texas, the largest state by far to certify, runs in a batch of its own."""
    from isdp.experiments.config import load_config
    from isdp.experiments.e3_census_counties.scheduling import balanced_batches

    root = SRC.parent
    config = load_config(root / "config" / "config.yaml", root / "config" / "national.yaml")
    counts = pd.read_csv(root / "data" / "nhgis" / "county_population_v20210608.csv")["state_abbr"].value_counts()
    batches = balanced_batches(list(counts.index), (counts**2).to_dict(), config["e3"]["state_jobs"])
    assert ["TX"] in batches
    assert len(batches) == config["e3"]["state_jobs"] < len(counts)


def test_computing_steps_start_without_plotting_or_symbolic_libraries():
    """A step module that only computes loads neither matplotlib, seaborn, sympy nor SciPy's
    statistics when imported: each job would pay them at start-up (docs/performance.md)."""
    heavy = ("matplotlib", "seaborn", "sympy", "scipy.stats")
    loaded = _run("import sys\n"
                  "import isdp.experiments.lattice_study.steps, isdp.experiments.e8_privacy_accounting.steps\n"
                  f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    assert loaded == "[]"


def test_job_resources_measure_this_process():
    """A process that burns 0.4 s of CPU and holds 200 MB reports at least that much CPU and
    memory, and a wall time at least its CPU time (it runs one thread)."""
    out = _run("import time, numpy as np\n"
               "from isdp.experiments.resources import job_resources\n"
               "block = np.ones(200 * 2**20 // 8)\n"
               "t = time.process_time()\n"
               "while time.process_time() - t < 0.4: pass\n"
               "r = job_resources()\n"
               "print(r['wall_s'], r['cpu_s'], r['max_rss_mb'], block.sum() > 0)")
    wall, cpu, rss, held = out.split()
    assert held == "True"
    assert float(cpu) >= 0.4 and float(wall) >= float(cpu) - 0.05
    assert 200 <= float(rss) < 2000


def test_resources_line_round_trips_to_workflow_times(tmp_path):
    """The line run_step logs is what benchmarks/workflow_times.py reads, beside Snakemake's benchmark files."""
    import logging

    from isdp.experiments.resources import RESOURCES_LINE, resources_line

    sys.path.insert(0, str(SRC.parent / "benchmarks"))
    try:
        import workflow_times
    finally:
        sys.path.pop(0)
    (tmp_path / "results" / "logs").mkdir(parents=True)
    (tmp_path / "results" / "benchmarks").mkdir()
    log = tmp_path / "results" / "logs" / "e3_states_TX+DC.log"
    handler = logging.FileHandler(log)
    logger = logging.getLogger("isdp.experiments.jobs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.info(resources_line())
    finally:
        logger.removeHandler(handler)
        handler.close()
    (tmp_path / "results" / "benchmarks" / "e1_notebook.tsv").write_text(
        "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
        "6.2\t0:00:06\t180.5\t900\t150\t160\t0\t1\t0\t5.9\n")
    jobs = workflow_times.read_jobs(tmp_path).set_index("job")
    assert RESOURCES_LINE.search(log.read_text())
    assert list(jobs.index) == ["e3_states_TX+DC", "e1_notebook"]
    assert list(jobs["rule"]) == ["e3_states", "e1_notebook"]
    assert jobs.loc["e1_notebook", "seconds"] == 6.2 and jobs.loc["e3_states_TX+DC", "seconds"] > 0
    assert [workflow_times.rule_of(j) for j in ("e1_fig5_boxplots", "e5_fig1", "e1_draws_l2", "fetch_v20100101")] == \
        ["e1_boxplots", "e5_fig1", "e1_draws", "fetch"]
