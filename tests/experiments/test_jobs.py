"""Tests of :mod:`isdp_papers.jobs`: the job runner's process settings (Numba's thread count, set before or
after Numba is imported) and the start-up of a step: a step module that only computes loads no plotting or symbolic
library."""

from __future__ import annotations

from census_support import python_output as _run


def test_numba_threads_are_set_without_importing_numba():
    out = _run(
        "import sys\n"
        "from isdp_papers.jobs import set_numba_threads\n"
        "set_numba_threads(1)\n"
        "loaded = 'numba' in sys.modules\n"
        "import numba\n"
        "print(loaded, numba.get_num_threads())"
    )
    assert out == "False 1"


def test_numba_threads_are_set_after_numba_is_imported():
    out = _run(
        "import numba\n"
        "from isdp_papers.jobs import set_numba_threads\n"
        "set_numba_threads(1)\n"
        "print(numba.get_num_threads())"
    )
    assert out == "1"


def test_computing_steps_start_without_plotting_or_symbolic_libraries():
    """A step module that only computes loads neither matplotlib, seaborn, sympy nor SciPy's
    statistics when imported: each job would pay them at start-up (docs/performance.md)."""
    heavy = ("matplotlib", "seaborn", "sympy", "scipy.stats")
    loaded = _run(
        "import sys\n"
        "import isdp_papers.lattice_study.steps, isdp_papers.e8_privacy_accounting.steps\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    assert loaded == "[]"


def test_a_job_collects_its_young_objects_in_bulk(tmp_path):
    """run_step sets the job's collector before the step loads its libraries; the step sees it set."""
    (tmp_path / "bulk_step.py").write_text("import gc\ndef step(job):\n    print(gc.get_threshold()[0])\n")
    out = _run(
        "import sys, gc\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from types import SimpleNamespace\n"
        "from isdp_papers.jobs import Namedlist, run_step\n"
        "before = gc.get_threshold()[0]\n"
        "smk = SimpleNamespace(input=Namedlist(), output=Namedlist(), wildcards=Namedlist(), log=Namedlist(),\n"
        "    params=Namedlist.of({'step': 'bulk_step.step'}), threads=1, config={}, rule='bulk')\n"
        "run_step(smk)\n"
        "print(before)"
    )
    in_step, before = out.split()
    assert in_step == "50000" and before != in_step, out
