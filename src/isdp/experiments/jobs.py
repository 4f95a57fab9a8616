"""The workflow's public API: what a step is given and what it may rely on.

A *step* is a plain function ``step(job: Job) -> None`` in an experiment package's ``steps``
module (e.g. :func:`isdp.experiments.e7_congenial_histogram.steps.tables`). A rule names it in
its params, ``step="isdp.experiments.e7_congenial_histogram.steps.tables"``, and runs the one
generic script ``workflow/scripts/step.py``, which calls :func:`run_step`. A step reads
``job.input``, ``job.params``, ``job.wildcards`` and ``job.config``, writes ``job.output``, and
logs with ``job.log``; it never looks for files on its own, so the same step runs from an
installed package against any directory (build a :class:`Job` by hand, as the tests do).

Also here: the seed of a step (:meth:`Job.seed`) and the config helpers the Snakefile and the tests share
(:func:`check_config_values`, :func:`load_config`, :func:`balanced_batches`).
"""

from __future__ import annotations

import csv
import importlib
import json
import logging
import math
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


class Namedlist(list):
    """A list whose named items (or slices) are also attributes and keys, as in Snakemake."""

    def __init__(self, items=(), names=None):
        super().__init__(items)
        self._names = dict(names or {})
        for name, (start, end) in self._names.items():
            setattr(self, name, self[start] if end is None else Namedlist(self[start:end]))

    @classmethod
    def of(cls, value) -> Namedlist:
        """A Namedlist from a mapping (named items), a sequence (unnamed) or an existing Namedlist."""
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
        return getattr(self, key, default) if key in self._names else default

    def keys(self):
        return self._names.keys()

    def items(self):
        return ((name, getattr(self, name)) for name in self._names)


class Job:
    """One run of a step: its files, settings and logger.

    ``input``, ``output``, ``params``, ``wildcards`` behave as Snakemake's (attribute and key
    access); ``config`` is the whole workflow config; ``log_file`` is where :func:`run_step` sends
    logging. Outside Snakemake pass mappings: ``Job(input={"x": "a.csv"}, output={...}, ...)``.
    """

    def __init__(self, *, input=None, output=None, params=None, wildcards=None, log=None, threads: int = 1,
                 config: Mapping | None = None, rule: str = "step"):
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
        """The Job of the ``snakemake`` object Snakemake injects into a script."""
        return cls(input=smk.input, output=smk.output, params=smk.params, wildcards=smk.wildcards, log=smk.log,
                   threads=smk.threads, config=smk.config, rule=smk.rule)

    @property
    def log_file(self) -> str | None:
        return str(self.log_files[0]) if len(self.log_files) else None

    def seed(self, *keys) -> int:
        """This step's seed: :func:`isdp.derive_seed` of ``params.seed`` (a list: base seed and names)
        followed by ``keys``."""
        # Imported here, not at the top: a step without seeds need not load numba.
        from isdp import derive_seed

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
    """Let numba's parallel kernels use ``threads`` threads in this process.

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
    """The function ``package.module.function`` named by a rule's ``params.step``."""
    module, _, func = str(name).rpartition(".")
    try:
        step = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError, ValueError) as err:
        raise ValueError(f"unknown step {name!r} (expected <module>.<function>, e.g. "
                         f"isdp.experiments.e7_congenial_histogram.steps.tables): {err}") from None
    if not callable(step):
        raise ValueError(f"step {name!r} is not a function")
    return step


class DamagedInputError(RuntimeError):
    """An input a step reads is a damaged result of an earlier step (empty, truncated, unreadable)."""


#: results that may legitimately hold a header and no rows (a state of one county has no
#: MCMC-vs-exact comparison)
MAY_BE_EMPTY = ("results/e3/exact_",)
_NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")


def _damage(path: Path) -> str | None:
    """Why the results file ``path`` is damaged (None when it reads back as its kind of file)."""
    import pandas as pd

    if path.stat().st_size == 0:
        return "empty (0 bytes)"
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            rows = csv.reader(fh)
            width = len(next(rows, []))
            for line, row in enumerate(rows, start=2):
                if row and len(row) != width:
                    return f"row {line} has {len(row)} fields, the header {width} (truncated or mangled)"
        try:
            df = pd.read_csv(path)
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
            return f"not a readable CSV ({type(err).__name__}: {err})"
        if df.empty and not str(path).startswith(MAY_BE_EMPTY):
            return "a header and no rows (truncated?)"
    elif path.suffix == ".nc":
        with open(path, "rb") as fh:
            if not fh.read(8).startswith(_NETCDF_MAGIC):
                return "not a netCDF file (wrong signature)"
        import xarray as xr

        try:
            xr.open_dataset(path).close()
        except Exception as err:  # noqa: BLE001 - any failure to open is the damage reported
            return f"not a readable netCDF file ({type(err).__name__}: {err})"
    elif path.suffix == ".json":
        try:
            json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            return f"not readable JSON ({err})"
    return None


