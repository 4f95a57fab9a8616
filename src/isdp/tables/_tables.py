"""A release's tables.

One vector of counts with a label per cell, whatever the file's layout (:func:`load_table` reads it, deciding wide or
long), and several tables of the same persons released together (:class:`TableSet`).

A table a release cannot use is an :class:`~isdp.errors.InputError` (exit 3) naming the file,
line, row or column, never quoting a count: what the wide and long readers refuse
(:func:`read_wide_table`, :func:`read_long_table`), and a layout ``--format auto`` cannot decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from .._parquet_files import is_parquet
from .._validate import COUNT_LIMIT
from ..errors import InputError, InvariantError, UsageError
from ._entries import _DECIMAL
from ._key_columns import CellLabels, KeyColumns
from ._labels import _count_like, _is_margin, _labelled_lines, _seen_as, table_path
from ._long_tables import LongTable, _count_column, _long_keys, _long_table_and_keys, column_name
from ._parquet_tables import parquet_lines, plain_columns, read_parquet_arrow
from ._wide_tables import WideTable, _wide_labels, _wide_table


@dataclass(frozen=True)
class Table:
    r"""A confidential table as a vector of counts with one label per cell and per key.

    What a release draws on, whatever the file's layout: made by :func:`load_table`.

    Parameters
    ----------
    path : pathlib.Path
        The file read.
    x : array_like or None
        The counts, shape (n,) for n cells (row by row for a wide table), held as int64; None for
        a table read for a dry run (its labels only). Checked as the command line reads a table
        (:func:`table_counts`): an integer dtype (a float is refused even when whole), no missing
        value, each in [0, 2**53].
    keys : list of tuple of str or KeyColumns
        Each cell's key: (row, column) for a wide table, the key fields for a long one (held a
        column at a time for a Parquet table read so: :class:`~isdp.tables._key_columns.KeyColumns`).
    layout : WideTable or LongTable or None
        The file's layout, into which a release is written; None for a dry run's table.
    key_names : tuple of str, default ("row", "column")
        The key columns' names: a long table's header without its count column; ``row`` and
        ``column`` for a wide one. ``by:NAME`` invariants and ties name them.

    Raises
    ------
    isdp.errors.InputError
        Counts that are not one integer in [0, 2**53] per cell (:func:`table_counts`).

    See Also
    --------
    TableSet : Several tables of the same persons released together.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import load_table
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
    keys: list[tuple[str, ...]] | KeyColumns  # each cell's key (row, column) for wide tables
    layout: WideTable | LongTable | None
    key_names: tuple[str, ...] = ("row", "column")  # a long table's key column names

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))
        if self.x is not None:  # the counts as the command line reads them, whoever made the table
            object.__setattr__(self, "x", table_counts(self.path, self.x, len(self.keys)))

    @cached_property
    def cell_labels(self) -> list[str] | CellLabels:
        """``key1|key2|…`` per cell: the names of cells in constraint files and statements.

        Returns
        -------
        list of str or CellLabels
            One label per cell, in the order of ``x`` (made when read where the keys are held a
            column at a time).
        """
        if isinstance(self.keys, KeyColumns):  # a large table's labels, made when read
            return CellLabels(self.keys)
        return ["|".join(k) for k in self.keys]

    def with_cells(self, cells) -> list[list[str]]:
        """Return the input's layout filled with ``cells``.

        Parameters
        ----------
        cells : array_like of int
            One value per cell, in the order of ``x``.

        Returns
        -------
        list of list of str
            The CSV's lines in the input's layout (wide margins recomputed from ``cells``).

        Raises
        ------
        isdp.errors.UsageError
            A table read for a dry run (its labels only), which holds no layout to fill.
        """
        if self.layout is None:
            raise UsageError(f"{self.path}: the table was read for its labels only (a dry run): no layout to fill")
        return self.layout.with_cells(cells)


