"""The invariants of a table.

The matrix A whose rows are the totals a release keeps exactly, built from families of totals, ties between tables and
constraint files (docs/release.md, "Options" and "Scale").

:func:`constraint_matrix` builds A (sparse, int64, no repeated row, a label per row) for one
:class:`~isdp.tables.Table` or a :class:`~isdp.tables.TableSet`; a request it cannot build is a
:class:`~isdp.errors.UsageError`, an unreadable constraint file an
:class:`~isdp.errors.InputError` and invariants the table contradicts an
:class:`~isdp.errors.InfeasibleError`. The structure of any A (its blocks, its independent
rows) is :mod:`isdp.lattice`'s.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
from scipy import sparse

from .._first_seen import first_seen
from .._sparse import as_sparse, first_rows, group_rows, row_values
from ..errors import InfeasibleError, InputError, UsageError
from ._entries import _integer
from ._key_columns import KeyColumns
from ._tables import Table, TableSet

#: the invariant families of ``--invariant`` besides ``by:NAME[,NAME…]``: the table's total, one
#: total per row, per column, or both margins (a long table's first and second key columns)
FAMILIES = ("total", "row-margins", "column-margins", "all-margins")

#: largest coefficient of a constraint (as the library's lattices: docs/reliability.md)
COEFFICIENT_LIMIT = 2**31

_Label = TypeVar("_Label")


def _grouped_rows(
    table: Table, axes: list[int], what: Callable[[tuple[str, ...]], _Label]
) -> tuple[sparse.csr_array, list[_Label]]:
    """One row per distinct value of the key fields ``axes`` (first-seen order): the sum of its cells."""
    n = len(table.keys)
    member, first = np.zeros(n, dtype=np.int64), np.zeros(min(n, 1), dtype=np.int64)
    for depth, a in enumerate(axes):  # the combination's code in first-seen order, one key column at a time
        if isinstance(table.keys, KeyColumns):  # coded already, in first-seen order
            codes, count = table.keys.column(a)
        else:
            codes, column_first = first_seen([k[a] for k in table.keys])
            count = len(column_first)
        # first: each group's first cell, in the groups' order
        member, first = first_seen(member * count + codes if depth else codes)
    A = group_rows(member, len(first))
    if isinstance(table.keys, KeyColumns):
        return A, [what(key) for key in table.keys.take(first, axes)]
    return A, [what(tuple(table.keys[i][a] for a in axes)) for i in first.tolist()]


def _family_rows(table: Table, family: str) -> tuple[sparse.csr_array, list[str]]:
    """Return the rows of an invariant family.

    ``total``, ``row-margins``, ``column-margins``, ``all-margins`` or ``by:NAME[,NAME…]`` (a total for every
    combination of those key columns).
    """
    if family == "total":
        return _grouped_rows(table, [], lambda g: "total")
    if family.startswith("by:"):
        wanted = [w.strip() for w in family[3:].split(",") if w.strip()]
        names = [n.casefold() for n in table.key_names]
        missing = [w for w in wanted if w.casefold() not in names]
        if missing or len(set(map(str.casefold, wanted))) != len(wanted):
            raise UsageError(
                f"invariant {family!r}: name key columns of {table.path}, each once: "
                f"{', '.join(table.key_names)}" + (f" (no {', '.join(map(repr, missing))})" if missing else "")
            )
        axes = [names.index(w.casefold()) for w in wanted]
        return _grouped_rows(
            table,
            axes,
            lambda g: (
                "by " + ", ".join(f"{table.key_names[a]}={v}" for a, v in zip(axes, g, strict=True))
                if axes
                else "total"
            ),
        )
    if family not in FAMILIES:
        raise UsageError(f"unknown invariant family {family!r}: choose from {', '.join(FAMILIES)} or by:NAME[,NAME…]")
    width = len(table.keys[0])
    axes = {"row-margins": [0], "column-margins": [1], "all-margins": [0, 1]}[family]
    if width < max(axes) + 1:
        raise UsageError(
            f"invariant {family!r} needs a table with two key columns (rows and columns); {table.path} has {width}"
        )
    parts = [_grouped_rows(table, [axis], _margin_label("row" if axis == 0 else "column")) for axis in axes]
    return sparse.vstack([a for a, _ in parts], format="csr"), [lab for _, labs in parts for lab in labs]


def _disjoint(table: Table | TableSet, families: list[str]) -> bool:
    """Whether the rows are one family of totals on one table, so that none repeats another.

    Its groups are disjoint and none is empty. A margin family can repeat: a 1 × 1 table's row and column are one cell.
    """
    return (
        not isinstance(table, TableSet)
        and len(families) == 1
        and (families[0] == "total" or families[0].startswith("by:"))
    )


def _margin_label(word: str) -> Callable[[tuple[str, ...]], str]:
    """Return the labeller of a margin's groups: ``row Female``, ``column old``."""
    return lambda group: f"{word} {group[0]}"


