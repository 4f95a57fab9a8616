"""A published release read back from its public files: the released table(s) and the privacy statement.

What a reader has: never the confidential table, only what ``isdp release`` published. From the statement's rules
(or coefficients) and the released table's labels the invariants A are rebuilt, and from its stated request the
mechanism's plan (:class:`isdp.release.Plan`): the blocks, the route and its parameter, so the law of the noise —
which depends on nothing else — is known to the reader exactly as to the agency.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import sparse

from ..errors import InputError, ReleaseError, UsageError
from ..privacy import query_uncertainty
from ..release import Plan, Request
from ..tables import Table, TableSet, constraint_matrix, read_released
from ._linear_queries import group_sums, read_queries

#: the statement formats this version reads (``isdp_privacy_statement``)
STATEMENT_FORMATS = (1,)
_TEXT, _WHOLE, _FLAG, _OBJECT, _LIST = "text", "a whole number", "true or false", "an object", "a list"
#: the entries a reader uses, by path ("*" every item of a list), what each must be, and whether it may be absent
SHAPE = (
    (("mechanism",), _OBJECT, False),
    (("mechanism", "name"), _TEXT, False),
    (("route",), _OBJECT, False),
    (("route", "name"), _TEXT, False),
    (("requested",), _OBJECT, False),
    (("requested", "epsilon_per_person"), _TEXT, False),
    (("requested", "delta_per_person"), "a number or null", False),
    (("requested", "norm"), _TEXT, False),
    (("requested", "allow_chain"), _FLAG, False),
    (("requested", "free_cells"), _FLAG, False),
    (("requested", "nonnegative"), _FLAG, False),
    (("guarantee",), _OBJECT, False),
    (("invariant_rules",), _OBJECT, True),
    (("invariant_rules", "families"), "a list of text", True),
    (("invariant_rules", "ties"), "a list of text", True),
    (("invariants",), _LIST, False),
    (("invariants", "*"), _OBJECT, False),
    (("invariants", "*", "label"), _TEXT, False),
    (("invariants", "*", "rule"), _TEXT, True),
    (("invariants", "*", "coefficients"), _OBJECT, True),
    (("invariants", "*", "value"), _WHOLE, True),
    (("cells",), _OBJECT, False),
    (("cells", "count"), _WHOLE, False),
    (("tables",), _LIST, True),
    (("tables", "*"), _OBJECT, False),
    (("tables", "*", "name"), _TEXT, False),
    (("uncertainty",), _OBJECT, True),
    (("uncertainty", "columns"), "a list of text", True),
    (("uncertainty", "level"), "a number or null", True),
    (("seed",), "a whole number or null", True),
    (("publishable",), _FLAG, True),
    (("package",), _OBJECT, True),
)
_IS = {
    _TEXT: lambda v: isinstance(v, str),
    _WHOLE: lambda v: isinstance(v, int) and not isinstance(v, bool),
    _FLAG: lambda v: isinstance(v, bool),
    _OBJECT: lambda v: isinstance(v, dict),
    _LIST: lambda v: isinstance(v, list),
    "a number or null": lambda v: v is None or (isinstance(v, int | float) and not isinstance(v, bool)),
    "a whole number or null": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
    "a list of text": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
}
#: the exact sampler's proposals per block when a reader simulates the law: the release's own budget is not stated,
#: and the law does not depend on it (a draw is exact once accepted)
READER_ATTEMPTS = 10**9


def read_statement(path) -> dict:
    """Return a statement's JSON, checked for its format and the entries a reader needs.

    Raises
    ------
    isdp.errors.InputError
        No such file (exit 3 on the command line); not JSON, not an object, an unknown format, or an entry
        missing or of another kind than :data:`SHAPE` says.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    try:
        statement = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"{path}: not a privacy statement: not JSON ({err})") from None
    if not isinstance(statement, dict) or "isdp_privacy_statement" not in statement:
        raise InputError(f"{path}: not an isdp privacy statement (no 'isdp_privacy_statement' entry)")
    if statement["isdp_privacy_statement"] not in STATEMENT_FORMATS:
        raise InputError(
            f"{path}: statement format {statement['isdp_privacy_statement']!r} is not one this version reads "
            f"({', '.join(map(str, STATEMENT_FORMATS))})"
        )
    for where, kind, optional in SHAPE:
        found = _values(statement, where)
        is_kind = _IS[kind]
        for k, value in enumerate(found):
            if value is _ABSENT:
                if not optional:
                    raise InputError(f"{path}: the statement has no {_name(statement, where, k)!r} entry")
            elif not is_kind(value):
                name = _name(statement, where, k)
                raise InputError(f"{path}: the statement's {name!r} must be {kind}, not {type(value).__name__}")
    return statement


