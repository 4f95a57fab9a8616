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
    """A fresh hidden name beside ``path`` (same directory, so same filesystem); unique, so two
    writers of one file never share it."""
    path = Path(path)
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")


def atomic_write(path, write: Callable[[Path], object], *, replace: bool = True) -> Path:
    """Call ``write(tmp)`` on a temporary sibling of ``path``, then rename it onto ``path``.

    With ``replace=False`` an existing ``path`` is never overwritten: the file is published by a
    hard link, which raises FileExistsError if the name exists, also when another process created
    it meanwhile. On any error the temporary file is removed and ``path`` is left as it was.
    Returns ``path``.
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
    """A DataFrame as CSV (no index, ``\\n`` line ends unless given), atomically."""
    kwargs = {"index": False, "lineterminator": "\n", **to_csv_kwargs}
    return atomic_write(path, lambda tmp: df.to_csv(tmp, **kwargs))


def write_json(obj, path, **dumps_kwargs) -> Path:
    """``obj`` as JSON (indented by 2 unless given) with a final newline, atomically."""
    kwargs = {"indent": 2, **dumps_kwargs}
    return atomic_write(path, lambda tmp: tmp.write_text(json.dumps(obj, **kwargs) + "\n", encoding="utf-8"))


def write_text(text: str, path) -> Path:
    """A text file (UTF-8), atomically."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))

__all__ = [
    "atomic_write",
    "temporary_sibling",
    "write_json",
    "write_table",
    "write_text",
]