def read_constraint_file(path, table: Table | TableSet) -> tuple[list[np.ndarray], list[str]]:
    r"""Return the constraints of a CSV file: header ``constraint,<cell labels>[,value]``, one line per constraint.

    The file of ``isdp release --constraints FILE``: any counting invariants beyond the families.
    Cell labels are ``row|column`` (wide) or the key fields joined by ``|`` (long; ``NAME|key…``
    for several tables) and must name the table's cells in its order. Each line is a label and
    one integer coefficient per cell. An optional ``value`` column states each invariant's value;
    it must equal the table's, which catches a constraint file written for another table.

    Parameters
    ----------
    path : str or os.PathLike
        The constraint file (CSV, UTF-8; blank lines skipped).
    table : Table or TableSet
        The table the constraints are for; on a dry run's table (``x`` None) the stated values
        are not checked.

    Returns
    -------
    rows : list of numpy.ndarray
        One int64 coefficient vector per constraint, over the table's cells.
    labels : list of str
        Each constraint's label (``constraint k`` when the first field is empty).

    Raises
    ------
    isdp.errors.InputError
        An unreadable or empty file, a header that does not name the table's cells in order, a
        line with the wrong number of fields, a non-integer coefficient or value (ASCII digits
        with an optional sign only: ``1_0`` and non-ASCII digits such as ``٤`` are refused), a
        coefficient beyond ±2**31, or a constraint without a non-zero coefficient. Lines are
        numbered as in the file, blank lines included.
    isdp.errors.InfeasibleError
        A stated ``value`` that is not the table's (compared in exact integers).

    See Also
    --------
    constraint_matrix : Combines these rows with families and ties.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables._constraints import read_constraint_file
    >>> from isdp.errors import InfeasibleError
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     table = Path(tmp, "sex_by_age.csv")
    ...     _ = table.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(table)
    ...     path = Path(tmp, "invariants.csv")
    ...     _ = path.write_text("constraint,Female|young,Female|old,Male|young,Male|old,value\n"
    ...                         "total,1,1,1,1,14\nfemale,1,1,0,0,8\n")
    ...     rows, labels = read_constraint_file(path, table)
    ...     _ = path.write_text("constraint,Female|young,Female|old,Male|young,Male|old,value\n"
    ...                         "total,1,1,1,1,15\n")
    ...     try:
    ...         read_constraint_file(path, table)
    ...     except InfeasibleError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    /.../invariants.csv: constraint 'total' states the value 15, the table gives 14: the invariants do not hold ...
    >>> [r.tolist() for r in rows], labels
    ([[1, 1, 1, 1], [1, 1, 0, 0]], ['total', 'female'])
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh)
            lines = [(reader.line_num, [f.strip() for f in row]) for row in reader if any(f.strip() for f in row)]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise InputError(f"{path}: cannot read the constraint file ({err})") from None
    if not lines:
        raise InputError(f"{path}: the constraint file is empty")
    (_, header), body = lines[0], lines[1:]
    has_value = header[-1].casefold() == "value"
    cells = header[1:-1] if has_value else header[1:]
    if cells != table.cell_labels:
        raise InputError(
            f"{path}: the header must name the table's {len(table.keys)} cells in order "
            f"({', '.join(table.cell_labels[:3])}, …); got {len(cells)} columns "
            f"({', '.join(cells[:3])}, …)"
        )
    rows: list[np.ndarray] = []
    labels: list[str] = []
    for number, fields in body:
        if len(fields) != len(header):
            raise InputError(f"{path}: line {number} has {len(fields)} fields, the header {len(header)}")
        parsed = [_integer(f) for f in fields[1 : 1 + len(cells)]]
        ints = [v for v in parsed if v is not None]
        if len(ints) < len(parsed):
            cell = cells[parsed.index(None)]
            raise InputError(
                f"{path}: line {number}: the coefficient of {cell!r} is not an integer (coefficients "
                "are ASCII digits 0-9 with an optional sign)"
            )
        if max(map(abs, ints)) > COEFFICIENT_LIMIT:
            raise InputError(f"{path}: line {number}: a coefficient is beyond ±2**31")
        if not any(ints):
            raise InputError(f"{path}: line {number}: constraint {fields[0]!r} has no non-zero coefficient")
        coef = np.array(ints, dtype=np.int64)
        if has_value:
            stated = _integer(fields[-1])
            if stated is None:
                raise InputError(
                    f"{path}: line {number}: the value of constraint {fields[0]!r} is not an integer "
                    "(ASCII digits 0-9 with an optional sign)"
                )
            actual = stated if table.x is None else sum(c * int(v) for c, v in zip(ints, table.x, strict=True))
            if stated != actual:
                said = f"the value {stated}" if abs(stated) < 10**30 else "a value beyond ±10**30"
                raise InfeasibleError(
                    f"{path}: constraint {fields[0]!r} states {said}, "
                    f"the table gives {actual}: the invariants do not hold on this table"
                )
        rows.append(coef)
        labels.append(fields[0] or f"constraint {len(labels) + 1}")
    return rows, labels


def _placed(tset: TableSet, k: int, rows: sparse.csr_array) -> sparse.csr_array:
    """Rows over table ``k``'s cells as rows over the joint vector."""
    n = len(tset.keys)
    rows = sparse.coo_array(rows)
    return sparse.csr_array((rows.data, (rows.row, rows.col + tset.groups[k][0])), shape=(rows.shape[0], n))


