"""Integer tables stored as CSV: the wide two-way layout (row labels, then one column per category,
optional margins) and the long layout (key columns and one count column).

Readers check everything a release relies on — integer counts, labels, margins that agree with
their cells, labels that would look alike once published — and raise
:class:`~isdp.lattice.InvariantError` naming the file, line, row or column, never quoting a count.
Writers reproduce the input's layout (labels, order, margins recomputed from the cells) and
write atomically.

A release reads its tables with :func:`load_table`: a :class:`Table` is one vector of counts with
a label per cell, whatever the layout, and several tables of the same persons released together
are one :class:`TableSet`; a table it cannot use is an :class:`~isdp.errors.InputError` (exit 3).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..errors import InputError, InvariantError, UsageError
from ..lattice._integer_lattice import COUNT_LIMIT

#: A row or column whose label contains one of these words is a margin (``Total``, ``Grand total``,
#: ``Sum``, ``Overall``); ``All`` only as a label of its own or a first word (``All ages``).
_MARGIN_RE = re.compile(r"\b(total|totals|subtotal|sum|sums|overall|margin|margins)\b|^all\b", re.I)


def _is_margin(label: str) -> bool:
    return bool(_MARGIN_RE.search(label.strip()))


#: code points that display as nothing (Unicode's Default_Ignorable_Code_Point, besides the format
#: characters, category Cf, found by :func:`unicodedata.category`): zero-width spaces and joiners,
#: the byte-order mark, word joiners, variation selectors, Hangul fillers, tags
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
              (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
              (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
              (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def _invisible(ch: str) -> bool:
    """A character that displays as nothing: a format or control character (not whitespace) or a
    default-ignorable code point."""
    if ch.isspace():
        return False
    o = ord(ch)
    return unicodedata.category(ch) in ("Cf", "Cc") or any(lo <= o <= hi for lo, hi in _IGNORABLE)


def _seen_as(label: str) -> str:
    """What a label looks like, for comparing labels: NFKC-normalised and case-folded, invisible
    characters removed, runs of whitespace as one space. Two labels that look the same in a
    published table (``é`` composed or not, ``A`` and ``A`` + U+200B, ``ﬁ`` and ``fi``, a
    no-break space and a space) are seen as the same."""
    if label.isascii() and label.isprintable():
        return " ".join(label.casefold().split())
    text = "".join(ch for ch in label if not _invisible(ch))
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join("".join(ch for ch in text if not _invisible(ch)).split())


def _distinct(path, what: str, items) -> None:
    """Refuse two of ``items`` — (position, label or tuple of labels) — that look the same
    (:func:`_seen_as`), naming both positions, and a label with nothing visible in it."""
    seen: dict = {}
    looks: dict[str, str] = {}  # labels repeat (a long table's keys): each is normalised once
    for where, label in items:
        parts = label if isinstance(label, tuple) else (label,)
        key = tuple(looks[p] if p in looks else looks.setdefault(p, _seen_as(p)) for p in parts)
        if "" in key and any(p and not k for p, k in zip(parts, key, strict=True)):
            made = "has a field made" if isinstance(label, tuple) else "is made"
            raise InvariantError(f"{path}: {where}: the {what} {ascii(label)} {made} of invisible characters only "
                                 "(it would look empty in the published table)")
        if key in seen:
            first_where, first = seen[key]
            if first == label:
                raise InvariantError(f"{path}: {where}: duplicate {what} {label!r}, as at {first_where}")
            firsts = first if isinstance(first, tuple) else (first,)
            if all(a.casefold() == b.casefold() for a, b in zip(parts, firsts, strict=True)):
                raise InvariantError(f"{path}: {where}: duplicate {what} {label!r}, as {first!r} at {first_where} "
                                     "(labels are compared ignoring case)")
            raise InvariantError(f"{path}: {where}: duplicate {what} {ascii(label)}, as {ascii(first)} at "
                                 f"{first_where}: they differ only by Unicode normalisation (NFKC), case, spacing or "
                                 "invisible characters, so they would look the same in the published table")
        seen[key] = (where, label)


#: a column name that says it holds counts: one of these words in it (``count``, ``person_count``,
#: ``Count of persons``) …
_COUNT_WORDS = frozenset({"count", "counts", "freq", "frequency", "frequencies"})
#: … or one of these names on its own
_COUNT_NAMES = frozenset({"n", "nb", "num", "number", "pop", "population", "persons", "people", "total", "totals",
                          "value", "values"})


def _count_like(name: str) -> bool:
    seen = _seen_as(name)
    return seen in _COUNT_NAMES or bool(_COUNT_WORDS.intersection(re.split(r"[\W_]+", seen)))


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


def _wide_labels(path, header: list[str], body) -> tuple[list[str], list[str]]:
    """A wide table's row and column labels (margins included), refused if two look the same."""
    _distinct(path, "row label", [(f"line {lineno}", fields[0]) for lineno, fields in body])
    _distinct(path, "column label", [(f"column {k}", label) for k, label in enumerate(header[1:], start=2)])
    return [fields[0] for _, fields in body], header[1:]


