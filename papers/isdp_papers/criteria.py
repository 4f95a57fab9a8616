"""The criteria of the claims registry: when a run's value of a claim agrees with the paper's.

A claim's ``criterion`` (in ``config/claims.yaml``, see :mod:`isdp_papers.claims`) names a kind
and its numbers. This module refuses numbers that would let a criterion pass any value
(:func:`check_criterion`), judges a measurement against the paper's value (:func:`verdict`), says the
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
infinite, of the wrong shape: :func:`evidence_problem`) gives ``error``, never ``match``; and every
comparison (one function per kind, :data:`RULES`) takes each number it uses — measured, paper, standard
error, criterion — through one finiteness check first, so NaN and ±inf never reach a comparison
(:class:`Unjudgeable`, reported by :func:`verdict`).

The registry's numbers are judged against the scale of the row's paper value (:func:`check_criterion`):
a tolerance looser than half the paper's number, or an interval bound ten times beyond it (beyond the
measure's natural scale, 1, when the paper states no number), would pass anything and is refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from isdp_papers.evidence import Measurement

KINDS = ("equal", "within_se", "interval", "zscores", "pvalues", "ordering", "calibrated", "not-comparable")
CHOSEN_BY_FIT = "chosen by fit"


class Unjudgeable(ValueError):
    """A number or value that no comparison may use.

    NaN, ±inf, a number beyond float range, something that is not a number where one is compared, or a paper value whose
    type does not fit the measured value. The criteria raise it from inside every comparison and :func:`verdict` turns
    it into ``error`` with its reason.
    """


def is_number(x) -> bool:
    """Whether ``x`` is one real number (Python's or NumPy's; booleans are not numbers here)."""
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool | np.bool_)


def _key_path(where: str, key) -> str:
    return f"{where}.{key}" if isinstance(key, str) else f"{where}[{key!r}]"


def _index_path(where: str, idx) -> str:
    return f"{where}[{', '.join(str(int(i)) for i in idx)}]"


def non_finite(value, where: str = "value") -> str | None:
    """Return the first number inside ``value`` that is NaN, infinite or beyond the range of a float, or None.

    It is given as ``"<where>[i] = nan"`` (mappings by key, sequences, arrays and tables by position); None when every
    number in it is finite.

    ``value`` may be a number, a sequence, a mapping, a NumPy array or a pandas table, nested in any way;
    booleans and strings are not numbers and pass. This is the one finiteness test of the registry (its
    criterion numbers and paper values) and of the evidence (every measured value, before any comparison).
    """
    if isinstance(value, pd.Series | pd.DataFrame):
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return non_finite(value.item(), where)
        if value.dtype.kind in "iub":
            return None  # integers are finite (booleans are not numbers here)
        if value.dtype.kind in "fc":
            bad = np.argwhere(~np.isfinite(value))  # without a Python loop over every element
            return f"{_index_path(where, bad[0])} = {value[tuple(bad[0])].item()}" if len(bad) else None
        items = ((_index_path(where, idx), value[idx]) for idx in np.ndindex(value.shape))
    elif isinstance(value, Mapping):
        items = ((_key_path(where, k), v) for k, v in value.items())
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    elif isinstance(value, complex | np.complexfloating):
        return None if math.isfinite(value.real) and math.isfinite(value.imag) else f"{where} = {value}"
    elif is_number(value):
        try:
            f = float(value)
        except OverflowError:
            return f"{where} = {value} (beyond the range of a float)"
        return None if math.isfinite(f) else f"{where} = {f}"
    else:
        return None
    return next(filter(None, (non_finite(v, path) for path, v in items)), None)


def check_finite(value, where: str) -> None:
    """Raise ``ValueError`` unless every number inside ``value`` is finite (:func:`non_finite` says where).

    The registry's numbers are checked so, YAML's .nan and .inf passing a JSON schema's ``number``.
    """
    bad = non_finite(value, where)
    if bad is not None:
        raise ValueError(f"{bad} is not a finite number")


#: the loosest tolerance (``tol``, ``rounding``) allowed, relative to |paper value|: half the paper's number is the
#: rounding of a number printed with one significant digit (1 stands for [0.5, 1.5]); any looser passes values the
#: paper's number does not state, down to 0 or the opposite sign
RELATIVE_TOLERANCE = 0.5
#: the largest |min|, |max| of an interval, in multiples of the row's scale (:func:`value_scale`): an order of
#: magnitude beyond it, a bound excludes nothing the measure can produce
BOUND_FACTOR = 10
#: the scale of a measured statistic when the row's paper value states no number (words, booleans, 0): the
#: registry's statistics are then ratios, shares, probabilities, gaps in standard errors and z-scores, all of order
#: one; a measure whose statistic lives on another scale says so with a ``natural_scale`` attribute
NATURAL_SCALE = 1.0
K_LIMIT = 10  # standard errors in within_se (the registry uses 2 and 3)
#: the smallest α of a ``zscores``/``pvalues`` criterion: below it even one test's threshold lies beyond K_LIMIT
#: standard errors (Φ⁻¹(1 − α/2) > 10), where no Monte Carlo difference is ever detected
MIN_ALPHA = math.erfc(K_LIMIT / math.sqrt(2))

_NO_PAPER = object()


def _paper_numbers(paper) -> list[float]:
    """|x| of every number of a paper value (a number, words, a boolean, or lists and mappings of them)."""
    if isinstance(paper, Mapping):
        return [x for v in paper.values() for x in _paper_numbers(v)]
    if isinstance(paper, list | tuple):
        return [x for v in paper for x in _paper_numbers(v)]
    return [abs(float(paper))] if is_number(paper) else []


def value_scale(paper, natural_scale: float | None = None) -> float:
    """Return the scale a criterion's bounds are judged against.

    The largest |number| of the paper value, or the measure's natural scale (:data:`NATURAL_SCALE` unless the measure
    declares ``natural_scale``) when the paper value states no number other than 0; a declared natural scale also widens
    a paper value's.
    """
    largest = max(_paper_numbers(paper), default=0.0)
    if natural_scale is not None:
        return max(largest, float(natural_scale))
    return largest or NATURAL_SCALE


def tolerance_scale(paper, natural_scale: float | None = None) -> float:
    """Return the scale a tolerance is judged against.

    The smallest |number| of the paper value (a tolerance applies to every number, element-wise), a 0 or a paper value
    without numbers counting as the natural scale.
    """
    natural = NATURAL_SCALE if natural_scale is None else float(natural_scale)
    return min((x or natural for x in _paper_numbers(paper)), default=natural)


def check_criterion(criterion: Mapping, paper=_NO_PAPER, natural_scale: float | None = None) -> None:
    """Refuse a criterion that could pass any value (the schema checks the rest).

    Always: non-finite numbers, an unknown kind, an empty interval, α outside [MIN_ALPHA, 1), ``k`` outside
    (0, K_LIMIT], a negative tolerance. With the row's ``paper`` value (and the measure's ``natural_scale``
    when it declares one), against the scale of that value: ``tol`` and ``rounding`` beyond
    RELATIVE_TOLERANCE × :func:`tolerance_scale`, interval bounds beyond BOUND_FACTOR × :func:`value_scale`.
    """
    check_finite(dict(criterion), "criterion")
    kind = criterion.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown criterion kind {kind!r} (one of {KINDS})")
    if "k" in criterion and not 0 < criterion["k"] <= K_LIMIT:
        raise ValueError(
            f"criterion.k = {criterion['k']} must lie in (0, {K_LIMIT}]: beyond {K_LIMIT} standard "
            "errors no Monte Carlo difference is ever detected"
        )
    if "alpha" in criterion and not MIN_ALPHA <= criterion["alpha"] < 1:
        raise ValueError(
            f"criterion.alpha = {criterion['alpha']} must lie in [{MIN_ALPHA:.3g}, 1): below, even one "
            f"test's threshold lies beyond {K_LIMIT} standard errors, where no Monte Carlo difference is "
            "ever detected"
        )
    for key in ("tol", "rounding"):
        if key in criterion and not criterion[key] >= 0:
            raise ValueError(f"criterion.{key} = {criterion[key]} must not be negative")
    lo, hi = criterion.get("min"), criterion.get("max")
    if kind in ("interval", "calibrated"):
        if lo is None and hi is None:
            raise ValueError(f"a {kind} criterion needs min or max")
        if lo is not None and hi is not None and not lo <= hi:
            raise ValueError(f"criterion interval [{lo}, {hi}] is empty")
    if paper is _NO_PAPER:
        return
    shown = _format_value(paper)
    for key in ("tol", "rounding"):
        limit = RELATIVE_TOLERANCE * tolerance_scale(paper, natural_scale)
        if key in criterion and criterion[key] > limit:
            raise ValueError(
                f"criterion.{key} = {criterion[key]:g} would pass anything near the paper value {shown}: "
                f"a tolerance is at most {RELATIVE_TOLERANCE:g} × the scale of the value it tolerates "
                f"({limit:g} here), the rounding of a number printed with one significant digit"
            )
    scale = value_scale(paper, natural_scale)
    source = (
        f"the paper value {shown}"
        if scale == max(_paper_numbers(paper), default=0.0)
        else "the measure's natural scale"
    )
    for key in ("min", "max"):
        if key in criterion and abs(criterion[key]) > BOUND_FACTOR * scale:
            raise ValueError(
                f"criterion.{key} = {criterion[key]:g} lies beyond {BOUND_FACTOR:g} × the row's scale "
                f"({scale:g}, from {source}), so the bound would exclude nothing (leave it out for a "
                "one-sided interval)"
            )


def _format_value(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def z_threshold(alpha: float, m: int) -> float:
    """Two-sided Bonferroni threshold on |z| for ``m`` tests at family-wise level ``alpha``."""
    from scipy.stats import norm  # here, not at the top: most jobs import claims and need no SciPy

    return float(norm.isf(alpha / (2 * max(m, 1))))


def _leaves(value):
    """Yield the scalar leaves of a measured value (mappings, sequences, arrays and pandas tables flattened)."""
    if isinstance(value, pd.Series | pd.DataFrame):
        value = value.to_numpy()
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
    """Return True when the value, or any part of it, has no elements."""
    if isinstance(value, pd.Series | pd.DataFrame):
        return value.size == 0
    if isinstance(value, Mapping):
        return not value or any(_is_empty(v) for v in value.values())
    if isinstance(value, np.ndarray):
        return value.size == 0
    if isinstance(value, Sequence) and not isinstance(value, str):
        return not value or any(_is_empty(v) for v in value)
    return value is None or (isinstance(value, str) and not value.strip())  # a blank string is no evidence


def evidence_problem(criterion: Mapping, m: Measurement) -> str | None:
    """Why the evidence of ``m`` cannot be judged under ``criterion`` (None when it can).

    A NaN, infinite or overflowing number anywhere in the value (:func:`non_finite`) is refused under every
    kind, ``not-comparable`` included; under the other kinds also empty values or an empty part, ``n == 0``,
    a missing or non-finite standard error (``within_se``), p-values outside [0, 1] and missing ordered
    keys: such evidence gives ``error``, never ``match``.
    """
    kind = criterion["kind"]
    bad = non_finite(m.value, "value")
    if bad is not None:
        return f"the measured value holds a non-finite number ({bad})"
    if kind == "not-comparable":
        return None
    if m.n is not None and m.n <= 0:
        return f"the measure used {m.n} values"
    if _is_empty(m.value):
        return "the measured value is empty"
    if any(not isinstance(v, bool | np.bool_ | str | int | float | np.integer | np.floating) for v in _leaves(m.value)):
        return "the measured value holds something that is neither a number, a boolean nor a string"
    if kind == "within_se" and (not is_number(m.se) or non_finite(m.se) is not None or not m.se >= 0):
        return f"a within_se criterion needs a finite, non-negative standard error (got {m.se})"
    if kind in ("within_se", "interval", "calibrated", "zscores", "pvalues") and any(
        isinstance(v, bool | np.bool_ | str) for v in _leaves(m.value)
    ):
        return f"a {kind} criterion needs numbers, not {m.value!r}"
    if kind in ("within_se", "interval", "calibrated") and np.ndim(m.value) != 0:
        return f"a {kind} criterion needs one number, got shape {np.shape(m.value)}"
    if kind == "pvalues" and not all(0 <= float(v) <= 1 for v in _leaves(m.value)):
        return "p-values outside [0, 1]"
    if kind == "ordering":
        if not isinstance(m.value, Mapping):
            return "an ordering criterion needs a mapping of named numbers"
        missing = [k for k in criterion["order"] if k not in m.value]
        if missing:
            return f"the measured value lacks {missing}"
    return None


# --------------------------------------------------------------------------- the comparisons, one per kind
# Every number a comparison uses (measured, paper, standard error, criterion, threshold) passes _num or _nums
# first, so NaN and ±inf never reach a comparison, whatever evidence_problem let through: `max(0.0, nan)` is 0.0
# and `nan <= x` is False, so an unchecked NaN can turn into any status.


def _num(x, what: str) -> float:
    """``x`` as a finite float, or :class:`Unjudgeable`."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    if not is_number(x):
        raise Unjudgeable(f"{what} is {x!r}, not a number")
    try:
        f = float(x)
    except OverflowError:
        raise Unjudgeable(f"{what} = {x} is beyond the range of a float") from None
    if not math.isfinite(f):
        raise Unjudgeable(f"{what} = {f} is not a finite number")
    return f


