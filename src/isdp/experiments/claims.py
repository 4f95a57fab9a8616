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
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from scipy import stats

STATUSES = ("match", "differs", "calibrated", "not-comparable")
COLUMNS = ["id", "experiment", "kind", "claim", "source", "paper_value", "reproduced_value", "criterion", "reading",
           "status", "cause", "note"]
CHOSEN_BY_FIT = "chosen by fit"
KINDS = ("equal", "within_se", "interval", "zscores", "pvalues", "ordering", "calibrated", "not-comparable")
SCHEMA = "claims.schema.yaml"  # package data of isdp.experiments


@dataclass(frozen=True)
class Measurement:
    """What a measure returns: the value a criterion checks and how to report it.

    ``value`` is a number, bool, string, sequence, or a mapping of named numbers (for ``ordering``);
    ``se`` its Monte Carlo standard error (required by ``within_se``); ``text`` the human-readable
    reproduced value; ``note`` extra context for the summary row.
    """

    value: Any
    text: str
    se: float | None = None
    note: str = ""


class Run:
    """Read access to one workflow run's outputs (``<root>/results/...``), its config and the repository's data."""

    def __init__(self, root=".", config: Mapping | None = None, repo="."):
        self.root = Path(root)
        self.config = dict(config or {})
        self.repo = Path(repo)

    def path(self, rel) -> Path:
        """``results/<rel>`` of this run."""
        return self.root / "results" / rel

    def table(self, name: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/tables/<name>.csv`` as a DataFrame."""
        return pd.read_csv(self.path(f"tables/{name}.csv"), **read_csv_kwargs)

    def table_at(self, rel: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/<rel>`` (any CSV of the run) as a DataFrame."""
        return pd.read_csv(self.path(rel), **read_csv_kwargs)

    def data(self, rel) -> Path:
        """A committed input of the repository (e.g. a paper's printed table under ``data/``)."""
        return self.repo / rel

    def json(self, rel):
        """``results/<rel>`` parsed as JSON."""
        return json.loads(self.path(rel).read_text())


# --------------------------------------------------------------------------- registry


def schema() -> dict:
    """The registry's JSON schema (package data, so an installed isdp needs no checkout)."""
    from importlib.resources import files

    return yaml.safe_load(files("isdp.experiments").joinpath(SCHEMA).read_text(encoding="utf-8"))


def load_registry(path) -> list[dict]:
    """The claims of ``path`` (the workflow's ``config/claims.yaml``), validated.

    Checks the schema, that ids are unique, and that every measure exists; raises ``ValueError``
    naming the offending claim otherwise.
    """
    import jsonschema

    path = Path(path)
    data = yaml.safe_load(path.read_text())
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
        resolve_measure(c["measure"], claim_id=c["id"])
    return claims


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


def _equal(a, b, tol: float) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k], tol) for k in a)
    if isinstance(a, Sequence | np.ndarray) and not isinstance(a, str) and \
            isinstance(b, Sequence | np.ndarray) and not isinstance(b, str):
        return len(a) == len(b) and all(_equal(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool | np.bool_) or isinstance(b, bool | np.bool_) or isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(_number(a) - _number(b)) <= tol


def _in_interval(value, lo, hi) -> bool:
    v = _number(value)
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def z_threshold(alpha: float, m: int) -> float:
    """Two-sided Bonferroni threshold on |z| for ``m`` tests at family-wise level ``alpha``."""
    return float(stats.norm.isf(alpha / (2 * max(m, 1))))


def judge(criterion: Mapping, paper, m: Measurement) -> str:
    """The status of a measurement against the paper's value under ``criterion``."""
    kind = criterion["kind"]
    verdict = {True: "match", False: "differs"}
    if kind == "equal":
        return verdict[_equal(m.value, paper, float(criterion.get("tol", 0.0)))]
    if kind == "within_se":
        if m.se is None or not np.isfinite(m.se) or m.se < 0:
            raise ValueError("a within_se criterion needs a finite standard error from the measure")
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


def evaluate_claim(c: Mapping, run: Run) -> dict:
    """One summary row for registry entry ``c`` on ``run``."""
    try:
        m = resolve_measure(c["measure"], c["id"])(run, c["paper_value"], **c.get("args", {}))
        status = fit_rule(judge(c["criterion"], c["paper_value"], m), c["reading"])
    except Exception as err:
        raise RuntimeError(f"claim {c['id']!r} (measure {c['measure']}): {err}") from err
    note = "; ".join(s for s in (m.note, c.get("note", "")) if s)
    return {
        "id": c["id"],
        "experiment": c["experiment"],
        "kind": c["kind"],
        "claim": c["claim"],
        "source": f"{c['document']} {c['location']}",
        "paper_value": _format_paper(c["paper_value"]),
        "reproduced_value": m.text,
        "criterion": f"{describe(c['criterion'], _n_values(c['criterion'], m))}. Why: {c['why']}",
        "reading": f"{c['reading']['text']} ({c['reading']['basis']})",
        "status": status,
        "cause": c.get("cause", ""),
        "note": note,
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


def write_summary(rows: pd.DataFrame, path) -> None:
    """Write summary rows as CSV atomically (a crash never leaves half a table)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    rows.to_csv(tmp, index=False, lineterminator="\n")
    tmp.replace(path)


def combine(paths, out) -> pd.DataFrame:
    """Concatenate per-experiment summaries into the reproduction summary, checking statuses."""
    df = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths], ignore_index=True)
    if list(df.columns) != COLUMNS:
        raise ValueError(f"summary columns {list(df.columns)} differ from {COLUMNS}")
    bad = set(df["status"]) - set(STATUSES)
    if bad:
        raise ValueError(f"unknown status values in the summaries: {sorted(bad)}")
    dup = df["id"][df["id"].duplicated()]
    if len(dup):
        raise ValueError(f"duplicate claim ids in the summaries: {sorted(set(dup))}")
    write_summary(df, out)
    return df


def fmt_se(x: float, se: float, scale: float = 1.0, digits: int = 2) -> str:
    """``x ± se`` with the same number of decimals (for measure texts)."""
    return f"{scale * x:.{digits}f} ± {scale * se:.{digits}f}"




def claim_markdown(row: Mapping) -> str:
    """One summary row as a short Markdown block for the review notebooks."""
    badge = {"match": "✅ match", "differs": "❌ differs", "calibrated": "⚖️ calibrated",
             "not-comparable": "➖ not comparable"}[row["status"]]
    note = f"  \n*Note:* {row['note']}" if row.get("note") else ""
    cause = f" (cause: {row['cause']})" if row.get("cause") and row["status"] in ("differs", "not-comparable") else ""
    return (f"**{row['id']}** — {row['claim']} ({row['source']}; {row['kind']})  \n"
            f"*Paper:* {row['paper_value']}  \n*This run:* {row['reproduced_value']}  \n"
            f"*Reading:* {row['reading']}  \n"
            f"*Criterion:* {row['criterion']}  \n*Verdict:* **{badge}**{cause}{note}")


def load_summary(path) -> pd.DataFrame:
    """A summary CSV written by the workflow, indexed by claim id (for the review notebooks)."""
    return pd.read_csv(path, dtype=str, keep_default_na=False).set_index("id", drop=False)


__all__ = ["CHOSEN_BY_FIT", "COLUMNS", "KINDS", "STATUSES", "Measurement", "Run", "claim", "claim_markdown", "combine", "describe",
           "evaluate", "evaluate_claim", "fit_rule", "fmt_se", "judge", "load_registry", "load_summary", "paper_value",
           "resolve_measure", "write_summary", "z_threshold"]
