"""The claims registry: every computable claim of the papers, judged on one run's outputs.

The registry (``config/claims.yaml``, validated by the schema shipped beside this module) is
data: per claim an ``id``, the paper's value, the name of the *measure* that computes this run's
value from the results directory, and a *criterion* saying when the two agree. This module loads
it, calls the measures and applies the criteria (:mod:`isdp_papers.criteria`, which lists the
criterion kinds and the statuses each can return); ``results/tables/reproduction_summary.csv``,
the review notebooks and the tests all read verdicts and thresholds from here, so a threshold is
written once. A measure reads the run through a :class:`Run` and returns a :class:`Measurement`
(defined in :mod:`isdp_papers.evidence`; measures import them from here).

A measure is called ``measure(run, paper, **args)`` (:func:`measure_row`); ``paper`` is the row's paper value
only when the row declares ``reads_paper_value: true``, None otherwise. A measure therefore cannot read the value
it is judged against unless its row says so; and a row that says so must name a measure whose code reads its
paper-value parameter (:func:`check_paper_value`, when the registry is loaded and again when a row is judged), so
the declaration is checked, not trusted.

Two statuses belong to no kind. ``error``: the evidence behind the value is empty, NaN, infinite,
of the wrong shape, the measure failed reading it or returned something other than a :class:`Measurement`, or
the row itself cannot be judged (the note says which) — never ``match``; an
experiment's summary step fails on an ``error`` unless the config's ``claims.on_error`` is
``report``. ``not-run``: the claim's experiment is not configured in this run (added by
:func:`combine`, so a dropped claim is never mistaken for one never written).
"""

from __future__ import annotations

import copy
import dis
import functools
import importlib
import inspect
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from isdp.errors import IsdpError
from isdp.files import write_table
from isdp_papers.config import read_yaml
from isdp_papers.criteria import check_criterion, check_finite, describe, fit_rule, verdict
from isdp_papers.evidence import EvidenceError, Measurement, Run

STATUSES = ("match", "differs", "calibrated", "not-comparable", "error", "not-run")
COLUMNS = [
    "id",
    "experiment",
    "kind",
    "claim",
    "source",
    "paper_value",
    "reproduced_value",
    "criterion",
    "reading",
    "status",
    "cause",
    "note",
    "evidence",
    "same_fact_as",
]
SCHEMA = "claims.schema.yaml"  # package data of isdp_papers


# --------------------------------------------------------------------------- registry


class RegistryError(IsdpError, ValueError):
    """A claims registry, a row of it or a summary that cannot be used as it is.

    The message names the file or the claim and what is wrong.
    """


def schema() -> dict:
    """Return the registry's JSON schema (package data, so an installed isdp needs no checkout)."""
    from importlib.resources import files

    return read_yaml(files("isdp_papers").joinpath(SCHEMA).read_text(encoding="utf-8"))


@functools.cache
def _validator():
    """Return the schema's validator, made once.

    ``jsonschema.validate`` checks the schema itself again on each call.
    """
    import jsonschema

    registry_schema = schema()
    cls = jsonschema.validators.validator_for(registry_schema)
    cls.check_schema(registry_schema)
    return cls(registry_schema)


def load_registry(path, experiments: Sequence[str] | None = None) -> list[dict]:
    """Return the claims of ``path`` (the workflow's ``config/claims.yaml``), validated.

    Checks the schema, that ids are unique, that every measure exists and takes the claim's ``args``,
    that every number is finite, that the criterion cannot pass anything at the scale of the row's paper
    value (:func:`isdp_papers.criteria.check_criterion`), that the paper value's type fits the
    measure (:func:`check_paper_value`) and that a ``same_fact_as`` names another row that is itself
    counted (one level); raises ``ValueError`` naming the offending claim otherwise.

    ``experiments`` (ids such as ``"E3"``) limits the checks that import a measure to those experiments'
    claims: a summary job imports only its own experiment's measures, the workflow having checked every
    claim when it was parsed. A text already validated in this process is not validated again (the
    measures it names are the ones imported then); every call returns its own copy, which the caller may
    change.
    """
    path = Path(path)
    chosen = None if experiments is None else tuple(sorted(experiments))
    return copy.deepcopy(_validated(path.read_text(), str(path), chosen))


def _read_registry(text: str, path: str):
    """Return the registry's YAML ``text``.

    Refused with :class:`RegistryError` naming ``path`` when it is not YAML or gives a key twice in one mapping.
    """
    import yaml

    try:
        return read_yaml(text)
    except yaml.YAMLError as err:
        raise RegistryError(f"{path}: not a readable claims registry: {' '.join(str(err).split())}") from None