def read_wide_table(path, counts: bool = True) -> WideTable:
    r"""A two-way integer table stored as CSV (first column = row labels, header = column labels).

    A row or column labelled as a margin (``Total``, ``Grand total``, ``Sum``, ``All``, …) is
    checked against the cells and dropped from them (it stays in the layout, so a writer
    recomputes it); where a margin row meets a margin column, the grand total must be the sum of
    the cells. Blank lines are skipped, fields are stripped and a byte-order mark is ignored.
    Labels are compared as they look: two that differ only by case, Unicode normalisation (NFKC),
    runs of spaces or invisible characters (zero-width spaces and joiners, U+FEFF, U+2060, …) are
    duplicates, and a label of invisible characters only is refused. Margins are known by their
    labels alone: an unlabelled total is read as one more category. The counts never decide
    whether a line is a margin, since a refusal that depended on them would tell something
    about the counts (two tables with the same invariants, one refused, the other released).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file: a header ``<row variable>,<column label>,…``, then one line per row: its
        label and one integer per column.
    counts : bool, default True
        Whether the entries are counts (a confidential table): a negative entry is an error.
        False reads noise tables (any sign).

    Returns
    -------
    WideTable
        The cells (int64, rows × columns, margins dropped) with the file's full layout.

    Raises
    ------
    isdp.lattice.InvariantError
        Naming the file and the offending line, row or column (never an entry's value: it may
        be a confidential count): a margin or grand total that disagrees with the cells, a line
        with too few or too many fields, a missing or invisible label, a missing or non-integer
        entry (ASCII digits 0-9 with an optional sign only: ``1_0``, ``4.0`` and non-ASCII digits
        are refused) or one beyond ±2**53, duplicate labels (both positions named), an empty
        file, a file that is not UTF-8, or (with ``counts``) the errors above.
        :func:`load_table` turns it into an :class:`~isdp.errors.InputError`.

    See Also
    --------
    load_table : Reads a release's table, wide or long.
    read_table_csv : The cells and labels only.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InvariantError
    >>> from isdp.release import read_wide_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old,Total\nFemale,3,5,8\nMale,4,2,6\n")
    ...     table = read_wide_table(path)
    ...     _ = path.write_text("sex,young,old,Total\nFemale,3,5,9\nMale,4,2,6\n")
    ...     try:
    ...         read_wide_table(path)
    ...     except InvariantError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    /.../sex_by_age.csv: margin column 'Total' does not equal the row sums of the cells (its label marks a margin: ...)
    >>> table.cells.tolist(), table.row_labels, table.col_labels
    ([[3, 5], [4, 2]], ['Female', 'Male'], ['young', 'old'])
    >>> table.all_cols
    ['young', 'old', 'Total']
    """
    return _wide_table(path, *_labelled_lines(path), counts)


def _wide_table(path, header: list[str], body, counts: bool) -> WideTable:
    rows, cols = _wide_labels(path, header, body)
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
    for i in set(range(len(rows))) - set(keep_r):  # the grand total, where a margin row meets a margin column
        for j in set(range(len(cols))) - set(keep_c):
            if values[i, j] != cells.sum():
                raise InvariantError(f"{path}: the grand total where margin row {rows[i]!r} meets margin column "
                                     f"{cols[j]!r} does not equal the sum of the cells")
    return WideTable(cells, rows, cols, keep_r, keep_c, header[0])


