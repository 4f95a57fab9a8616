"""The job runner's process settings (isdp.experiments.jobs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