@functools.lru_cache(maxsize=8)
def _validated(text: str, path: str, experiments: tuple[str, ...] | None) -> list[dict]:
    """Return the checks of :func:`load_registry` on the registry ``text`` read from ``path`` (named in errors)."""
    import jsonschema

    data = _read_registry(text, path)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path))
        row = list(error.absolute_path)[:2]
        if row[:1] == ["claims"] and len(row) == 2 and isinstance(data["claims"][row[1]], Mapping):
            where += f" (claim {data['claims'][row[1]].get('id')!r})"
        raise RegistryError(f"{path}: invalid claims registry at {where or 'top level'}: {error.message}")
    claims = data["claims"]
    seen = set()
    for c in claims:
        if c["id"] in seen:
            raise RegistryError(f"{path}: duplicate claim id {c['id']!r}")
        seen.add(c["id"])
        try:
            check_finite(c["paper_value"], "paper_value")
            check_finite(c.get("args", {}), "args")
        except ValueError as err:
            raise RegistryError(f"{path}: claim {c['id']!r}: {err}") from None
        if experiments is not None and c["experiment"] not in experiments:
            continue
        measure = resolve_measure(c["measure"], claim_id=c["id"])
        try:
            check_paper_value(c, measure)
            check_criterion(c["criterion"], c["paper_value"], getattr(measure, "natural_scale", None))
        except ValueError as err:
            raise RegistryError(f"{path}: claim {c['id']!r}: {err}") from None
        _check_args(measure, c)
    by_id = {c["id"]: c for c in claims}
    for c in claims:
        ref = c.get("same_fact_as")
        target = by_id.get(ref)
        if ref is not None and (target is None or target is c or "same_fact_as" in target):
            raise RegistryError(
                f"{path}: claim {c['id']!r}: same_fact_as must name another row that is counted itself, got {ref!r}"
            )
    return claims


def _check_args(measure, c: Mapping) -> None:
    """Check that the claim's ``args`` are exactly the keyword arguments its measure takes.

    An unknown or a missing key is refused when the registry is loaded, not when the run is summarised.
    """
    try:
        inspect.signature(measure).bind(None, c["paper_value"], **c.get("args", {}))
    except TypeError as err:
        raise RegistryError(
            f"claim {c['id']!r}: args {sorted(c.get('args', {}))} do not fit measure {c['measure']}: {err}"
        ) from None


#: the kinds whose criterion judges the measure's own statistic, not the paper value: the paper value is the
#: measure's input (when its row declares ``reads_paper_value``) or only shown beside the verdict
STATISTIC_KINDS = ("interval", "calibrated", "zscores", "pvalues", "ordering")

#: the JSON type of each annotation a measure may give its paper-value parameter (``paper: str``,
#: ``paper: float | str``); an annotation outside it (``Any``, a class) is not checked
JSON_TYPES = {
    str: "string",
    float: "number",
    int: "integer",
    bool: "boolean",
    type(None): "null",
    list: "array",
    Sequence: "array",
    dict: "object",
    Mapping: "object",
}


