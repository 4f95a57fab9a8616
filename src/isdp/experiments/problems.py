"""A privacy problem: confidential counts x, counting invariants A, and labels.

The workflow writes each experiment's problem as JSON once and every later step reads it,
so the constraints are defined in exactly one place.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from isdp.lattice import (
    IntegerLattice,
    InvariantError,
    as_integer_matrix,
    table_margins,
)


@dataclass(frozen=True)
class Problem:
    """Confidential histogram ``x`` (n cells) with invariants ``A x`` (m counting constraints)."""

    name: str
    A: np.ndarray
    x: np.ndarray
    cell_labels: tuple[str, ...]
    constraint_labels: tuple[str, ...]
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        A = as_integer_matrix(self.A)
        x = np.asarray(self.x)
        if x.ndim != 1 or x.shape[0] != A.shape[1]:
            raise InvariantError(f"{self.name}: x has shape {x.shape}, A has {A.shape[1]} columns")
        if np.any(np.rint(x) != x):
            raise InvariantError(f"{self.name}: the confidential counts x must be integers")
        if len(self.cell_labels) != A.shape[1] or len(self.constraint_labels) != A.shape[0]:
            raise InvariantError(f"{self.name}: label counts do not match A's shape {A.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "x", x.astype(np.int64))

    @property
    def invariants(self) -> np.ndarray:
        """The mandated statistics A x."""
        return self.A @ self.x

    def lattice(self, reduce: bool | str = "auto") -> IntegerLattice:
        """Λ(A), the noise space that keeps the invariants."""
        return IntegerLattice.from_constraints(self.A, reduce=reduce)

    def to_json(self, path) -> None:
        """Write the problem as JSON (atomically)."""
        payload = {
            "name": self.name,
            "A": self.A.tolist(),
            "x": self.x.tolist(),
            "cell_labels": list(self.cell_labels),
            "constraint_labels": list(self.constraint_labels),
            "meta": self.meta,
        }
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(payload, indent=1) + "\n")
        tmp.replace(path)

    @classmethod
    def from_json(cls, path) -> Problem:
        """Read a problem written by :meth:`to_json`."""
        d = json.loads(Path(path).read_text())
        return cls(d["name"], np.array(d["A"]), np.array(d["x"]), tuple(d["cell_labels"]),
                   tuple(d["constraint_labels"]), d.get("meta", {}))


def contingency_table_problem(name: str, table, row_labels, col_labels) -> Problem:
    """A two-way table with all row and column totals invariant (cells row-major)."""
    table = np.asarray(table)
    if table.ndim != 2 or table.shape != (len(row_labels), len(col_labels)):
        raise InvariantError(f"{name}: table shape {table.shape} does not match its labels")
    A = table_margins(*table.shape)
    cells = tuple(f"{r}|{c}" for r in row_labels for c in col_labels)
    constraints = tuple(f"row {r}" for r in row_labels) + tuple(f"col {c}" for c in col_labels)
    return Problem(name, A, table.ravel(), cells, constraints,
                   {"rows": list(row_labels), "cols": list(col_labels)})


#: A row or column whose label contains one of these words is a margin (``Total``, ``Grand total``,
#: ``Sum``, ``Overall``); ``All`` only as a label of its own or a first word (``All ages``).
_MARGIN_RE = re.compile(r"\b(total|totals|subtotal|sum|sums|overall|margin|margins)\b|^all\b", re.I)
#: Largest count a table may hold: every integer up to it is exact in a float (cf. check_release).
_COUNT_LIMIT = 2**53


def _is_margin(label: str) -> bool:
    return bool(_MARGIN_RE.search(label.strip()))


def _labelled_lines(path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the (line number, fields) of every non-blank line, fields stripped."""
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")  # a byte-order mark is not part of a label
    except UnicodeDecodeError as err:
        raise InvariantError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        lines = [(reader.line_num, [f.strip() for f in fields]) for fields in reader if any(f.strip() for f in fields)]
    except csv.Error as err:
        raise InvariantError(f"{path}: not a readable CSV table ({err})") from None
    if not lines:
        raise InvariantError(f"{path}: not a readable CSV table (the file is empty)")
    (_, header), body = lines[0], lines[1:]
    if len(header) < 2:
        raise InvariantError(f"{path}: the header {header} has no column labels: the file must be comma-separated")
    for k, label in enumerate(header[1:], start=2):
        if not label:
            raise InvariantError(f"{path}: column {k} has no label")
    if not body:
        raise InvariantError(f"{path}: the table has no cells")
    for lineno, fields in body:
        if len(fields) != len(header):
            raise InvariantError(f"{path}: line {lineno} has {len(fields)} fields, the header {len(header)}")
        if not fields[0]:
            raise InvariantError(f"{path}: line {lineno}: the row has no label")
    return header, body


