"""Writing a release's three files — the table, its privacy statement and its confidential audit record —
all or none (docs/release.md, "What is written").

Each file is created readable by its owner only (all three derive from the confidential table) and written
through :func:`isdp.files.atomic_write`; one writer at a time per release name.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .errors import UsageError
from .files import atomic_write
from .tables import TableSet

if TYPE_CHECKING:
    from .release import Release


#: the ``note`` that opens every audit record: it is confidential, derived from the table
AUDIT_NOTE = ("CONFIDENTIAL: derived from the confidential table (its path, hash, attempt counts and timings can "
              "reveal counts). Keep it with the table; never publish it. The publishable file is the statement.")


def _open_private(path: Path):
    """A new file for text, readable by its owner only: all three files derive from the confidential table."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8", newline="")


def _csv_writer(lines: list[list[str]]):
    def write(path: Path) -> None:
        with _open_private(path) as fh:
            csv.writer(fh, lineterminator="\n").writerows(lines)
    return write


def _json_writer(payload: dict):
    def write(path: Path) -> None:
        with _open_private(path) as fh:
            json.dump(payload, fh, indent=1)
            fh.write("\n")
    return write


def _place(path: Path, write, *, force: bool) -> None:
    """Write ``path`` through :func:`isdp.files.atomic_write`: with ``force`` it replaces what is
    there; without, it is created exclusively, refused if the name exists, also when another run
    created it meanwhile (:class:`UsageError`)."""
    try:
        atomic_write(path, write, replace=force)
    except FileExistsError:
        raise UsageError(f"{path} exists (written by another run meanwhile?): nothing written; "
                         "remove it or pass --force") from None


def write_release(release: Release, output, statement_path, audit_path, *, force: bool = False) -> None:
    r"""Write the table, its statement and its audit record; on any failure none of them is left behind.

    The released table is written in the input's layout (labels, order, margins recomputed from
    the released cells), the statement and the audit record as JSON; the audit record opens with
    :data:`AUDIT_NOTE` and names the files. Each file is created readable by its owner only,
    through a temporary file renamed into place (:func:`isdp.files.atomic_write`), exclusively
    without ``force``. A lock file ``.OUTPUT.lock`` beside the first output keeps two runs from
    interleaving their files, also with ``force``. Several tables (a
    :class:`~isdp.tables.TableSet`) take one output each, in order, and share the statement and
    the audit record.

    Parameters
    ----------
    release : Release
        A checked release (:func:`isdp.release.make_release`).
    output : str or os.PathLike, or a list or tuple of them
        The released table (CSV); one per table, in order, for several tables.
    statement_path : str or os.PathLike
        The publishable privacy statement (JSON).
    audit_path : str or os.PathLike
        The confidential audit record (JSON): keep it with the table, never publish it.
    force : bool, default False
        Replace existing files; without it a file that exists is refused.

    Raises
    ------
    isdp.errors.UsageError
        A number of outputs that is not the number of tables; a file that exists without
        ``force`` (also one created by another run meanwhile); another run holding the lock.
        Files written before the failure are removed.
    OSError
        A file that cannot be written (the command line reports it as a
        :class:`~isdp.errors.UsageError`); nothing is left behind.

    See Also
    --------
    isdp.release.make_release : Makes the release.
    isdp.cli.main : ``isdp release``, which checks the output paths before sampling.

    Examples
    --------
    >>> import stat
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.constraints import constraint_matrix
    >>> from isdp.errors import UsageError
    >>> from isdp.release import Request, make_release
    >>> from isdp.release_files import write_release
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old,Total\nFemale,3,5,8\nMale,4,2,6\n")
    ...     table = load_table(path)
    ...     A, labels = constraint_matrix(table, ["all-margins"])
    ...     release = make_release(table, A, labels, Request(epsilon="1", seed=6))
    ...     out = Path(tmp, "release.csv")
    ...     write_release(release, out, Path(tmp, "release.csv.statement.json"), Path(tmp, "release.csv.audit.json"))
    ...     print(out.read_text(), end="")
    ...     print(sorted(p.name for p in Path(tmp).iterdir()), oct(stat.S_IMODE(out.stat().st_mode)))
    ...     try:
    ...         write_release(release, out, Path(tmp, "s.json"), Path(tmp, "a.json"))
    ...     except UsageError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    sex,young,old,Total
    Female,2,6,8
    Male,5,1,6
    ['release.csv', 'release.csv.audit.json', 'release.csv.statement.json', 'sex_by_age.csv'] 0o600
    /.../release.csv exists (written by another run meanwhile?): nothing written; remove it or pass --force
    """
    tables = release.table.tables if isinstance(release.table, TableSet) else (release.table,)
    outputs = [Path(o) for o in (output if isinstance(output, list | tuple) else [output])]
    statement_path, audit_path = Path(statement_path), Path(audit_path)
    if len(outputs) != len(tables):
        raise UsageError(f"{len(tables)} tables need {len(tables)} outputs (one -o each, in order); got {len(outputs)}")
    files = []
    for t, values, out in zip(tables, np.split(release.values, np.cumsum([len(t.keys) for t in tables])[:-1]), outputs,
                              strict=True):
        lines, expected = t.with_cells(values), t.with_cells(t.x)
        if len(lines) != len(expected) or any(len(a) != len(b) or a[0] != b[0]
                                              for a, b in zip(lines, expected, strict=True)):
            raise AssertionError("release layout differs from the input's; this is a bug in isdp")
        files.append((out, _csv_writer(lines)))
    record = {"note": AUDIT_NOTE, **release.audit,
              "files": {"release": str(outputs[0]) if len(outputs) == 1 else [str(o) for o in outputs],
                        "statement": str(statement_path)}}
    files += [(statement_path, _json_writer(release.statement)), (audit_path, _json_writer(record))]
    # one writer at a time per release name, also with --force: two runs replacing the three files
    # concurrently could leave one run's table beside the other's statement
    output = outputs[0]
    lock = output.with_name(f".{output.name}.lock")
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise UsageError(f"another run is writing {output} ({lock} exists; remove it if no run is): "
                         "nothing written") from None
    written = []
    try:
        for path, write in files:
            _place(path, write, force=force)
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    finally:
        lock.unlink(missing_ok=True)


__all__ = ["AUDIT_NOTE", "write_release"]