def _set_family_rows(tset: TableSet, family: str) -> tuple[sparse.csr_array, list[str]]:
    """Return a family on every table, or on one with ``FAMILY@NAME``."""
    family, _, name = family.partition("@")
    which = [tset.position(name)] if name else range(len(tset.tables))
    parts, labels = [], []
    for k in which:
        rows, lab = _family_rows(tset.tables[k], family)
        parts.append(_placed(tset, k, rows))
        labels += [f"{tset.names[k]}: {label}" for label in lab]
    return sparse.vstack(parts, format="csr"), labels


def _group_name(columns: list[str], values: tuple[str, ...]) -> str:
    """``total``, or ``column=value, …`` of one group of a tie."""
    return ", ".join(f"{w}={v}" for w, v in zip(columns, values, strict=True)) if columns else "total"


def _tie_rows(tset: TableSet, tie: str) -> tuple[sparse.csr_array, list[str]]:
    """``total`` or ``by:NAME[,NAME…]``.

    The totals of each group agree in every table that has those key columns (the first such table's against each
    other's).
    """
    if tie != "total" and not tie.startswith("by:"):
        raise UsageError(f"unknown tie {tie!r}: total or by:NAME[,NAME…] (key columns the tables share)")
    wanted = {w.strip().casefold() for w in tie[3:].split(",") if w.strip()} if tie != "total" else set()
    tied = [k for k, t in enumerate(tset.tables) if wanted <= {n.casefold() for n in t.key_names}]
    if len(tied) < 2:
        columns = "; ".join(f"{n}: " + ", ".join(t.key_names) for n, t in zip(tset.names, tset.tables, strict=True))
        raise UsageError(f"tie {tie!r}: fewer than two tables have those key columns ({columns})")
    totals = []
    for k in tied:
        t = tset.tables[k]
        axes = [[n.casefold() for n in t.key_names].index(w) for w in sorted(wanted)]
        rows, keys = _grouped_rows(t, axes, lambda g: g)  # labelled by the group's key values
        totals.append((k, {g: i for i, g in enumerate(keys)}, _placed(tset, k, rows)))
    first, first_groups, first_rows = totals[0]
    parts, labels = [], []
    for k, groups, rows in totals[1:]:
        if set(groups) != set(first_groups):
            odd = next(iter(set(groups) ^ set(first_groups)))
            raise InputError(
                f"tie {tie!r}: {tset.names[first]} and {tset.names[k]} do not have the same groups "
                f"({'|'.join(odd)} is in one only)"
            )
        order = list(first_groups)
        parts.append(first_rows[[first_groups[g] for g in order]] - rows[[groups[g] for g in order]])
        labels += [f"tie {_group_name(sorted(wanted), g)}: {tset.names[first]} = {tset.names[k]}" for g in order]
    A = sparse.vstack(parts, format="csr")
    if tset.x is not None:
        broken = [lab for lab, value in zip(labels, row_values(as_sparse(A), tset.x), strict=True) if value != 0]
        if broken:
            raise InfeasibleError(
                f"the tables disagree where they are tied ({len(broken)} of {len(labels)} ties, "
                f"e.g. {broken[0]!r}): they cannot be released as one consistent set"
            )
    return A, labels


