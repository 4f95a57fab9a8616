"""The ``isdp`` command line (``isdp release …``, also ``python -m isdp``); see docs/release.md.

Long because the command's parser is one readable block of options and their help, and the command owns its
exits (each refusal's status, signals, a closed pipe, a bug's details); the release itself is
:mod:`isdp.release`'s public API.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import re
import signal
import sys
import tempfile
import traceback
from pathlib import Path

from . import __version__
from ._published_commands import add_parsers, run_query, run_verify
from .errors import (
    ArgumentError,
    CertificationError,
    InvariantError,
    IsdpError,
    NotPartitionable,
    ReleaseError,
    UsageError,
)

#: the exit statuses of ``isdp release`` (the epilog of its ``--help``): each
#: :class:`~isdp.errors.ReleaseError` kind carries its own as ``exit_code``
EXIT_CODES = """exit codes:
  0  released: the table, its privacy statement and its audit record are written (or --dry-run printed)
  1  the Dask cluster failed: its scheduler did not answer within 10 s, or a part was lost with its worker
  2  bad options or output paths (e.g. --epsilon <= 0, a Gaussian without --delta, an output that is an input)
  3  bad input: unreadable table, wrong shape or labels, non-integer or negative counts
  4  infeasible invariants: they leave no room for noise, or a stated value disagrees with the table
  5  refused: no route meets the requested guarantee within the budget, or the route is not for publication
  70 internal error (a bug in isdp): one line names the file that holds its details (the traceback)
  130 interrupted (SIGINT)
  141 stdout closed early (e.g. piped into head): stops quietly; a release already written stays
  143 terminated (SIGTERM, as timeout, SLURM or systemd send it)

On any error nothing is written, and an earlier release replaced with --force is left as it was."""

#: the description of ``isdp release --help``: what is written, the guarantee per person, the routes
RELEASE_HELP = """Privatise an integer table: add integer noise that keeps the invariants exactly and
write the released table (same layout and labels), a publishable privacy statement (JSON) and a
confidential audit record (JSON).

State the guarantee you need per person: --epsilon (and --delta for the Gaussian or a chain).
Two tables are neighbours when they have the same invariants and differ in one person's record
(added, removed or moved between cells); the statement also covers two persons.

example (the congenial paper's sex x age table, its three invariants, epsilon 1 per person;
isdp example writes both files, installed with the package, into the current folder):

  isdp example sex_by_age

  isdp release sex_by_age.csv --format wide \\
      --constraints sex_by_age_invariants.csv --epsilon 1 --output release.csv

With --norm l1 (default) the noise is drawn exactly (integer arithmetic, operating-system entropy)
and the guarantee is pure epsilon; with --norm gaussian too (rho-zCDP, stated as (epsilon, delta)).
--norm l2, or --allow-chain when the exact sampler cannot serve, runs a Markov chain certified by
coupling: a statistical (epsilon, delta), refused for publication (seeded study runs only).
--free-cells (l1) releases the exact sampler's proposal without its rejection step: exact, the same
epsilon, any size, with more noise on the cells solved from the invariants (stated).
--dry-run prints the statement a run would carry, from the options and the table's labels only.

