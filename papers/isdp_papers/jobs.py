"""The workflow's public API: what a step is given and what it may rely on.

A *step* is a plain function ``step(job: Job) -> None`` in an experiment package's ``steps``
module (e.g. :func:`isdp_papers.e7_congenial_histogram.steps.tables`). A rule names it in
its params, ``step="isdp_papers.e7_congenial_histogram.steps.tables"``, and runs the one
generic script ``workflow/scripts/step.py``, which calls :func:`run_step`. A step reads
``job.input``, ``job.params``, ``job.wildcards`` and ``job.config``, writes ``job.output``, and
logs with ``job.log``; it never looks for files on its own, so the same step runs from an
installed package against any directory (build a :class:`Job` by hand, as the tests do).

Also here: the seed of a step (:meth:`Job.seed`, :func:`isdp.mcmc.derive_seed`, re-exported) and the runner's
process set-up (:func:`start_logging`, :func:`set_numba_threads`). What the runner checks and records around a
step has its own module: damaged inputs in :mod:`isdp_papers.inputs`, the job's cost in
:mod:`isdp_papers.resources`; the config helpers the Snakefile and the tests share are in :mod:`isdp_papers.config`.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from isdp_papers.inputs import check_inputs
from isdp_papers.resources import resources_line


class Namedlist(list):
    """A list whose named items (or slices) are also attributes and keys, as in Snakemake."""

    def __init__(self, items=(), names=None):
        super().__init__(items)
        self._names = dict(names or {})
        for name, (start, end) in self._names.items():
            setattr(self, name, self[start] if end is None else Namedlist(self[start:end]))

    @classmethod
    def of(cls, value) -> Namedlist:
        """Return a Namedlist from a mapping (named items), a sequence (unnamed) or an existing Namedlist."""
        if value is None:
            return cls()
        if isinstance(value, Mapping):
            return cls(list(value.values()), {k: (i, None) for i, k in enumerate(value)})
        if isinstance(value, str | os.PathLike):
            return cls([value])
        return value if hasattr(value, "keys") else cls(list(value))

    def __getitem__(self, key):
        return getattr(self, key) if isinstance(key, str) else super().__getitem__(key)

    def get(self, key, default=None):
        """Return the item named ``key`` (an item or a slice), or ``default`` when no item has that name."""
        return getattr(self, key, default) if key in self._names else default

    def keys(self):
        """Return the names of the named items."""
        return self._names.keys()

    def items(self):
        """Return the (name, item) pairs of the named items."""
        return ((name, getattr(self, name)) for name in self._names)


def derive_seed(base: int, *keys) -> int:
    """Return the stable 63-bit seed of one (experiment, step, setting): :func:`isdp.mcmc.derive_seed`.

    The library's one derivation, imported when first called: :mod:`isdp.mcmc` loads numba, whose
    threads :func:`set_numba_threads` must set first.

    Parameters
    ----------
    base : int
        The base seed, e.g. the config's ``seed``.
    *keys : object
        Names of the step, e.g. ``"e1", "burn-in", 0.5``.

    Returns
    -------
    int
        A seed in [0, 2⁶³), the same on every machine.

    Examples
    --------
    >>> from isdp_papers.jobs import derive_seed
    >>> derive_seed(2024, "e1", "burn-in")
    8121364948480920842
    """
    from isdp.mcmc import derive_seed as library_seed  # deferred: numba's threads are set before it loads

    return library_seed(base, *keys)


class Job:
    """One run of a step: its files, settings and logger.

    ``input``, ``output``, ``params``, ``wildcards`` behave as Snakemake's (attribute and key
    access); ``config`` is the whole workflow config; ``log_file`` is where :func:`run_step` sends
    logging, and ``log`` the step's logger, named for its rule (``isdp.workflow.<rule>``) so that a
    log line says which rule wrote it. Outside Snakemake pass mappings:
    ``Job(input={"x": "a.csv"}, output={...}, ...)``.
    """

    def __init__(
        self,
        *,
        input=None,
        output=None,
        params=None,
        wildcards=None,
        log=None,
        threads: int = 1,
        config: Mapping | None = None,
        rule: str = "step",
    ):
        self.input = Namedlist.of(input)
        self.output = Namedlist.of(output)
        self.params = Namedlist.of(params)
        self.wildcards = Namedlist.of(wildcards)
        self.log_files = Namedlist.of(log)
        self.threads = int(threads)
        self.config = dict(config or {})
        self.rule = rule
        self.log = logging.getLogger(f"isdp.workflow.{rule}")

    @classmethod
    def from_snakemake(cls, smk) -> Job:
        """Return the Job of the ``snakemake`` object Snakemake injects into a script."""
        return cls(
            input=smk.input,
            output=smk.output,
            params=smk.params,
            wildcards=smk.wildcards,
            log=smk.log,
            threads=smk.threads,
            config=smk.config,
            rule=smk.rule,
        )

    @property
    def log_file(self) -> str | None:
        """The job's first log file, or None when it has none."""
        return str(self.log_files[0]) if len(self.log_files) else None

    def seed(self, *keys) -> int:
        """Return this step's seed.

        :func:`derive_seed` of ``params.seed`` (a list: base seed and names) followed by ``keys``.
        """
        return derive_seed(*self.params.seed, *keys)

    def outputs(self, name: str) -> list[str]:
        """``output.<name>`` as a list, whether the rule gave one path or several."""
        value = self.output[name]
        return [value] if isinstance(value, str | os.PathLike) else list(value)


