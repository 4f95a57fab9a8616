"""Long tables in Parquet: a file, or a dataset (a directory of files read as one table), in and out of a release.

A Parquet table is always long: key columns naming each cell, and a count column of an integer
type. Its rows become the lines every long table's checks read (:func:`read_long_table`'s: empty,
margin-like, alike or count-like keys, counts beyond ±2**53 or negative), numbered as the lines
of the same table written as CSV (the header is line 1, the first row line 2), so each refusal
names the row. Keys of any type are compared and published as their text (an integer key 2019
as ``2019``, a float's ``-0.0`` as ``0``); the released file keeps the input's columns and their
types, the count column replaced by the released counts as int64, and none of its metadata (of the
file or of a column: it may describe the counts). pyarrow reads and writes (imported here only: a
CSV release never loads it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._arrow_arrays import from_numpy, to_numpy
from .._first_seen import first_seen
from .._parquet_files import plain_schema, table_files
from .._validate import COUNT_LIMIT
from ..errors import InvariantError
from ._key_columns import KeyColumns
from ._labels import _MARGIN_RE, _count_like  # the margin pattern reads the same in RE2 on ASCII


def read_parquet_arrow(path):
    """Read the Parquet table at ``path`` as a pyarrow Table.

    ``path`` is a file, or a directory whose files are read in name order (one schema).

    Parameters
    ----------
    path : str or os.PathLike
        The file or directory.

    Returns
    -------
    pyarrow.Table
        The rows of every file, in order.

    Raises
    ------
    isdp.errors.InvariantError
        An unreadable file, files whose schemas differ, an empty table.
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it (0.2 s at import)
    import pyarrow.parquet as pq

    path = Path(path)
    files = table_files(path)
    parts = []
    for file in files:
        try:
            parts.append(pq.ParquetFile(file).read())  # one file as written (read_table refuses a repeated name)
        except (pa.ArrowException, OSError) as err:
            raise InvariantError(f"{file}: not a readable Parquet file ({err})") from None
    first = parts[0].schema
    for file, part in zip(files, parts, strict=True):
        if not same_columns(part.schema, first):
            raise InvariantError(
                f"{file}: its columns ({part.schema.names}, types "
                f"{[str(t) for t in part.schema.types]}) differ from the first file's "
                f"({first.names}, {[str(t) for t in first.types]})"
            )
    table = concat_parts(parts)
    if table.num_rows == 0:
        raise InvariantError(f"{path}: the table has no cells")
    return table


def same_columns(schema, first) -> bool:
    """Whether two files' schemas have the same column names and types.

    Whether a column may hold a null, and metadata, may differ (the rows' nulls are refused where they matter).
    """
    return schema.names == first.names and schema.types == first.types


def concat_parts(parts):
    """Return the rows of tables of :func:`same_columns`, in order, as one table whose columns may hold nulls."""
    import pyarrow as pa  # deferred: only a Parquet table needs it

    schema = plain_schema(parts[0].schema)
    return pa.concat_tables([part.cast(schema) for part in parts])


def key_text(column):
    """Return a key column as text (nulls kept), a float's ``-0.0`` read as ``0.0``: one number, one cell."""
    import pyarrow as pa  # deferred: only a Parquet table needs it
    import pyarrow.compute as pc

    if pa.types.is_floating(column.type):
        column = pc.if_else(pc.equal(column, 0), pa.scalar(0, column.type), column)
    return pc.cast(column, pa.string())


def parquet_lines(path, table, count_column: int) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Return the header and the (line number, fields) of every row, as a CSV long table's are read.

    Parameters
    ----------
    path : str or os.PathLike
        The table's path (for messages).
    table : pyarrow.Table
        The table (:func:`read_parquet_arrow`).
    count_column : int
        The count column's position.

    Returns
    -------
    header : list of str
        The column names.
    body : list of tuple of (int, list of str)
        Per row, its line number (the first row is line 2) and its fields as text, stripped; a null is empty.

    Raises
    ------
    isdp.errors.InvariantError
        A count column that is not of an integer type, or a key column whose type has no text.
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it

    header = list(table.schema.names)
    _check_types(path, table, count_column)
    columns = []
    for k, column in enumerate(table.columns):
        try:
            text = key_text(column)
        except pa.ArrowException:
            raise InvariantError(
                f"{path}: column {header[k]!r} holds {column.type}, which has no text to publish as a label"
            ) from None
        columns.append([("" if v is None else v.strip()) for v in text.to_pylist()])
    body = [(row + 2, list(fields)) for row, fields in enumerate(zip(*columns, strict=True))]
    return header, body


