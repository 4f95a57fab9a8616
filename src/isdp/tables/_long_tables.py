"""The long layout of a table file: a header, then one line per cell, key columns naming it and one count column.

The keys are published as labels: they are refused when empty, labelled as a margin, alike, or
counts in a column named like a count column (:func:`read_long_table`), naming the line, never
quoting a count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._validate import COUNT_LIMIT
from ..errors import InvariantError, UsageError
from ._entries import _WHOLE, _count
from ._labels import _count_like, _distinct, _is_margin, _labelled_lines, _seen_as


@dataclass(frozen=True)
class LongTable:
    r"""A long table: one line per cell, key columns naming it and one count column.

    Made by :func:`read_long_table`; a release writes its values back into the count column
    (:meth:`with_cells`), every other field as read.

    Parameters
    ----------
    header : list of str
        The column names, in file order.
    lines : list of list of str or None
        The data lines as read (fields stripped); None for a Parquet table read a column at a time,
        whose lines are made from ``source`` when asked (:meth:`rows`).
    count_column : int
        The position of the count column in ``header``.
    counts : numpy.ndarray
        The counts, int64, one per line.
    source : pyarrow.Table or None, default None
        A Parquet table's rows as read (:mod:`isdp.tables._parquet_tables`), whose schema a
        Parquet release keeps; None for a CSV table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables._long_tables import read_long_table
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
    lines: list[list[str]] | None  # the data lines as read (fields stripped); None: made from `source`
    count_column: int
    counts: np.ndarray  # int64, one per line
    source: object = None  # a Parquet table's pyarrow Table, written back with the released counts

    @property
    def key_columns(self) -> list[int]:
        """Positions of the key columns."""
        return [k for k in range(len(self.header)) if k != self.count_column]

    @property
    def keys(self) -> list[tuple[str, ...]]:
        """Each cell's key, in file order."""
        columns = self.key_columns
        return [tuple(fields[k] for k in columns) for fields in self.rows()]

    def rows(self) -> list[list[str]]:
        """Return the data lines, fields as text.

        A Parquet table's are made from its rows, as :func:`parquet_lines` reads them.

        Returns
        -------
        list of list of str
            One list of fields per cell, in file order.
        """
        if self.lines is not None:
            return self.lines
        from ._parquet_tables import parquet_lines  # here: only a Parquet table read a column at a time needs it

        return [fields for _, fields in parquet_lines("", self.source, self.count_column)[1]]

    def with_cells(self, cells) -> list[list[str]]:
        """Return the file's lines with the count column replaced by ``cells``.

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
        c = self.count_column
        for fields, v in zip(self.rows(), map(str, np.asarray(cells, dtype=np.int64).tolist()), strict=True):
            row = list(fields)
            row[c] = v
            out.append(row)
        return out


def read_long_table(path, count_column: str = "count", counts: bool = True) -> LongTable:
    r"""Return a long table: a header, then one line per cell; ``count_column`` holds the integer count.

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
    isdp.errors.InvariantError
        Naming the file and line (never a count's value): no count column, a header that repeats
        a column name, an empty or invisible key field, a key labelled as a margin, a repeated key
        (both lines named), a key column that holds counts (above), a non-integer (ASCII digits
        0-9 with an optional sign only), too large (beyond ±2**53) or (with ``counts``) negative count, ragged lines, an
        empty, missing or non-UTF-8 file. :func:`load_table` turns it into an
        :class:`~isdp.errors.InputError`.
    isdp.errors.UsageError
        A ``count_column`` that is not text.

    See Also
    --------
    load_table : Reads a release's table, wide or long.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InvariantError
    >>> from isdp.tables._long_tables import read_long_table
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
    return _long_table_and_keys(path, header, body, _count_column(path, header, count_column), counts)[0]


def _long_table_and_keys(
    path, header: list[str], body, c: int, counts: bool
) -> tuple[LongTable, list[tuple[str, ...]]]:
    """Return the table and its keys (:attr:`LongTable.keys`, found once by the checks)."""
    keys = _long_keys(path, header, body, c)
    values: np.ndarray | list[int] | None = _plain_counts([fields[c] for _, fields in body], counts)
    if values is None:  # some entry is refused: read one by one, for the message naming its line
        values = [_count(path, f"line {lineno}, column {header[c]!r}", fields[c], counts) for lineno, fields in body]
    return LongTable(header, [fields for _, fields in body], c, np.array(values, dtype=np.int64)), keys


#: a column of counts joined by NUL, every one ASCII digits with an optional sign, at most 16 digits (below 2**63)
_PLAIN_COUNTS = re.compile(r"[+-]?[0-9]{1,16}(?:\x00[+-]?[0-9]{1,16})*")
#: a margin's label anywhere in a column joined by NUL (:data:`isdp.tables._labels._MARGIN_RE`, at each label)
_MARGIN_IN_COLUMN = re.compile(
    r"\b(total|totals|subtotal|sum|sums|overall|margin|margins)\b|(?:^|(?<=\x00))all\b", re.I
)


#: every margin's label contains one of these (lower case): a column without them needs no regular expression
_MARGIN_WORDS = ("total", "sum", "overall", "margin", "all")


def _plain_counts(column: list[str], counts: bool) -> np.ndarray | None:
    """Return the column's counts when every entry passes :func:`_count`, else None.

    :func:`_count` is a C-speed check of the whole column; on None the caller reads the entries one by one for
    the refusal's message.
    """
    joined = "\x00".join(column)
    if joined.count("\x00") != len(column) - 1 or not _PLAIN_COUNTS.fullmatch(joined):
        return None
    values = np.fromiter(map(int, column), dtype=np.int64, count=len(column))
    if np.abs(values).max() > COUNT_LIMIT or (counts and values.min() < 0):
        return None
    return values


def _plain_keys(columns: list[tuple[str, ...]]) -> list[tuple[str, ...]] | None:
    """Return the keys when every key column is plain.

    Printable ASCII, no empty field, no margin's label — and no two keys look alike (lower case, runs of spaces as one:
    :func:`_seen_as` on printable ASCII), checked at C speed a column at a time; else None (the caller checks line by
    line, for the refusal's message).
    """
    seen = []
    for column in columns:
        joined = "\x00".join(column)
        if (
            not all(column)
            or joined.count("\x00") != len(column) - 1
            or not joined.isascii()
            or not joined.replace("\x00", " ").isprintable()
        ):
            return None
        lower = joined.lower()
        if any(word in lower for word in _MARGIN_WORDS) and _MARGIN_IN_COLUMN.search(joined):
            return None
        seen.append(re.sub(" {2,}", " ", lower).split("\x00"))  # fields are stripped already
    keys = list(zip(*columns, strict=True))
    if len(set(zip(*seen, strict=True))) != len(keys):
        return None
    return keys


def _long_keys(path, header: list[str], body, c: int) -> list[tuple[str, ...]]:
    """Each line's key (its fields but the count column ``c``), checked.

    No empty field, no two keys that look the same, no key column that holds counts. The count column is never read.
    """
    fields = list(zip(*(f for _, f in body), strict=True))
    keys = _plain_keys([column for k, column in enumerate(fields) if k != c])
    if keys is not None:  # every line passes the checks below, made a column at a time
        _count_columns(path, header, body, c)
        return keys
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
                "cell. Remove the line (the released cells give every total), or rename the key if it is a category"
            )
        keys.append(key)
    _distinct(path, "cell", [(f"line {lineno}", key) for (lineno, _), key in zip(body, keys, strict=True)])
    _count_columns(path, header, body, c)
    return keys