def start_logging(job: Job) -> None:
    """Send this job's logging (isdp's included), warnings and stderr to ``job.log_file``; set numba's threads."""
    if job.log_file is not None:
        handler = logging.FileHandler(job.log_file, mode="w")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.handlers[:] = [handler]
        root.setLevel(logging.INFO)
        # ArviZ 0.2x logs, at INFO on import, that its optional preview packages are absent: nothing to act on.
        logging.getLogger("arviz.preview").setLevel(logging.WARNING)
        logging.captureWarnings(True)
        sys.stderr = open(job.log_file, "a")  # noqa: SIM115 — lives as long as the job
    set_numba_threads(job.threads)


def set_numba_threads(threads: int) -> None:
    """Let the compiled kernels run their streams on ``threads`` threads in this process (``_runner.over_streams``).

    Before numba is imported this is the ``NUMBA_NUM_THREADS`` variable, so a step that never
    compiles anything does not pay numba's import (0.7 s) to set it; afterwards, numba's own setter.
    """
    threads = max(1, int(threads))
    numba = sys.modules.get("numba")
    if numba is None:
        os.environ["NUMBA_NUM_THREADS"] = str(min(threads, os.cpu_count() or 1))
        return
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def resolve_step(name: str) -> Callable[[Job], Any]:
    """Return the function ``package.module.function`` named by a rule's ``params.step``."""
    module, _, func = str(name).rpartition(".")
    try:
        step = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError, ValueError) as err:
        raise ValueError(
            f"unknown step {name!r} (expected <module>.<function>, e.g. "
            f"isdp_papers.e7_congenial_histogram.steps.tables): {err}"
        ) from None
    if not callable(step):
        raise ValueError(f"step {name!r} is not a function")
    return step


#: the log line of a step run in a process the step server forked for it
SERVED = "run in a process forked by the workflow's step server (isdp_papers.step_server)"

#: new objects between two collections of the youngest generation in a job's process (:func:`run_step`)
YOUNG_OBJECTS = 50_000


def run_step(smk, *, started: float | None = None) -> None:
    """Run the step the rule's ``params.step`` names, with the job Snakemake injected.

    ``started`` is when the job's own process started (Unix time), when the step runs in another one
    (:mod:`isdp_papers.step_server`): the job's wall time counts from then.

    Its inputs are first checked not to be damaged results (:func:`~isdp_papers.inputs.check_inputs`); the job's log
    ends with its time, CPU and memory (:func:`~isdp_papers.resources.resources_line`). The job's process collects
    its young objects :data:`YOUNG_OBJECTS` at a time, not 700: loading pandas, SciPy, numba and matplotlib made
    some 550 collections, 0.4 s of a step's start-up, where 7 take 0.15 s (a reference cycle is still collected).
    """
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    job = Job.from_snakemake(smk)
    start_logging(job)
    if started is not None:
        logging.getLogger(__name__).info(SERVED)
    check_inputs(job)
    resolve_step(job.params.step)(job)
    logging.getLogger(__name__).info(resources_line(started))