def _empty_part(value, where: str = "paper_value") -> str | None:
    """Where ``value`` holds nothing: None, a blank string, an empty list or mapping."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return where
    if isinstance(value, Mapping):
        return (
            where if not value else next(filter(None, (_empty_part(v, f"{where}.{k}") for k, v in value.items())), None)
        )
    if isinstance(value, list):
        return (
            where
            if not value
            else next(filter(None, (_empty_part(v, f"{where}[{i}]") for i, v in enumerate(value))), None)
        )
    return None


def _paper_parameter(measure) -> inspect.Parameter | None:
    """Return the parameter through which ``measure`` receives the paper value (its second), or None."""
    try:
        params = list(inspect.signature(inspect.unwrap(measure)).parameters.values())
    except (TypeError, ValueError):
        return None
    return (
        params[1]
        if len(params) > 1 and params[1].kind in (params[1].POSITIONAL_ONLY, params[1].POSITIONAL_OR_KEYWORD)
        else None
    )


def _reads_paper(measure) -> bool:
    """Whether the code of ``measure`` reads its paper-value parameter (loads it, or hands it to a nested function).

    A measure that only takes it does not.
    """
    param, code = _paper_parameter(measure), getattr(inspect.unwrap(measure), "__code__", None)
    if param is None or code is None:
        return False
    if param.name in code.co_cellvars:
        return True
    return any(
        ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF"))
        and ins.opname != "LOAD_FAST_AND_CLEAR"
        and param.name in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        for ins in dis.get_instructions(code)
    )


def _paper_schema(measure) -> tuple[str, dict] | None:
    """Return the annotation of ``measure``'s paper-value parameter, as written, and the JSON schema of its values.

    The schema is that of the values the annotation names (:data:`JSON_TYPES`); None when there is none or it names a
    type without a JSON type.
    """
    param = _paper_parameter(measure)
    if param is None or param.annotation is inspect.Parameter.empty:
        return None
    try:
        hint = typing.get_type_hints(inspect.unwrap(measure)).get(param.name, param.annotation)
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate says nothing checkable
        return None
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    names = [JSON_TYPES.get(typing.get_origin(h) or h) for h in (typing.get_args(hint) if union else (hint,))]
    if None in names:
        return None
    shown = hint.__name__ if isinstance(hint, type) else hint  # a union's __name__ is 'Union' on 3.14
    return f"{param.name}: {shown}", {"type": names}


def check_paper_value(c: Mapping, measure) -> None:
    """Refuse a paper value whose type does not fit the claim's measure and criterion.

    Nothing in it may be empty (None, a blank string, an empty list or mapping). When the measure annotates its
    paper-value parameter (``paper: str``, ``paper: dict``, ``paper: float | str``), the value must be of that type
    (:data:`JSON_TYPES`). A ``within_se`` criterion subtracts the paper value from the measured number: it must be
    one number. A criterion that judges the measure's own statistic (:data:`STATISTIC_KINDS`) never compares the
    paper value: unless the row hands it to the measure (``reads_paper_value: true``), it is only shown beside the
    verdict, and a list or mapping there (``[1, 2]`` on a row whose measure takes a gap from a printed table) would
    stand beside a verdict that ignores it, so it must be one number, a boolean or the paper's words. ``equal``
    compares the paper value with the measured one as they are: a type that does not fit is an ``error`` when the
    row is judged. A row that declares ``reads_paper_value: true`` must name a measure whose code reads the paper
    value (:func:`_reads_paper`): otherwise the declaration would let any paper value stand beside, or be compared
    with, a verdict that never used it.
    """
    import jsonschema

    value, kind, reads = c["paper_value"], c["criterion"]["kind"], c.get("reads_paper_value", False)
    empty = _empty_part(value)
    if empty is not None:
        raise RegistryError(f"{empty} is empty: give the paper's number or its words")
    if reads and not _reads_paper(measure):
        raise RegistryError(
            f"the row declares reads_paper_value: true, but measure {c['measure']} never reads its "
            "paper-value parameter: drop the declaration or make the measure use the value"
        )
    annotation = _paper_schema(measure)
    if annotation is not None and not jsonschema.Draft7Validator(annotation[1]).is_valid(value):
        raise RegistryError(f"paper_value {value!r} does not fit measure {c['measure']}, which takes {annotation[0]}")
    if kind == "within_se" and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise RegistryError(
            f"paper_value {value!r} does not fit a within_se criterion, which compares the measured "
            "number with it: it must be one number"
        )
    if kind in STATISTIC_KINDS and isinstance(value, list | dict) and not reads:
        raise RegistryError(
            f"paper_value {value!r} is a {type(value).__name__}, but measure {c['measure']} ignores "
            f"its paper value (the row does not declare reads_paper_value: true) and the {kind} "
            "criterion judges the measure's own statistic: shown beside a verdict that ignores it, the "
            "paper value must be one number, a boolean or the paper's words"
        )


def claim(claim_id: str, registry) -> dict:
    """One registry entry by id (``registry``: a loaded list or a path)."""
    claims = registry if isinstance(registry, list) else load_registry(registry)
    for c in claims:
        if c["id"] == claim_id:
            return c
    raise KeyError(f"no claim with id {claim_id!r} in the registry")


def paper_value(claim_id: str, registry):
    """Return the paper's value of one claim: figures and notebooks read paper values from here."""
    return claim(claim_id, registry)["paper_value"]


@functools.cache
def _experiment_packages() -> tuple[str, ...]:
    import pkgutil

    import isdp_papers

    return tuple(m.name for m in pkgutil.iter_modules(isdp_papers.__path__) if m.ispkg)


def measures_module(prefix: str) -> str:
    """Return the measures module of ``prefix``.

    ``e3`` -> ``isdp_papers.e3_census_counties.measures`` (the experiment package whose name starts with ``e3_``); any
    other name -> the package of that name (``lattice_study``, shared by E1 and E2).
    """
    packages = _experiment_packages()
    matches = [p for p in packages if p == prefix or p.startswith(f"{prefix}_")]
    if len(matches) != 1:
        raise ValueError(f"no single experiment package for {prefix!r} in isdp_papers (found {matches})")
    return f"isdp_papers.{matches[0]}.measures"


