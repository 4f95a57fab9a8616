"""Parquet files and datasets as files: what names one, its files and rows, and writing a released one.

A Parquet table is a ``.parquet`` file, or a directory (a dataset) of such files read as one table in the order of
their names; a released dataset's files are named :data:`DATASET_FILE`. The tables part reads them into tables
(:func:`isdp.tables.load_table`); the release and the command line ask here what an input or an output is, and the
release writes its files here. pyarrow reads and writes (imported here only when a Parquet file is read or written).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ._arrow_arrays import from_numpy
from .errors import InvariantError

#: what names a Parquet table: the suffix of a file (a directory of such files is one table)
SUFFIX = ".parquet"


def is_parquet(path) -> bool:
    """Whether ``path`` names a Parquet table: a ``.parquet`` file, or a directory (of ``.parquet`` files).

    Parameters
    ----------
    path : str or os.PathLike
        A table's path.

    Returns
    -------
    bool
        True for a Parquet file or a directory.

    Examples
    --------
    >>> from isdp._parquet_files import is_parquet
    >>> is_parquet("counts.parquet"), is_parquet("counts.PARQUET"), is_parquet("counts.csv")
    (True, True, False)
    """
    path = Path(path)
    return path.suffix.lower() == SUFFIX or path.is_dir()


#: the name of a released dataset's k-th file: read back in the order of their names, they are the table's rows
DATASET_FILE = "part-{:06d}.parquet"
#: the names :data:`DATASET_FILE` gives (six digits or more)
DATASET_FILE_PATTERN = r"part-\d{6,}\.parquet"


def is_dataset(output) -> bool:
    """Whether an output names a Parquet dataset: a path written with a trailing ``/``, or an existing directory.

    A released dataset is a directory of files named :data:`DATASET_FILE`, read back (as any
    directory input) in the order of their names. The trailing separator says "a directory" for a
    name that does not exist yet; a :class:`pathlib.Path` drops it, so give such a name as text.

    Parameters
    ----------
    output : str or os.PathLike
        An output's name, as given.

    Returns
    -------
    bool
        True for a dataset.

    Examples
    --------
    >>> from isdp._parquet_files import is_dataset
    >>> is_dataset("release/"), is_dataset("release.parquet"), is_dataset(".")
    (True, False, True)
    """
    text = os.fspath(output)
    return text.endswith(("/", os.sep)) or Path(text).is_dir()


def _marker(entry: Path) -> bool:
    """Whether a directory's entry is a writer's marker that holds no rows.

    A file named ``_…`` or ``.…`` (``_SUCCESS``, a ``.crc`` checksum) that is not a ``.parquet`` file.
    """
    return entry.name.startswith((".", "_")) and entry.suffix.lower() != SUFFIX and entry.is_file()


def table_files(path: Path) -> list[Path]:
    """Return the files of a Parquet table: the file itself, or a directory's ``.parquet`` files in name order.

    A directory is read whole or refused: a subdirectory (a Hive-style ``state=B/``), a hidden
    ``.parquet`` file or any other file but a writer's marker (``_SUCCESS``, ``.…crc``) would
    otherwise be rows left out of the release without a word.

    Parameters
    ----------
    path : pathlib.Path
        A Parquet file or a directory of them.

    Returns
    -------
    list of pathlib.Path
        ``[path]`` for a file; a directory's ``.parquet`` files, in the order of their names.

    Raises
    ------
    isdp.errors.InvariantError
        A directory holding anything but its ``.parquet`` files and writers' markers, or none.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from isdp._parquet_files import table_files, write_parquet
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_parquet(Path(tmp, "b.parquet"), pa.table({"count": [1]}), 0, np.array([2]))
    ...     write_parquet(Path(tmp, "a.parquet"), pa.table({"count": [3]}), 0, np.array([4]))
    ...     _ = Path(tmp, "_SUCCESS").write_text("")  # a writer's marker: no rows, passed over
    ...     names = [f.name for f in table_files(Path(tmp))]
    >>> names
    ['a.parquet', 'b.parquet']
    """
    if not path.is_dir():
        return [path]
    files = []
    for entry in sorted(path.iterdir()):
        if _marker(entry):
            continue
        if entry.is_dir() or entry.suffix.lower() != SUFFIX or entry.name.startswith((".", "_")) or not entry.is_file():
            what = "a directory" if entry.is_dir() else "not a .parquet file of the table"
            raise InvariantError(
                f"{entry}: {what} inside the Parquet dataset {path}, which is read as one table from "
                "its own .parquet files only (no subdirectory, no other file): move it out, or "
                "give its files as a dataset of their own"
            )
        files.append(entry)
    if not files:
        raise InvariantError(
            f"{path}: a directory without .parquet files (a directory is read as one Parquet "
            "table, its files in the order of their names)"
        )
    return files


def table_rows(path) -> int:
    """Return the rows of a Parquet table, from its files' metadata.

    0 when a file cannot be read: the reading says why.

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet file or a directory of them.

    Returns
    -------
    int
        The rows of all its files.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from isdp._parquet_files import table_rows, write_parquet
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_parquet(Path(tmp, "counts.parquet"), pa.table({"count": [1, 2, 3]}), 0, np.array([3, 1, 2]))
    ...     rows = table_rows(Path(tmp, "counts.parquet"))
    >>> rows
    3
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it
    import pyarrow.parquet as pq

    try:
        return sum(pq.ParquetFile(f).metadata.num_rows for f in table_files(Path(path)))
    except (InvariantError, pa.ArrowException, OSError):
        return 0


