"""Integer tables stored as CSV: the wide two-way layout (row labels, then one column per category,
optional margins) and the long layout (key columns and one count column).

Readers check everything a release relies on — integer counts, labels, margins that agree with
their cells — and raise :class:`~isdp.lattice.InvariantError` naming the file, line, row or column.
Writers reproduce the input's layout (labels, order, margins recomputed from the cells) and
write atomically.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .lattice import InvariantError

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


def read_wide_table(path, counts: bool = True) -> WideTable:
    """A two-way integer table stored as CSV (first column = row labels, header = column labels).

    Returns (cells as int64, row labels, column labels). A row or column labelled as a margin
    (``Total``, ``Grand total``, ``Sum``, ``All``, …) is checked against the cells and dropped; a
    margin that disagrees with the cells, a line with too few or too many fields, a missing label,
    a missing or non-integer entry (ASCII digits only), duplicate labels (ignoring case), an empty
    file or one that is not UTF-8 raise :class:`InvariantError` naming the file and the offending
    line, row or column. With ``counts`` (confidential tables) a negative entry and an unlabelled
    row or column that equals the sum of the others — everywhere, or in most places (at least two,
    more than half: a total with a typo) — are errors too; ``counts=False`` reads noise tables
    (any sign). Returns the cells with the file's full layout (:class:`WideTable`).
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
            values[i, j] = _count(path, f"row {row!r}, column {col!r}", text, counts)
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
    return WideTable(cells, rows, cols, keep_r, keep_c, header[0])


def read_table_csv(path, counts: bool = True):
    """(cells as int64, row labels, column labels) of :func:`read_wide_table`, margins dropped."""
    table = read_wide_table(path, counts)
    return table.cells, table.row_labels, table.col_labels


@dataclass(frozen=True)
class WideTable:
    """A wide table: ``cells`` (rows × columns, margins dropped) and the file's full layout."""

    cells: np.ndarray
    all_rows: list[str]  # every row label in file order, margins included
    all_cols: list[str]  # every column label after the first, margins included
    keep_r: list[int]  # positions of the category rows in all_rows
    keep_c: list[int]
    corner: str  # the header's first field (the row variable's name)

    @property
    def row_labels(self) -> list[str]:
        """Category rows (margins dropped)."""
        return [self.all_rows[i] for i in self.keep_r]

    @property
    def col_labels(self) -> list[str]:
        """Category columns (margins dropped)."""
        return [self.all_cols[j] for j in self.keep_c]

    def with_cells(self, cells) -> list[list[str]]:
        """The file's layout filled with ``cells``; margin rows and columns recomputed from them."""
        cells = np.asarray(cells, dtype=np.int64).reshape(self.cells.shape)
        full = np.zeros((len(self.all_rows), len(self.all_cols)), dtype=np.int64)
        margin_r = [i for i in range(len(self.all_rows)) if i not in self.keep_r]
        margin_c = [j for j in range(len(self.all_cols)) if j not in self.keep_c]
        full[np.ix_(self.keep_r, self.keep_c)] = cells
        for j in margin_c:
            full[self.keep_r, j] = cells.sum(axis=1)
        for i in margin_r:
            full[i, self.keep_c] = cells.sum(axis=0)
            full[i, margin_c] = cells.sum()
        lines = [[self.corner, *self.all_cols]]
        lines += [[label, *(str(v) for v in row)] for label, row in zip(self.all_rows, full, strict=True)]
        return lines


@dataclass(frozen=True)
class LongTable:
    """A long table: one line per cell, key columns naming it and one count column."""

    header: list[str]
    lines: list[list[str]]  # the data lines as read (fields stripped)
    count_column: int
    counts: np.ndarray  # int64, one per line

    @property
    def key_columns(self) -> list[int]:
        """Positions of the key columns."""
        return [k for k in range(len(self.header)) if k != self.count_column]

    @property
    def keys(self) -> list[tuple[str, ...]]:
        """Each cell's key, in file order."""
        columns = self.key_columns
        return [tuple(fields[k] for k in columns) for fields in self.lines]

    def with_cells(self, cells) -> list[list[str]]:
        """The file's lines with the count column replaced by ``cells``."""
        out = [list(self.header)]
        for fields, v in zip(self.lines, np.asarray(cells, dtype=np.int64), strict=True):
            row = list(fields)
            row[self.count_column] = str(int(v))
            out.append(row)
        return out


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _count(path, where: str, text: str, counts: bool) -> int:
    # ASCII digits only: int() would also take '1_0' and non-ASCII digits
    if not _INTEGER.fullmatch(text):
        raise InvariantError(f"{path}: {where}: {text!r} is not an integer count")
    v = int(text)
    if abs(v) > _COUNT_LIMIT:
        raise InvariantError(f"{path}: {where}: {text!r} is too large (beyond 2**53)")
    if counts and v < 0:
        raise InvariantError(f"{path}: {where}: negative count {v}")
    return v


def read_long_table(path, count_column: str = "count", counts: bool = True) -> LongTable:
    """A long table: a header, then one line per cell; ``count_column`` holds the integer count.

    Every other column is a key; each key must be unique (ignoring case) and non-empty.
    """
    header, body = _labelled_lines(path)
    c = _count_column(path, header, count_column)
    seen = set()
    values = []
    for lineno, fields in body:
        key = tuple(f for k, f in enumerate(fields) if k != c)
        if not all(key):
            raise InvariantError(f"{path}: line {lineno}: a key field is empty")
        folded = tuple(k.casefold() for k in key)
        if folded in seen:
            raise InvariantError(f"{path}: line {lineno}: duplicate cell {key}")
        seen.add(folded)
        values.append(_count(path, f"line {lineno}", fields[c], counts))
    return LongTable(header, [fields for _, fields in body], c, np.array(values, dtype=np.int64))


def read_table_keys(path, count_column: str | None = None) -> list[tuple[str, ...]]:
    """Each cell's key, from the labels alone: no count is parsed (a dry run's view of a table).

    Wide (``count_column`` None): (row, column) for every category row and column, margins
    skipped; long: the key fields of every line.
    """
    header, body = _labelled_lines(path)
    if count_column is None:
        rows = [fields[0] for _, fields in body if not _is_margin(fields[0])]
        return [(r, c) for r in rows for c in header[1:] if not _is_margin(c)]
    c = _count_column(path, header, count_column)
    return [tuple(f for k, f in enumerate(fields) if k != c) for _, fields in body]


def _count_column(path, header: list[str], count_column: str) -> int:
    """The count column's position; a header with a repeated column name is refused (a second
    count column would be read as a key, and its counts published as labels)."""
    names = [h.casefold() for h in header]
    for name in names:
        if names.count(name) > 1:
            raise InvariantError(f"{path}: the header repeats the column {name!r}: which one holds the counts?")
    if count_column.casefold() not in names:
        raise InvariantError(f"{path}: no count column {count_column!r} in the header {header}")
    return names.index(count_column.casefold())