Several tables of the same persons are released together, consistent and under one statement
(epsilon per person across the tables; a table the others determine, here the county totals, is
derived from them at no cost):

  isdp release county.csv county_sex.csv --tie by:county --epsilon 1 -o c.csv -o cs.csv"""


def _whole_number(text: str) -> int:
    """Return an integer option, in ASCII digits.

    ``int`` would also read ``1_0`` as 10, spaces, and other scripts' digits.
    """
    if not re.fullmatch(r"-?[0-9]{1,30}", text):
        raise argparse.ArgumentTypeError(f"must be a whole number in ASCII digits (such as 20000), got {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="isdp", description="Integer subspace differential privacy.")
    parser.add_argument("--version", action="version", version=f"isdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "release",
        help="privatise a table, keeping its invariants exactly",
        description=RELEASE_HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "table",
        type=Path,
        nargs="+",
        help="confidential table: CSV, wide (row labels, one column "
        "per category; 'Total' rows/columns are checked and kept) or long (key columns and a count "
        "column), or long Parquet (a .parquet file, or a directory of them read as one table; the "
        "count column an integer type); several tables of the same persons are released together under "
        "one statement",
    )
    p.add_argument(
        "-o",
        "--output",
        action="append",
        help="released table (CSV, the input's layout; Parquet for "
        "a name ending in .parquet, a long table's; a Parquet dataset, a directory of part-NNNNNN.parquet "
        "files, for a name ending in / or an existing directory), one per table in order; required "
        "unless --dry-run",
    )
    p.add_argument(
        "--statement",
        type=Path,
        help="publishable privacy statement (JSON; default: the first OUTPUT with .statement.json)",
    )
    p.add_argument(
        "--audit",
        type=Path,
        help="CONFIDENTIAL audit record: input path and hash, attempts, "
        "timings (JSON; default: the first OUTPUT with .audit.json)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the privacy statement a run would carry (JSON), reading only the table's labels; write nothing",
    )
    g = p.add_argument_group("invariants (at least one)")
    g.add_argument(
        "--invariant",
        action="append",
        default=[],
        metavar="FAMILY",
        help="total, row-margins, column-margins, all-margins or by:NAME[,NAME...] (a total per "
        "combination of those key columns); repeat to combine. With several tables each applies to "
        "every table; FAMILY@NAME to the table of file stem NAME",
    )
    g.add_argument(
        "--tie",
        action="append",
        default=[],
        metavar="TIE",
        help="several tables: total or by:NAME[,NAME...]: the totals of each group agree in every "
        "table with those key columns (county totals = the county x sex table's sums); checked on "
        "the tables and kept exactly",
    )
    g.add_argument(
        "--constraints",
        type=Path,
        metavar="FILE",
        help="constraint matrix CSV: header 'constraint,<cell labels>[,value]' with cell labels "
        "row|column (several tables: NAME|key...), one line of integer coefficients per invariant",
    )
    m = p.add_argument_group("guarantee and mechanism")
    m.add_argument(
        "--epsilon",
        help="epsilon needed per person, > 0, read exactly (0.1 is 1/10); written as an "
        "integer, a decimal, a decimal with an exponent or a fraction, in ASCII digits: 1, 0.5, 1e-6, 1/3",
    )
    m.add_argument(
        "--delta",
        help="delta needed per person, in (0, 1): the Gaussian's, and the certified chain's; "
        "written as --epsilon (1e-6, 0.000001, 1/1000000)",
    )
    m.add_argument(
        "--norm",
        choices=("l1", "l2", "gaussian"),
        default="l1",
        help="l1: generalized Laplace, exact sampler (default); l2: generalized Laplace in the l2 "
        "norm (certified chain); gaussian: generalized Gaussian, exact sampler",
    )
    m.add_argument(
        "--nonnegative",
        action="store_true",
        help="post-process onto non-negative tables with the same invariants (integer l1 projection; no privacy cost)",
    )
    m.add_argument(
        "--free-cells",
        action="store_true",
        help="l1: release the exact sampler's proposal (i.i.d. noise on free cells, the others solved "
        "from the invariants): exact, the same epsilon, linear time at any size, but the solved cells "
        "carry more noise (their variances are in the statement)",
    )
    m.add_argument(
        "--uncertainty",
        metavar="LEVEL",
        help="add to a long table's release each cell's noise standard deviation (noise_sd) and an "
        "interval [lower, upper] holding its true count with probability at least LEVEL, in (0, 1), "
        "written as --epsilon: computed from the mechanism alone, exactly on the free-cell route, else by "
        "simulation (stated)",
    )
    m.add_argument(
        "--allow-chain",
        action="store_true",
        help="l1, gaussian: run the certified chain when the exact sampler cannot serve (stated; study runs only)",
    )
    c = p.add_argument_group("budget")
    c.add_argument(
        "--pairs",
        type=_whole_number,
        help="coupled pairs behind a chain's certificate (default: twice the "
        "least that can certify the TV bound --delta needs)",
    )
    c.add_argument(
        "--max-iter",
        type=_whole_number,
        default=200_000,
        help="iterations a coupled pair may take to meet before the request is refused (default 200000)",
    )
    c.add_argument(
        "--max-attempts",
        type=_whole_number,
        default=20_000,
        help="proposals of the exact sampler per "
        "block before it gives up (default 20000; its acceptance never depends on the counts)",
    )
    r = p.add_argument_group("randomness")
    r.add_argument("--seed", type=_whole_number, help="reproducible run; needs --reproducible-not-for-publication")
    r.add_argument(
        "--reproducible-not-for-publication",
        action="store_true",
        help="allow --seed; the statement records the release as not for publication",
    )
    e = p.add_argument_group("engine (a large Parquet table, released part by part)")
    e.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: this machine, a Parquet table of 2**20 cells or more part by part when its invariants "
        "allow, on every core from 2**23 cells (default); dask: its parts as tasks on a Dask cluster (pip install "
        "'isdp[distributed]'); the statement is the same",
    )
    e.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="--engine dask: join this running scheduler "
        "(tcp://host:8786; it must answer within 10 s); the input and the output's folder must be "
        "visible to its workers",
    )
    e.add_argument(
        "--workers",
        type=_whole_number,
        metavar="N",
        help="the worker processes that release the parts, at most 4 per core: the local engine's (default: "
        "the cores from 2**23 cells, else 1, this process) or, with --engine dask and no --scheduler, the local "
        "cluster's (default: the cores)",
    )
    p.add_argument(
        "--format",
        choices=("auto", "wide", "long"),
        default="auto",
        help="table layout; auto: long if the header has the count column (default)",
    )
    p.add_argument("--count-column", default="count", help="count column of a long table (default 'count')")
    p.add_argument(
        "-q",
        "--quiet",
        "--no-progress",
        dest="quiet",
        action="store_true",
        help="no progress (by default a bar on a terminal, else a line on stderr about every 5 s)",
    )
    p.add_argument("--force", action="store_true", help="replace existing output files")
    add_parsers(sub)
    example = sub.add_parser(
        "example",
        help="write an example table and its invariants into a folder, to try isdp release",
        description="Write an example table installed with isdp, and its invariants, into a folder "
        "(never over a file), and print the release command to try on them. Without NAME, list the examples.",
    )
    example.add_argument("name", nargs="?", metavar="NAME", help="the example (omit to list them)")
    example.add_argument(
        "--dir", type=Path, default=Path("."), help="the folder to write into (default: the current one)"
    )
    return parser


def _example(args) -> int:
    """``isdp example [NAME]``: list the examples, or write one's files and say how to release them."""
    from . import _validate  # deferred: it loads NumPy, which --help need not
    from .datasets import EXAMPLES, copy_example  # deferred: as the release's modules

    if args.name is None:
        for name, example in EXAMPLES.items():
            print(f"{name}: {example['about']}")
        return 0
    _validate.choice("NAME", args.name, EXAMPLES, error=UsageError)  # named as the command line spells them
    _validate.folder("--dir", args.dir, error=UsageError)
    written = copy_example(args.name, args.dir)
    print("wrote " + ", ".join(map(str, written)))
    folder = "" if args.dir == Path(".") else f"cd {args.dir} && "
    print(f"try: {folder}{EXAMPLES[args.name]['try']}")
    return 0


