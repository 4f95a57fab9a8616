"""A third party's check of a release from its public files alone (``isdp verify``).

Three things are checked, in order, and the first disagreement is reported:

1. **the statement** is well formed, of a format this version reads, and describes the released table (its cells,
   its invariants by rule or coefficients);
2. **the table** is integer and meets every invariant the statement states, with the stated value;
3. **the guarantee** follows from the mechanism's stated parameter: recomputed from σ (the exact privacy profile of
   the lattice Gaussian, and ρ = 1/σ² per unit shift) or from ε per unit ℓ1 distance and the neighbours' norms under
   the invariants, and at least as strong as requested; and the mechanism, route and every other entry are what a
   release with the stated request would state (:func:`isdp.release.dry_run`, rebuilt from the labels alone);
   and ``--uncertainty``'s columns, if any, are the mechanism's law's around each released value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from .._sparse import row_values
from ..errors import InputError, IsdpError, ReleaseError
from ..privacy import UNCERTAINTY_COLUMNS, Guarantee, cell_uncertainty, uncertainty_record
from ..release import dry_run
from ..tables import read_released
from ._published_release import PublishedRelease, read_statement, unit_of

#: the statement's entries a dry run with the stated request must reproduce exactly (the route and guarantee too,
#: on the exact routes; the invariants without their values)
SAME_AS_DRY_RUN = (
    "mechanism",
    "requested",
    "neighbouring_relation",
    "tables",
    "post_processing",
    "invariant_rules",
    "cells",
    "checks",
)


@dataclass(frozen=True)
class Verification:
    """What ``isdp verify`` found: each check's name, whether it passed, and what it saw.

    Parameters
    ----------
    checks : tuple of (str, bool, str)
        In order; the last is the first that failed, if any.
    """

    checks: tuple[tuple[str, bool, str], ...]

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(ok for _, ok, _ in self.checks)

    def lines(self) -> list[str]:
        """One line per check: ``ok`` or ``FAILED``, its name and what it saw."""
        return [f"{'ok    ' if ok else 'FAILED'}  {name}: {detail}" for name, ok, detail in self.checks]


def verify_release(released, statement, *, fmt: str = "auto", count_column: str = "count") -> Verification:
    r"""Check a release from its public files: the statement, the table against it, the guarantee from the mechanism.

    Parameters
    ----------
    released : str or os.PathLike, or a list of them
        The released table(s), in the statement's order.
    statement : str or os.PathLike
        The privacy statement.
    fmt : {"auto", "wide", "long"}, default "auto"
        The tables' layout.
    count_column : str, default "count"
        A long table's count column.

    Returns
    -------
    Verification
        Every check passed, or those that passed and the first that failed.

    Raises
    ------
    isdp.errors.InputError
        A file that does not exist (a disagreement needs something to disagree with).

    Examples
    --------
    >>> import contextlib, io, json, tempfile
    >>> from pathlib import Path
    >>> from isdp.cli import main
    >>> from isdp.published import verify_release
    >>> tmp = tempfile.TemporaryDirectory()
    >>> table, out = Path(tmp.name, "sex_by_age.csv"), Path(tmp.name, "release.csv")
    >>> _ = table.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    >>> with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    ...     status = main(["release", str(table), "--invariant", "all-margins", "--epsilon", "1", "--seed", "3",
    ...           "--reproducible-not-for-publication", "--quiet", "-o", str(out)])
    >>> status
    0
    >>> statement = Path(tmp.name, "release.csv.statement.json")
    >>> verify_release(out, statement).passed
    True
    >>> doc = json.loads(statement.read_text())
    >>> doc["guarantee"]["per_person"]["epsilon"] = 0.5  # a stronger guarantee than the mechanism gives
    >>> _ = statement.write_text(json.dumps(doc))
    >>> print(verify_release(out, statement).lines()[-1][:55])
    FAILED  guarantee: the statement's guarantee is not the
    >>> tmp.cleanup()
    """
    paths = [Path(p) for p in ([released] if isinstance(released, str | Path) else released)]
    for path in [*paths, Path(statement)]:
        if not path.exists():
            raise InputError(f"{path}: no such file")
    checks: list[tuple[str, bool, str]] = []

    def result(name: str, ok: bool, detail: str) -> bool:
        checks.append((name, ok, detail))
        return ok

    try:
        doc = read_statement(statement)
    except InputError as err:  # the file exists (above): what it holds is not a statement this version reads
        result("statement", False, str(err))
        return Verification(tuple(checks))
    version = doc.get("package", {}).get("version", "?") if isinstance(doc.get("package"), dict) else "?"
    result("statement", True, f"format {doc['isdp_privacy_statement']}, written by isdp {version}")
    added = doc.get("uncertainty", {}).get("columns", ()) if isinstance(doc.get("uncertainty"), dict) else ()
    try:  # the tables alone first: an error reading them is the table's, any later one the statement's
        for path in paths:
            read_released(path, fmt, count_column, added)
    except InputError as err:
        result("table is integer", False, str(err))
        return Verification(tuple(checks))
    try:
        published = PublishedRelease.read(paths, statement, fmt=fmt, count_column=count_column)
    except InputError as err:
        result("statement describes the table", False, str(err))
        return Verification(tuple(checks))
    if (
        result("table is integer", True, f"{len(published.values):,} cells, each an integer")
        and _invariants(published, result)
        and _guarantee(published, result)
        and _as_stated(published, result)
        and _uncertainty_columns(published, result)
    ):
        _randomness(published.statement, result)
    return Verification(tuple(checks))


def _invariants(published: PublishedRelease, result) -> bool:
    """Every stated invariant has a value, and the released table meets it exactly."""
    entries = published.statement["invariants"]
    stated = [entry.get("value") for entry in entries]
    bad = [i for i, v in enumerate(stated) if not isinstance(v, int) or isinstance(v, bool)]
    if bad:
        return result("invariants kept", False, f"invariant {entries[bad[0]]['label']!r} states no integer value")
    got = np.asarray(row_values(published.plan.A, published.values), dtype=object)
    wrong = np.flatnonzero(got != np.asarray(stated, dtype=object))
    if len(wrong):
        i = int(wrong[0])
        return result(
            "invariants kept",
            False,
            f"{len(wrong):,} of {len(stated):,} invariants differ from the released table's; the first, "
            f"{entries[i]['label']!r}, is stated as {stated[i]} and the table gives {got[i]}",
        )
    return result(
        "invariants kept", True, f"all {_count_of(len(stated), 'invariant')} meet their stated values exactly"
    )


def _guarantee(published: PublishedRelease, result) -> bool:
    """Check the guarantee recomputed from the stated mechanism parameter and the invariants' neighbours."""
    doc, plan = published.statement, published.plan
    try:
        unit = unit_of(doc)
    except InputError as err:
        return result("guarantee", False, str(err))
    eta = confidence = None
    if doc["route"].get("name") == "certified chain":
        certificate = doc["route"].get("certificate")
        certificate = certificate if isinstance(certificate, dict) else {}
        eta, confidence = certificate.get("tv_certified"), doc["guarantee"].get("confidence_level")
        target = certificate.get("tv_target")
        numbers = all(isinstance(v, float | int) and not isinstance(v, bool) for v in (eta, target, confidence))
        if not numbers or not 0 <= eta <= target:  # type: ignore[operator]
            return result(
                "guarantee", False, f"the chain's certified TV bound {eta!r} is not within its target {target!r}"
            )
    g = plan.guarantee(eta, confidence)
    try:
        recomputed = Guarantee(
            g.norm, unit, g.delta_conversion, g.eta, g.confidence, g.n_tables, g.released, g.two_person_shift
        ).to_dict(plan.neighbours)
    except (IsdpError, ArithmeticError, ValueError) as err:
        return result("guarantee", False, f"no guarantee follows from the mechanism's {_parameter(doc)}: {err}")
    if recomputed != doc["guarantee"]:
        return result(
            "guarantee",
            False,
            f"the statement's guarantee is not the one the mechanism gives: {_diff(doc['guarantee'], recomputed)}",
        )
    per_person, asked = recomputed["per_person"], plan.req
    if per_person["epsilon"] > float(asked.epsilon_person) * (1 + 1e-12) or per_person["delta"] > (asked.delta or 0.0):
        return result(
            "guarantee",
            False,
            f"({per_person['epsilon']:.6g}, {per_person['delta']:.3g}) per person is weaker than the "
            f"({asked.epsilon}, {asked.delta or 0:g}) requested",
        )
    return result("guarantee", True, f"{per_person['text']} (recomputed from the mechanism's {_parameter(doc)})")


