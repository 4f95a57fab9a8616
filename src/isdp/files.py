"""Writing files so that no reader ever sees half of one, and reading a file's digest.

Every result file is written through a temporary sibling and renamed into place (:func:`atomic_write`;
``os.replace`` is atomic on one filesystem): a crash, a full disk or an exception inside the writer leaves the
previous file, or none, and no temporary file behind. :func:`write_table`, :func:`write_json` and
:func:`write_text` are the usual writers built on it; :func:`file_sha256` reads a file's digest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ._atomic_files import atomic_write


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


def file_sha256(path) -> str:
    """Return the SHA-256 of a file's bytes, read in blocks (a file of any size in little memory).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        The digest, 64 lower-case hexadecimal digits.

    Raises
    ------
    OSError
        The file cannot be read (a directory included).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.files import file_sha256
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = Path(tmp, "a.txt").write_bytes(b"abc")
    ...     file_sha256(Path(tmp, "a.txt"))
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


__all__ = [
    "atomic_write",
    "file_sha256",
    "write_json",
    "write_table",
    "write_text",
]
