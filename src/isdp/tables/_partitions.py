"""A long Parquet table cut into partitions that a release can draw one at a time (docs/release.md, "Scale").

Under invariant families (``total``, ``by:NAME[,NAME…]``) the key columns that every family not
implied by another includes — the *partition key* K (a state, a block) — split the table: every
such family's totals lie within one value of K, so the invariants' blocks do too, and a family on
fewer columns than K (the nation's total over the states') is a sum of whole partitions' totals. A
table whose rows of each value of K are contiguous (as a census file sorted by geography is) is cut
between those runs into parts of about ``part_cells`` cells, which :mod:`isdp.release` releases
one at a time, or on many workers, with the statement of the whole table.

:meth:`PartitionLayout.of` (:func:`partition_layout`) reads the key columns of K only, once, and decides; what
it cannot decide the same way as the whole-table release would is :class:`~isdp.errors.NotPartitionable`, and the
release is then made from the whole table. :meth:`PartitionLayout.read_part` (:func:`read_part`) reads one part's
rows, with the checks of :func:`isdp.tables.load_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._arrow_arrays import from_numpy, to_numpy
from .._first_seen import first_seen
from .._parquet_files import table_files
from .._validate import size
from ..errors import InvariantError, NotPartitionable, UsageError
from ._labels import table_path
from ._long_tables import _count_column
from ._parquet_tables import concat_parts, key_text, plain_columns, same_columns
from ._tables import Table

#: rows read at a time from a Parquet file when its partition key is scanned
_BATCH_ROWS = 1 << 18


@dataclass(frozen=True)
class Spanning:
    """A family on fewer key columns than the partition key: each of its totals a sum of whole partitions.

    Parameters
    ----------
    family : str
        The family as asked (``total``, ``by:state``).
    labels : tuple of str
        Its invariants' labels, in the order of their first cell.
    members : numpy.ndarray of int64
        Per run of the partition key (in table order), the invariant it falls in.
    """

    family: str
    labels: tuple[str, ...]
    members: np.ndarray


@dataclass(frozen=True)
class PartitionLayout:
    """How a Parquet table is cut into parts of whole partitions, decided from its partition key's columns alone.

    Parameters
    ----------
    path : pathlib.Path
        The table: a file, or a directory of files read in name order.
    files : tuple of pathlib.Path
        Its files.
    file_rows : tuple of int
        Each file's rows.
    header : tuple of str
        The column names.
    count_column : int
        The count column's position.
    families : tuple of str
        The invariant families, as asked.
    key : tuple of str
        The partition key's column names.
    within : tuple of int
        The positions in ``families`` of the families whose totals lie within one partition.
    spanning : tuple of (int, Spanning)
        The others, each with its position in ``families``.
    parts : tuple of (int, int, int, int)
        Per part: its first row, the row after its last, its first run of the partition key and the run
        after its last (rows and runs counted over the whole table).

    See Also
    --------
    PartitionLayout.of : Makes one.
    PartitionLayout.read_part : Reads a part's rows.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pyarrow as pa
    >>> import pyarrow.parquet as pq
    >>> from isdp.tables import PartitionLayout
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "t.parquet")
    >>> pq.write_table(pa.table({"state": ["A"] * 4 + ["B"] * 4, "age": [0, 1, 2, 3] * 2, "count": [1] * 8}), path)
    >>> layout = PartitionLayout.of(path, ["total", "by:state"], part_cells=4)
    >>> layout.cells, layout.runs, layout.key, layout.within, layout.parts
    (8, 2, ('state',), (1,), ((0, 4, 0, 1), (4, 8, 1, 2)))
    >>> tmp.cleanup()
    """

    path: Path
    files: tuple[Path, ...]
    file_rows: tuple[int, ...]
    header: tuple[str, ...]
    count_column: int
    families: tuple[str, ...]
    key: tuple[str, ...]
    within: tuple[int, ...]
    spanning: tuple[tuple[int, Spanning], ...]
    parts: tuple[tuple[int, int, int, int], ...]

    @property
    def cells(self) -> int:
        """The table's cells (rows)."""
        return sum(self.file_rows)

    @property
    def runs(self) -> int:
        """The partitions: the runs of the partition key."""
        return self.parts[-1][3]

    @classmethod
    def of(cls, path, families, count_column: str = "count", part_cells: int = 1 << 20) -> PartitionLayout:
        """Cut a Parquet table into parts of whole partitions, reading the partition key's columns only.

        As :func:`partition_layout`, which says what makes a table not partitionable.

        Parameters
        ----------
        path : str or os.PathLike
            A Parquet file, or a directory of them.
        families : sequence of str
            The invariant families.
        count_column : str, default "count"
            The count column's name.
        part_cells : int, default 2**20
            The cells of a part, at least (whole partitions: a part ends at the first run that reaches it).

        Returns
        -------
        PartitionLayout
            The parts, the families' kinds, the spanning families' labels.

        Raises
        ------
        isdp.errors.NotPartitionable
            A table that cannot be released part by part as the whole table would be.
        isdp.errors.UsageError
            A ``path`` or ``count_column`` that is not a name, or ``part_cells`` not an integer >= 1.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> import pyarrow as pa
        >>> import pyarrow.parquet as pq
        >>> from isdp.tables import PartitionLayout
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = Path(tmp, "t.parquet")
        ...     counts = pa.table({"state": ["A"] * 4 + ["B"] * 4, "age": [0, 1, 2, 3] * 2, "count": [1] * 8})
        ...     pq.write_table(counts, path)
        ...     layout = PartitionLayout.of(path, ["total", "by:state"], part_cells=3)
        >>> layout.key, len(layout.parts)
        (('state',), 2)
        """
        return partition_layout(path, families, count_column, part_cells)

    def read_part(self, part: int):
        """Part ``part``'s rows: its cells as a :class:`~isdp.tables.Table`, and the rows as read (:func:`read_part`).

        Parameters
        ----------
        part : int
            The part's position in ``parts``.

        Returns
        -------
        table : Table
            The part's cells: keys and counts, in table order.
        source : pyarrow.Table
            The part's rows, every column.

        Raises
        ------
        isdp.errors.NotPartitionable
            Rows that need the row-by-row reading.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> import pyarrow as pa
        >>> import pyarrow.parquet as pq
        >>> from isdp.tables import PartitionLayout
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = Path(tmp, "t.parquet")
        ...     counts = pa.table({"state": ["A"] * 4 + ["B"] * 4, "age": [0, 1, 2, 3] * 2, "count": [1] * 8})
        ...     pq.write_table(counts, path)
        ...     table, source = PartitionLayout.of(path, ["total", "by:state"], part_cells=3).read_part(1)
        >>> table.cell_labels[0], source.num_rows
        ('B|0', 4)
        """
        return read_part(self, part)