_ABSENT = object()


def _values(doc, where: tuple) -> list:
    """Return the values at a path of :data:`SHAPE` (every item of a list at ``*``); absent ones as ``_ABSENT``.

    Only paths whose parents have the shape checked before them are followed.
    """
    found = [doc]
    for key in where:
        if key == "*":
            found = [v for value in found if isinstance(value, list) for v in value]
        else:
            found = [value.get(key, _ABSENT) for value in found if isinstance(value, dict)]
    return found


def _name(doc, where: tuple, k: int) -> str:
    """Return the name of the ``k``-th value :func:`_values` found at ``where`` (``invariants[3].label``)."""
    names = [("", doc)]
    for key in where:
        if key == "*":
            names = [(f"{n}[{i}]", v) for n, value in names if isinstance(value, list) for i, v in enumerate(value)]
        else:
            names = [
                (f"{n}.{key}".lstrip("."), value.get(key, _ABSENT)) for n, value in names if isinstance(value, dict)
            ]
    return names[k][0]


@dataclass(frozen=True)
class PublishedRelease:
    r"""A release as its readers have it: the released values, the statement, and the mechanism rebuilt from them.

    Read one with :meth:`read`; ask it for error bars with :meth:`query`.

    Parameters
    ----------
    paths : tuple of pathlib.Path
        The released table(s), in the statement's order.
    statement : dict
        The privacy statement.
    table : isdp.tables.Table or isdp.tables.TableSet
        The released table's labels (no counts).
    values : numpy.ndarray of int64
        The released value of each cell, in the table's order.
    plan : isdp.release.Plan
        The mechanism rebuilt from the statement's request and invariants and the table's labels.
    rules : tuple of str or None
        Per invariant, the rule the statement states it by (None: by coefficients).
    added : dict of str to list of str
        The columns the release added after the table's own (``--uncertainty``'s), as written.

    Examples
    --------
    A county's total from a release under the state's total (seeded to show a result; a seeded release is not
    for publication):

    >>> import contextlib, io, tempfile
    >>> from pathlib import Path
    >>> from isdp.cli import main
    >>> from isdp.published import PublishedRelease
    >>> tmp = tempfile.TemporaryDirectory()
    >>> table, out = Path(tmp.name, "blocks.csv"), Path(tmp.name, "release.csv")
    >>> _ = table.write_text("county,block,count\nA,1,3\nA,2,5\nB,1,4\nB,2,2\n")
    >>> with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    ...     status = main(["release", str(table), "--invariant", "total", "--epsilon", "1", "--free-cells",
    ...                    "--seed", "1", "--reproducible-not-for-publication", "--quiet", "-o", str(out)])
    >>> status
    0
    >>> published = PublishedRelease.read(out, Path(tmp.name, "release.csv.statement.json"))
    >>> answer = published.query(*published.group_sums(["county"]), level=0.9)
    >>> answer["query"], answer["value"].tolist(), answer["method"]
    (['county=A', 'county=B'], [8, 6], ['exact', 'exact'])
    >>> answer["lower"].tolist(), answer["upper"].tolist()
    ([2, 0], [14, 12])
    >>> tmp.cleanup()
    """

    paths: tuple[Path, ...]
    statement: dict
    table: Table | TableSet
    values: np.ndarray
    plan: Plan
    rules: tuple[str | None, ...]
    added: dict[str, list[str]]

    @classmethod
    def read(cls, released, statement, *, fmt: str = "auto", count_column: str = "count") -> PublishedRelease:
        """Read a release from its public files and rebuild its mechanism.

        Parameters
        ----------
        released : str or os.PathLike, or a list of them
            The released table, or the released tables in the statement's order (several tables released
            together).
        statement : str or os.PathLike
            The privacy statement (``OUTPUT.statement.json``).
        fmt : {"auto", "wide", "long"}, default "auto"
            The tables' layout, as ``isdp release --format``.
        count_column : str, default "count"
            A long table's count column.

        Returns
        -------
        PublishedRelease
            The release, its mechanism rebuilt.

        Raises
        ------
        isdp.errors.InputError
            A file missing or unreadable, or a value that is not an integer.
        InputError
            A statement that is not well formed, or whose invariants or cells do not match the released table's
            labels.
        isdp.errors.ReleaseError
            A stated request no route can serve (as ``isdp release`` would refuse it).
        """
        doc = read_statement(statement)
        paths = tuple(Path(p) for p in ([released] if isinstance(released, str | Path) else released))
        names = [t.get("name") for t in doc.get("tables", [])] if isinstance(doc.get("tables"), list) else []
        if len(paths) != max(1, len(names)):
            raise UsageError(
                f"the statement is of {max(1, len(names))} released table(s)"
                f"{' (' + ', '.join(map(str, names)) + ')' if names else ''}; got {len(paths)}: give each, in order"
            )
        extra = doc.get("uncertainty", {}).get("columns", ()) if isinstance(doc.get("uncertainty"), dict) else ()
        read = [read_released(p, fmt, count_column, extra) for p in paths]
        values = np.concatenate([v for _, v, _ in read])
        added = {name: [text for _, _, a in read for text in a[name]] for name in extra}
        table: Table | TableSet = read[0][0]
        if len(read) > 1:
            table = TableSet(tuple(t for t, _, _ in read), tuple(str(n) for n in names))
        stated = doc["cells"].get("count") if isinstance(doc["cells"], dict) else None
        if stated != len(values):
            raise InputError(f"the statement is of {stated} cells; the released table has {len(values):,}")
        req = _request(doc)
        A, labels, rules = _invariants(doc, table)
        try:
            plan = Plan.of(table, A, labels, req, rules=rules)
        except ReleaseError as err:
            raise InputError(f"the stated mechanism cannot be rebuilt: {err}") from None
        return cls(paths, doc, table, values, plan, rules, added)

    def group_sums(self, columns) -> tuple[sparse.csr_array, list[str]]:
        """Return the queries summing the cells of each combination of the key ``columns``.

        Parameters
        ----------
        columns : sequence of str
            Key columns of the released table (its header's names, a wide table's ``row`` and ``column``).

        Returns
        -------
        W : scipy.sparse.csr_array
            One row of 0/1 per group, in the order of each group's first cell.
        names : list of str
            ``column=value, …`` per group.
        """
        return group_sums(self.table, columns)

    def read_queries(self, path) -> tuple[sparse.csr_array, list[str]]:
        """Return the linear queries of a queries file: per line a query's name, a cell's label and its coefficient.

        Parameters
        ----------
        path : str or os.PathLike
            A CSV file with the header ``query,cell,coefficient``; a cell named twice in a query adds up.

        Returns
        -------
        W : scipy.sparse.csr_array
            One row per query, in the order of its first line.
        names : list of str
            The queries' names.
        """
        return read_queries(path, self.table)

    def query(self, W, names, *, level: float = 0.9, simultaneous: bool = False) -> dict:
        """Return each query's released value, its noise's standard deviation and an interval for its true value.

        Parameters
        ----------
        W : array_like or scipy.sparse array of int, shape (queries, cells)
            Integer combinations of cells (:meth:`group_sums`, :meth:`read_queries`).
        names : list of str
            One name per query.
        level : float, default 0.9
            The probability of each interval, in (0, 1), or with ``simultaneous`` of all at once.
        simultaneous : bool, default False
            Bonferroni: each of J queries at 1 − (1 − level)/J.

        Returns
        -------
        dict
            ``query`` (names), ``value`` (int64), ``noise_sd``, ``lower`` and ``upper`` (the interval for the
            true value), ``coverage`` and ``coverage_se`` (its probability under the law used and that
            probability's Monte Carlo standard error), ``method`` per query; ``level`` (each query's),
            ``simultaneous``, ``draws``.

        Raises
        ------
        isdp.errors.UsageError
            A release post-processed to be non-negative, or drawn by the certified chain: its error is not the
            stated mechanism's noise (below), or queries that are not one integer row per cell.
        isdp.errors.UncertifiableError
            A level the laws cannot resolve (:func:`isdp.privacy.query_uncertainty`).
        InputError
            A stated mechanism that is not the one the stated request gives (the law would not be the release's).
        """
        if self.statement["requested"].get("nonnegative"):
            raise UsageError(
                "the release was post-processed to be non-negative: its error is the projection's, which "
                "depends on the confidential counts, not the mechanism's noise, so no interval from the "
                "public files holds its level (query a release made without --nonnegative)"
            )
        if self.statement["route"].get("name") == "certified chain":
            raise UsageError(
                "the release was drawn by the certified chain, whose law is only within its TV bound of the "
                "mechanism's: query intervals are served on the exact routes"
            )
        if (
            self.plan.mechanism() != self.statement["mechanism"]
        ):  # the law is the rebuilt mechanism's: it must be theirs
            raise InputError(
                f"the statement's mechanism {self.statement['mechanism']} is not the one its request gives "
                f"{self.plan.mechanism()}: the release does not verify (isdp verify says where)"
            )
        W = sparse.csr_array(W)
        if len(names) != W.shape[0]:
            raise UsageError(f"give one name per query: {W.shape[0]} queries, {len(names)} names")
        assert isinstance(self.plan.unit, Fraction)  # the exact routes' ε per unit ℓ1 distance or σ
        got = query_uncertainty(self.plan.exact, self.plan.req, self.plan.unit, W, level, simultaneous=simultaneous)
        value = W.astype(np.int64) @ self.values
        return {
            "query": list(names),
            "value": value,
            "noise_sd": got["sd"],
            "lower": value - got["high"],
            "upper": value - got["low"],
            "coverage": got["coverage"],
            "coverage_se": got["coverage_se"],
            "method": got["method"],
            "level": got["level"],
            "simultaneous": simultaneous,
            "draws": got["draws"],
        }