def _count_columns(path, header: list[str], body, c: int) -> None:
    """Refuse a key column named like a count column whose entries are all integers."""
    for k, name in enumerate(header):
        if k != c and _count_like(name) and all(_WHOLE.fullmatch(_seen_as(v)) for v in {f[k] for _, f in body}):
            raise InvariantError(
                f"{path}: column {k + 1}, {name!r}, is named like a count column and holds only integers, but it is "
                f"read as a key (the count column is {header[c]!r}), so its entries would be published unchanged "
                f"as labels. If it holds the counts, name it as the count column (--count-column {name}); if it "
                "is a key, rename it (a key may not be called count, counts, n, number, total, persons, "
                "population, value, … when all its entries are integers)"
            )


def column_name(count_column) -> str:
    """``count_column`` when it is a column's name (text), else a :class:`~isdp.errors.UsageError` naming it."""
    if not isinstance(count_column, str):
        raise UsageError(
            f"count_column must be a column's name (str), got {type(count_column).__name__}", "count_column"
        )
    return count_column


def _count_column(path, header: list[str], count_column: str) -> int:
    """Return the count column's position (names compared as they look: :func:`_seen_as`).

    A header with a repeated column name is refused (a second count column would be read as a key, and its counts
    published as labels), and so is one without a key column.
    """
    column_name(count_column)
    names = [_seen_as(h) for h in header]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise InvariantError(
                f"{path}: the header repeats the column {header[k]!r} (columns "
                f"{names.index(name) + 1} and {k + 1}): which one holds the counts?"
            )
    if _seen_as(count_column) not in names:
        raise InvariantError(f"{path}: no count column {count_column!r} in the header {header}")
    if len(names) < 2:
        raise InvariantError(
            f"{path}: no key column: the table has its count column {count_column!r} only, and a "
            "long table names each cell by its key columns (one line per cell)"
        )
    return names.index(_seen_as(count_column))
