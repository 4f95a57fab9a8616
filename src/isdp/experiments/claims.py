"""The claims registry: every computable claim of the papers, judged on one run's outputs.

The registry (``config/claims.yaml``, validated by the schema shipped beside this module) is
data: per claim an ``id``, the paper's value, the name of the *measure* that computes this run's
value from the results directory, and a *criterion* saying when the two agree. This module loads
it, calls the measures and applies the criteria; ``results/tables/reproduction_summary.csv``,
the review notebooks and the tests all read verdicts and thresholds from here, so a threshold is
written once.

Criterion kinds and the statuses each can return:

============== ======================= ==========================================================
kind           statuses                rule
============== ======================= ==========================================================
equal          match, differs          value == paper value (``tol``: absolute, element-wise)
within_se      match, differs          |value − paper| ≤ k·SE + ``rounding`` (SE from this run)
interval       match, differs          ``min`` ≤ value ≤ ``max`` (either bound optional)
zscores        match, differs          max |z| ≤ Φ⁻¹(1 − α/(2m)), m = number of z-scores
pvalues        match, differs          min p > α/m (Bonferroni over the m tests)
ordering       match, differs          value[order[0]] < value[order[1]] < …
calibrated     calibrated, differs     the paper value chose a parameter: ``min`` ≤ value ≤ ``max``
                                       is consistency, never a match
not-comparable not-comparable          ``reason`` says why; the measured value is still reported
============== ======================= ==========================================================

Whatever the criterion, a claim whose ``reading`` of the paper's words was *chosen by fit* (picked
among several because it agrees) is never a ``match``: agreement under it is reported as
``calibrated`` (see :func:`fit_rule`).

Two statuses belong to no kind. ``error``: the evidence behind the value is empty, NaN, infinite,
of the wrong shape, or the measure failed reading it (the note says which) — never ``match``; an
experiment's summary step fails on an ``error`` unless the config's ``claims.on_error`` is
``report``. ``not-run``: the claim's experiment is not configured in this run (added by
:func:`combine`, so a dropped claim is never mistaken for one never written).
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from isdp.experiments.config import read_yaml
from isdp.files import write_table

STATUSES = ("match", "differs", "calibrated", "not-comparable", "error", "not-run")
COLUMNS = ["id", "experiment", "kind", "claim", "source", "paper_value", "reproduced_value", "criterion", "reading",
           "status", "cause", "note", "evidence", "same_fact_as"]
CHOSEN_BY_FIT = "chosen by fit"
KINDS = ("equal", "within_se", "interval", "zscores", "pvalues", "ordering", "calibrated", "not-comparable")
SCHEMA = "claims.schema.yaml"  # package data of isdp.experiments


@dataclass(frozen=True)
class Measurement:
    """What a measure returns: the value a criterion checks and how to report it.

    ``value`` is a number, bool, string, sequence, or a mapping of named numbers (for ``ordering``);
    ``se`` its Monte Carlo standard error (required by ``within_se``); ``text`` the human-readable
    reproduced value; ``note`` extra context for the summary row; ``n`` how many values the
    measure used (when None, the evaluator counts the table rows it read through :class:`Run`).
    """

    value: Any
    text: str
    se: float | None = None
    note: str = ""
    n: int | None = None


class EvidenceError(ValueError):
    """A results file a claim (or a step) reads is missing, empty, header-only or unreadable."""


class Run:
    """Read access to one workflow run's outputs (``<root>/results/...``), its config and the repository's data."""

    def __init__(self, root=".", config: Mapping | None = None, repo="."):
        self.root = Path(root)
        self.config = dict(config or {})
        self.repo = Path(repo)
        # files a measure opened since the last reset (its evidence): rows read, None when not a table
        self.reads: dict[str, int | None] = {}

    def path(self, rel) -> Path:
        """``results/<rel>`` of this run (recorded as evidence of the claim being evaluated)."""
        self.reads.setdefault(f"results/{rel}", None)
        return self.root / "results" / rel

    def table(self, name: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/tables/<name>.csv`` as a DataFrame (refused when empty or header-only)."""
        return self.table_at(f"tables/{name}.csv", **read_csv_kwargs)

    def table_at(self, rel: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/<rel>`` (any CSV of the run) as a DataFrame (refused when empty or header-only)."""
        df = read_results_csv(self.path(rel), **read_csv_kwargs)
        self.reads[f"results/{rel}"] = (self.reads[f"results/{rel}"] or 0) + len(df)
        return df

    def data(self, rel) -> Path:
        """A committed input of the repository (e.g. a paper's printed table under ``data/``)."""
        self.reads.setdefault(str(rel), None)
        return self.repo / rel

    def json(self, rel):
        """``results/<rel>`` parsed as JSON."""
        return json.loads(self.path(rel).read_text())


def read_results_csv(path, **read_csv_kwargs) -> pd.DataFrame:
    """A results CSV, refused with :class:`EvidenceError` naming it when missing, empty, header-only
    or unparsable: a damaged result never reads as a table without rows."""
    path = Path(path)
    try:
        df = pd.read_csv(path, **read_csv_kwargs)
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (run the workflow step that writes it)") from None
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise EvidenceError(f"{path}: damaged ({err}); delete it so the workflow rebuilds it") from None
    if df.empty:
        raise EvidenceError(f"{path}: no data rows (header only); delete it so the workflow rebuilds it")
    return df


# --------------------------------------------------------------------------- registry


def schema() -> dict:
    """The registry's JSON schema (package data, so an installed isdp needs no checkout)."""
    from importlib.resources import files

    return read_yaml(files("isdp.experiments").joinpath(SCHEMA).read_text(encoding="utf-8"))


def load_registry(path) -> list[dict]:
    """The claims of ``path`` (the workflow's ``config/claims.yaml``), validated.

    Checks the schema, that ids are unique, that every measure exists and that a ``same_fact_as``
    names another row that is itself counted (one level); raises ``ValueError`` naming the
    offending claim otherwise.
    """
    import jsonschema

    path = Path(path)
    data = read_yaml(path.read_text())
    try:
        jsonschema.validate(data, schema())
    except jsonschema.ValidationError as err:
        where = "/".join(map(str, err.absolute_path))
        raise ValueError(f"{path}: invalid claims registry at {where or 'top level'}: {err.message}") from None
    claims = data["claims"]
    seen = set()
    for c in claims:
        if c["id"] in seen:
            raise ValueError(f"{path}: duplicate claim id {c['id']!r}")
        seen.add(c["id"])
        try:
            check_criterion(c["criterion"])
            _check_finite(c["paper_value"], "paper_value")
            _check_finite(c.get("args", {}), "args")
        except ValueError as err:
            raise ValueError(f"{path}: claim {c['id']!r}: {err}") from None
        _check_args(resolve_measure(c["measure"], claim_id=c["id"]), c)
    by_id = {c["id"]: c for c in claims}
    for c in claims:
        ref = c.get("same_fact_as")
        target = by_id.get(ref)
        if ref is not None and (target is None or target is c or "same_fact_as" in target):
            raise ValueError(f"{path}: claim {c['id']!r}: same_fact_as must name another row that is counted itself, "
                             f"got {ref!r}")
    return claims


def _check_finite(value, where: str) -> None:
    """Every number inside ``value`` finite (YAML's .nan and .inf pass a JSON schema's ``number``)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{where}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_finite(v, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} = {value} is not a finite number")


#: limits on a criterion's numbers: beyond them it could pass any value the measures produce
TOLERANCE_LIMIT = 1.0  # tol and rounding are absolute; the registry's largest is 0.005
K_LIMIT = 10  # standard errors in within_se (the registry uses 2 and 3)
BOUND_LIMIT = 1e15  # |min|, |max| of an interval (the largest measured quantity is ~1e10)


def check_criterion(criterion: Mapping) -> None:
    """Refuse a criterion that could pass any value: non-finite numbers, an empty interval, α
    outside (0, 1), a tolerance outside [0, TOLERANCE_LIMIT], ``k`` outside (0, K_LIMIT], interval
    bounds beyond ±BOUND_LIMIT (the schema checks the rest)."""
    _check_finite(dict(criterion), "criterion")
    kind = criterion.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown criterion kind {kind!r} (one of {KINDS})")
    for key in ("tol", "rounding"):
        if key in criterion and not 0 <= criterion[key] <= TOLERANCE_LIMIT:
            raise ValueError(f"criterion.{key} = {criterion[key]} must lie in [0, {TOLERANCE_LIMIT:g}]: a larger "
                             "tolerance would pass anything the measures here produce")
    if "k" in criterion and not 0 < criterion["k"] <= K_LIMIT:
        raise ValueError(f"criterion.k = {criterion['k']} must lie in (0, {K_LIMIT}]: beyond {K_LIMIT} standard "
                         "errors no Monte Carlo difference is ever detected")
    for key in ("min", "max"):
        if key in criterion and not abs(criterion[key]) <= BOUND_LIMIT:
            raise ValueError(f"criterion.{key} = {criterion[key]} lies beyond ±{BOUND_LIMIT:g}: no measure here is "
                             "that large, so the bound would exclude nothing (leave it out for a one-sided interval)")
    if "alpha" in criterion and not 0 < criterion["alpha"] < 1:
        raise ValueError(f"criterion.alpha = {criterion['alpha']} must lie in (0, 1)")
    lo, hi = criterion.get("min"), criterion.get("max")
    if kind in ("interval", "calibrated"):
        if lo is None and hi is None:
            raise ValueError(f"a {kind} criterion needs min or max")
        if lo is not None and hi is not None and not lo <= hi:
            raise ValueError(f"criterion interval [{lo}, {hi}] is empty")


def _check_args(measure, c: Mapping) -> None:
    """The claim's ``args`` are exactly the keyword arguments its measure takes (an unknown or a
    missing key is refused when the registry is loaded, not when the run is summarised)."""
    try:
        inspect.signature(measure).bind(None, c["paper_value"], **c.get("args", {}))
    except TypeError as err:
        raise ValueError(f"claim {c['id']!r}: args {sorted(c.get('args', {}))} do not fit measure "
                         f"{c['measure']}: {err}") from None


def claim(claim_id: str, registry) -> dict:
    """One registry entry by id (``registry``: a loaded list or a path)."""
    claims = registry if isinstance(registry, list) else load_registry(registry)
    for c in claims:
        if c["id"] == claim_id:
            return c
    raise KeyError(f"no claim with id {claim_id!r} in the registry")


def paper_value(claim_id: str, registry):
    """The paper's value of one claim: figures and notebooks read paper values from here."""
    return claim(claim_id, registry)["paper_value"]


def measures_module(prefix: str) -> str:
    """The measures module of ``prefix``: ``e3`` -> ``isdp.experiments.e3_census_counties.measures``
    (the experiment package whose name starts with ``e3_``); any other name -> the package of that
    name (``lattice_study``, shared by E1 and E2)."""
    import pkgutil

    import isdp.experiments

    packages = [m.name for m in pkgutil.iter_modules(isdp.experiments.__path__) if m.ispkg]
    matches = [p for p in packages if p == prefix or p.startswith(f"{prefix}_")]
    if len(matches) != 1:
        raise ValueError(f"no single experiment package for {prefix!r} in isdp.experiments (found {matches})")
    return f"isdp.experiments.{matches[0]}.measures"


def resolve_measure(name: str, claim_id: str = "?"):
    """The measure named ``<experiment>.<function>`` (e.g. ``e3.band_share``): the function in that
    experiment package's ``measures`` module (see :func:`measures_module`)."""
    prefix, _, func = name.rpartition(".")
    try:
        return getattr(importlib.import_module(measures_module(prefix)), func)
    except (ImportError, AttributeError, ValueError):
        raise ValueError(f"claim {claim_id!r}: unknown measure {name!r} (expected <experiment>.<function>, "
                         "a function of isdp.experiments.<experiment package>.measures)") from None


# --------------------------------------------------------------------------- criteria


def _number(x) -> float:
    if isinstance(x, bool | np.bool_):
        raise TypeError("a boolean is not a number here")
    return float(x)


def _is_sequence(x) -> bool:
    return isinstance(x, Sequence | np.ndarray) and not isinstance(x, str)


def _equal(a, b, tol: float) -> bool:
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return isinstance(a, Mapping) and isinstance(b, Mapping) and a.keys() == b.keys() and \
            all(_equal(a[k], b[k], tol) for k in a)
    if _is_sequence(a) or _is_sequence(b):  # a list against a number (several values for one) is unequal
        return _is_sequence(a) and _is_sequence(b) and len(a) == len(b) and \
            all(_equal(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool | np.bool_) or isinstance(b, bool | np.bool_) or isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(_number(a) - _number(b)) <= tol


def _in_interval(value, lo, hi) -> bool:
    v = _number(value)
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def z_threshold(alpha: float, m: int) -> float:
    """Two-sided Bonferroni threshold on |z| for ``m`` tests at family-wise level ``alpha``."""
    from scipy.stats import norm  # here, not at the top: most jobs import claims and need no SciPy

    return float(norm.isf(alpha / (2 * max(m, 1))))


def _leaves(value):
    """The scalar leaves of a measured value (mappings, sequences and arrays flattened)."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, np.ndarray):
        yield from value.ravel().tolist()
    elif isinstance(value, Sequence) and not isinstance(value, str):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _is_empty(value) -> bool:
    """True when the value, or any part of it, has no elements."""
    if isinstance(value, Mapping):
        return not value or any(_is_empty(v) for v in value.values())
    if isinstance(value, np.ndarray):
        return value.size == 0
    if isinstance(value, Sequence) and not isinstance(value, str):
        return not value or any(_is_empty(v) for v in value)
    return value is None or (isinstance(value, str) and not value.strip())  # a blank string is no evidence


def evidence_problem(criterion: Mapping, m: Measurement) -> str | None:
    """Why the evidence of ``m`` cannot be judged under ``criterion`` (None when it can).

    Empty values or an empty part, ``n == 0``, NaN or infinite numbers, a missing or non-finite
    standard error (``within_se``), p-values outside [0, 1] and missing ordered keys are all
    refused: such evidence gives ``error``, never ``match``.
    """
    kind = criterion["kind"]
    if kind == "not-comparable":
        return None
    if m.n is not None and m.n <= 0:
        return f"the measure used {m.n} values"
    if _is_empty(m.value):
        return "the measured value is empty"
    bad = [v for v in _leaves(m.value) if isinstance(v, float | np.floating) and not math.isfinite(v)]
    if bad:
        return f"the measured value holds non-finite numbers ({bad[0]})"
    if any(not isinstance(v, bool | np.bool_ | str | int | float | np.integer | np.floating) for v in _leaves(m.value)):
        return "the measured value holds something that is neither a number, a boolean nor a string"
    if kind == "within_se" and (m.se is None or not math.isfinite(m.se) or m.se < 0):
        return f"a within_se criterion needs a finite, non-negative standard error (got {m.se})"
    if kind in ("within_se", "interval", "calibrated", "zscores", "pvalues") and \
            any(isinstance(v, bool | np.bool_ | str) for v in _leaves(m.value)):
        return f"a {kind} criterion needs numbers, not {m.value!r}"
    if kind in ("within_se", "interval", "calibrated") and np.ndim(m.value) != 0:
        return f"a {kind} criterion needs one number, got shape {np.shape(m.value)}"
    if kind == "pvalues" and not np.all((np.asarray(m.value, dtype=float) >= 0)
                                        & (np.asarray(m.value, dtype=float) <= 1)):
        return "p-values outside [0, 1]"
    if kind == "ordering":
        if not isinstance(m.value, Mapping):
            return "an ordering criterion needs a mapping of named numbers"
        missing = [k for k in criterion["order"] if k not in m.value]
        if missing:
            return f"the measured value lacks {missing}"
    return None


def judge(criterion: Mapping, paper, m: Measurement) -> str:
    """The status of a measurement against the paper's value under ``criterion``; ``error`` when
    its evidence cannot be judged (:func:`evidence_problem`)."""
    kind = criterion["kind"]
    verdict = {True: "match", False: "differs"}
    if evidence_problem(criterion, m) is not None:
        return "error"
    if kind == "equal":
        return verdict[_equal(m.value, paper, float(criterion.get("tol", 0.0)))]
    if kind == "within_se":
        gap = abs(_number(m.value) - _number(paper))
        return verdict[gap <= criterion["k"] * m.se + criterion.get("rounding", 0.0)]
    if kind == "interval":
        return verdict[_in_interval(m.value, criterion.get("min"), criterion.get("max"))]
    if kind == "zscores":
        z = np.abs(np.asarray(m.value, dtype=float))
        return verdict[bool(np.all(z <= z_threshold(criterion["alpha"], z.size)))]
    if kind == "pvalues":
        p = np.asarray(m.value, dtype=float)
        return verdict[bool(np.all(p > criterion["alpha"] / max(p.size, 1)))]
    if kind == "ordering":
        vals = [_number(m.value[k]) for k in criterion["order"]]
        return verdict[all(a < b for a, b in zip(vals, vals[1:], strict=False))]
    if kind == "calibrated":
        return "calibrated" if _in_interval(m.value, criterion.get("min"), criterion.get("max")) else "differs"
    if kind == "not-comparable":
        return "not-comparable"
    raise ValueError(f"unknown criterion kind {kind!r} (one of {KINDS})")


def describe(criterion: Mapping, n_values: int | None = None) -> str:
    """The criterion in words, for the summary's ``criterion`` column."""
    kind = criterion["kind"]
    if kind == "equal":
        tol = criterion.get("tol", 0)
        return "equal to the paper's value" + (f" within ±{tol:g}" if tol else " (exactly)")
    if kind == "within_se":
        r = criterion.get("rounding", 0)
        return f"|this run − paper| ≤ {criterion['k']:g} SE of this run" + (f" + {r:g} (printed rounding)" if r else "")
    if kind in ("interval", "calibrated"):
        lo, hi = criterion.get("min"), criterion.get("max")
        rng = (f"in [{lo:g}, {hi:g}]" if lo is not None and hi is not None else
               f"≥ {lo:g}" if lo is not None else f"≤ {hi:g}")
        return (f"statistic {rng}" if kind == "interval" else
                f"calibrated: the paper's value chose a parameter; consistency statistic {rng}")
    if kind == "zscores":
        m = n_values or 1
        return (f"max |z| ≤ {z_threshold(criterion['alpha'], m):.2f} (two-sided Bonferroni, family-wise "
                f"α = {criterion['alpha']:g} over {m} z-scores)")
    if kind == "pvalues":
        m = n_values or 1
        return f"every p > {criterion['alpha']:g}/{m} (Bonferroni over {m} tests)"
    if kind == "ordering":
        return "strict ordering " + " < ".join(criterion["order"])
    if kind == "not-comparable":
        return f"not comparable: {criterion['reason']}"
    raise ValueError(f"unknown criterion kind {kind!r}")


def _format_paper(value) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_format_paper(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_format_paper(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _n_values(criterion, m: Measurement) -> int | None:
    if criterion["kind"] in ("zscores", "pvalues"):
        return int(np.asarray(m.value).size)
    return None


def fit_rule(status: str, reading: Mapping) -> str:
    """``status`` under the registry's rule for readings: a reading chosen because it fits cannot
    confirm the paper, so its ``match`` becomes ``calibrated`` (``differs`` stays ``differs``)."""
    return "calibrated" if status == "match" and reading["basis"] == CHOSEN_BY_FIT else status


# --------------------------------------------------------------------------- evaluation


def _evidence_text(m: Measurement | None, reads: Mapping[str, int]) -> str:
    files = "; ".join(rel if rows is None else f"{rel}: {rows} rows" for rel, rows in reads.items())
    if m is not None and m.n is not None:
        return f"{m.n} values" + (f" ({files})" if files else "")
    return files or "no file read (computed from the config)"


def evaluate_claim(c: Mapping, run: Run) -> dict:
    """One summary row for registry entry ``c`` on ``run``.

    A measure that fails (a missing, empty or damaged results file, a wrong shape) or evidence
    that cannot be judged gives status ``error`` with the reason in the note, never ``match``.
    """
    run.reads = {}
    m, problem = None, None
    try:
        m = resolve_measure(c["measure"], c["id"])(run, c["paper_value"], **c.get("args", {}))
        problem = evidence_problem(c["criterion"], m)
        status = "error" if problem else fit_rule(judge(c["criterion"], c["paper_value"], m), c["reading"])
    except Exception as err:  # noqa: BLE001 - any failure of a measure is this claim's error, reported
        read = f" (it read {', '.join(run.reads)})" if run.reads else ""
        problem, status = f"measure {c['measure']} failed{read}: {type(err).__name__}: {err}", "error"
    note = "; ".join(s for s in (m.note if m else "", c.get("note", "")) if s)
    criterion = describe(c["criterion"], _n_values(c["criterion"], m) if m and not problem else None)
    return {
        "id": c["id"],
        "experiment": c["experiment"],
        "kind": c["kind"],
        "claim": c["claim"],
        "source": f"{c['document']} {c['location']}",
        "paper_value": _format_paper(c["paper_value"]),
        "reproduced_value": m.text if m else "—",
        "criterion": f"{criterion}. Why: {c['why']}",
        "reading": f"{c['reading']['text']} ({c['reading']['basis']})",
        "status": status,
        "cause": c.get("cause", ""),
        "note": f"error: {problem}" + (f"; {note}" if note else "") if problem else note,
        "evidence": _evidence_text(m, run.reads),
        "same_fact_as": c.get("same_fact_as", ""),
    }


def evaluate(registry, run: Run, experiment: str | None = None) -> pd.DataFrame:
    """Summary rows (``COLUMNS``) of every claim of ``experiment`` (all when None) on ``run``.

    ``registry``: a loaded list of claims or a path to the YAML file.
    """
    claims = registry if isinstance(registry, list) else load_registry(registry)
    rows = [evaluate_claim(c, run) for c in claims if experiment is None or c["experiment"] == experiment]
    if experiment is not None and not rows:
        raise ValueError(f"the registry has no claim for experiment {experiment!r}")
    return pd.DataFrame(rows, columns=COLUMNS)


class ClaimErrors(RuntimeError):
    """Some claims could not be judged (status ``error``); the message lists them and why."""


def check_errors(rows: pd.DataFrame, on_error: str = "fail") -> None:
    """Raise :class:`ClaimErrors` listing the ``error`` rows unless ``on_error`` is ``report``."""
    if on_error not in ("fail", "report"):
        raise ValueError(f"on_error = {on_error!r} must be 'fail' or 'report'")
    bad = rows[rows["status"] == "error"]
    if len(bad) and on_error == "fail":
        lines = "\n".join(f"  {r.id}: {r.note}" for r in bad.itertuples())
        raise ClaimErrors(f"{len(bad)} claim(s) could not be judged (set claims.on_error: report in the config "
                          f"to write them to the summary as 'error' instead):\n{lines}")


def not_run_rows(claims: list[dict], experiments) -> pd.DataFrame:
    """A ``not-run`` row for every claim whose experiment is not among ``experiments`` (the
    configured ones), with the reason: a dropped claim is listed, never silently absent."""
    configured = {e.upper() for e in experiments}
    rows = [{"id": c["id"], "experiment": c["experiment"], "kind": c["kind"], "claim": c["claim"],
             "source": f"{c['document']} {c['location']}", "paper_value": _format_paper(c["paper_value"]),
             "reproduced_value": "—", "criterion": f"{describe(c['criterion'])}. Why: {c['why']}",
             "reading": f"{c['reading']['text']} ({c['reading']['basis']})", "status": "not-run",
             "cause": c.get("cause", ""),
             "note": f"not run: experiment {c['experiment']} is not configured in this run (configured: "
                     f"{', '.join(sorted(configured, key=lambda e: int(e[1:]))) or 'none'})",
             "evidence": "none", "same_fact_as": c.get("same_fact_as", "")}
            for c in claims if c["experiment"] not in configured]
    return pd.DataFrame(rows, columns=COLUMNS)


def combine(paths, out, registry=None, experiments=None) -> pd.DataFrame:
    """Concatenate per-experiment summaries into the reproduction summary, checking statuses.

    With ``registry`` and the configured ``experiments``, the claims of every other experiment are
    added as ``not-run`` rows and the rows follow the registry's order.
    """
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths]
    for p, f in zip(paths, frames, strict=True):
        if f.empty:
            raise EvidenceError(f"{p}: no summary rows (damaged?); delete it so the workflow rebuilds it")
    df = pd.concat(frames, ignore_index=True)
    if registry is not None:
        claims = registry if isinstance(registry, list) else load_registry(registry)
        df = pd.concat([df, not_run_rows(claims, experiments or ())], ignore_index=True)
        order = {c["id"]: i for i, c in enumerate(claims)}
        df = df.iloc[sorted(range(len(df)), key=lambda i: order.get(df["id"].iloc[i], len(order)))]
        df = df.reset_index(drop=True)
    if list(df.columns) != COLUMNS:
        raise ValueError(f"summary columns {list(df.columns)} differ from {COLUMNS}")
    bad = set(df["status"]) - set(STATUSES)
    if bad:
        raise ValueError(f"unknown status values in the summaries: {sorted(bad)}")
    dup = df["id"][df["id"].duplicated()]
    if len(dup):
        raise ValueError(f"duplicate claim ids in the summaries: {sorted(set(dup))}")
    write_table(df, out)
    return df


def fmt_se(x: float, se: float, scale: float = 1.0, digits: int = 2) -> str:
    """``x ± se`` with the same number of decimals (for measure texts)."""
    return f"{scale * x:.{digits}f} ± {scale * se:.{digits}f}"




def claim_markdown(row: Mapping) -> str:
    """One summary row as a short Markdown block for the review notebooks."""
    badge = {"match": "✅ match", "differs": "❌ differs", "calibrated": "⚖️ calibrated",
             "not-comparable": "➖ not comparable", "error": "⚠️ error (evidence unusable)",
             "not-run": "⏸ not run"}[row["status"]]
    note = f"  \n*Note:* {row['note']}" if row.get("note") else ""
    cause = f" (cause: {row['cause']})" if row.get("cause") and row["status"] in ("differs", "not-comparable") else ""
    return (f"**{row['id']}** — {row['claim']} ({row['source']}; {row['kind']})  \n"
            f"*Paper:* {row['paper_value']}  \n*This run:* {row['reproduced_value']}  \n"
            f"*Reading:* {row['reading']}  \n"
            f"*Criterion:* {row['criterion']}  \n*Verdict:* **{badge}**{cause}{note}")


def load_summary(path) -> pd.DataFrame:
    """A summary CSV written by the workflow, indexed by claim id (for the review notebooks)."""
    return pd.read_csv(path, dtype=str, keep_default_na=False).set_index("id", drop=False)


__all__ = ["CHOSEN_BY_FIT", "COLUMNS", "KINDS", "STATUSES", "ClaimErrors", "EvidenceError", "Measurement", "Run",
           "check_criterion", "check_errors", "claim", "claim_markdown", "combine", "describe", "evaluate",
           "evaluate_claim", "evidence_problem", "fit_rule", "fmt_se", "judge", "load_registry", "load_summary",
           "not_run_rows", "paper_value", "read_results_csv", "resolve_measure", "z_threshold"]