def check_inputs(job: Job) -> None:
    """Refuse a damaged result of an earlier step among ``job.input`` (files under ``results/``;
    the repository's committed inputs have their own readers' checks), naming it.

    Snakemake reruns a step only when its inputs are newer, so a result truncated or emptied after
    it was written would otherwise be read as valid; the message says how to rebuild it.
    """
    paths = [Path(p) for item in job.input for p in ([item] if isinstance(item, str | os.PathLike) else item)]
    for path in paths:
        if not str(path).startswith("results/") or not path.is_file():
            continue
        problem = _damage(path)
        if problem:
            raise DamagedInputError(f"{path} is damaged: {problem}. Delete it and rerun snakemake, which "
                                    f"rebuilds it (or: snakemake --forcerun {path})")


def run_step(smk) -> None:
    """Run the step the rule's ``params.step`` names, with the job Snakemake injected, after
    checking its inputs are not damaged results (:func:`check_inputs`); end the job's log with its
    time, CPU and memory (:func:`job_resources`, the line :data:`RESOURCES_LINE` matches)."""
    job = Job.from_snakemake(smk)
    start_logging(job)
    check_inputs(job)
    resolve_step(job.params.step)(job)
    logging.getLogger(__name__).info(resources_line())


#: matches the line :func:`run_step` ends a job's log with (``benchmarks/workflow_times.py`` reads it)
RESOURCES_LINE = re.compile(r"resources: wall_s=([\d.]+) cpu_s=([\d.]+) max_rss_mb=([\d.]+)")


def resources_line() -> str:
    """``resources: wall_s=… cpu_s=… max_rss_mb=…`` of this process so far (:func:`job_resources`)."""
    return "resources: " + " ".join(f"{k}={v:.3f}" for k, v in job_resources().items())


def job_resources() -> dict[str, float]:
    """This process's wall time since it started, its CPU time (with that of the children it
    waited for) and its peak resident memory, in MB.

    The script rules record these themselves instead of declaring Snakemake's ``benchmark:``, whose
    sampler reads every job process's memory maps twice a second for the job's first 15 s: in a
    national run that cost ~35 s of CPU in Snakemake's own process and slowed the jobs beside it
    (docs/performance.md, "Snakemake itself").
    """
    import resource

    import psutil

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    rss_unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return {"wall_s": time.time() - psutil.Process().create_time(),
            "cpu_s": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
            "max_rss_mb": max(own.ru_maxrss, children.ru_maxrss) * rss_unit / 2**20}


# --------------------------------------------------------------------------- config


def balanced_batches(items, weights: Mapping[str, float], n_batches: int | None) -> list[list[str]]:
    """``items`` split into ``n_batches`` batches of about equal total weight (all of them in their
    own batch when None): the heaviest first, each to the batch with the smallest total so far
    (longest-processing-time scheduling); ties keep the order of ``items``.

    The workflow runs E3's and E4's states this way (``e3.state_jobs``): one job per batch.
    """
    items = list(items)
    if not items:
        raise ValueError("no items to batch")
    n = len(items) if n_batches is None else int(n_batches)
    if n < 1:
        raise ValueError(f"the number of batches must be at least 1, not {n_batches}")
    batches, loads = [[] for _ in range(min(n, len(items)))], [0.0] * min(n, len(items))
    for item in sorted(items, key=lambda it: -weights[it]):
        k = loads.index(min(loads))
        batches[k].append(item)
        loads[k] += weights[item]
    return batches


def check_config_values(config, path: str = "config") -> None:
    """What a JSON schema cannot say: every number finite and every ``*_range`` ordered.

    Raises ValueError naming the key (e.g. ``config.e1.pilot.acceptance_range``).
    """
    if isinstance(config, dict):
        for key, value in config.items():
            where = f"{path}.{key}"
            if key.endswith("_range") and isinstance(value, list) and len(value) == 2 and not value[0] < value[1]:
                raise ValueError(f"{where}: the range {value} must be increasing")
            check_config_values(value, where)
    elif isinstance(config, list):
        for i, value in enumerate(config):
            check_config_values(value, f"{path}[{i}]")
    elif isinstance(config, float) and not math.isfinite(config):
        raise ValueError(f"{path}: {config} is not a finite number")


def load_config(path, *overrides) -> dict:
    """The config file ``path`` with each override file merged over it, key by key, as Snakemake
    merges ``--configfile`` files (nested mappings merged; lists and scalars replaced)."""
    import yaml
    from snakemake.utils import update_config

    config = yaml.safe_load(Path(path).read_text())
    for override in overrides:
        update_config(config, yaml.safe_load(Path(override).read_text()) or {})
    return config