def _nums(value, what: str) -> np.ndarray:
    """``value`` (one number, or an array or a sequence of numbers, nested or not) as a flat array of finite floats."""
    if is_number(value):
        value = [value]
    if isinstance(value, Mapping | str) or not (_is_sequence(value) or isinstance(value, pd.Series)):
        raise Unjudgeable(f"{what} must be numbers, got {type(value).__name__}")
    out = np.array([_num(v, f"{what}[{i}]") for i, v in enumerate(_leaves(value))], dtype=float)
    if out.size == 0:
        raise Unjudgeable(f"{what} is empty")
    return out


def _is_sequence(x) -> bool:
    return isinstance(x, Sequence | np.ndarray) and not isinstance(x, str)


def _type_name(x) -> str:
    """Return what kind of value ``x`` is, for matching a paper value against a measured one."""
    if isinstance(x, Mapping):
        return "mapping"
    if _is_sequence(x):
        return "sequence"
    if isinstance(x, bool | np.bool_):
        return "boolean"
    if isinstance(x, str):
        return "string"
    if is_number(x):
        return "number"
    raise Unjudgeable(f"{x!r} is neither a number, a boolean, a string, a sequence nor a mapping")


def _equal(a, b, tol: float, where: str = "value") -> bool:
    """Return whether ``a`` (measured) equals ``b`` (paper) within ``tol`` in every number.

    Keys or lengths that differ are a difference; a paper value of another type than the measured one (a list for a
    number, a number for a boolean) does not fit the measure and is :class:`Unjudgeable`.
    """
    a = a.item() if isinstance(a, np.ndarray) and a.ndim == 0 else a
    b = b.item() if isinstance(b, np.ndarray) and b.ndim == 0 else b
    ta, tb = _type_name(a), _type_name(b)
    if ta != tb:
        raise Unjudgeable(
            f"the paper value at {where} is a {tb} ({_format_value(b)}), the measured value a {ta} "
            f"({_format_value(a)}): the registry's paper value does not fit the measure"
        )
    if ta == "mapping":
        return a.keys() == b.keys() and all(_equal(a[k], b[k], tol, _key_path(where, k)) for k in a)
    if ta == "sequence":
        return len(a) == len(b) and all(
            _equal(x, y, tol, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True))
        )
    if ta == "number":
        gap = abs(_num(a, f"the measured {where}") - _num(b, f"the paper's {where}"))
        return _num(gap, f"|{where} − paper|") <= tol
    return bool(a == b)  # booleans, strings