def read_table_csv(path, counts: bool = True):
    """A two-way integer table stored as CSV (first column = row labels, header = column labels).

    Returns (cells as int64, row labels, column labels). A row or column labelled as a margin
    (``Total``, ``Grand total``, ``Sum``, ``All``, …) is checked against the cells and dropped; a
    margin that disagrees with the cells, a line with too few or too many fields, a missing label,
    a missing or non-integer entry (ASCII digits only), duplicate labels (ignoring case), an empty
    file or one that is not UTF-8 raise :class:`InvariantError` naming the file and the offending
    line, row or column. With ``counts`` (confidential tables) a negative entry and an unlabelled
    row or column that equals the sum of the others — everywhere, or in most places (at least two,
    more than half: a total with a typo) — are errors too; ``counts=False`` reads noise tables
    (any sign).
    """
    header, body = _labelled_lines(path)
    rows = [fields[0] for _, fields in body]
    cols = header[1:]
    for axis, labels in (("row", rows), ("column", cols)):
        seen = set()
        for label in labels:
            if label.casefold() in seen:
                raise InvariantError(f"{path}: duplicate {axis} label {label!r}")
            seen.add(label.casefold())
    values = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for i, (row, (_, fields)) in enumerate(zip(rows, body, strict=True)):
        for j, (col, text) in enumerate(zip(cols, fields[1:], strict=True)):
            if not re.fullmatch(r"[+-]?[0-9]+", text):  # int() would also take '1_0' and non-ASCII digits
                raise InvariantError(f"{path}: row {row!r}, column {col!r}: {text!r} is not an integer count")
            v = int(text)
            if abs(v) > _COUNT_LIMIT:
                raise InvariantError(f"{path}: row {row!r}, column {col!r}: {text!r} is too large (beyond 2**53)")
            if counts and v < 0:
                raise InvariantError(f"{path}: row {row!r}, column {col!r}: negative count {v}")
            values[i, j] = v
    keep_r = [i for i, r in enumerate(rows) if not _is_margin(r)]
    keep_c = [j for j, c in enumerate(cols) if not _is_margin(c)]
    cells = values[np.ix_(keep_r, keep_c)]
    for j in set(range(len(cols))) - set(keep_c):  # margin columns: row totals of the cells
        if not np.array_equal(values[keep_r, j], cells.sum(axis=1)):
            raise InvariantError(f"{path}: margin column {cols[j]!r} does not equal the row sums of the cells "
                                 "(its label marks a margin: rename it if it is a category)")
    for i in set(range(len(rows))) - set(keep_r):
        expected = values[i, keep_c]
        if not np.array_equal(expected, cells.sum(axis=0)):
            raise InvariantError(f"{path}: margin row {rows[i]!r} does not equal the column sums of the cells "
                                 "(its label marks a margin: rename it if it is a category)")
    if cells.size == 0:
        raise InvariantError(f"{path}: the table has no cells besides its margins")
    for axis in (0, 1) if counts else ():  # an unlabelled margin would silently become one more category
        n = cells.shape[1 - axis]
        if n < 3:
            continue
        for k in range(n):
            line = cells[:, k] if axis == 0 else cells[k]
            rest = np.delete(cells, k, axis=1 - axis).sum(axis=1 - axis)
            what, label = ("column", cols[keep_c[k]]) if axis == 0 else ("row", rows[keep_r[k]])
            if line.any() and np.array_equal(line, rest):
                raise InvariantError(f"{path}: {what} {label!r} equals the sum of the other {what}s: a margin? "
                                     f"Label it 'Total' or remove it")
            # a total with a typo: equal to the sum of the others in most places but not all
            agree = (line == rest) & (rest != 0)
            if agree.sum() >= 2 and 2 * agree.sum() > line.size:
                wrong = [rows[keep_r[i]] if axis == 0 else cols[keep_c[i]] for i in np.flatnonzero(line != rest)]
                raise InvariantError(f"{path}: {what} {label!r} equals the sum of the other {what}s except at "
                                     f"{wrong}: an unlabelled margin with wrong values? Correct it and label it "
                                     "'Total', or remove it")
    return cells, [rows[i] for i in keep_r], [cols[j] for j in keep_c]


def index_set_from_complement(complement, n: int, key: str = "index_complement") -> tuple[list[int], list[int]]:
    """0-based (I, Iᶜ) from the paper's 1-based Iᶜ; a ValueError names ``key`` for any bad index."""
    bad = [i for i in complement if int(i) != i or not 1 <= i <= n]
    if bad:
        raise ValueError(f"{key}: {bad} outside the cells 1..{n} (1-based, as in the paper)")
    if len(set(complement)) != len(complement):
        raise ValueError(f"{key}: repeated index in {list(complement)}")
    comp = [int(i) - 1 for i in complement]
    return [i for i in range(n) if i not in comp], comp


def with_margins(values, row_labels, col_labels, row_name: str = "county"):
    """A table as a DataFrame with a Total column and a Total row, all computed from the cells."""
    import pandas as pd

    values = np.asarray(values).reshape(len(row_labels), len(col_labels))
    df = pd.DataFrame(values, index=pd.Index(row_labels, name=row_name), columns=col_labels)
    df["Total"] = df.sum(axis=1)
    df.loc["Total"] = df.sum(axis=0)
    return df