def partition_key(
    families, key_names
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[int, tuple[str, ...]], ...]]:
    """Return the partition key of ``families`` over a long table's key columns, and which families span partitions.

    A family ``by:NAMES`` sums cells by those key columns, ``total`` by none. A family on a strict
    subset of another's columns is a sum of the other's totals; the partition key is what every other
    family includes. A family on fewer columns must be on a subset of the key (its totals are then sums
    of whole partitions).

    Parameters
    ----------
    families : sequence of str
        The invariant families (``--invariant``).
    key_names : sequence of str
        The table's key columns.

    Returns
    -------
    key : tuple of str
        The partition key's columns (as the header writes them, in the header's order).
    within : tuple of int
        The families whose totals lie within one partition (positions in ``families``).
    spanning : tuple of (int, tuple of str)
        The others: position and columns, as written in the family (the order of its labels).

    Raises
    ------
    isdp.errors.NotPartitionable
        Another kind of family, a name that is not a key column, no key column every family
        includes, or a family on fewer columns than the key that is not on a subset of it.

    Examples
    --------
    >>> from isdp.tables._partitions import partition_key
    >>> partition_key(["total", "by:state", "by:state,county", "by:state,age"], ["state", "county", "age"])
    (('state',), (1, 2, 3), ((0, ()),))
    """
    names = {n.casefold(): n for n in key_names}
    columns: list[tuple[str, ...]] = []
    for family in families:
        if family == "total":
            columns.append(())
            continue
        if not family.startswith("by:"):
            raise NotPartitionable(f"the family {family!r} is not a total by key columns")
        wanted = tuple(w.strip().casefold() for w in family[3:].split(",") if w.strip())
        if any(w not in names for w in wanted) or len(set(wanted)) != len(wanted):
            raise NotPartitionable(f"the family {family!r} does not name key columns, each once")
        columns.append(tuple(names[w] for w in wanted))
    sets = [frozenset(c) for c in columns]
    kept = [s for s in sets if not any(s < t for t in sets)]
    key = frozenset.intersection(*kept) if kept else frozenset()
    if not key:
        raise NotPartitionable("no key column is in every family that is not a sum of another's totals")
    within = tuple(i for i, s in enumerate(sets) if s >= key)
    spanning = tuple((i, columns[i]) for i, s in enumerate(sets) if not s >= key)
    if any(not set(c) < key for _, c in spanning):
        raise NotPartitionable("a family on fewer columns than the partition key is not on a subset of it")
    return tuple(n for n in key_names if n in key), within, spanning