def _verdict(ok: bool, yes: str = "match") -> str:
    return yes if ok else "differs"


def _rule_equal(criterion: Mapping, paper, m: Measurement) -> str:
    return _verdict(_equal(m.value, paper, _num(criterion.get("tol", 0.0), "criterion.tol")))


def _rule_within_se(criterion: Mapping, paper, m: Measurement) -> str:
    value, p = _num(m.value, "the measured value"), _num(paper, "the paper value")
    se = _num(m.se, "the standard error")
    if se < 0:
        raise Unjudgeable(f"the standard error {se} is negative")
    bound = _num(
        _num(criterion["k"], "criterion.k") * se + _num(criterion.get("rounding", 0.0), "criterion.rounding"),
        "k·SE + rounding",
    )
    return _verdict(_num(abs(value - p), "|value − paper|") <= bound)


def _in_interval(criterion: Mapping, m: Measurement) -> bool:
    v = _num(m.value, "the measured value")
    lo, hi = criterion.get("min"), criterion.get("max")
    return (lo is None or v >= _num(lo, "criterion.min")) and (hi is None or v <= _num(hi, "criterion.max"))


def _rule_interval(criterion: Mapping, paper, m: Measurement) -> str:
    return _verdict(_in_interval(criterion, m))


def _rule_calibrated(criterion: Mapping, paper, m: Measurement) -> str:
    return _verdict(_in_interval(criterion, m), "calibrated")