def read_table_csv(path, counts: bool = True):
    r"""The cells and labels of a wide CSV table, margins dropped (:func:`read_wide_table`).

    Parameters
    ----------
    path : str or os.PathLike
        A wide CSV table (:func:`read_wide_table`).
    counts : bool, default True
        Whether the entries are counts (no negative entry).

    Returns
    -------
    cells : numpy.ndarray
        The entries, int64, rows × columns, margins dropped.
    row_labels : list of str
        The category rows, in file order.
    col_labels : list of str
        The category columns, in file order.

    Raises
    ------
    isdp.lattice.InvariantError
        As :func:`read_wide_table`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import read_table_csv
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "noise.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,-1,1\nMale,1,-1\n")
    ...     cells, rows, cols = read_table_csv(path, counts=False)
    >>> cells.tolist(), rows, cols
    ([[-1, 1], [1, -1]], ['Female', 'Male'], ['young', 'old'])
    """
    table = read_wide_table(path, counts)
    return table.cells, table.row_labels, table.col_labels


@dataclass(frozen=True)
class WideTable:
    r"""A wide table: ``cells`` (rows × columns, margins dropped) and the file's full layout.

    Made by :func:`read_wide_table`; a release writes its values back into this layout
    (:meth:`with_cells`), margins recomputed.

    Parameters
    ----------
    cells : numpy.ndarray
        The counts, int64, category rows × category columns (margins dropped).
    all_rows : list of str
        Every row label in file order, margins included.
    all_cols : list of str
        Every column label after the first, margins included.
    keep_r : list of int
        Positions of the category rows in ``all_rows``.
    keep_c : list of int
        Positions of the category columns in ``all_cols``.
    corner : str
        The header's first field (the row variable's name).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import read_wide_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\nTotal,7,7\n")
    ...     table = read_wide_table(path)
    >>> table.all_rows, table.keep_r, table.row_labels
    (['Female', 'Male', 'Total'], [0, 1], ['Female', 'Male'])
    >>> table.with_cells([[2, 6], [5, 1]])
    [['sex', 'young', 'old'], ['Female', '2', '6'], ['Male', '5', '1'], ['Total', '7', '7']]
    """

    cells: np.ndarray
    all_rows: list[str]  # every row label in file order, margins included
    all_cols: list[str]  # every column label after the first, margins included
    keep_r: list[int]  # positions of the category rows in all_rows
    keep_c: list[int]
    corner: str  # the header's first field (the row variable's name)

    @property
    def row_labels(self) -> list[str]:
        """Category rows (margins dropped), in file order."""
        return [self.all_rows[i] for i in self.keep_r]

    @property
    def col_labels(self) -> list[str]:
        """Category columns (margins dropped), in file order."""
        return [self.all_cols[j] for j in self.keep_c]

    def with_cells(self, cells) -> list[list[str]]:
        """The file's layout filled with ``cells``; margin rows and columns recomputed from them.

        Parameters
        ----------
        cells : array_like of int
            The category cells, rows × columns or flattened row by row.

        Returns
        -------
        list of list of str
            The CSV's lines: the header, then each row's label and entries, margins included.
        """
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
    r"""A long table: one line per cell, key columns naming it and one count column.

    Made by :func:`read_long_table`; a release writes its values back into the count column
    (:meth:`with_cells`), every other field as read.

    Parameters
    ----------
    header : list of str
        The column names, in file order.
    lines : list of list of str
        The data lines as read (fields stripped).
    count_column : int
        The position of the count column in ``header``.
    counts : numpy.ndarray
        The counts, int64, one per line.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import read_long_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "county_sex.csv")
    ...     _ = path.write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\n")
    ...     table = read_long_table(path)
    >>> table.keys, table.key_columns, table.counts.tolist()
    ([('A', 'F'), ('A', 'M'), ('B', 'F')], [0, 1], [3, 4, 5])
    >>> table.with_cells([2, 5, 5])
    [['county', 'sex', 'count'], ['A', 'F', '2'], ['A', 'M', '5'], ['B', 'F', '5']]
    """

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
        """The file's lines with the count column replaced by ``cells``.

        Parameters
        ----------
        cells : array_like of int
            One value per line, in file order.

        Returns
        -------
        list of list of str
            The CSV's lines: the header, then each line with its new count.
        """
        out = [list(self.header)]
        for fields, v in zip(self.lines, np.asarray(cells, dtype=np.int64), strict=True):
            row = list(fields)
            row[self.count_column] = str(int(v))
            out.append(row)
        return out