def table_counts(path, x, cells: int) -> np.ndarray:
    """``x`` as a table's counts (int64), read as strictly as the command line reads a table's.

    A count is an entry of an integer dtype (a NumPy integer array, uint64 included, or a pandas
    ``Int64`` column without a missing value), non-negative and at most 2**53, one per cell. A
    float is refused even when whole (a CSV count ``4.0`` and a Parquet column of doubles are
    refused too), and so are booleans, objects and missing values.

    Parameters
    ----------
    path : str or os.PathLike
        The table's path (for messages).
    x : array_like
        The counts.
    cells : int
        The number of cells (keys) they must match.

    Returns
    -------
    numpy.ndarray
        The counts as int64, shape (cells,).

    Raises
    ------
    isdp.errors.InputError
        Naming what is wrong (never a count's value).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.errors import InputError
    >>> from isdp.tables._tables import table_counts
    >>> table_counts("t.csv", np.array([3, 4], dtype=np.uint64), 2).dtype
    dtype('int64')
    >>> try:
    ...     table_counts("t.csv", np.array([3.0, 4.0]), 2)
    ... except InputError as err:
    ...     print(err)
    t.csv: the counts (x) must be of an integer dtype, got float64 (a count is an integer, not a float)
    """
    try:
        counts = np.asarray(x)  # a pandas Int64 column reads as int64, or as objects when it has a missing value
    except (TypeError, ValueError) as err:  # ragged nested sequences
        raise InputError(f"{path}: the counts (x) must be a one-dimensional array of integers ({err})") from None
    if (counts.dtype == object and any(_missing(v) for v in counts.ravel().tolist())) or (
        counts.dtype.kind == "f" and np.isnan(counts).any()
    ):  # pandas reads a missing Int64 as NaN
        raise InputError(f"{path}: the counts (x) have a missing value: every cell needs a count")
    if counts.dtype == bool or not np.issubdtype(counts.dtype, np.integer):
        raise InputError(
            f"{path}: the counts (x) must be of an integer dtype, got {counts.dtype}"
            f"{' (a count is an integer, not a float)' if counts.dtype.kind == 'f' else ''}"
        )
    if counts.ndim != 1 or counts.shape[0] != cells:
        raise InputError(f"{path}: the counts (x) must be one per cell ({cells}), got shape {counts.shape}")
    if counts.size and counts.min() < 0:
        raise InputError(f"{path}: the counts (x) include a negative count (cell {int(np.argmax(counts < 0))})")
    if counts.size and counts.max() > COUNT_LIMIT:
        cell = int(np.argmax(counts > COUNT_LIMIT))
        raise InputError(
            f"{path}: the counts (x) include one beyond 2**53 (cell {cell}): counts must be exact in "
            "int64 and float arithmetic"
        )
    return counts.astype(np.int64, copy=False)


def _missing(value) -> bool:
    """Whether an entry of an object array is missing: None, pandas' NA or a NaN."""
    return value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and value != value)


def _numeric_labels(path, header: list[str], body) -> None:
    """Refuse a wide table (read with ``--format auto``) whose row or column label reads as a number.

    The refusal names its position only: the label may be a count.
    """
    hint = (
        "and a count read as a label would be published unchanged; if the labels are right, say so with --format wide"
    )
    for k, label in enumerate(header[1:], start=2):
        if _DECIMAL.fullmatch(_seen_as(label)):
            raise InputError(f"{path}: the label of column {k} is a number: the file may have no header row, {hint}")
    for lineno, fields in body:
        if _DECIMAL.fullmatch(_seen_as(fields[0])):
            raise InputError(
                f"{path}: the row label on line {lineno} is a number: the file may have no row-label column, {hint}"
            )


def _layout(path, header: list[str], body, fmt: str, count_column: str) -> str:
    """``long`` or ``wide``.

    ``fmt`` if it says, else decided from the header as the CSV reader reads it (quotes, blank lines and a byte-order
    mark as in the table's own reading), refusing what could be either.
    """
    if fmt != "auto":
        return fmt
    names = [_seen_as(h) for h in header]
    if _seen_as(count_column) in names:
        return "long"
    if _seen_as(count_column) != "count":
        raise InputError(
            f"{path}: --count-column names {count_column!r}, and the header ({', '.join(header)}) has "
            "no such column: give the count column's name as the header writes it, or pass "
            "--format wide if the table is wide"
        )
    for k, name in enumerate(header[1:], start=2):  # (a count column first gives numeric row labels, below)
        if _count_like(name) and not _is_margin(name):
            raise InputError(
                f"{path}: column {k}, {name!r}, is named like the count column of a long table, but "
                f"the header has no column 'count': pass --count-column {name} if the table is long "
                f"(one line per cell), or --format wide if {name!r} is a category of a wide table"
            )
    _numeric_labels(path, header, body)
    return "wide"