def _rule_zscores(criterion: Mapping, paper, m: Measurement) -> str:
    z = np.abs(_nums(m.value, "z"))
    threshold = _num(z_threshold(_num(criterion["alpha"], "criterion.alpha"), z.size), "the z threshold")
    return _verdict(bool(np.all(z <= threshold)))


def _rule_pvalues(criterion: Mapping, paper, m: Measurement) -> str:
    p = _nums(m.value, "p")
    if np.any((p < 0) | (p > 1)):
        raise Unjudgeable(f"p-values outside [0, 1]: {p[(p < 0) | (p > 1)][:3].tolist()}")
    return _verdict(bool(np.all(p > _num(criterion["alpha"], "criterion.alpha") / p.size)))


def _rule_ordering(criterion: Mapping, paper, m: Measurement) -> str:
    if not isinstance(m.value, Mapping):
        raise Unjudgeable("an ordering criterion needs a mapping of named numbers")
    missing = [k for k in criterion["order"] if k not in m.value]
    if missing:
        raise Unjudgeable(f"the measured value lacks {missing}")
    vals = [_num(m.value[k], _key_path("value", k)) for k in criterion["order"]]
    return _verdict(all(a < b for a, b in zip(vals, vals[1:], strict=False)))


def _rule_not_comparable(criterion: Mapping, paper, m: Measurement) -> str:
    bad = non_finite(m.value, "value")
    if bad is not None:  # the value is only reported, but a NaN report is damaged evidence too
        raise Unjudgeable(f"the measured value holds a non-finite number ({bad})")
    return "not-comparable"