def _run_codes(column) -> np.ndarray | None:
    """Per row of a key column, a code that is equal where the keys' text is, or None where only the text compares.

    A dictionary column's codes are its trimmed words' (each distinct word read once, not once per row); an integer
    column's, its values (their text is one per value). A run of the partition key is then found by comparing
    integers, not a text per row.
    """
    import pyarrow as pa  # deferred: only a Parquet table comes here
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type) and not column.dictionary.null_count:
        canon, _ = first_seen(pc.utf8_trim(key_text(column.dictionary), " ").to_pylist())
        return canon[to_numpy(column.indices)]
    if pa.types.is_integer(column.type):
        return to_numpy(column)
    return None


def _texts(batch, rows) -> list[tuple[str, ...]]:
    """Return the keys' text (trimmed) at ``rows`` of a batch, one tuple per row."""
    import pyarrow.compute as pc  # deferred: only a Parquet table comes here

    at = from_numpy(np.asarray(rows, dtype=np.int64))
    picked = [pc.utf8_trim(key_text(col.take(at)), " ") for col in batch.columns]
    return list(zip(*(t.to_pylist() for t in picked), strict=True))


def partition_layout(path, families, count_column: str = "count", part_cells: int = 1 << 20) -> PartitionLayout:
    """Cut a Parquet table into parts of whole partitions, reading the partition key's columns only.

    Each run of equal partition keys (compared as text, stripped, as a release reads labels) is
    one partition; a key seen in two runs, two keys that look alike (lower case, runs of spaces as
    one), a null, or a file whose columns differ from the first's make the table
    :class:`NotPartitionable`, as does a family on fewer columns whose total would cover one
    partition only (it would repeat a total of the partition's).

    Its parameters, result and refusals are :meth:`PartitionLayout.of`'s, which calls it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pyarrow as pa
    >>> import pyarrow.parquet as pq
    >>> from isdp.tables._partitions import partition_layout
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "t.parquet")
    >>> pq.write_table(pa.table({"state": ["A"] * 4 + ["B"] * 4, "age": [0, 1, 2, 3] * 2, "count": [1] * 8}), path)
    >>> layout = partition_layout(path, ["total", "by:state"], part_cells=3)
    >>> layout.key, layout.parts, layout.spanning[0][1].labels
    (('state',), ((0, 4, 0, 1), (4, 8, 1, 2)), ('total',))
    >>> tmp.cleanup()
    """
    import pyarrow as pa  # deferred: only a Parquet table comes here
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path, part_cells = table_path(path), size("part_cells", part_cells, low=1, error=UsageError)
    try:
        files = table_files(path)
        readers = [pq.ParquetFile(f) for f in files]
        schema = readers[0].schema_arrow
        header = tuple(schema.names)
        c = _count_column(path, list(header), count_column)
    except (InvariantError, pa.ArrowException, OSError) as err:
        raise NotPartitionable(str(err)) from None
    if any(not same_columns(r.schema_arrow, schema) for r in readers):
        raise NotPartitionable("the files' columns differ")
    key_names = [h for k, h in enumerate(header) if k != c]
    key, within, spanning_columns = partition_key(families, key_names)
    seen: dict[tuple[str, ...], int] = {}  # each run's key, and the runs so far
    looks: set[tuple[str, ...]] = set()
    run_rows: list[int] = []  # each run's first row
    row, last = 0, None
    for reader in readers:
        for batch in reader.iter_batches(batch_size=_BATCH_ROWS, columns=list(key)):
            if any(col.null_count for col in batch.columns):
                raise NotPartitionable("a key is missing")
            n = batch.num_rows
            change = np.zeros(n, dtype=bool)
            try:
                for col in batch.columns:
                    code = _run_codes(col)
                    if code is None:  # only the text compares
                        t = pc.utf8_trim(key_text(col), " ")
                        if t.null_count:
                            raise NotPartitionable("a key is missing")
                        change[1:] |= np.asarray(pc.not_equal(t[1:], t[:-1]), dtype=bool)
                    else:  # equal codes, equal text
                        change[1:] |= code[1:] != code[:-1]
                first = _texts(batch, [0])[0]
            except pa.ArrowException:
                raise NotPartitionable("a key column has no text") from None
            change[0] = first != last
            starts = np.flatnonzero(change)
            for kt in _texts(batch, starts):
                if kt in seen:
                    raise NotPartitionable(f"the rows of the partition key {kt} are not contiguous")
                look = tuple(re.sub(" {2,}", " ", v.lower()) for v in kt)
                if look in looks:
                    raise NotPartitionable("two partition keys look alike")
                seen[kt] = len(seen)
                looks.add(look)
            run_rows += (starts + row).tolist()
            last = _texts(batch, [n - 1])[0]
            row += n
    if not run_rows:
        raise NotPartitionable("the table has no cells")
    spanning = tuple((i, _spanning(families[i], columns, key, list(seen))) for i, columns in spanning_columns)
    totals: set[bytes] = set()  # a total two spanning families share would be stated once by the whole table
    for _, family in spanning:
        order = np.argsort(family.members, kind="stable")
        for group in np.split(order, np.flatnonzero(np.diff(family.members[order])) + 1):
            if group.tobytes() in totals:
                raise NotPartitionable(f"a total of {family.family!r} repeats another family's")
            totals.add(group.tobytes())
    bounds = np.append(np.asarray(run_rows, dtype=np.int64), row)
    parts, first_run = [], 0
    while first_run < len(run_rows):  # whole runs, until a part reaches part_cells
        end = int(np.searchsorted(bounds, bounds[first_run] + part_cells, "left"))
        end = min(max(end, first_run + 1), len(run_rows))
        parts.append((int(bounds[first_run]), int(bounds[end]), first_run, end))
        first_run = end
    return PartitionLayout(
        path,
        tuple(files),
        tuple(r.metadata.num_rows for r in readers),
        header,
        c,
        tuple(families),
        key,
        within,
        spanning,
        tuple(parts),
    )