def _print_guarantee(statement: dict) -> None:
    g = statement["guarantee"]
    if "smallest_change" in g:  # no change of one or two persons keeps the invariants: the smallest comes first
        k = g["smallest_change"]["persons"]
        print(f"guarantee per {k} persons (the smallest change the invariants absorb): {g['smallest_change']['text']}")
        print(f"one person: {g['per_person']['text']}, but no change of fewer than {k} persons keeps the invariants")
    elif g["headline"]["persons"] == 2:  # no single person's change keeps the invariants: the swap comes first
        print(
            f"guarantee per two persons (a swap: the smallest change the invariants absorb): {g['two_persons']['text']}"
        )
        print(f"one person: {g['per_person']['text']}, but no single person's change keeps the invariants")
    else:
        print(f"guarantee per person: {g['per_person']['text']}")
        print(f"two persons: {g['two_persons']['text']}")
    print(f"neighbours: {g['neighbours']}")
    if "tv_bound" in g:
        print(
            f"the delta rests on a {g['confidence_level']:.0%} upper confidence bound on the chain's total "
            "variation distance: a statistical statement, not a proof"
        )


def _count_of(n: int, noun: str) -> str:
    """Return ``n`` and ``noun``, in the plural unless ``n`` is 1: "1 part", "20,000 cells"."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _release(args, parser, own_process: bool = False) -> int:
    with _loading(own_process):
        # deferred: the release's modules load numba, numpy and SciPy (3 s), which `isdp --help` need not wait for
        from ._parquet_files import is_dataset  # deferred, as above
        from .release import (  # deferred, as above
            Request,
            check_inputs,
            check_layouts,
            check_outputs,
            dry_run,
            make_release,
            write_release,
        )
        from .tables import TableSet, constraint_matrix, load_table  # deferred, as above

    def load(labels_only: bool = False):
        tables = [load_table(path, args.format, args.count_column, labels_only=labels_only) for path in args.table]
        return tables[0] if len(tables) == 1 else TableSet.of(tables)

    if args.seed is not None and not args.reproducible_not_for_publication:
        raise UsageError(
            "--seed makes the release reproducible, hence guessable: add "
            "--reproducible-not-for-publication to confirm it is not for publication"
        )
    req = Request(
        norm=args.norm,
        epsilon=args.epsilon,
        delta=args.delta,
        allow_chain=args.allow_chain,
        free_cells=args.free_cells,
        nonnegative=args.nonnegative,
        pairs=args.pairs,
        max_iter=args.max_iter,
        max_attempts=args.max_attempts,
        seed=args.seed,
        progress=not args.quiet,
        rules=tuple(args.invariant),
        ties=tuple(args.tie),
        uncertainty=args.uncertainty,
        workers=None if args.engine == "dask" else args.workers,  # Dask's own are DaskParts'
    )
    check_inputs(args.table, args.constraints)
    if args.engine != "dask" and args.scheduler is not None:
        raise UsageError("--scheduler joins a Dask cluster: add --engine dask")
    run_parts = None
    if args.engine == "dask":  # its options checked before anything is read; Dask itself is loaded only to run
        from .release import DaskParts  # deferred, as above

        run_parts = DaskParts(args.scheduler, args.workers, progress=req.progress)
    if args.dry_run:
        req.check()
        table = load(labels_only=True)
        A, labels = constraint_matrix(table, args.invariant, args.constraints, args.tie)
        print(json.dumps(dry_run(table, A, labels, req), indent=1))
        return 0
    given = args.output or []  # as typed: a trailing / names a dataset
    outputs, datasets = [Path(o) for o in given], [is_dataset(o) for o in given]
    if len(outputs) != len(args.table):
        raise UsageError(
            f"give one -o/--output per table ({len(args.table)}, in order; got {len(outputs)}), or --dry-run"
        )
    for output in outputs:
        if output.name in ("", ".", ".."):
            raise UsageError(f"-o/--output {str(output)!r} is not a file name")
    statement_path = args.statement or outputs[0].with_name(outputs[0].name + ".statement.json")
    audit_path = args.audit or outputs[0].with_name(outputs[0].name + ".audit.json")
    named = {("-o/--output" if len(outputs) == 1 else f"-o/--output #{i + 1}"): o for i, o in enumerate(outputs)}
    check_outputs(
        {**named, "--statement": statement_path, "--audit": audit_path},
        [p for p in (*args.table, args.constraints) if p is not None],
        force=args.force,
        datasets=frozenset(name for name, dataset in zip(named, datasets, strict=True) if dataset),
    )
    req.check()  # cheap parameter errors before reading anything
    done = _release_in_parts(args, req, given, statement_path, audit_path, run_parts)
    if done is not None:
        _report(
            f"{given[0]} ({_count_of(done.cells, 'cell')}, {_count_of(done.invariants, 'invariant')} kept "
            f"exactly, in {_count_of(done.audit['partitions']['parts'], 'part')})",
            statement_path,
            audit_path,
            done.statement,
            args.seed,
        )
        return 0
    table = load()
    check_layouts(table.tables if isinstance(table, TableSet) else [table], given)  # before anything is drawn
    A, labels = constraint_matrix(table, args.invariant, args.constraints, args.tie)
    release = make_release(table, A, labels, req)
    try:
        write_release(release, given if len(given) > 1 else given[0], statement_path, audit_path, force=args.force)
    except OSError as err:
        kept = "; the earlier files are as they were" if args.force else ""
        raise UsageError(
            f"cannot write {err.filename or outputs[0]}: {err.strerror or err}; nothing written{kept}"
        ) from None
    _report(
        f"{', '.join(given)} ({_count_of(len(release.values), 'cell')}, "
        f"{_count_of(len(labels), 'invariant')} kept exactly)",
        statement_path,
        audit_path,
        release.statement,
        args.seed,
    )
    return 0


def _report(released: str, statement_path: Path, audit_path: Path, statement: dict, seed: int | None) -> None:
    """Report what a release wrote and the guarantee it meets (stdout), and a seeded run's warning (stderr)."""
    print(f"released {released}")
    kind = "publishable" if statement["publishable"] else "NOT publishable: a seeded run"  # as the file says
    print(f"privacy statement ({kind}): {statement_path}")
    print(f"audit record (CONFIDENTIAL, keep with the table, never publish): {audit_path}")
    _print_guarantee(statement)
    if seed is not None:
        print("warning: seeded run — reproducible, NOT for publication", file=sys.stderr)