def _request(doc: dict) -> Request:
    """Return the request the statement states (its norm, ε, δ and options), for the reader's plan."""
    asked, rules = doc["requested"], doc.get("invariant_rules") or {}
    if not isinstance(asked, dict):
        raise InputError("the statement's 'requested' entry is not an object")
    try:
        req = Request(
            norm=str(asked.get("norm")),
            epsilon=asked.get("epsilon_per_person"),
            delta=asked.get("delta_per_person"),
            allow_chain=bool(asked.get("allow_chain")),
            free_cells=bool(asked.get("free_cells")),
            nonnegative=bool(asked.get("nonnegative")),
            max_attempts=READER_ATTEMPTS,
            rules=tuple(rules.get("families", ())),
            ties=tuple(rules.get("ties", ())),
            seed=doc.get("seed"),
        )
        req.check()
    except ReleaseError as err:
        raise InputError(f"the statement's request is not one isdp serves: {err}") from None
    return req


def _invariants(doc: dict, table: Table | TableSet) -> tuple[sparse.csr_array, list[str], tuple[str | None, ...]]:
    """Return A, its labels and rules, rebuilt from the statement on the released table's labels.

    The release built A from its families, then its ties, then a constraint file's rows; the statement lists the
    rows in that order, each by rule or by coefficients. Every label and rule must match the statement's.
    """
    entries = doc["invariants"]
    rules = doc.get("invariant_rules") or {}
    families, ties = list(rules.get("families", ())), list(rules.get("ties", ()))
    try:
        ruled, ruled_labels = constraint_matrix(table, families, None, ties) if families or ties else (None, [])
    except ReleaseError as err:
        raise InputError(f"the statement's invariant rules do not apply to the released table: {err}") from None
    if not isinstance(entries, list) or not entries:
        raise InputError("the statement lists no invariant")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("label"), str):
            raise InputError(f"the statement's invariant {i + 1} has no label")
    labels = [entry["label"] for entry in entries]
    by_rule = sum("rule" in entry for entry in entries)
    r = len(ruled_labels)
    if by_rule != r or any("rule" not in entry for entry in entries[:r]):
        raise InputError(
            f"the rules {', '.join(families + ties) or '(none)'} give {r:,} invariants on the released table, "
            f"listed first; the statement lists {by_rule:,} by rule"
        )
    if labels[:r] != ruled_labels:
        i = next(i for i, (a, b) in enumerate(zip(labels, ruled_labels, strict=False)) if a != b)
        raise InputError(
            f"the statement's invariant {i + 1} ({labels[i]!r}) is not the released table's "
            f"({ruled_labels[i]!r}) under the rules {', '.join(families + ties)}"
        )
    rows = [ruled] if ruled is not None else []
    if r < len(entries):
        position = {label: j for j, label in enumerate(table.cell_labels)}
        for i, entry in enumerate(entries[r:], start=r):
            rows.append(_coefficient_row(i, entry, position))
    made_by = tuple(entry.get("rule") for entry in entries)
    return sparse.csr_array(sparse.vstack(rows)), labels, made_by