def _spanning(family: str, columns: tuple[str, ...], key: tuple[str, ...], runs: list[tuple[str, ...]]) -> Spanning:
    """Return a spanning family's totals.

    Labelled as :func:`isdp.tables.constraint_matrix` labels them, in the order of their first cell, each run's total
    among them.
    """
    at = [key.index(col) for col in columns]
    groups: dict[tuple[str, ...], int] = {}
    members = np.array([groups.setdefault(tuple(kt[a] for a in at), len(groups)) for kt in runs], dtype=np.int64)
    if np.bincount(members).min() < 2:  # a total of one partition would repeat one of the partition's own
        raise NotPartitionable(f"a total of {family!r} covers a single partition")
    labels = tuple(
        "by " + ", ".join(f"{col}={v}" for col, v in zip(columns, g, strict=True)) if columns else "total"
        for g in groups
    )
    return Spanning(family, labels, members)


def read_part(layout: PartitionLayout, part: int):
    """Part ``part``'s rows: its cells as a :class:`~isdp.tables.Table`, and the rows as read.

    Only the row groups the part lies in are read. The rows get the checks of
    :func:`isdp.tables.load_table`, a column at a time.

    Parameters
    ----------
    layout : PartitionLayout
        The table's layout (:func:`partition_layout`).
    part : int
        The part's position in ``layout.parts``.

    Returns
    -------
    table : Table
        The part's cells: keys and counts, in table order (no layout: it is not written as read).
    source : pyarrow.Table
        The part's rows, every column (a release writes them with its counts).

    Raises
    ------
    isdp.errors.NotPartitionable
        Rows that need the row-by-row reading (the whole table's reading names the row that fails).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pyarrow as pa
    >>> import pyarrow.parquet as pq
    >>> from isdp.tables._partitions import partition_layout, read_part
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "t.parquet")
    >>> pq.write_table(pa.table({"state": ["A"] * 4 + ["B"] * 4, "age": [0, 1, 2, 3] * 2, "count": [1] * 8}), path)
    >>> table, source = read_part(partition_layout(path, ["total", "by:state"], part_cells=3), 1)
    >>> table.cell_labels[0], table.x.tolist(), source.num_rows
    ('B|0', [1, 1, 1, 1], 4)
    >>> tmp.cleanup()
    """
    import pyarrow.parquet as pq  # deferred: pyarrow loads only for a Parquet table

    start, end = layout.parts[part][:2]
    pieces, offset = [], 0
    for file, rows in zip(layout.files, layout.file_rows, strict=True):
        lo, hi = max(start - offset, 0), min(end - offset, rows)
        if lo < hi:
            reader = pq.ParquetFile(file)
            sizes = np.array([reader.metadata.row_group(g).num_rows for g in range(reader.num_row_groups)])
            bounds = np.concatenate([[0], np.cumsum(sizes)])
            groups = np.flatnonzero((bounds[:-1] < hi) & (bounds[1:] > lo)).tolist()
            table = reader.read_row_groups(groups)
            pieces.append(table.slice(lo - int(bounds[groups[0]]), hi - lo))
        offset += rows
    source = concat_parts(pieces)
    plain = plain_columns(layout.path, source, layout.count_column)
    if plain is None:  # the whole table's reading names the row that fails
        raise NotPartitionable("a part's rows need the row-by-row reading")
    header, keys, x = plain
    names = tuple(h for k, h in enumerate(header) if k != layout.count_column)
    return Table(layout.path, x, keys, None, names), source