def _release_in_parts(args, req, outputs: list[str], statement_path: Path, audit_path: Path, run_parts=None):
    """Release a large Parquet table part by part (:func:`isdp.release.release_partitioned`).

    On Dask with ``--engine dask`` (``run_parts``, a :class:`~isdp.release.DaskParts`); None when it is small, or
    not a Parquet table to Parquet (a file or a dataset) under families of totals, or cannot be released so
    (``--engine dask`` then refuses). ``outputs`` as typed.
    """
    from ._parquet_files import is_dataset, is_parquet, table_rows  # deferred, as the release's modules
    from .release import PartitionedRelease, release_partitioned  # deferred, as above

    dask = args.engine == "dask"
    eligible = (
        len(args.table) == 1
        and args.constraints is None
        and not args.tie
        and args.format != "wide"
        and is_parquet(args.table[0])
        and (is_dataset(outputs[0]) or Path(outputs[0]).suffix.lower() == ".parquet")
    )
    if dask and not eligible:
        raise UsageError(
            "--engine dask releases one Parquet table, to a .parquet file or a dataset (a name ending "
            "in /), under --invariant families (no --tie or --constraints)"
        )
    if not eligible or (not dask and table_rows(args.table[0]) < PartitionedRelease.PART_CELLS):
        return None
    try:
        return release_partitioned(
            args.table[0],
            args.invariant,
            req,
            outputs[0],
            statement_path,
            audit_path,
            force=args.force,
            count_column=args.count_column,
            part_cells=PartitionedRelease.PART_CELLS,
            run_parts=run_parts,
        )
    except NotPartitionable as why:
        if dask:
            raise UsageError(
                f"--engine dask: this table cannot be released part by part ({why}); release it without --engine dask"
            ) from None
        if req.progress:
            print(f"releasing the table as a whole ({why})", file=sys.stderr)
        return None
    except OSError as err:
        kept = "; the earlier files are as they were" if args.force else ""
        raise UsageError(
            f"cannot write {err.filename or outputs[0]}: {err.strerror or err}; nothing written{kept}"
        ) from None
    except ImportError as err:
        raise UsageError(f"--engine dask needs Dask: pip install 'isdp[distributed]' ({err})") from None