def constraint_matrix(
    table: Table | TableSet, families=(), constraint_file=None, ties=()
) -> tuple[sparse.csr_array, list[str]]:
    r"""Return the invariants as a sparse matrix A (rows without repeats) with a label per row.

    What ``--invariant``, ``--tie`` and ``--constraints`` of ``isdp release`` build: the rows of
    the families in order, then the ties, then the constraint file's; a row equal to an earlier
    one is dropped (with its label). For a :class:`~isdp.tables.TableSet` each family applies to
    every table (``FAMILY@NAME``: to one), ``ties`` add the rows that make the tables agree, and a
    constraint file names cells ``NAME|key…``.

    Parameters
    ----------
    table : Table or TableSet
        The table (or tables released together) the invariants are for.
    families : sequence of str, default ()
        Each ``total``, ``row-margins``, ``column-margins``, ``all-margins`` (:data:`FAMILIES`)
        or ``by:NAME[,NAME…]`` (the total of every combination of those key columns; ``row`` and
        ``column`` for a wide table). With several tables, ``FAMILY@NAME`` for the table of file
        stem NAME.
    constraint_file : str or os.PathLike, optional
        A constraint file (:func:`read_constraint_file`).
    ties : sequence of str, default ()
        Several tables only: each ``total`` or ``by:NAME[,NAME…]``, the totals of each group
        agree in every table that has those key columns (rows ``first − other``, value 0).

    Returns
    -------
    A : scipy.sparse.csr_array
        The invariants, int64, rows × cells, canonical (:func:`as_sparse`), no repeated row.
    labels : list of str
        One label per row of ``A`` (``total``, ``row Female``, ``by county=A``,
        ``tie county=A: county = county_sex``, a constraint's own label, …).

    Raises
    ------
    isdp.errors.UsageError
        No invariant at all, an unknown family or tie, a key column the table lacks, a margin
        family on a table with one key column, ties on one table, a tie fewer than two tables
        can take, or ``@NAME`` naming no table.
    isdp.errors.InputError
        An unreadable constraint file, or tied tables whose groups differ.
    isdp.errors.InfeasibleError
        Tables that disagree where they are tied, or a constraint file's stated value that is
        not the table's.

    See Also
    --------
    isdp.release.make_release : Releases a table keeping ``A x`` exactly.
    row_values : The invariants' values ``A x``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp._sparse import row_values
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.tables import TableSet, load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["all-margins", "total"])
    >>> A.toarray().tolist()
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]
    >>> labels, row_values(A, table.x)
    (['row Female', 'row Male', 'column young', 'column old', 'total'], [8, 6, 7, 7, 14])

    Two tables of the same persons, their county totals tied:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "county.csv").write_text("county,count\nA,7\nB,5\n")
    ...     _ = Path(tmp, "county_sex.csv").write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\nB,M,0\n")
    ...     tables = TableSet.of([load_table(Path(tmp, "county.csv")), load_table(Path(tmp, "county_sex.csv"))])
    >>> A, labels = constraint_matrix(tables, ["total@county"], ties=["by:county"])
    >>> A.toarray().tolist()
    [[1, 1, 0, 0, 0, 0], [1, 0, -1, -1, 0, 0], [0, 1, 0, 0, -1, -1]]
    >>> labels
    ['county: total', 'tie county=A: county = county_sex', 'tie county=B: county = county_sex']
    """
    if ties and not isinstance(table, TableSet):
        raise UsageError("--tie joins tables released together: give two tables or more")
    parts, labels = [], []
    for family in families:
        r, lab = _set_family_rows(table, family) if isinstance(table, TableSet) else _family_rows(table, family)
        parts.append(r)
        labels += lab
    if isinstance(table, TableSet):  # one table has no ties (refused above)
        for tie in ties:
            r, lab = _tie_rows(table, tie)
            parts.append(r)
            labels += lab
    if constraint_file is not None:
        r, lab = read_constraint_file(constraint_file, table)
        parts.append(sparse.csr_array(np.array(r, dtype=np.int64).reshape(len(r), len(table.keys))))
        labels += lab
    if not labels:
        raise UsageError(
            "no invariants: give --invariant (total, row-margins, column-margins, all-margins, "
            "by:NAME[,NAME…]) and/or --constraints FILE"
        )
    A = as_sparse(parts[0] if len(parts) == 1 else sparse.vstack(parts, format="csr"))
    if len(parts) == 1 and _disjoint(table, families):  # no row to compare (a part's plan asks for each family)
        return A, labels
    keep = first_rows(A)
    if len(keep) == A.shape[0]:  # no repeats: A as it is (a copy of its rows costs a second per 10⁷ non-zeros)
        return A, labels
    return A[keep], [labels[i] for i in keep]
