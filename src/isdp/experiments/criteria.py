"""The criteria of the claims registry: when a run's value of a claim agrees with the paper's.

A claim's ``criterion`` (in ``config/claims.yaml``, see :mod:`isdp.experiments.claims`) names a kind
and its numbers. This module refuses numbers that would let a criterion pass any value
(:func:`check_criterion`), judges a measurement against the paper's value (:func:`judge`), says the
criterion in words (:func:`describe`) and applies the rule for readings chosen by fit (:func:`fit_rule`).

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
``calibrated`` (see :func:`fit_rule`). Whatever the kind, evidence that cannot be judged (empty, NaN,
infinite, of the wrong shape: :func:`evidence_problem`) gives ``error``, never ``match``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from isdp.experiments.evidence import Measurement

KINDS = ("equal", "within_se", "interval", "zscores", "pvalues", "ordering", "calibrated", "not-comparable")
CHOSEN_BY_FIT = "chosen by fit"


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



def fit_rule(status: str, reading: Mapping) -> str:
    """``status`` under the registry's rule for readings: a reading chosen because it fits cannot
    confirm the paper, so its ``match`` becomes ``calibrated`` (``differs`` stays ``differs``)."""
    return "calibrated" if status == "match" and reading["basis"] == CHOSEN_BY_FIT else status


__all__ = ["BOUND_LIMIT", "CHOSEN_BY_FIT", "KINDS", "K_LIMIT", "TOLERANCE_LIMIT", "check_criterion", "describe",
           "evidence_problem", "fit_rule", "judge", "z_threshold"]