def resolve_measure(name: str, claim_id: str = "?"):
    """Return the measure named ``<experiment>.<function>`` or ``<experiment>.<module>.<function>``.

    The function defined in that experiment package's ``measures`` module, or in the module ``<module>`` of its
    ``measures`` package (``e3.band_share`` -> ``isdp_papers.e3_census_counties.measures``;
    ``e8.swapping_tables.ma1940_gap`` -> ``….e8_privacy_accounting.measures.swapping_tables``), so the name says which
    file to open (see :func:`measures_module`).
    """
    prefix, *module, func = name.split(".")
    try:
        path = ".".join([measures_module(prefix), *module]) if len(module) <= 1 else ""
        measure = getattr(importlib.import_module(path), func)
        if getattr(measure, "__module__", None) != path:
            raise AttributeError(f"{func} is defined in {measure.__module__}, not {path}")
        return measure
    except (ImportError, AttributeError, ValueError):
        raise ValueError(
            f"claim {claim_id!r}: unknown measure {name!r} (expected <experiment>.<function> or "
            "<experiment>.<module>.<function>, a function defined in isdp_papers.<experiment "
            "package>.measures or one of its modules)"
        ) from None


# --------------------------------------------------------------------------- evaluation


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


def _evidence_text(m: Measurement | None, reads: Mapping[str, int]) -> str:
    files = "; ".join(rel if rows is None else f"{rel}: {rows} rows" for rel, rows in reads.items())
    if m is not None and m.n is not None:
        return f"{m.n} values" + (f" ({files})" if files else "")
    return files or "no file read (computed from the config)"


def measure_row(c: Mapping, run: Run, **args) -> Measurement:
    """Return this run's measurement of registry row ``c``.

    Its measure called on ``run`` with the row's ``args`` (``args`` replacing some of them) and, when the row declares
    ``reads_paper_value: true``, its paper value; None in its place otherwise, so a measure reads the value it is judged
    against only where its row says so.

    The row's paper value is checked against its measure first (:func:`check_paper_value`, raising
    :class:`RegistryError`: a row built or changed after loading is held to the loader's checks), and what the
    measure returns must be a :class:`Measurement` (:class:`EvidenceError` otherwise).
    """
    measure = resolve_measure(c["measure"], c["id"])
    check_paper_value(c, measure)
    paper = c["paper_value"] if c.get("reads_paper_value") else None
    m = measure(run, paper, **{**c.get("args", {}), **args})
    if not isinstance(m, Measurement):
        raise EvidenceError(f"it returned {_format_paper(m)[:80]} (a {type(m).__name__}), not a Measurement")
    return m


def evaluate_claim(c: Mapping, run: Run) -> dict:
    """One summary row for registry entry ``c`` on ``run``.

    A measure that fails (a missing, empty or damaged results file, a wrong shape) or returns something other
    than a :class:`Measurement`, evidence that cannot be judged, or a row whose paper value does not fit its
    measure (:func:`check_paper_value`) gives status ``error`` with the reason in the note, never ``match``.
    """
    run.reads = {}
    m, problem = None, None
    try:
        m = measure_row(c, run)
        status, problem = verdict(c["criterion"], c["paper_value"], m)
        status = fit_rule(status, c["reading"])
    except RegistryError as err:  # the row itself, whatever the run holds
        problem, status = f"claim {c['id']!r}: {err}", "error"
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
    claims = (
        registry
        if isinstance(registry, list)
        else load_registry(registry, experiments=None if experiment is None else [experiment])
    )
    rows = [evaluate_claim(c, run) for c in claims if experiment is None or c["experiment"] == experiment]
    if experiment is not None and not rows:
        raise RegistryError(f"the registry has no claim for experiment {experiment!r}")
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
        raise ClaimErrors(
            f"{len(bad)} claim(s) could not be judged (set claims.on_error: report in the config "
            f"to write them to the summary as 'error' instead):\n{lines}"
        )


