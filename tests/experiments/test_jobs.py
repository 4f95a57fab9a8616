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