#: a count as a table or a constraint file writes it: ASCII digits with an optional sign (``int``
#: would also take ``1_0``, non-ASCII digits such as Arabic-Indic ``٤`` and surrounding spaces)
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: an integer in any digits (a label that may be a count)
_WHOLE = re.compile(r"[+-]?\d+")
#: a number with a fraction or an exponent (in any digits)
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _not_integer(text: str) -> str:
    """What is wrong with an entry that is not an integer, without quoting it (it may be a
    confidential count)."""
    if not text:
        return "empty"
    if any(ch.isdigit() and not "0" <= ch <= "9" for ch in text):
        return "digits other than ASCII 0-9"
    if _DECIMAL.fullmatch(text):
        return "a fraction or an exponent"
    if re.fullmatch(r"[+-]?[0-9]+([_,' ][0-9]+)+", text):
        return "digits grouped with a separator"
    return "not a number"


def _integer(text: str) -> int | None:
    """``text`` as an integer if it is ASCII digits with an optional sign, else None.

    A number of more than 4,000 digits (leading zeros aside: ``int`` refuses strings of over
    4,300) reads as ±10**4000, beyond every limit and every value an invariant can take.
    """
    if not _INTEGER.fullmatch(text):
        return None
    if len(text.lstrip("+-").lstrip("0")) > 4000:
        return -(10**4000) if text.startswith("-") else 10**4000
    return int(text)


def _count(path, where: str, text: str, counts: bool) -> int:
    """An entry as an integer; the message of a refusal never quotes it (it may be a count)."""
    v = _integer(text)
    if v is None:
        raise InvariantError(f"{path}: {where}: not an integer{' count' if counts else ''} ({_not_integer(text)}; "
                             f"{'counts' if counts else 'entries'} are ASCII digits 0-9 with an optional sign)")
    if abs(v) > COUNT_LIMIT:
        raise InvariantError(f"{path}: {where}: the entry is too large (beyond ±2**53)")
    if counts and v < 0:
        raise InvariantError(f"{path}: {where}: negative count")
    return v


def read_long_table(path, count_column: str = "count", counts: bool = True) -> LongTable:
    r"""A long table: a header, then one line per cell; ``count_column`` holds the integer count.

    Every other column is a key, published unchanged as labels; each key must be non-empty, not
    labelled as a margin (a field such as ``Total``, ``Sum`` or ``All``, as
    :func:`read_wide_table` recognises them: a long table lists cells, not their totals) and
    unique, keys compared as they look (ignoring case, Unicode normalisation, runs of spaces and
    invisible characters: :func:`read_wide_table`). A key column is refused when its name says it
    holds counts — ``count``, ``counts``, a name with the word ``count``, ``freq`` or
    ``frequency`` (``person_count``), or one of ``n``, ``nb``, ``num``, ``number``, ``pop``,
    ``population``, ``persons``, ``people``, ``total``, ``totals``, ``value``, ``values`` — and
    every entry in it is an integer: its counts would be published as labels (``state,fips,count``
    read with ``count_column="fips"``). Numeric keys named otherwise (``year``, ``fips``, a
    census variable) are accepted.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.
    count_column : str, default "count"
        The name of the count column (matched as names look: ignoring case, Unicode
        normalisation and invisible characters).
    counts : bool, default True
        Whether the entries are counts: a negative one is an error. False reads any sign.

    Returns
    -------
    LongTable
        The lines, the count column's position and the counts (int64).

    Raises
    ------
    isdp.lattice.InvariantError
        Naming the file and line (never a count's value): no count column, a header that repeats
        a column name, an empty or invisible key field, a key labelled as a margin, a repeated key
        (both lines named), a key column that holds counts (above), a non-integer (ASCII digits
        0-9 with an optional sign only), too large (beyond ±2**53) or (with ``counts``) negative count, ragged lines, an
        empty or non-UTF-8 file. :func:`load_table` turns it into an
        :class:`~isdp.errors.InputError`.

    See Also
    --------
    load_table : Reads a release's table, wide or long.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InvariantError
    >>> from isdp.release import read_long_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "county_sex.csv")
    ...     _ = path.write_text("county,sex,n\nA,F,3\nA,M,4\nB,F,5\n")
    ...     table = read_long_table(path, count_column="n")
    ...     _ = path.write_text("county,sex,count\nA,F,3\na,f,4\n")
    ...     try:
    ...         read_long_table(path)
    ...     except InvariantError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    /.../county_sex.csv: line 3: duplicate cell ('a', 'f'), as ('A', 'F') at line 2 (labels are compared ignoring case)
    >>> table.keys, table.counts.tolist()
    ([('A', 'F'), ('A', 'M'), ('B', 'F')], [3, 4, 5])
    """
    header, body = _labelled_lines(path)
    return _long_table(path, header, body, _count_column(path, header, count_column), counts)


