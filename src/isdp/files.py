"""Writing files so that no reader ever sees half of one.

Every result file and every release is written through a temporary sibling and renamed into place
(``os.replace`` is atomic on one filesystem): a crash, a full disk or an exception inside the
writer leaves the previous file, or none, and no temporary file behind.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path


def temporary_sibling(path) -> Path:
    """Return a fresh hidden name beside ``path``, on the same filesystem, for writing it atomically.

    The name is ``.<name>.<32 hex digits>.tmp`` in the directory of ``path``: the same
    directory, so the same filesystem and an atomic rename; unique (a random UUID), so two
    writers of one file never share it. Nothing is created.

    Parameters
    ----------
    path : str or os.PathLike
        The file that is to be written.

    Returns
    -------
    pathlib.Path
        A name in the directory of ``path`` that no other call returns.

    See Also
    --------
    atomic_write : Writes through such a sibling and renames it onto ``path``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from isdp.files import temporary_sibling
    >>> tmp = temporary_sibling("results/release.csv")
    >>> tmp.parent == Path("results"), tmp.name.startswith(".release.csv."), tmp.suffix
    (True, True, '.tmp')
    >>> temporary_sibling("release.csv") != temporary_sibling("release.csv")
    True
    """
    path = Path(path)
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")


def atomic_write(path, write: Callable[[Path], object], *, replace: bool = True) -> Path:
    r"""Call ``write(tmp)`` on a temporary sibling of ``path``, then rename it onto ``path``.

    A reader sees the previous file or the complete new one, never a part: the file is written
    under :func:`temporary_sibling`'s name and moved into place by ``os.replace`` (atomic on one
    filesystem). The parent directory is created if needed. With ``replace=False`` an existing
    ``path`` is never overwritten: the file is published by a hard link, which raises
    FileExistsError if the name exists, also when another process created it meanwhile. On any
    error the temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    write : callable
        ``write(tmp)`` writes the whole file at ``tmp`` (a :class:`pathlib.Path`); its return
        value is ignored.
    replace : bool, default True
        Whether an existing ``path`` is replaced; False creates it exclusively.

    Returns
    -------
    pathlib.Path
        ``path``, now holding what ``write`` wrote.

    Raises
    ------
    FileExistsError
        With ``replace=False``, when ``path`` exists.
    Exception
        Whatever ``write`` raises, after the temporary file is removed.

    See Also
    --------
    write_table, write_json, write_text : The usual writers, built on this.
    isdp.release.write_release : A release's three files, all or none.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.files import atomic_write
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = atomic_write(Path(tmp, "note.txt"), lambda t: t.write_text("first\n"))
    ...     try:
    ...         atomic_write(path, lambda t: t.write_text("second\n"), replace=False)
    ...     except FileExistsError:
    ...         print("kept:", path.read_text().strip())
    ...     print(sorted(p.name for p in Path(tmp).iterdir()))
    kept: first
    ['note.txt']

    A writer that fails leaves the previous file as it was and no temporary file:

    >>> def broken(t):
    ...     t.write_text("half")
    ...     raise OSError("disk full")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = atomic_write(Path(tmp, "note.txt"), lambda t: t.write_text("first\n"))
    ...     try:
    ...         atomic_write(path, broken)
    ...     except OSError as err:
    ...         print(err, "->", path.read_text().strip(), len(list(Path(tmp).iterdir())))
    disk full -> first 1
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_sibling(path)
    try:
        write(tmp)
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_table(df, path, **to_csv_kwargs) -> Path:
    r"""Return a DataFrame as CSV (no index, ``\n`` line ends unless given), atomically.

    Parameters
    ----------
    df : pandas.DataFrame
        The table to write.
    path : str or os.PathLike
        The CSV file; an existing one is replaced.
    **to_csv_kwargs
        Passed to :meth:`pandas.DataFrame.to_csv`; they override the defaults ``index=False``
        and ``lineterminator="\n"``.

    Returns
    -------
    pathlib.Path
        ``path``.

    See Also
    --------
    atomic_write : How the file is written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from isdp.files import write_table
    >>> df = pd.DataFrame({"sex": ["Female", "Male"], "count": [3, 4]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(write_table(df, Path(tmp, "counts.csv")).read_text(), end="")
    sex,count
    Female,3
    Male,4
    """
    kwargs = {"index": False, "lineterminator": "\n", **to_csv_kwargs}
    return atomic_write(path, lambda tmp: df.to_csv(tmp, **kwargs))


def write_json(obj, path, **dumps_kwargs) -> Path:
    """``obj`` as JSON (indented by 2 unless given) with a final newline, atomically.

    Parameters
    ----------
    obj : object
        Anything :func:`json.dumps` serialises.
    path : str or os.PathLike
        The JSON file; an existing one is replaced.
    **dumps_kwargs
        Passed to :func:`json.dumps`; they override the default ``indent=2``.

    Returns
    -------
    pathlib.Path
        ``path``.

    See Also
    --------
    atomic_write : How the file is written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.files import write_json
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_json({"epsilon": "1/2", "cells": 4}, Path(tmp, "run.json"), indent=None)
    ...     print(path.read_text(), end="")
    {"epsilon": "1/2", "cells": 4}
    """
    kwargs = {"indent": 2, **dumps_kwargs}
    return atomic_write(path, lambda tmp: tmp.write_text(json.dumps(obj, **kwargs) + "\n", encoding="utf-8"))


def write_text(text: str, path) -> Path:
    r"""Return a text file (UTF-8), atomically.

    Parameters
    ----------
    text : str
        The whole content, written as given (no newline is added).
    path : str or os.PathLike
        The file; an existing one is replaced.

    Returns
    -------
    pathlib.Path
        ``path``.

    See Also
    --------
    atomic_write : How the file is written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.files import write_text
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(write_text("ε = 1 per person\n", Path(tmp, "notes", "eps.txt")).read_text(), end="")
    ε = 1 per person
    """
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


__all__ = [
    "atomic_write",
    "temporary_sibling",
    "write_json",
    "write_table",
    "write_text",
]