def plain_schema(schema):
    """Return ``schema`` without any metadata (of the table or of a field) and with every column nullable.

    What a release writes, so nothing of the input's metadata reaches it.
    """
    import pyarrow as pa  # deferred: only a Parquet table needs it

    return pa.schema([pa.field(field.name, field.type) for field in schema])


def write_parquet(
    path, source, count_column: int, values: np.ndarray, extra: dict | None = None, *, scratch: bool = False
) -> None:
    """Write ``source`` (a pyarrow Table) with its count column replaced by ``values`` (int64) to ``path``.

    The file is publishable: created with the mode the process's umask gives (the audit record is the release's
    file kept to its owner) and, unless ``scratch``, on disk when this returns.

    Parameters
    ----------
    path : str or os.PathLike
        Where to write: a new file.
    source : pyarrow.Table
        The table read: its columns and their types kept, its metadata (of the table and of each
        column) left out.
    count_column : int
        The count column's position.
    values : numpy.ndarray of int64
        The released counts, one per row.
    extra : dict of str to numpy.ndarray, optional
        Columns appended after the input's (the uncertainty's), one value per row.
    scratch : bool, default False
        A file read back once and removed (a part of a joined output): written without the column statistics
        (their min and max take half the writing of dictionary columns) and not synced to disk.

    Examples
    --------
    Two files of a released dataset, named as :data:`DATASET_FILE`, read back as one table of 3 rows:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from isdp._parquet_files import DATASET_FILE, table_files, table_rows, write_parquet
    >>> source = pa.table({"cell": ["a", "b"], "count": [3, 4]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_parquet(Path(tmp, DATASET_FILE.format(0)), source, 1, np.array([2, 5]))
    ...     write_parquet(Path(tmp, DATASET_FILE.format(1)), source.slice(0, 1), 1, np.array([7]))
    ...     names, rows = [f.name for f in table_files(Path(tmp))], table_rows(tmp)
    >>> names, rows
    (['part-000000.parquet', 'part-000001.parquet'], 3)
    """
    import pyarrow as pa  # deferred: only a Parquet release needs it
    import pyarrow.parquet as pq

    name = source.schema.names[count_column]
    counts = from_numpy(np.asarray(values, dtype=np.int64))
    released = source.set_column(count_column, pa.field(name, pa.int64()), counts)
    for column, data in (extra or {}).items():
        released = released.append_column(column, pa.array(data))
    # written from a schema made afresh: the input's metadata (of the file or a column) may describe the counts
    released = released.cast(plain_schema(released.schema))
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as fh:  # publishable: umask
        pq.write_table(released, fh, write_statistics=not scratch)
        if not scratch:
            fh.flush()
            os.fsync(fh.fileno())  # on disk before any name changes