def plain_columns(path, table, count_column: int) -> tuple[list[str], KeyColumns, np.ndarray] | None:
    """Return the header, the keys and the counts of a Parquet table whose columns pass every check at Arrow speed.

    The checks are :func:`isdp.tables.read_long_table`'s and :func:`isdp.tables.load_table`'s,
    made a column at a time in ``pyarrow.compute``: every key printable ASCII (stripped of spaces),
    none empty or null, none with a margin's label or a ``|``, no two alike (lower case, runs of
    spaces as one), no key column named like a count column; every count present, within ±2**53
    and non-negative. When any check fails, None: the caller reads the rows one by one
    (:func:`parquet_lines`), so the refusal names the row.

    Parameters
    ----------
    path, table, count_column
        As for :func:`parquet_lines`.

    Returns
    -------
    tuple or None
        (header, keys, counts): the column names, the keys a column at a time
        (:class:`~isdp.tables._key_columns.KeyColumns`), the counts (int64).

    Raises
    ------
    isdp.errors.InvariantError
        As :func:`parquet_lines`: a count column of another type than integers.
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it
    import pyarrow.compute as pc

    header = list(table.schema.names)
    _check_types(path, table, count_column)
    counts = table.column(count_column)
    if (
        counts.null_count
        or table.num_columns < 2
        or any(_count_like(h) for k, h in enumerate(header) if k != count_column)
    ):
        return None
    values = to_numpy(counts)
    if values.size and (values.min() < 0 or values.max() > COUNT_LIMIT):
        return None
    labels, codes, seen = [], [], []
    for k, column in enumerate(table.columns):
        if k == count_column:
            continue
        if pa.types.is_integer(column.type):  # digits with an optional sign: its text passes every check
            if column.null_count:
                return None
            # codes in the order of first appearance; a compiled hash table, where Arrow's dictionary_encode on
            # integers took 1.1 s for a part of 2**20 distinct ones
            integers = to_numpy(column)
            found, first = first_seen(integers)
            labels.append(from_numpy(integers[first]))  # made text where read (KeyColumns)
            codes.append(found.astype(np.int32) if len(first) < 2**31 else found)
            seen.append((codes[-1], len(labels[-1])))
            continue
        try:  # each distinct text is checked once, on the column's dictionary, and the cells keep its codes
            raw = _first_appearance(column)
            if raw is None:  # first-appearance order; nulls masked
                raw = pc.dictionary_encode(key_text(column)).combine_chunks()
        except pa.ArrowException:  # parquet_lines names the column
            return None
        words = raw.dictionary
        if raw.indices.null_count or not pc.all(pc.string_is_ascii(words)).as_py():
            return None
        trimmed = pc.utf8_trim(words, " ")  # a printable ASCII field's str.strip()
        if (
            not pc.all(pc.utf8_is_printable(trimmed)).as_py()
            or pc.min(pc.utf8_length(trimmed)).as_py() == 0  # no Python scalar: its conversion loads pandas
            or pc.any(pc.match_substring(trimmed, "|")).as_py()
            or pc.any(pc.match_substring_regex(trimmed, _MARGIN_RE.pattern, ignore_case=True)).as_py()
        ):
            return None
        encoded = pc.dictionary_encode(trimmed)  # "A" and "A " are one label: still in first-appearance order
        labels.append(encoded.dictionary)
        codes.append(to_numpy(encoded.indices)[to_numpy(raw.indices)])  # int32, as Arrow holds them
        if pc.any(pc.match_substring_regex(encoded.dictionary, "[A-Z]|  ")).as_py():  # compared in lower case
            lowered = pc.replace_substring_regex(pc.utf8_lower(encoded.dictionary), " {2,}", " ")
            looks = pc.dictionary_encode(lowered)
            seen.append((to_numpy(looks.indices)[codes[-1]], len(looks.dictionary)))
        else:
            seen.append((codes[-1], len(labels[-1])))
    pa.default_memory_pool().release_unused()  # the checks' columns, else held by Arrow's allocator
    if not _distinct_rows(seen, len(values)):
        return None
    return header, KeyColumns(labels, codes), np.asarray(values, dtype=np.int64)


def _distinct_rows(columns: list[tuple[np.ndarray, int]], n: int) -> bool:
    """Whether no two of ``n`` rows have the same codes in every column ((codes, number of codes) per column)."""
    if any(size == n for _, size in columns):  # a column of distinct values
        return True
    combined, bound = np.zeros(n, dtype=np.int64), 1
    for codes, size in columns:
        if bound * size >= 2**62:  # number the combinations seen so far afresh, so the next product cannot wrap
            combined = np.unique(combined, return_inverse=True)[1].ravel()
            bound = int(combined.max()) + 1
        combined = combined * size + codes
        bound *= size
    if (combined[1:] > combined[:-1]).all():  # strictly ascending (rows in key order, codes in first-seen order)
        return True
    combined.sort()
    return not np.any(combined[1:] == combined[:-1])


def _first_appearance(column):
    """Return a dictionary column as ``dictionary_encode`` of its text gives it, from its codes; None if not one.

    The words in the order they first appear, each text cast once (not once per row, which took a second per 10⁷
    rows); a word the dictionary holds twice stays twice (the labels are made from the trimmed words, one each).
    None for another type, or a column with a missing key (the text's path refuses it).
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it

    if not pa.types.is_dictionary(column.type) or column.null_count or not column.num_chunks:
        return None
    chunks = column.unify_dictionaries().chunks
    indices = np.concatenate([to_numpy(chunk.indices) for chunk in chunks])
    codes, first = first_seen(indices)
    words = key_text(chunks[0].dictionary).take(from_numpy(indices[first]))
    return pa.DictionaryArray.from_arrays(from_numpy(codes.astype(np.int32)), words)


def _check_types(path, table, count_column: int) -> None:
    """Refuse a count column of another type than integers."""
    import pyarrow as pa  # deferred: only a Parquet table needs it

    count_type = table.schema.types[count_column]
    if not pa.types.is_integer(count_type):
        raise InvariantError(
            f"{path}: the count column {table.schema.names[count_column]!r} holds {count_type}, "
            "not integers (a Parquet table's counts are an integer type)"
        )