def not_run_rows(claims: list[dict], experiments) -> pd.DataFrame:
    """Return a ``not-run`` row, with the reason, for every claim whose experiment is not among ``experiments``.

    ``experiments`` are the configured ones: a dropped claim is listed, never silently absent.
    """
    configured = {e.upper() for e in experiments}
    rows = [
        {
            "id": c["id"],
            "experiment": c["experiment"],
            "kind": c["kind"],
            "claim": c["claim"],
            "source": f"{c['document']} {c['location']}",
            "paper_value": _format_paper(c["paper_value"]),
            "reproduced_value": "—",
            "criterion": f"{describe(c['criterion'])}. Why: {c['why']}",
            "reading": f"{c['reading']['text']} ({c['reading']['basis']})",
            "status": "not-run",
            "cause": c.get("cause", ""),
            "note": f"not run: experiment {c['experiment']} is not configured in this run (configured: "
            f"{', '.join(sorted(configured, key=lambda e: int(e[1:]))) or 'none'})",
            "evidence": "none",
            "same_fact_as": c.get("same_fact_as", ""),
        }
        for c in claims
        if c["experiment"] not in configured
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def combine(paths, out, registry=None, experiments=None) -> pd.DataFrame:
    """Concatenate per-experiment summaries into the reproduction summary, checking statuses.

    With ``registry`` and the configured ``experiments``, the claims of every other experiment are
    added as ``not-run`` rows and the rows follow the registry's order; a summary row whose id the registry does
    not hold is refused (:class:`RegistryError` naming it), never kept at the end.
    """
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths]
    for p, f in zip(paths, frames, strict=True):
        if f.empty:
            raise EvidenceError(f"{p}: no summary rows (damaged?); delete it so the workflow rebuilds it")
    df = pd.concat(frames, ignore_index=True)
    if registry is not None:
        claims = registry if isinstance(registry, list) else load_registry(registry, experiments=())
        df = pd.concat([df, not_run_rows(claims, experiments or ())], ignore_index=True)
        order = {c["id"]: i for i, c in enumerate(claims)}
        unknown = sorted(set(df["id"]) - set(order))
        if unknown:
            raise RegistryError(f"claim ids in the summaries that the registry does not hold: {unknown}")
        df = df.iloc[sorted(range(len(df)), key=lambda i: order.get(df["id"].iloc[i], len(order)))]
        df = df.reset_index(drop=True)
    if list(df.columns) != COLUMNS:
        raise RegistryError(f"summary columns {list(df.columns)} differ from {COLUMNS}")
    bad = set(df["status"]) - set(STATUSES)
    if bad:
        raise RegistryError(f"unknown status values in the summaries: {sorted(bad)}")
    dup = df["id"][df["id"].duplicated()]
    if len(dup):
        raise RegistryError(f"duplicate claim ids in the summaries: {sorted(set(dup))}")
    write_table(df, out)
    return df


def fmt_se(x: float, se: float, scale: float = 1.0, digits: int = 2) -> str:
    """``x ± se`` with the same number of decimals (for measure texts)."""
    return f"{scale * x:.{digits}f} ± {scale * se:.{digits}f}"


def claim_markdown(row: Mapping) -> str:
    """One summary row as a short Markdown block for the review notebooks."""
    badge = {
        "match": "✅ match",
        "differs": "❌ differs",
        "calibrated": "⚖️ calibrated",
        "not-comparable": "➖ not comparable",
        "error": "⚠️ error (evidence unusable)",
        "not-run": "⏸ not run",
    }[row["status"]]
    note = f"  \n*Note:* {row['note']}" if row.get("note") else ""
    cause = f" (cause: {row['cause']})" if row.get("cause") and row["status"] in ("differs", "not-comparable") else ""
    return (
        f"**{row['id']}** — {row['claim']} ({row['source']}; {row['kind']})  \n"
        f"*Paper:* {row['paper_value']}  \n*This run:* {row['reproduced_value']}  \n"
        f"*Reading:* {row['reading']}  \n"
        f"*Criterion:* {row['criterion']}  \n*Verdict:* **{badge}**{cause}{note}"
    )


def load_summary(path) -> pd.DataFrame:
    """Return a summary CSV written by the workflow, indexed by claim id (for the review notebooks)."""
    return pd.read_csv(path, dtype=str, keep_default_na=False).set_index("id", drop=False)


__all__ = [
    "COLUMNS",
    "JSON_TYPES",
    "STATISTIC_KINDS",
    "STATUSES",
    "ClaimErrors",
    "EvidenceError",
    "Measurement",
    "RegistryError",
    "Run",
    "check_errors",
    "check_paper_value",
    "claim",
    "claim_markdown",
    "combine",
    "evaluate",
    "evaluate_claim",
    "fmt_se",
    "load_registry",
    "load_summary",
    "measure_row",
    "not_run_rows",
    "paper_value",
    "resolve_measure",
    "verdict",
]