def _numba_cache() -> None:
    """Give numba a private, writable cache when it has none.

    An installed package directory that this user cannot write, and no writable HOME, leave numba no place to cache a
    compiled function, and it refuses to compile. The directory is the user's own (created 0700, checked to be theirs)
    so that no other user can plant compiled code in it.
    """
    if "NUMBA_CACHE_DIR" in os.environ or os.access(Path(__file__).parent, os.W_OK):
        return
    cache = Path(tempfile.gettempdir()) / f"isdp-numba-cache-{os.getuid()}"
    try:
        cache.mkdir(mode=0o700, exist_ok=True)
        st = cache.lstat()
        if cache.is_symlink() or st.st_uid != os.getuid() or st.st_mode & 0o077:
            cache = Path(tempfile.mkdtemp(prefix="isdp-numba-cache-"))
    except OSError:
        cache = Path(tempfile.mkdtemp(prefix="isdp-numba-cache-"))
    os.environ["NUMBA_CACHE_DIR"] = str(cache)


def main(argv=None) -> int:
    r"""Run the command line (``isdp``, ``python -m isdp``) and return its exit status.

    ``isdp release TABLE… --epsilon E (--invariant FAMILY | --constraints FILE) -o OUTPUT``
    privatises one table, or several tables of the same persons, and writes the released table,
    its publishable privacy statement and its confidential audit record (docs/release.md; every
    option in ``isdp release --help``). The output paths are checked before anything is
    sampled (a loop of symbolic links among the inputs or outputs is refused), and the three
    files are written last, all or none: a failed write leaves an earlier release that
    ``--force`` would replace byte for byte as it was. What it prints on stdout: the
    files written and the guarantee per person and for two persons (``--dry-run``: the
    statement a run would carry, as JSON).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status (:data:`EXIT_CODES`): 0 released (or the dry run printed); the
        ``exit_code`` of the :class:`~isdp.errors.ReleaseError` refused — 1 the Dask cluster
        failed, 2 bad options or paths, 3 bad input, 4 infeasible invariants, 5 refused — after
        printing ``isdp release: error: <message>`` on stderr (another
        :class:`~isdp.errors.IsdpError` by its kind: an :class:`~isdp.errors.ArgumentError` 2, an
        :class:`~isdp.errors.InvariantError` 4, a :class:`~isdp.errors.CertificationError` 5,
        others 1); 70 an internal error, a bug: one line on stderr names a new file, readable
        by this user only, that holds the traceback and the versions; 130 interrupted (SIGINT);
        143 terminated (SIGTERM, handled as SIGINT); 141 when the standard output is closed
        early (``isdp release --dry-run | head``: it stops quietly, as other Unix tools do; a
        release already written stays). On any error nothing is written, and an earlier release
        replaced with ``--force`` is left as it was.

    Raises
    ------
    SystemExit
        From argparse: ``--help`` and ``--version`` (status 0), unknown or malformed options
        (status 2, after argparse's usage and one ``isdp release: error:`` line).

    See Also
    --------
    isdp.release.make_release : The release it draws.
    isdp.release.write_release : How it writes the three files.

    Examples
    --------
    A release of both margins of a 2 × 2 table, seeded so that its output can be shown (a
    seeded release is not for publication; the warning goes to stderr):

    >>> import contextlib
    >>> import io
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.cli import main
    >>> tmp = tempfile.TemporaryDirectory()
    >>> table, out = Path(tmp.name, "sex_by_age.csv"), Path(tmp.name, "release.csv")
    >>> _ = table.write_text("sex,young,old,Total\nFemale,3,5,8\nMale,4,2,6\n")
    >>> with contextlib.redirect_stderr(io.StringIO()) as stderr:  # doctest: +ELLIPSIS
    ...     main(["release", str(table), "--invariant", "all-margins", "--epsilon", "1", "--seed", "3",
    ...           "--reproducible-not-for-publication", "--quiet", "-o", str(out)])
    released /.../release.csv (4 cells, 4 invariants kept exactly)
    privacy statement (NOT publishable: a seeded run): /.../release.csv.statement.json
    audit record (CONFIDENTIAL, keep with the table, never publish): /.../release.csv.audit.json
    guarantee per two persons (a swap: ...): 2-DP for any two tables with the same invariants that differ in ...
    one person: 1-DP for any two tables with the same invariants that differ in one person's record ...
    neighbours: no change of a single person's record keeps the invariants ...: the guarantee per two persons applies
    0
    >>> print(stderr.getvalue(), end="")
    warning: seeded run — reproducible, NOT for publication
    >>> print(out.read_text(), end="")
    sex,young,old,Total
    Female,2,6,8
    Male,5,1,6

    A refusal: the output exists, so nothing is sampled or written (exit status 2):

    >>> with contextlib.redirect_stderr(io.StringIO()) as stderr:
    ...     main(["release", str(table), "--invariant", "total", "--epsilon", "1", "-o", str(out)])
    2
    >>> print(stderr.getvalue(), end="")  # doctest: +ELLIPSIS
    isdp release: error: /.../release.csv exists: remove it or pass --force
    >>> tmp.cleanup()
    """
    if argv is None:
        # the process's own command line: its young objects are collected 50,000 at a time, not 700 (2,000 from
        # Python 3.12). Loading numba, SciPy and pyarrow made some 390 collections, three of them walking every
        # object, about 0.2 s of a 2-second release; a reference cycle is still collected, a few milliseconds on
        gc.set_threshold(_YOUNG_OBJECTS, *gc.get_threshold()[1:])
    status = _run(argv, own_process=argv is None)
    if argv is None:
        # the process ends here (the console script, ``python -m isdp``): the interpreter's last collections would
        # walk every object numba, SciPy and pandas made (about 0.4 s at the end of a release); its memory goes back
        # whole. Objects left in reference cycles keep their finalizers unrun; isdp's files are closed and
        # replaced before this, and exit handlers still run
        gc.freeze()
    return status