def _coefficient_row(i: int, entry: dict, position: dict) -> sparse.csr_array:
    """Return an invariant the statement lists by its coefficients per cell label, as a row of A."""
    coefficients = entry.get("coefficients")
    if not isinstance(coefficients, dict) or not coefficients:
        raise InputError(f"the statement's invariant {i + 1} ({entry['label']!r}) has no rule or coefficients")
    unknown = [cell for cell in coefficients if cell not in position]
    if unknown or not all(isinstance(c, int) and not isinstance(c, bool) for c in coefficients.values()):
        raise InputError(
            f"the statement's invariant {i + 1} ({entry['label']!r}) names "
            + (f"no cell of the released table ({unknown[0]!r})" if unknown else "a coefficient that is no integer")
        )
    cols = np.fromiter((position[c] for c in coefficients), np.int64, len(coefficients))
    data = np.fromiter(coefficients.values(), np.int64, len(coefficients))
    return sparse.csr_array((data, (np.zeros(len(cols), np.int64), cols)), shape=(1, len(position)))


def unit_of(doc: dict) -> Fraction | float:
    """Return the mechanism's parameter as the statement states it: σ, or ε per unit distance."""
    mechanism = doc["mechanism"]
    for key in ("sigma", "epsilon_per_unit_l1_distance", "epsilon_per_unit_l2_distance"):
        if key in mechanism:
            value = mechanism[key]
            try:
                return Fraction(value) if isinstance(value, str) else float(value)
            except (TypeError, ValueError, ZeroDivisionError):
                raise InputError(f"the statement's mechanism {key} {value!r} is not a number") from None
    raise InputError("the statement's mechanism states no parameter (sigma or epsilon per unit distance)")