#: the comparison of each criterion kind: (criterion, paper value, measurement) -> status
RULES = {
    "equal": _rule_equal,
    "within_se": _rule_within_se,
    "interval": _rule_interval,
    "zscores": _rule_zscores,
    "pvalues": _rule_pvalues,
    "ordering": _rule_ordering,
    "calibrated": _rule_calibrated,
    "not-comparable": _rule_not_comparable,
}


def verdict(criterion: Mapping, paper, m: Measurement) -> tuple[str, str | None]:
    """Return the status of a measurement against the paper's value under ``criterion``, and why it is ``error``.

    The reason, None when there is none, is evidence that cannot be judged (:func:`evidence_problem`), or a number that
    a comparison would use that is NaN, infinite or not a number, or a paper value whose type does not fit the measured
    value (:class:`Unjudgeable`, raised inside the comparisons of every kind).
    """
    kind = criterion["kind"]
    if kind not in RULES:
        raise ValueError(f"unknown criterion kind {kind!r} (one of {KINDS})")
    problem = evidence_problem(criterion, m)
    if problem is not None:
        return "error", problem
    try:
        return RULES[kind](criterion, paper, m), None
    except Unjudgeable as err:
        return "error", str(err)


def describe(criterion: Mapping, n_values: int | None = None) -> str:
    """Return the criterion in words, for the summary's ``criterion`` column."""
    kind = criterion["kind"]
    if kind == "equal":
        tol = criterion.get("tol", 0)
        return "equal to the paper's value" + (f" within ±{tol:g}" if tol else " (exactly)")
    if kind == "within_se":
        r = criterion.get("rounding", 0)
        return f"|this run − paper| ≤ {criterion['k']:g} SE of this run" + (f" + {r:g} (printed rounding)" if r else "")
    if kind in ("interval", "calibrated"):
        lo, hi = criterion.get("min"), criterion.get("max")
        rng = (
            f"in [{lo:g}, {hi:g}]"
            if lo is not None and hi is not None
            else f"≥ {lo:g}"
            if lo is not None
            else f"≤ {hi:g}"
        )
        return (
            f"statistic {rng}"
            if kind == "interval"
            else f"calibrated: the paper's value chose a parameter; consistency statistic {rng}"
        )
    if kind == "zscores":
        m = n_values or 1
        return (
            f"max |z| ≤ {z_threshold(criterion['alpha'], m):.2f} (two-sided Bonferroni, family-wise "
            f"α = {criterion['alpha']:g} over {m} z-scores)"
        )
    if kind == "pvalues":
        m = n_values or 1
        return f"every p > {criterion['alpha']:g}/{m} (Bonferroni over {m} tests)"
    if kind == "ordering":
        return "strict ordering " + " < ".join(criterion["order"])
    if kind == "not-comparable":
        return f"not comparable: {criterion['reason']}"
    raise ValueError(f"unknown criterion kind {kind!r}")


def fit_rule(status: str, reading: Mapping) -> str:
    """``status`` under the registry's rule for readings.

    A reading chosen because it fits cannot confirm the paper, so its ``match`` becomes ``calibrated`` (``differs``
    stays ``differs``).
    """
    return "calibrated" if status == "match" and reading["basis"] == CHOSEN_BY_FIT else status


__all__ = [
    "BOUND_FACTOR",
    "CHOSEN_BY_FIT",
    "KINDS",
    "K_LIMIT",
    "MIN_ALPHA",
    "NATURAL_SCALE",
    "RELATIVE_TOLERANCE",
    "RULES",
    "Unjudgeable",
    "check_criterion",
    "check_finite",
    "describe",
    "evidence_problem",
    "fit_rule",
    "is_number",
    "non_finite",
    "tolerance_scale",
    "value_scale",
    "verdict",
    "z_threshold",
]