def _long_table(path, header: list[str], body, c: int, counts: bool) -> LongTable:
    _long_keys(path, header, body, c)
    values = [_count(path, f"line {lineno}, column {header[c]!r}", fields[c], counts) for lineno, fields in body]
    return LongTable(header, [fields for _, fields in body], c, np.array(values, dtype=np.int64))


def _long_keys(path, header: list[str], body, c: int) -> list[tuple[str, ...]]:
    """Each line's key (its fields but the count column ``c``), checked: no empty field, no two keys
    that look the same, no key column that holds counts. The count column is never read."""
    keys = []
    for lineno, fields in body:
        key = tuple(f for k, f in enumerate(fields) if k != c)
        if not all(key):
            empty = next(header[k] for k, f in enumerate(fields) if k != c and not f)
            raise InvariantError(f"{path}: line {lineno}: a key field is empty (column {empty!r})")
        margin = next((header[k] for k, f in enumerate(fields) if k != c and _is_margin(f)), None)
        if margin is not None:
            raise InvariantError(
                f"{path}: line {lineno}: the key in column {margin!r} is labelled as a margin (Total, Sum, All, …): "
                "a long table lists cells only, each counted once, so a total line would be released as one more "
                "cell. Remove the line (the released cells give every total), or rename the key if it is a category")
        keys.append(key)
    _distinct(path, "cell", [(f"line {lineno}", key) for (lineno, _), key in zip(body, keys, strict=True)])
    for k, name in enumerate(header):
        if k != c and _count_like(name) and all(_WHOLE.fullmatch(_seen_as(v)) for v in {f[k] for _, f in body}):
            raise InvariantError(
                f"{path}: column {k + 1}, {name!r}, is named like a count column and holds only integers, but it is "
                f"read as a key (the count column is {header[c]!r}), so its entries would be published unchanged "
                f"as labels. If it holds the counts, name it as the count column (--count-column {name}); if it "
                "is a key, rename it (a key may not be called count, counts, n, number, total, persons, "
                "population, value, … when all its entries are integers)")
    return keys


def read_table_keys(path, count_column: str | None = None) -> list[tuple[str, ...]]:
    r"""Each cell's key, from the labels alone: no count is parsed (a dry run's view of a table).

    Parameters
    ----------
    path : str or os.PathLike
        A wide or long CSV table.
    count_column : str or None, default None
        None reads a wide table: (row, column) for every category row and column, margins
        skipped. A name reads a long table: the key fields of every line, that column left out.

    Returns
    -------
    list of tuple of str
        Each cell's key, in the table's order (row by row for a wide table).

    Raises
    ------
    isdp.lattice.InvariantError
        An unreadable file, ragged lines, a missing label or count column, and every check of
        the labels that :func:`read_wide_table` and :func:`read_long_table` make (duplicates,
        invisible labels, a key column that holds counts).

    See Also
    --------
    load_table : With ``labels_only=True``, a dry run's table.

    Examples
    --------
    The counts are never parsed, so a file whose cells are ``?`` has the same keys:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import read_table_keys
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old,Total\nFemale,?,?,?\nMale,?,?,?\n")
    ...     print(read_table_keys(path))
    [('Female', 'young'), ('Female', 'old'), ('Male', 'young'), ('Male', 'old')]
    """
    header, body = _labelled_lines(path)
    if count_column is None:
        rows, cols = _wide_labels(path, header, body)
        return [(r, c) for r in rows if not _is_margin(r) for c in cols if not _is_margin(c)]
    return _long_keys(path, header, body, _count_column(path, header, count_column))


