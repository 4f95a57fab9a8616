"""A released table read back: its labels as a confidential table's are read, its values signed.

What a reader of a release has (``isdp query``, ``isdp verify``): the file ``isdp release`` wrote, in the
input's layout, whose cells may be negative (unbiased noise on small counts) and, after ``--uncertainty``,
three more columns after the table's own.
"""

from __future__ import annotations

import numpy as np

from .._arrow_arrays import from_numpy, to_numpy
from .._parquet_files import is_parquet
from .._validate import COUNT_LIMIT
from ..errors import InputError, InvariantError
from ._entries import _count
from ._key_columns import KeyColumns
from ._labels import _labelled_lines, table_path
from ._long_tables import _count_column, _long_keys, _plain_counts, column_name
from ._parquet_tables import parquet_lines, plain_columns, read_parquet_arrow
from ._tables import Table, _layout, _refuse_bars
from ._wide_tables import _wide_table


def read_released(
    path, fmt: str = "auto", count_column: str = "count", extra_columns=()
) -> tuple[Table, np.ndarray, dict[str, list[str]]]:
    r"""Read a released table: its labels (checked as :func:`load_table` checks a table's) and its signed values.

    Parameters
    ----------
    path : str or os.PathLike
        The released table: CSV (wide or long), a Parquet file or a Parquet dataset (a directory).
    fmt : {"auto", "wide", "long"}, default "auto"
        The layout, decided as :func:`load_table` decides it.
    count_column : str, default "count"
        A long table's count column.
    extra_columns : sequence of str, default ()
        Columns a release added after the table's own (``noise_sd``, ``lower``, ``upper`` after
        ``--uncertainty``): they must be the file's last columns, and are returned apart, as text.

    Returns
    -------
    table : Table
        The labels only (``x`` None), as ``load_table(..., labels_only=True)`` gives them.
    values : numpy.ndarray of int64
        The released value of each cell, in the table's order; negative values are read.
    added : dict of str to list of str
        Each of ``extra_columns``, its entries as written, in the table's order.

    Raises
    ------
    isdp.errors.InputError
        A file :func:`load_table` would refuse for its labels, a value that is not an integer
        within ±2**53, or ``extra_columns`` that are not the file's last columns.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import read_released
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "release.csv")
    ...     _ = path.write_text("county,count,noise_sd,lower,upper\nA,-1,2.8,-6,4\nB,7,2.8,2,12\n")
    ...     table, values, added = read_released(path, extra_columns=["noise_sd", "lower", "upper"])
    >>> table.cell_labels, values.tolist(), added["lower"]
    (['A', 'B'], [-1, 7], ['-6', '2'])
    """
    path, count_column = table_path(path), column_name(count_column)
    extra = list(extra_columns)
    if not (path.is_file() or (is_parquet(path) and path.is_dir())):
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    try:
        if is_parquet(path):
            return _parquet_release(path, count_column, extra)
        header, body = _labelled_lines(path)
        added: dict[str, list[str]] = {}
        if extra:
            own, width = _without(path, header, extra), len(header)
            added = {  # a line of another width is refused below, with the table's own columns
                name: [fields[len(own) + i].strip() if len(fields) == width else "" for _, fields in body]
                for i, name in enumerate(extra)
            }
            header, body = (
                own,
                [(line, fields[: len(own)] if len(fields) == width else fields) for line, fields in body],
            )
        chosen = _layout(path, header, body, fmt, count_column)
        if chosen == "wide":
            wide = _wide_table(path, header, body, False)
            keys: list[tuple[str, ...]] = [(r, c) for r in wide.row_labels for c in wide.col_labels]
            table, values = Table(path, None, keys, None), wide.cells.ravel()
        else:
            c = _count_column(path, header, count_column)
            column = [fields[c] for _, fields in body]
            plain = _plain_counts(column, False)
            values = (
                plain
                if plain is not None
                else np.array(
                    [_count(path, f"line {line}, column {header[c]!r}", fields[c], False) for line, fields in body],
                    dtype=np.int64,
                )
            )
            names = tuple(h for k, h in enumerate(header) if k != c)
            table = Table(path, None, _long_keys(path, header, body, c), None, names)
    except InvariantError as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the released table ({err.strerror or err})") from None
    if not table.keys:
        raise InputError(f"{path}: the released table has no cells")
    _refuse_bars(path, table.keys)
    return table, np.asarray(values, dtype=np.int64), added


def _without(path, header: list[str], extra: list[str]) -> list[str]:
    """Return the header without the columns a release added after the table's own (checked to be its last)."""
    if len(header) <= len(extra) or [h.strip() for h in header[-len(extra) :]] != extra:
        raise InputError(
            f"{path}: the statement says the release added the columns {', '.join(extra)} after the "
            f"table's own, and the file's last columns are {', '.join(header[-len(extra) :])}"
        )
    return header[: -len(extra)]


def _parquet_release(path, count_column: str, extra: list[str]) -> tuple[Table, np.ndarray, dict[str, list[str]]]:
    """Read a released Parquet file or dataset: the keys a column at a time, the values from the count column."""
    import pyarrow as pa  # deferred: only a Parquet table needs it

    source = read_parquet_arrow(path)
    header = _without(path, list(source.schema.names), extra) if extra else list(source.schema.names)
    added = {name: [str(v) for v in source.column(name).to_pylist()] for name in extra}
    source = source.select(header)
    c = _count_column(path, header, count_column)
    column = source.column(c)
    if not pa.types.is_integer(column.type) or column.null_count:
        raise InputError(f"{path}: the released column {header[c]!r} must hold integers, without a missing value")
    values = to_numpy(column).astype(np.int64)
    if values.size and np.abs(values).max() > COUNT_LIMIT:
        raise InputError(f"{path}: a released value is beyond ±2**53")
    zeros = source.set_column(c, header[c], from_numpy(np.zeros(len(values), dtype=np.int64)))  # labels read alone
    names = tuple(h for k, h in enumerate(header) if k != c)
    plain = plain_columns(path, zeros, c)
    keys: KeyColumns | list = plain[1] if plain is not None else _long_keys(path, *parquet_lines(path, zeros, c), c)
    return Table(path, None, keys, None, names), values, added