def _count_of(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _parameter(doc: dict) -> str:
    name, value = next((k, v) for k, v in doc["mechanism"].items() if k != "name")
    return f"{name.replace('_', ' ')} {value}"


def _as_stated(published: PublishedRelease, result) -> bool:
    """Every other entry is what a release with the stated request states, from the labels alone."""
    doc, plan = published.statement, published.plan
    try:
        dry = dry_run(published.table, plan.A, plan.labels, plan.req)
    except ReleaseError as err:
        return result("mechanism and route", False, f"a release with the stated request is refused: {err}")
    keys = list(SAME_AS_DRY_RUN) + ([] if doc["route"].get("name") == "certified chain" else ["route", "guarantee"])
    for key in keys:
        if doc.get(key) != dry.get(key):
            return result(
                "mechanism and route",
                False,
                f"{key!r} is not what the stated request gives: {_diff(doc.get(key), dry.get(key))}",
            )
    stated = [{k: v for k, v in entry.items() if k != "value"} for entry in doc["invariants"]]
    if stated != dry["invariants"]:
        i = next(i for i, (a, b) in enumerate(zip(stated, dry["invariants"], strict=False)) if a != b)
        return result(
            "mechanism and route",
            False,
            f"invariant {i + 1} is not stated as its rule gives it: {_diff(stated[i], dry['invariants'][i])}",
        )
    route = doc["route"]["name"]
    return result(
        "mechanism and route", True, f"{doc['mechanism']['name']}, route {route!r}, as the request states them"
    )


def _uncertainty_columns(published: PublishedRelease, result) -> bool:
    """Check ``--uncertainty``'s columns: each cell's interval and sd are the mechanism's law's, around its value.

    They depend on the invariants, the route and the level alone, so the reader recomputes them (the simulated laws
    from the streams their shapes name) and compares every cell.
    """
    record = published.statement.get("uncertainty")
    if record is None:
        return True
    level, plan, values = record.get("level"), published.plan, published.values
    if record.get("columns") != list(UNCERTAINTY_COLUMNS) or not isinstance(level, float) or not 0 < level < 1:
        return result("uncertainty columns", False, f"the statement's uncertainty entry is not well formed: {record}")
    try:
        assert isinstance(plan.unit, Fraction)  # --uncertainty is served on the exact routes only
        got = cell_uncertainty(plan.exact, len(values), plan.req, plan.unit, level)
        written = {name: np.array(published.added[name], dtype=float) for name in UNCERTAINTY_COLUMNS}
    except (IsdpError, ValueError) as err:
        return result("uncertainty columns", False, f"the columns cannot be recomputed or read: {err}")
    if uncertainty_record(level, got["draws"]) != record:
        return result(
            "uncertainty columns",
            False,
            f"the statement's uncertainty entry: {_diff(record, uncertainty_record(level, got['draws']))}",
        )
    expected = {"noise_sd": got["sd"], "lower": values - got["high"], "upper": values - got["low"]}
    for name in UNCERTAINTY_COLUMNS:
        # a CSV writes noise_sd to 6 significant digits (within 5e-6 of it, relative); the bounds are integers
        wrong = np.flatnonzero(~np.isclose(written[name], expected[name], rtol=1e-5, atol=0))
        if len(wrong):
            i = int(wrong[0])
            return result(
                "uncertainty columns",
                False,
                f"{len(wrong):,} cells' {name} differ from the mechanism's law; the first, "
                f"{published.plan.cell_labels[i]!r}, is written as {published.added[name][i]}, "
                f"expected {expected[name][i]:.6g}",
            )
    return result("uncertainty columns", True, f"every cell's interval at level {level} is the mechanism's law's")


def _randomness(doc: dict, result) -> bool:
    """Check that a seeded release says it is not for publication; an unseeded one drew from the operating system."""
    seeded = doc.get("seed") is not None
    if doc.get("publishable") is not (not seeded):
        return result(
            "randomness",
            False,
            f"'publishable' is {doc.get('publishable')!r} for a release with seed {doc.get('seed')!r}",
        )
    return result(
        "randomness",
        True,
        "seeded: reproducible, NOT for publication" if seeded else "operating-system entropy: publishable",
    )


def _diff(stated, expected, path: str = "") -> str:
    """Return the first place two JSON values differ, and both values there (abbreviated)."""
    if isinstance(stated, dict) and isinstance(expected, dict):
        for key in list(expected) + [k for k in stated if k not in expected]:
            if stated.get(key, "<missing>") != expected.get(key, "<missing>"):
                return _diff(stated.get(key, "<missing>"), expected.get(key, "<missing>"), f"{path}.{key}")
    if isinstance(stated, list) and isinstance(expected, list) and len(stated) == len(expected):
        for i, (a, b) in enumerate(zip(stated, expected, strict=True)):
            if a != b:
                return _diff(a, b, f"{path}[{i}]")
    return f"{path.lstrip('.') or 'the value'} is stated as {_short(stated)}, expected {_short(expected)}"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