def _count_column(path, header: list[str], count_column: str) -> int:
    """The count column's position (names compared as they look: :func:`_seen_as`); a header
    with a repeated column name is refused (a second count column would be read as a key, and its
    counts published as labels)."""
    names = [_seen_as(h) for h in header]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise InvariantError(f"{path}: the header repeats the column {header[k]!r} (columns "
                                 f"{names.index(name) + 1} and {k + 1}): which one holds the counts?")
    if _seen_as(count_column) not in names:
        raise InvariantError(f"{path}: no count column {count_column!r} in the header {header}")
    return names.index(_seen_as(count_column))


# --------------------------------------------------------------------------- a release's tables


@dataclass(frozen=True)
class Table:
    r"""A confidential table as a vector of counts with one label per cell and per key.

    What a release draws on, whatever the file's layout: made by :func:`load_table`.

    Parameters
    ----------
    path : pathlib.Path
        The file read.
    x : numpy.ndarray or None
        The counts, int64, shape (n,) for n cells (row by row for a wide table); None for a
        table read for a dry run (its labels only).
    keys : list of tuple of str
        Each cell's key: (row, column) for a wide table, the key fields for a long one.
    layout : WideTable or LongTable or None
        The file's layout, into which a release is written; None for a dry run's table.
    key_names : tuple of str, default ("row", "column")
        The key columns' names: a long table's header without its count column; ``row`` and
        ``column`` for a wide one. ``by:NAME`` invariants and ties name them.

    See Also
    --------
    TableSet : Several tables of the same persons released together.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "county_sex.csv")
    ...     _ = path.write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\n")
    ...     table = load_table(path)
    >>> table.x.tolist(), table.key_names, table.cell_labels
    ([3, 4, 5], ('county', 'sex'), ['A|F', 'A|M', 'B|F'])
    >>> table.with_cells([2, 5, 5])[1:]
    [['A', 'F', '2'], ['A', 'M', '5'], ['B', 'F', '5']]
    """

    path: Path
    x: np.ndarray | None  # int64 (n,)
    keys: list[tuple[str, ...]]  # each cell's key (row, column) for wide tables
    layout: WideTable | LongTable | None
    key_names: tuple[str, ...] = ("row", "column")  # a long table's key column names

    @cached_property
    def cell_labels(self) -> list[str]:
        """``key1|key2|…`` per cell: the names of cells in constraint files and statements.

        Returns
        -------
        list of str
            One label per cell, in the order of ``x``.
        """
        return ["|".join(k) for k in self.keys]

    def with_cells(self, cells) -> list[list[str]]:
        """The input's layout filled with ``cells``.

        Parameters
        ----------
        cells : array_like of int
            One value per cell, in the order of ``x``.

        Returns
        -------
        list of list of str
            The CSV's lines in the input's layout (wide margins recomputed from ``cells``).
        """
        return self.layout.with_cells(cells)


#: a label that reads as a number (in any digits): in a wide table read with ``--format auto`` it
#: may be a count (a file without a header row or without a row-label column), which must never be
#: published
_NUMBER_RE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _numeric_labels(path, header: list[str], body) -> None:
    """Refuse a wide table (read with ``--format auto``) whose row or column label reads as a number,
    naming its position only: the label may be a count."""
    hint = ("and a count read as a label would be published unchanged; if the labels are right, say so with "
            "--format wide")
    for k, label in enumerate(header[1:], start=2):
        if _NUMBER_RE.fullmatch(_seen_as(label)):
            raise InputError(f"{path}: the label of column {k} is a number: the file may have no header row, {hint}")
    for lineno, fields in body:
        if _NUMBER_RE.fullmatch(_seen_as(fields[0])):
            raise InputError(f"{path}: the row label on line {lineno} is a number: the file may have no row-label "
                             f"column, {hint}")


def _layout(path, header: list[str], body, fmt: str, count_column: str) -> str:
    """``long`` or ``wide``: ``fmt`` if it says, else decided from the header as the CSV reader
    reads it (quotes, blank lines and a byte-order mark as in the table's own reading), refusing
    what could be either."""
    if fmt != "auto":
        return fmt
    names = [_seen_as(h) for h in header]
    if _seen_as(count_column) in names:
        return "long"
    if _seen_as(count_column) != "count":
        raise InputError(f"{path}: --count-column names {count_column!r}, and the header ({', '.join(header)}) has "
                         "no such column: give the count column's name as the header writes it, or pass "
                         "--format wide if the table is wide")
    for k, name in enumerate(header[1:], start=2):  # (a count column first gives numeric row labels, below)
        if _count_like(name) and not _is_margin(name):
            raise InputError(f"{path}: column {k}, {name!r}, is named like the count column of a long table, but "
                             f"the header has no column 'count': pass --count-column {name} if the table is long "
                             f"(one line per cell), or --format wide if {name!r} is a category of a wide table")
    _numeric_labels(path, header, body)
    return "wide"