#: new objects between two collections of the youngest generation in the process's own command line (:func:`main`)
_YOUNG_OBJECTS = 50_000


@contextlib.contextmanager
def _loading(own_process: bool):
    """Load the command's modules without collecting among them, in the process's own command line.

    Their objects live as long as the process: the collector walked them as they came (some 50 ms of a release's
    start-up), and is paused while they load, then left to the objects made after them (they are frozen).
    """
    paused = own_process and gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.freeze()
            gc.enable()


def _run(argv, own_process: bool = False) -> int:
    """:func:`main`'s command, run to its exit status."""
    command = "isdp release"  # the command's name in its messages, once parsed
    try:
        with _terminated_as_interrupted():
            _numba_cache()
            parser = _parser()
            args = parser.parse_args(argv)
            command = f"isdp {args.command}"
            logging.basicConfig(level=logging.WARNING, format="%(message)s")
            if not getattr(args, "quiet", True) and not sys.stderr.isatty():
                logging.getLogger("isdp").setLevel(logging.INFO)  # the chain's progress lines (data-independent)
            try:
                status = (
                    _release(args, parser, own_process) if args.command == "release" else _READERS[args.command](args)
                )
                sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
                return status
            except IsdpError as err:
                print(f"{command}: error: {err}", file=sys.stderr)
                return _exit_status(err)
    except KeyboardInterrupt:  # files are written last, from temporary files that are removed on the way out
        print(f"{command}: interrupted: nothing written", file=sys.stderr)
        return 130
    except _Terminated:  # as an interruption: every temporary file and part is removed on the way out
        print(f"{command}: terminated: nothing written", file=sys.stderr)
        return 143
    except BrokenPipeError:  # the reader stopped early (`isdp release --dry-run | head`): stop quietly
        _silence_stdout()
        return 141
    except Exception:  # a bug: one line on stderr, the traceback in a file of the user's own
        print(f"{command}: internal error: {_save_details()}", file=sys.stderr)
        return 70


