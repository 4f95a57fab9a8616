"""The linear queries a reader asks of a release: group sums by key columns, or any integer combination from a file."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
from scipy import sparse

from .._first_seen import first_seen
from ..errors import InputError, UsageError
from ..tables import Table, TableSet

#: a queries file's header: one line per (query, cell) with an integer coefficient
QUERY_HEADER = ("query", "cell", "coefficient")
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")


def group_sums(table: Table | TableSet, columns) -> tuple[sparse.csr_array, list[str]]:
    r"""Return one query per combination of the key ``columns``: the sum of its cells (0/1 rows, first-seen order).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import load_table
    >>> from isdp.published._linear_queries import group_sums
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "t.csv")
    ...     _ = path.write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\n")
    ...     W, names = group_sums(load_table(path), ["county"])
    >>> W.toarray().tolist(), names
    ([[1, 1, 0], [0, 0, 1]], ['county=A', 'county=B'])
    """
    if isinstance(table, TableSet):
        raise UsageError("several tables released together: ask for their sums with a queries file (--queries)")
    columns = list(columns)
    if not columns:
        raise UsageError("--by needs at least one key column")
    names = list(table.key_names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise UsageError(
            f"--by {','.join(columns)}: the released table has no key column {missing[0]!r} ({', '.join(names)})"
        )
    n = len(table.keys)
    member = np.zeros(n, dtype=np.int64)
    for a in (names.index(c) for c in columns):
        codes, count = _codes(table, a)
        member, first = first_seen(member * count + codes)  # first: each group's first cell, in the groups' order
    W = sparse.csr_array((np.ones(n, dtype=np.int64), (member, np.arange(n))), shape=(len(first), n))
    keys = table.keys
    labels = [", ".join(f"{c}={keys[i][names.index(c)]}" for c in columns) for i in first.tolist()]
    return W, labels


def _codes(table: Table, a: int) -> tuple[np.ndarray, int]:
    """Key column ``a``'s code per cell (first-seen order) and its number of values."""
    column = getattr(table.keys, "column", None)
    if column is not None:  # held a column at a time, coded already
        return column(a)
    codes, first = first_seen([k[a] for k in table.keys])
    return codes, len(first)


def read_queries(path, table: Table | TableSet) -> tuple[sparse.csr_array, list[str]]:
    r"""Return the queries of a CSV file ``query,cell,coefficient``: per line, one cell's integer coefficient.

    Cells are named by their labels (``key1|key2…``, several tables ``NAME|key…``, as in statements and
    constraint files); a query is the sum of its lines (a cell named twice adds up), queries in the order of their
    first line.

    Raises
    ------
    isdp.errors.InputError
        No such file, another header, a cell the table does not have, or a coefficient that is not an integer.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import load_table
    >>> from isdp.published._linear_queries import read_queries
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "t.csv")
    ...     _ = path.write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\n")
    ...     queries = Path(tmp, "q.csv")
    ...     _ = queries.write_text("query,cell,coefficient\nF minus M in A,A|F,1\nF minus M in A,A|M,-1\n")
    ...     W, names = read_queries(queries, load_table(path))
    >>> W.toarray().tolist(), names
    ([[1, -1, 0]], ['F minus M in A'])
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    position = {label: j for j, label in enumerate(table.cell_labels)}
    names: dict[str, int] = {}
    rows, cols, data = [], [], []
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None or tuple(h.strip().lower() for h in header) != QUERY_HEADER:
                raise InputError(f"{path}: a queries file's header is {','.join(QUERY_HEADER)}")
            for line, fields in enumerate(reader, start=2):
                if not fields:
                    continue
                if len(fields) != 3:
                    raise InputError(f"{path}: line {line}: {len(fields)} fields, not 3 (query, cell, coefficient)")
                name, cell, coefficient = (f.strip() for f in fields)
                if cell not in position:
                    raise InputError(f"{path}: line {line}: the released table has no cell {cell!r}")
                if not _INTEGER.fullmatch(coefficient):
                    raise InputError(f"{path}: line {line}: the coefficient {coefficient!r} is not an integer")
                rows.append(names.setdefault(name, len(names)))
                cols.append(position[cell])
                data.append(int(coefficient))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot read the queries ({err})") from None
    if not names:
        raise InputError(f"{path}: no query")
    W = sparse.csr_array(
        (np.array(data, np.int64), (np.array(rows, np.int64), np.array(cols, np.int64))),
        shape=(len(names), len(position)),
    )
    W.sum_duplicates()
    return W, list(names)