def load_table(path, fmt: str = "auto", count_column: str = "count", labels_only: bool = False) -> Table:
    r"""Read a wide or long CSV table of non-negative integer counts (``fmt``: auto, wide or long).

    What ``isdp release TABLE`` reads. ``auto`` reads the header as the CSV reader does (quoted
    names, a blank first line, a byte-order mark) and decides:

    - a header with a column named ``count_column`` (compared as the names look: ignoring case,
      Unicode normalisation and invisible characters) is a long table;
    - else, with ``count_column`` other than ``count``, the file is refused: the option would be
      ignored (say ``wide`` if the table is wide);
    - else a header with a column after the first named like a long table's count column
      (``counts``, ``n``, ``freq``, ``persons``, ``value``, …; not ``Total``, a margin) is
      refused: it could be either layout;
    - else the table is wide, and it is refused when a row or column label reads as a number (it
      may be a count: a file without a header row or without a row-label column).

    ``wide`` and ``long`` skip these checks. Every reading refuses labels that look the same
    (:func:`read_wide_table`, :func:`read_long_table`), and a long table's key column named like
    a count column whose every entry is an integer (it would publish counts as labels).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (:func:`read_wide_table`, :func:`read_long_table`).
    fmt : {"auto", "wide", "long"}, default "auto"
        The layout.
    count_column : str, default "count"
        A long table's count column (matched as :func:`read_long_table` matches it). Under
        ``auto``, a name other than ``count`` that the header lacks is refused.
    labels_only : bool, default False
        Read the labels only (a dry run): no count is parsed, and ``x`` and ``layout`` are None.
        The labels are checked as in a full reading.

    Returns
    -------
    Table
        The counts as one vector with a key per cell, and the file's layout.

    Raises
    ------
    isdp.errors.InputError
        A missing or unreadable file, anything :func:`read_wide_table` or
        :func:`read_long_table` refuses, a layout ``fmt="auto"`` cannot decide (above), or a
        label containing ``|`` (it joins a cell's keys). No message quotes a count.
    isdp.errors.UsageError
        An unknown ``fmt``.

    See Also
    --------
    TableSet.of : Several tables released together.
    isdp.release.constraint_matrix : The invariants of a table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InputError
    >>> from isdp.release import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old,Total\nFemale,3,5,8\nMale,4,2,6\n")
    ...     table = load_table(path)
    ...     _ = path.write_text("sex,20,21\nFemale,3,5\nMale,4,2\n")
    ...     try:
    ...         load_table(path)
    ...     except InputError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    ...     print(load_table(path, fmt="wide").cell_labels)
    /.../sex_by_age.csv: the label of column 2 is a number: the file may have no header row, ...
    ['Female|20', 'Female|21', 'Male|20', 'Male|21']
    >>> table.x.tolist(), table.keys[:2]
    ([3, 5, 4, 2], [('Female', 'young'), ('Female', 'old')])

    A header quoted as R's ``write.csv`` writes it is a long table's:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "state_year.csv")
    ...     _ = path.write_text('"state","year","count"\n"A",2019,5\n"A",2020,7\n')
    ...     table = load_table(path)
    >>> table.key_names, table.keys, table.x.tolist()
    (('state', 'year'), [('A', '2019'), ('A', '2020')], [5, 7])
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    if fmt not in ("auto", "long", "wide"):
        raise UsageError(f"unknown table format {fmt!r}: auto, wide or long")
    try:
        header, body = _labelled_lines(path)
        chosen = _layout(path, header, body, fmt, count_column)
        if chosen == "long":
            c = _count_column(path, header, count_column)
            names = tuple(h for k, h in enumerate(header) if k != c)
            if labels_only:
                table = Table(path, None, _long_keys(path, header, body, c), None, names)
            else:
                long = _long_table(path, header, body, c, True)
                table = Table(path, long.counts, long.keys, long, names)
        elif labels_only:
            rows, cols = _wide_labels(path, header, body)
            table = Table(path, None, [(r, c) for r in rows if not _is_margin(r) for c in cols if not _is_margin(c)],
                          None)
        else:
            wide = _wide_table(path, header, body, True)
            table = Table(path, wide.cells.ravel(), [(r, c) for r in wide.row_labels for c in wide.col_labels], wide)
    except InvariantError as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the table ({err.strerror or err})") from None
    for key in table.keys:
        if any("|" in field for field in key):
            raise InputError(f"{path}: the label {next(f for f in key if '|' in f)!r} contains '|', which joins a "
                             "cell's keys in constraint files and statements (two cells could get one name)")
    return table


@dataclass(frozen=True)
class TableSet:
    r"""Several tables released together, as one vector of their cells in order.

    The same persons are counted in each table, at most once per table; each cell is labelled
    ``NAME|key…`` with NAME its file's stem. Made by :meth:`of`; :func:`isdp.release.make_release`
    draws one noise vector for all of them under one statement.

    Parameters
    ----------
    tables : tuple of Table
        The tables, in the order given.
    names : tuple of str
        Their names (the files' stems), distinct.

    See Also
    --------
    isdp.release.constraint_matrix : Families per table, and the ties between them.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import TableSet, load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "county.csv").write_text("county,count\nA,7\nB,5\n")
    ...     _ = Path(tmp, "county_sex.csv").write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\nB,M,0\n")
    ...     tables = TableSet.of([load_table(Path(tmp, "county.csv")), load_table(Path(tmp, "county_sex.csv"))])
    >>> tables.names, tables.x.tolist()
    (('county', 'county_sex'), [7, 5, 3, 4, 5, 0])
    >>> tables.cell_labels[:3], [g.tolist() for g in tables.groups]
    (['county|A', 'county|B', 'county_sex|A|F'], [[0, 1], [2, 3, 4, 5]])
    """

    tables: tuple[Table, ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, tables: list[Table]) -> TableSet:
        """Tables released together, named by their files' stems.

        Parameters
        ----------
        tables : list of Table
            The tables, in order (as :func:`load_table` reads them).

        Returns
        -------
        TableSet
            The tables and their names.

        Raises
        ------
        isdp.errors.UsageError
            Two files with the same stem (their names would collide in invariants and statements).
        """
        names = tuple(t.path.stem for t in tables)
        if len(set(names)) < len(names):
            raise UsageError(f"tables released together need distinct file names (their stems name them in "
                             f"invariants and statements): {', '.join(names)}")
        return cls(tuple(tables), names)

    @property
    def path(self) -> str:
        """The tables' paths joined by `` + `` (for messages)."""
        return " + ".join(str(t.path) for t in self.tables)

    @cached_property
    def x(self) -> np.ndarray | None:
        """The counts of every table, concatenated in order (int64); None for a dry run's tables."""
        return None if self.tables[0].x is None else np.concatenate([t.x for t in self.tables])

    @cached_property
    def keys(self) -> list[tuple[str, ...]]:
        """Each cell's key, its table's name first: ``(NAME, key…)``."""
        return [(name, *k) for name, t in zip(self.names, self.tables, strict=True) for k in t.keys]

    @cached_property
    def cell_labels(self) -> list[str]:
        """``NAME|key…`` per cell: the names of cells in constraint files and statements."""
        return ["|".join(k) for k in self.keys]

    @cached_property
    def groups(self) -> list[np.ndarray]:
        """Each table's cells in the joint vector.

        Returns
        -------
        list of numpy.ndarray
            One array of positions in ``x`` per table, in order.
        """
        ends = np.cumsum([len(t.keys) for t in self.tables])
        return [np.arange(end - len(t.keys), end) for t, end in zip(self.tables, ends, strict=True)]

    def position(self, name: str) -> int:
        """The position of the table called ``name``.

        Parameters
        ----------
        name : str
            A table's name (its file's stem), as ``FAMILY@NAME`` gives it.

        Returns
        -------
        int
            Its position in ``tables``.

        Raises
        ------
        isdp.errors.UsageError
            No table has that name.
        """
        if name not in self.names:
            raise UsageError(f"no table called {name!r}: the tables are {', '.join(self.names)} (their file stems)")
        return self.names.index(name)