#: the commands besides ``release``, by name: the readers' (:mod:`isdp._published_commands`) and the examples'
_READERS = {"query": run_query, "verify": run_verify, "example": _example}


def _exit_status(err: IsdpError) -> int:
    """Return the exit status of an error isdp raised on purpose: a refusal's own, else by what its kind means."""
    if isinstance(err, ReleaseError):
        return err.exit_code
    for kind, status in ((ArgumentError, 2), (InvariantError, 4), (CertificationError, 5)):
        if isinstance(err, kind):
            return status
    return 1


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread as SIGINT raises KeyboardInterrupt (never caught as an Exception)."""


@contextlib.contextmanager
def _terminated_as_interrupted():
    """Make SIGTERM raise :class:`_Terminated` while the command runs.

    So ``finally`` clauses remove the temporary files and parts as they do on SIGINT. Left as it is where this
    is not the main thread, or where SIGTERM is not at its default (a parent that ignores it means it).
    """
    try:
        installed = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        if installed:
            signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread: signals are the main thread's
        installed = False
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _terminate(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM does not interrupt the clean-up
    raise _Terminated


def _save_details() -> str:
    """Write the traceback being handled and the versions to a new file readable by this user only; say where.

    The traceback is the only thing written: no variable's value, so no count beyond what an exception's
    message says.
    """
    import platform  # deferred: needed only to describe a bug

    kind = type(sys.exception()).__name__  # called while an exception is handled
    versions = f"isdp {__version__}, Python {platform.python_version()} on {platform.platform()}"
    details = f"{versions}\n\n{traceback.format_exc()}"
    try:
        fd, path = tempfile.mkstemp(prefix="isdp-error-", suffix=".txt")  # created 0600
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(details)
    except OSError as err:
        return f"{kind}, a bug in isdp; its details could not be saved ({err.strerror or err}): please report it"
    return f"{kind}, a bug in isdp: the details (a traceback) are in {path}; please report it with them"


def _silence_stdout() -> None:
    """Point the standard output at /dev/null.

    So the interpreter's last flush of what the closed pipe did not take raises nothing either (the Python
    docs' recipe for SIGPIPE).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a captured stream): nothing to flush
        pass


__all__ = [
    "EXIT_CODES",
    "RELEASE_HELP",
    "main",
]