def load_table(path, fmt: str = "auto", count_column: str = "count", labels_only: bool = False) -> Table:
    r"""Read a wide or long CSV table, or a long Parquet table, of non-negative integer counts.

    ``fmt`` is auto, wide or long.

    A path ending in ``.parquet``, or a directory (its ``.parquet`` files read as one table, in the
    order of their names), is a Parquet table: always long, its count column of an integer type,
    its rows checked as a long CSV table's lines are, and numbered as they would be in CSV (the
    first row is line 2).

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
        The CSV file (:func:`read_wide_table`, :func:`read_long_table`), or the Parquet file or
        directory.
    fmt : {"auto", "wide", "long"}, default "auto"
        The layout (a Parquet table is long; ``wide`` is refused for one).
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
        An unknown ``fmt``, ``wide`` for a Parquet table, or a ``path`` or ``count_column`` that
        is not a name (None, a number).

    See Also
    --------
    TableSet.of : Several tables released together.
    isdp.tables.constraint_matrix : The invariants of a table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InputError
    >>> from isdp.tables import load_table
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
    path, count_column = table_path(path), column_name(count_column)
    parquet = is_parquet(path)
    if not (path.is_file() or (parquet and path.is_dir())):
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    if fmt not in ("auto", "long", "wide"):
        raise UsageError(f"unknown table format {fmt!r}: auto, wide or long")
    if parquet and fmt == "wide":
        raise UsageError(f"{path}: a Parquet table is long (key columns and a count column): --format wide reads CSV")
    source = None
    try:
        if parquet:  # always long: checked a column at a time, else its rows read as a CSV long table's lines
            source = read_parquet_arrow(path)
            c = _count_column(path, list(source.schema.names), count_column)
            plain = plain_columns(path, source, c)
            if plain is not None:
                return _parquet_table(path, *plain, c, source, labels_only)
            header, body = parquet_lines(path, source, c)
            chosen = "long"
        else:
            header, body = _labelled_lines(path)
            chosen = _layout(path, header, body, fmt, count_column)
        if chosen == "long":
            c = _count_column(path, header, count_column)
            names = tuple(h for k, h in enumerate(header) if k != c)
            if labels_only:
                table = Table(path, None, _long_keys(path, header, body, c), None, names)
            else:
                long, keys = _long_table_and_keys(path, header, body, c, True)
                table = Table(path, long.counts, keys, replace(long, source=source), names)
        elif labels_only:
            rows, cols = _wide_labels(path, header, body)
            table = Table(
                path, None, [(r, c) for r in rows if not _is_margin(r) for c in cols if not _is_margin(c)], None
            )
        else:
            wide = _wide_table(path, header, body, True)
            table = Table(path, wide.cells.ravel(), [(r, c) for r in wide.row_labels for c in wide.col_labels], wide)
    except InvariantError as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the table ({err.strerror or err})") from None
    if not table.keys:  # as the full reading refuses it: a dry run reads the labels only
        raise InputError(f"{path}: the table has no cells besides its margins")
    _refuse_bars(path, table.keys)
    return table


def _parquet_table(
    path: Path, header: list[str], keys: KeyColumns, counts: np.ndarray, c: int, source, labels_only: bool
) -> Table:
    """Return a Parquet table whose columns passed every check (:func:`isdp.tables._parquet_tables.plain_columns`)."""
    names = tuple(h for k, h in enumerate(header) if k != c)
    if labels_only:
        return Table(path, None, keys, None, names)
    return Table(path, counts, keys, LongTable(header, None, c, counts, source), names)


def _refuse_bars(path: Path, keys: Sequence[tuple[str, ...]]) -> None:
    """Refuse a label with ``|``, which joins a cell's keys (one C-speed search; the label named)."""
    if "|" in "\x00".join(map("\x00".join, keys)):
        label = next(f for key in keys for f in key if "|" in f)
        raise InputError(
            f"{path}: the label {label!r} contains '|', which joins a cell's keys in constraint files "
            "and statements (two cells could get one name)"
        )


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
    isdp.errors.InvariantError
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
    >>> from isdp.tables._tables import read_table_keys
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
    isdp.tables.constraint_matrix : Families per table, and the ties between them.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import TableSet, load_table
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
            raise UsageError(
                f"tables released together need distinct file names (their stems name them in "
                f"invariants and statements): {', '.join(names)}"
            )
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
        """Return the position of the table called ``name``.

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
