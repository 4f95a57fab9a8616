"""Renaming complete files into place: one file, or several all or none.

Every result file and every release is written through a temporary sibling and renamed into place
(``os.replace`` is atomic on one filesystem): a crash, a full disk or an exception inside the
writer leaves the previous file, or none, and no temporary file behind. Several files that belong
together (a release's table, statement and audit record) are published all or none
(:func:`write_all`). This module is the only one that renames files into place; :mod:`isdp.files`
offers its :func:`atomic_write` and the usual writers built on it.
"""

from __future__ import annotations

import errno
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from .errors import UsageError


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
    >>> from isdp._atomic_files import temporary_sibling
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
    isdp.files.write_table, isdp.files.write_json, isdp.files.write_text : The usual writers, built on this.
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


def _sync_directory(path: Path) -> None:
    """Put a directory's entries on disk (its files are synced as they are written), before its name changes."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    """Remove a file or a directory tree at ``path``; nothing if there is none."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


#: the errors of a hard link on a filesystem that has none (the backup is then a copy)
_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK}


def _backup_name(path: Path) -> Path:
    """Return a fresh hidden name beside ``path`` for a hard link to the file it replaces."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.backup")


def _publish(files: list[tuple[Path, Path]], *, force: bool, replaceable: Callable[[Path], bool]) -> None:
    """Move complete temporary files (or directories) onto their names, all or none.

    ``files`` pairs each name with its complete temporary sibling. Without ``force`` a file is
    published by a hard link, which refuses a name that exists (also one created meanwhile); a
    directory by first claiming its name with an empty directory (which also refuses one that
    exists), then renaming the directory over it. With ``force`` a file already at a name is first
    kept as a hard link under a backup name (a copy where the filesystem has no hard links), then
    the new one is renamed over it (``os.replace``: a reader sees the old file or the new one); a
    directory already at a name is renamed to its backup name, then the new one to the name (a
    reader may find none for that instant), and a directory that ``replaceable`` refuses is never
    replaced. If any step fails, every name is given back what it held before — the old file or
    directory from its backup, or nothing — and the backups are removed only once all names hold
    the new files. Should giving back fail too, the backups are left in place and the error names
    them.
    """
    done: list[tuple[Path, Path | None]] = []  # (name, backup of what it held or None: it held nothing)
    backup: Path | None
    try:
        for path, tmp in files:
            directory = tmp.is_dir()
            if not force:
                try:
                    if directory:
                        path.mkdir(mode=0o700)
                    else:
                        os.link(tmp, path)
                except FileExistsError:
                    raise UsageError(
                        f"{path} exists (written by another run meanwhile?): nothing written; remove it or pass --force"
                    ) from None
                done.append((path, None))
                if directory:
                    os.rename(tmp, path)  # onto the empty directory just made: rename(2) replaces it
                continue
            backup = _backup_name(path)
            if path.is_dir() and not path.is_symlink():
                if not replaceable(path):
                    raise UsageError(
                        f"{path} is a directory that holds more than a released dataset's files: it is never "
                        "replaced; nothing written"
                    )
                os.rename(path, backup)
            elif directory:
                try:
                    os.rename(path, backup)
                except FileNotFoundError:
                    backup = None
            else:
                try:
                    os.link(path, backup, follow_symlinks=False)
                except FileNotFoundError:
                    backup = None
                except OSError as err:
                    if err.errno not in _NO_HARD_LINKS:
                        raise
                    shutil.copy2(path, backup, follow_symlinks=False)  # a filesystem without hard links: a copy
            done.append((path, backup))
            os.replace(tmp, path)
    except BaseException as err:
        stranded = []
        for path, backup in reversed(done):
            try:
                if backup is None:
                    _remove(path)
                elif backup.is_dir() or path.is_dir():  # a directory replaced a directory (or a file): put it back
                    if os.path.lexists(path) and not path.samefile(backup):
                        _remove(path)
                    os.replace(backup, path)
                else:
                    os.replace(backup, path)
                    backup.unlink(missing_ok=True)  # still there if the name never changed: rename(2) of two links
            except OSError:
                stranded.append(
                    f"the new {path} could not be removed"
                    if backup is None
                    else f"the earlier {path} is kept as {backup}"
                )
        if stranded:
            raise OSError(
                getattr(err, "errno", None) or 0,
                f"{getattr(err, 'strerror', None) or err}; putting the earlier files back failed too: "
                f"{'; '.join(stranded)}",
                getattr(err, "filename", None),
            ) from err
        raise
    for _, backup in done:
        if backup is not None:
            _remove(backup)


def write_all(
    files: list[tuple[Path, Callable[[Path], object] | Path]],
    *,
    force: bool = False,
    replaceable: Callable[[Path], bool] | None = None,
) -> None:
    r"""Write several files beside their names, then publish them all or none.

    Each ``write(tmp)`` writes one file (or a directory) in full at ``tmp``, a
    :func:`temporary_sibling` of its name; a path in place of ``write`` is a file or directory
    already complete beside the name (on its filesystem), published as it is. Only when every
    one is complete does any name change: without ``force`` a file is published by a hard link
    (refused if the name exists, also one created meanwhile), with ``force`` by ``os.replace``
    after keeping the file it replaces under a backup name. A failure at any step gives every
    name back what it held before, so files replaced with ``force`` survive byte for byte; the
    backups are removed once all names hold the new files. A lock file ``.NAME.lock`` beside the
    first name keeps two writers apart, also with ``force``.

    Parameters
    ----------
    files : list of (pathlib.Path, callable or pathlib.Path)
        Each name, and how its content is written (or where it lies, complete).
    force : bool, default False
        Replace existing files; without it a name that exists is refused.
    replaceable : callable, optional
        ``replaceable(directory)`` says whether a directory at a name may be replaced with
        ``force``; by default none is.

    Raises
    ------
    isdp.errors.UsageError
        A name that exists without ``force`` (nothing written), a directory ``replaceable``
        refuses, or another writer holding the lock.
    OSError
        A file that cannot be written or moved into place (its name in ``filename``): no new
        file is left and every earlier one is as it was; only if putting an earlier file back
        fails too does the message name the backup that holds it.

    See Also
    --------
    atomic_write : One file.
    isdp.release.write_release : A release's three files.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp._atomic_files import write_all
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     a, b = Path(tmp, "a.txt"), Path(tmp, "b.txt")
    ...     write_all([(a, lambda t: t.write_text("1")), (b, lambda t: t.write_text("2"))])
    ...     def broken(t):
    ...         raise OSError(28, "No space left on device")
    ...     try:
    ...         write_all([(a, lambda t: t.write_text("3")), (b, broken)], force=True)
    ...     except OSError as err:
    ...         print(err.strerror, Path(err.filename).name)
    ...     print(a.read_text(), b.read_text(), sorted(p.name for p in Path(tmp).iterdir()))
    No space left on device b.txt
    1 2 ['a.txt', 'b.txt']
    """
    # one writer at a time per set of names, also with force: two runs replacing the same files
    # concurrently could leave one run's table beside the other's statement
    output = files[0][0]
    lock = output.with_name(f".{output.name}.lock")
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise UsageError(
            f"another run is writing {output} ({lock} exists; remove it if no run is): nothing written"
        ) from None
    temporaries: list[tuple[Path, Path]] = []
    try:
        for path, write in files:  # every file complete beside its name before any name changes
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(write, os.PathLike):
                temporaries.append((path, Path(write)))
            else:
                temporaries.append((path, temporary_sibling(path)))
                try:
                    write(temporaries[-1][1])
                except OSError as err:  # a full disk or a file-size limit names no file: name the one being written
                    err.filename = err.filename or str(path)
                    raise
            if temporaries[-1][1].is_dir():
                _sync_directory(temporaries[-1][1])
        _publish(temporaries, force=force, replaceable=replaceable or (lambda directory: False))
    finally:
        for _, tmp in temporaries:
            _remove(tmp)
        lock.unlink(missing_ok=True)
