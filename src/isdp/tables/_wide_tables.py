"""The wide layout of a table file.

Row labels, then one column per category, margins checked against the cells when read and recomputed from them when
written.

A margin is known by its label alone (:func:`read_wide_table`); a refusal names the file, line,
row or column, never quoting a count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvariantError
from ._entries import _count
from ._labels import _distinct, _is_margin, _labelled_lines


def _wide_labels(path, header: list[str], body) -> tuple[list[str], list[str]]:
    """Return a wide table's row and column labels (margins included), refused if two look the same."""
    _distinct(path, "row label", [(f"line {lineno}", fields[0]) for lineno, fields in body])
    _distinct(path, "column label", [(f"column {k}", label) for k, label in enumerate(header[1:], start=2)])
    return [fields[0] for _, fields in body], header[1:]


def read_wide_table(path, counts: bool = True) -> WideTable:
    r"""Return a two-way integer table stored as CSV (first column = row labels, header = column labels).

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
    isdp.errors.InvariantError
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
    >>> from isdp.tables._wide_tables import read_wide_table
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
            raise InvariantError(
                f"{path}: margin column {cols[j]!r} does not equal the row sums of the cells "
                "(its label marks a margin: rename it if it is a category)"
            )
    for i in set(range(len(rows))) - set(keep_r):
        expected = values[i, keep_c]
        if not np.array_equal(expected, cells.sum(axis=0)):
            raise InvariantError(
                f"{path}: margin row {rows[i]!r} does not equal the column sums of the cells "
                "(its label marks a margin: rename it if it is a category)"
            )
    if cells.size == 0:
        raise InvariantError(f"{path}: the table has no cells besides its margins")
    for i in set(range(len(rows))) - set(keep_r):  # the grand total, where a margin row meets a margin column
        for j in set(range(len(cols))) - set(keep_c):
            if values[i, j] != cells.sum():
                raise InvariantError(
                    f"{path}: the grand total where margin row {rows[i]!r} meets margin column "
                    f"{cols[j]!r} does not equal the sum of the cells"
                )
    return WideTable(cells, rows, cols, keep_r, keep_c, header[0])


def read_table_csv(path, counts: bool = True):
    r"""Return the cells and labels of a wide CSV table, margins dropped (:func:`read_wide_table`).

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
    isdp.errors.InvariantError
        As :func:`read_wide_table`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import read_table_csv
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
    >>> from isdp.tables._wide_tables import read_wide_table
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
        """Return the file's layout filled with ``cells``; margin rows and columns recomputed from them.

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
