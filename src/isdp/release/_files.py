"""Writing a release's three files.

The table, its privacy statement and its confidential audit record — all or none (docs/release.md, "What is written").

The audit record is created readable by its owner only (0600: it is confidential); the table and the statement,
which are published, with the modes the process's umask gives (0644 and 0755 under the usual 022). All three are
written in full to temporary files beside their names first; only then do the names change, each by an atomic
rename, and a failure at any step gives every name back what it held before — with ``force`` the earlier
release, byte for byte. A table released as a Parquet dataset (a directory of part files) is published and
given back as a whole directory. One writer at a time per release name.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import re
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as _ascii
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._atomic_files import write_all
from .._parquet_files import DATASET_FILE, DATASET_FILE_PATTERN, is_dataset, is_parquet, write_parquet
from ..errors import InputError, UsageError
from ..tables import LongTable, TableSet

if TYPE_CHECKING:
    from ._release import Release


#: the ``note`` that opens every audit record: it is confidential, derived from the table
AUDIT_NOTE = (
    "CONFIDENTIAL: derived from the confidential table (its path, hash, attempt counts and timings can "
    "reveal counts). Keep it with the table; never publish it. The publishable file is the statement."
)


def count_of(n: int, noun: str) -> str:
    """``n`` and ``noun``, in the plural unless ``n`` is 1: "1 table", "20,000 cells" (the CLI's messages too)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _open_new(path: Path, *, private: bool):
    """Return a new file for text: the audit record readable by its owner only, a publishable file as the umask says."""
    mode = 0o600 if private else 0o666  # the process's umask narrows the second (022: readable by all)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "w", encoding="utf-8", newline="")


def _csv_writer(lines: list[list[str]]):
    def write(path: Path) -> None:
        with _open_new(path, private=False) as fh:
            csv.writer(fh, lineterminator="\n").writerows(lines)
            fh.flush()
            os.fsync(fh.fileno())  # on disk before any name changes

    return write


#: significant digits of a float in a released CSV (noise_sd): a reader's precision, not the float's 17
FLOAT_DIGITS = 6


def _text(value) -> str:
    """Return a cell of an added column as CSV text: an integer as it is, a float to :data:`FLOAT_DIGITS` digits."""
    return f"{float(value):.{FLOAT_DIGITS}g}" if isinstance(value, np.floating) else str(int(value))


def _parquet_writer(table, out: Path, values: np.ndarray, extra: dict | None = None, *, dataset: bool = False):
    """Return a long table's release as Parquet.

    A Parquet input's columns kept, a CSV input's keys as text; one file, or a dataset of one file.
    """
    layout = table.layout
    if not isinstance(layout, LongTable) or len(values) != len(layout.counts):  # check_layouts refused a wide one
        raise AssertionError("release layout differs from the input's; this is a bug in isdp")
    source = layout.source
    if source is None:  # a CSV long table: its key columns as text, as read
        import pyarrow as pa  # deferred: only a Parquet release needs it

        source = pa.table({name: [fields[k] for fields in layout.rows()] for k, name in enumerate(layout.header)})

    def write(path: Path) -> None:
        if dataset:
            path.mkdir(mode=0o777)  # as the umask says: the dataset is publishable
            write_parquet(
                path / DATASET_FILE.format(0), source, layout.count_column, np.asarray(values, dtype=np.int64), extra
            )
        else:
            write_parquet(path, source, layout.count_column, np.asarray(values, dtype=np.int64), extra)

    return write


def check_layouts(tables, outputs) -> None:
    r"""Refuse a wide table whose output is Parquet (a ``.parquet`` file or a dataset): a Parquet release is long.

    The command line calls it before anything is drawn; :func:`write_release` again.

    Parameters
    ----------
    tables : sequence of Table
        The tables, in order.
    outputs : sequence of str or os.PathLike
        Their outputs as given (a trailing ``/`` names a dataset).

    Raises
    ------
    isdp.errors.UsageError
        A wide table to Parquet.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import check_layouts
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    >>> check_layouts([table], ["release.csv"])  # a wide table to CSV
    >>> check_layouts([table], ["release.parquet"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    isdp.errors.UsageError: release.parquet: a Parquet release is a long table ...: write it as CSV
    """
    for table, out in zip(tables, outputs, strict=True):
        if (is_dataset(out) or is_parquet(out)) and not isinstance(table.layout, LongTable):
            raise UsageError(
                f"{Path(out)}: a Parquet release is a long table (key columns and a count column); "
                f"{table.path} is wide: write it as CSV"
            )


def replaceable_dataset(path: Path) -> bool:
    """Return whether the directory ``path`` holds a released dataset only, so ``force`` may replace it.

    A released dataset's files are named as ``part-000000.parquet``, …; any other directory (a home, a folder of
    inputs) is never removed.
    """
    return all(
        entry.is_file(follow_symlinks=False) and re.fullmatch(DATASET_FILE_PATTERN, entry.name)
        for entry in os.scandir(path)
    )


def json_text(payload, indent: str = "") -> str:
    """Return ``payload`` as JSON: a dict's keys a line each, one more space a level, a list's items a line each.

    A statement lists an entry per invariant or solved cell (10⁶ at 10⁸ cells): ``json.dumps(indent=1)`` writes
    each with Python's own encoder, a line per key; here each item is one call of C's encoder and one line, so a
    reader of the file sees one invariant a line.

    Examples
    --------
    >>> from isdp.release._files import json_text
    >>> print(json_text({"route": {"name": "exact"}, "invariants": [{"label": "total", "value": 7}], "checks": []}))
    {
     "route": {
      "name": "exact"
     },
     "invariants": [
      {"label": "total", "value": 7}
     ],
     "checks": []
    }
    """
    inner = indent + " "
    if isinstance(payload, dict) and payload:
        items = [f"{inner}{json.dumps(str(k))}: {json_text(v, inner)}" for k, v in payload.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(payload, list) and payload:
        return "[\n" + ",\n".join(inner + _one_line(item) for item in payload) + "\n" + indent + "]"
    return json.dumps(payload)


def _one_line(item) -> str:
    """Return ``json.dumps(item)``, a flat dict's text and int values written without the encoder's set-up per item.

    The same bytes (strings ASCII-escaped by the C function ``json.dumps`` calls, ints by their repr): 1.4 s for 10⁶
    invariants where a ``json.dumps`` each took 2.5 s. Anything else, or a dict with any other value, is dumped.
    """
    if type(item) is not dict:
        return json.dumps(item)
    out = []
    for key, value in item.items():
        kind = type(value)
        if type(key) is not str or (kind is not str and kind is not int):
            return json.dumps(item)
        out.append(_ascii(key) + ": " + (_ascii(value) if kind is str else int.__repr__(value)))
    return "{" + ", ".join(out) + "}"


def json_writer(payload: dict, *, private: bool = False):
    def write(path: Path) -> None:
        with _open_new(path, private=private) as fh:
            fh.write(json_text(payload) + "\n")  # one write: json.dump writes each token on its own
            fh.flush()
            os.fsync(fh.fileno())

    return write


def write_release(release: Release, output, statement_path, audit_path, *, force: bool = False) -> None:
    r"""Write the table, its statement and its audit record; on any failure none of them is left behind.

    The released table is written in the input's layout (labels, order, margins recomputed from
    the released cells), the statement and the audit record as JSON; the audit record opens with
    a note that it is confidential and names the files. The audit record is created readable by its owner
    only (0600); the table and the statement, which are published, as the process's umask says (under the
    usual 022, readable by all: 0644, a dataset's folder 0755).
    The three are written in full to temporary files beside their names
    (a temporary sibling) before any name changes; then each is moved onto its
    name — by a hard link without ``force`` (refused if the name exists), by ``os.replace`` with
    it, after keeping the file it replaces as a hard link under a backup name. A failure at any
    step (a full disk, a file-size limit, an interruption) gives every name back what it held
    before, so an earlier release replaced with ``force`` survives byte for byte; the backups are
    removed once all three names hold the new files. A lock file ``.OUTPUT.lock`` beside the
    first output keeps two runs from interleaving their files, also with ``force``. Several
    tables (a :class:`~isdp.tables.TableSet`) take one output each, in order, and share the
    statement and the audit record.

    Parameters
    ----------
    release : Release
        A checked release (:func:`isdp.release.make_release`).
    output : str or os.PathLike, or a list or tuple of them
        The released table: CSV in the input's layout, or Parquet for a path ending in
        ``.parquet`` (a long table: a Parquet input's columns and types kept, none of its
        metadata, the counts as int64), or a Parquet dataset — a directory holding
        ``part-000000.parquet`` — for a name ending in ``/`` or an existing directory
        (``isdp._parquet_files.is_dataset``); one per table, in order, for several
        tables.
    statement_path : str or os.PathLike
        The publishable privacy statement (JSON).
    audit_path : str or os.PathLike
        The confidential audit record (JSON): keep it with the table, never publish it.
    force : bool, default False
        Replace existing files; without it a file that exists is refused. A dataset replaces only
        a directory that holds a released dataset's files and nothing else.

    Raises
    ------
    isdp.errors.UsageError
        A ``release`` that is not a :class:`~isdp.release.Release`, a path that is not a file
        name (None, a number, ``""``); a number of outputs that is not the number of tables; a wide table to Parquet
        (:func:`check_layouts`); an output, statement or audit path that is the release's input
        table, lies inside an input dataset or holds an input (:func:`input_clash`), also with
        ``force``; a file that exists without ``force`` (also one created by another run
        meanwhile); another run holding the lock.
        Nothing is written, and no earlier file is changed.
    OSError
        A file that cannot be written or moved into place (the command line reports it as a
        :class:`~isdp.errors.UsageError`): no new file is left behind and every earlier file is
        as it was. Only if putting an earlier file back fails too does the message name the backup
        that holds it.

    See Also
    --------
    isdp.release.make_release : Makes the release.
    isdp.cli.main : ``isdp release``, which checks the output paths before sampling.

    Examples
    --------
    >>> import stat
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.errors import UsageError
    >>> from isdp.release import Request, make_release
    >>> from isdp.release import write_release
    >>> from isdp.tables import load_table
    >>> import os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old,Total\nFemale,3,5,8\nMale,4,2,6\n")
    ...     table = load_table(path)
    ...     A, labels = constraint_matrix(table, ["all-margins"])
    ...     release = make_release(table, A, labels, Request(epsilon="1", seed=3))
    ...     out, audit = Path(tmp, "release.csv"), Path(tmp, "release.csv.audit.json")
    ...     umask = os.umask(0o022)  # the usual umask, for the modes printed below
    ...     write_release(release, out, Path(tmp, "release.csv.statement.json"), audit)
    ...     _ = os.umask(umask)
    ...     print(out.read_text(), end="")
    ...     print(sorted(p.name for p in Path(tmp).iterdir()))
    ...     print(oct(stat.S_IMODE(out.stat().st_mode)), oct(stat.S_IMODE(audit.stat().st_mode)))
    ...     try:
    ...         write_release(release, out, Path(tmp, "s.json"), Path(tmp, "a.json"))
    ...     except UsageError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    sex,young,old,Total
    Female,2,6,8
    Male,5,1,6
    ['release.csv', 'release.csv.audit.json', 'release.csv.statement.json', 'sex_by_age.csv']
    0o644 0o600
    /.../release.csv exists (written by another run meanwhile?): nothing written; remove it or pass --force
    """
    from ._release import Release  # here: it loads the samplers, which writing needs not

    if not isinstance(release, Release):
        raise UsageError(
            f"release must be a Release (isdp.release.make_release), got {type(release).__name__}", "release"
        )
    tables = release.table.tables if isinstance(release.table, TableSet) else (release.table,)
    given = output if isinstance(output, list | tuple) else [output]
    outputs, datasets = [output_path("output", o) for o in given], [is_dataset(o) for o in given]
    statement_path, audit_path = output_path("statement_path", statement_path), output_path("audit_path", audit_path)
    if len(outputs) != len(tables):
        raise UsageError(
            f"{count_of(len(tables), 'table')} need{'s' if len(tables) == 1 else ''} "
            f"{count_of(len(tables), 'output')} (one -o each, in order); got {len(outputs)}"
        )
    check_layouts(tables, given)
    files = []
    cuts = np.cumsum([len(t.keys) for t in tables])[:-1]
    extras = (
        [
            dict(zip(release.uncertainty, parts, strict=True))
            for parts in zip(*(np.split(c, cuts) for c in release.uncertainty.values()), strict=True)
        ]
        if release.uncertainty is not None
        else [None] * len(tables)
    )
    for t, values, extra, out, dataset in zip(
        tables, np.split(release.values, cuts), extras, outputs, datasets, strict=True
    ):
        if dataset or is_parquet(out):
            files.append((out, _parquet_writer(t, out, values, extra, dataset=dataset)))
            continue
        lines = t.with_cells(values)
        if extra is not None:  # a long table's lines: the columns appended (make_release refused a wide one)
            lines = [
                [*lines[0], *extra],
                *([*line, *(_text(c[i]) for c in extra.values())] for i, line in enumerate(lines[1:])),
            ]
        if isinstance(t.layout, LongTable):  # the header and the input's lines, each with its new count
            same = len(lines) == len(t.layout.counts) + 1
        else:  # a wide table's margins are recomputed: its rows and their labels must stay the input's
            expected = t.with_cells(t.x)
            same = len(lines) == len(expected) and all(
                len(a) == len(b) and a[0] == b[0] for a, b in zip(lines, expected, strict=True)
            )
        if not same:
            raise AssertionError("release layout differs from the input's; this is a bug in isdp")
        files.append((out, _csv_writer(lines)))
    record = audit_record(release.audit, outputs, statement_path)
    files += [(statement_path, json_writer(release.statement)), (audit_path, json_writer(record, private=True))]
    write_files(files, force=force, inputs=[t.path for t in tables])


def audit_record(audit: dict, outputs: list[Path], statement_path: Path) -> dict:
    """Return the audit record as written: ``AUDIT_NOTE``, the release's record, and the files' names."""
    return {
        "note": AUDIT_NOTE,
        **audit,
        "files": {
            "release": str(outputs[0]) if len(outputs) == 1 else [str(o) for o in outputs],
            "statement": str(statement_path),
        },
    }


def output_path(name: str, value) -> Path:
    """Return ``value`` as an output's :class:`~pathlib.Path`.

    A :class:`~isdp.errors.UsageError` names the argument ``name`` when it is no file name (None, a number,
    ``""``, ``.``).
    """
    if not isinstance(value, str | os.PathLike):
        raise UsageError(f"{name} must be a file name (str or os.PathLike), got {type(value).__name__}", name)
    path = Path(value)
    if path.name in ("", ".", ".."):
        raise UsageError(f"{name} {os.fspath(value)!r} is not a file name", name)
    return path


def input_clash(path, inputs) -> str | None:
    """How the output ``path`` would overwrite one of ``inputs``, or None when it would not.

    An output may not be an input (also through a link), lie inside an input that is a Parquet
    dataset (the confidential table would then hold released rows), nor be a directory that holds
    an input (a dataset replaced with ``force`` would remove it).

    Parameters
    ----------
    path : str or os.PathLike
        An output: a released table, a statement or an audit record.
    inputs : iterable of str or os.PathLike
        The inputs: tables (files or datasets), a constraint file.

    Returns
    -------
    str or None
        The clash, as words that follow the output's name (``"is the input t.csv"``), or None.

    Examples
    --------
    >>> from isdp.release._files import input_clash
    >>> input_clash("ds/released.parquet", ["ds"]), input_clash("out.csv", ["t.csv"])
    ('lies inside the input dataset ds', None)
    """
    try:
        out = Path(path).resolve()
        for given in inputs:
            table = Path(given).resolve()
            if out == table or (out.exists() and table.exists() and os.path.samefile(out, table)):
                return f"is the input {given}"
            if table in out.parents:
                return f"lies inside the input dataset {given}"
            if out in table.parents:
                return f"holds the input {given}"
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13) holds no input
        return None
    return None


def write_files(files: list[tuple[Path, Callable[[Path], object] | Path]], *, force: bool, inputs=()) -> None:
    """Publish each ``(name, write)`` pair's file all or none (``isdp._atomic_files.write_all``).

    A directory is replaced only when it holds a released dataset's files; a name that would overwrite one of
    ``inputs`` (:func:`input_clash`) is refused before anything is written.
    """
    for path, _ in files:
        clash = input_clash(path, inputs)
        if clash is not None:
            raise UsageError(f"{path} {clash}: an input is never overwritten; nothing written")
    write_all(files, force=force, replaceable=replaceable_dataset)


def _symlink_loop(path: Path) -> bool:
    """Return whether ``path`` (or a directory on the way to it) is a loop of symbolic links."""
    try:
        os.stat(path)
    except OSError as err:
        return err.errno == errno.ELOOP
    return False


def _same_file(a: Path, b: Path) -> bool:
    """Return whether two paths name one file (through links too); False when either cannot be resolved."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop (Python < 3.13)
        return False


def check_inputs(tables: list[Path], constraints: Path | None = None) -> None:
    """Refuse, before anything is read, an input that is a loop of symbolic links.

    Parameters
    ----------
    tables : list of pathlib.Path
        The tables.
    constraints : pathlib.Path, optional
        The constraint file.

    Raises
    ------
    isdp.errors.InputError
        An input that is a loop of symbolic links (they never reach a file).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import check_inputs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     Path(tmp, "a.csv").symlink_to(Path(tmp, "b.csv"))
    ...     Path(tmp, "b.csv").symlink_to(Path(tmp, "a.csv"))
    ...     try:
    ...         check_inputs([Path(tmp, "a.csv")])
    ...     except Exception as err:
    ...         print(type(err).__name__, str(err).split(": ", 1)[1])
    InputError cannot read the table: it is a loop of symbolic links (they never reach a file)
    """
    for path, what in [*((t, "the table") for t in tables), (constraints, "the constraint file")]:
        if path is not None and _symlink_loop(path):
            raise InputError(f"{path}: cannot read {what}: it is a loop of symbolic links (they never reach a file)")


def check_outputs(
    outputs: dict[str, Path], inputs: list[Path], *, force: bool = False, datasets: frozenset[str] = frozenset()
) -> None:
    r"""Refuse, before any work, output paths that cannot be written as asked.

    Refused are paths that are not files (or for ``datasets``, the options that name a Parquet dataset, not
    directories of a dataset's files only), collide with each other or with an input (the confidential table is
    never overwritten, nor a directory that holds it), exist without ``force``, or cannot be written. What
    ``isdp release`` checks before anything is sampled; :func:`write_release` checks again as it writes.

    Parameters
    ----------
    outputs : dict of str to pathlib.Path
        Each output by the name its refusal gives it (``-o/--output``, ``--statement``).
    inputs : list of pathlib.Path
        The inputs: tables (files or datasets), a constraint file.
    force : bool, default False
        Existing files will be replaced.
    datasets : frozenset of str, default frozenset()
        The names in ``outputs`` that are Parquet datasets (directories).

    Raises
    ------
    isdp.errors.UsageError
        The first path refused, and why.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import check_outputs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     table = Path(tmp, "t.csv")
    ...     _ = table.write_text("g,count\nu,1\n")
    ...     check_outputs({"-o/--output": Path(tmp, "out.csv")}, [table])  # nothing to refuse
    ...     try:
    ...         check_outputs({"-o/--output": table}, [table], force=True)
    ...     except Exception as err:
    ...         print(type(err).__name__, "refusing to overwrite an input" in str(err))
    UsageError True
    """
    for name, path in outputs.items():
        if path.name in ("", ".", ".."):
            raise UsageError(f"{name} {str(path)!r} is not a file name")
        if _symlink_loop(path):
            raise UsageError(f"{name} {path} is a loop of symbolic links (they never reach a file): name a file")
        if path.is_symlink() and not path.exists():  # else found only at the end, once the noise is drawn
            raise UsageError(
                f"{name} {path} is a symbolic link to nothing (a dangling link): remove it or name another file"
            )
        if name in datasets:
            if path.is_symlink():
                raise UsageError(f"{name} {path} is a symbolic link: a Parquet dataset is a directory of its own")
            if path.exists() and not path.is_dir():
                raise UsageError(
                    f"{name} {path} is not a directory: a Parquet dataset (a name ending in /) is written as one"
                )
            for other, other_path in outputs.items():
                if path.resolve() in other_path.resolve().parents:
                    raise UsageError(f"{other} {other_path} lies inside the dataset {name} {path}: write it beside")
            if path.is_dir() and force and not replaceable_dataset(path):
                raise UsageError(
                    f"{name} {path} holds more than a released dataset's files (part-NNNNNN.parquet): "
                    "it is never replaced; name another directory"
                )
        elif path.is_dir():
            raise UsageError(f"{name} {path} is a directory")
        elif path.exists() and not path.is_file():
            raise UsageError(f"{name} {path} is not a regular file (a device or a pipe is never replaced)")
        if path.exists() and not force:
            raise UsageError(f"{path} exists: remove it or pass --force")
        parent = path.parent
        if not parent.is_dir():
            raise UsageError(f"{parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"{parent} is not writable: nothing was sampled")
        clash = input_clash(path, inputs)  # the input itself, a file inside an input dataset, or a folder holding one
        if clash:
            raise UsageError(f"{name} {path} {clash}: refusing to overwrite an input")
    names = list(outputs)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if _same_file(outputs[a], outputs[b]):
                raise UsageError(f"{a} and {b} name the same file {outputs[a]}")
