"""The job runner's process settings and the batching of per-state jobs (isdp.experiments.jobs)."""

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
    from isdp.experiments.jobs import balanced_batches

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
    from isdp.experiments.jobs import balanced_batches, load_config

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
