"""``isdp query`` and ``isdp verify``: a release's readers' commands (docs/release.md, "For data users").

Their parsers and what they run; :mod:`isdp.cli` owns the exits. Both read only the public files.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from .errors import UsageError

QUERY_HELP = """Put an error bar on any linear query of a release, from its public files alone: for each
query its released value, the noise's standard deviation and an interval that holds the true value
with probability at least LEVEL. The noise's law is fixed by the invariants, the route and its
parameter — never by the counts — so the released table and its statement determine it.

example (county totals, and county x age, from a block-level release):

  isdp query release.csv --by county
  isdp query release.csv --by county,age --level 0.95 -o county_age.csv

A query the invariants fix has width 0; exact laws on the free-cell route and for sums within
one total; a simulation of the mechanism's noise otherwise, its Monte Carlo standard error in
the coverage_se column. --simultaneous: all intervals hold at once (Bonferroni)."""

QUERY_EXIT = """exit codes:
  0  answered: one CSV line per query (stdout, or -o)
  2  bad options, or a release whose error is not the mechanism's noise (--nonnegative, the chain)
  3  a file missing or unreadable, or a statement that does not describe the table
  5  refused: a level the laws cannot resolve, or a law beyond the work limits"""

VERIFY_HELP = """Check a release from its public files alone: the statement is well formed and of a known
format; the released table is integer and meets every stated invariant with its stated value; the
guarantee follows from the mechanism's stated parameter (sigma's exact privacy profile, or epsilon
per unit l1 distance and the neighbours' norms) and is at least as strong as requested; and the
mechanism and route are those the stated request gives.

example:

  isdp verify release.csv --statement release.csv.statement.json"""

VERIFY_EXIT = """exit codes:
  0  every check passed (a one-screen summary)
  1  a disagreement: the checks that passed, then the first that failed
  2  bad options
  3  a file missing"""

#: the columns ``isdp query`` writes, in order
QUERY_COLUMNS = ("query", "value", "noise_sd", "lower", "upper", "coverage", "coverage_se", "method")


def add_parsers(sub) -> None:
    """Add ``query`` and ``verify`` to the command line's subcommands."""
    q = sub.add_parser(
        "query",
        help="error bars for linear queries of a release, from its public files",
        description=QUERY_HELP,
        epilog=QUERY_EXIT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _released(q)
    ask = q.add_mutually_exclusive_group(required=True)
    ask.add_argument("--by", metavar="COLUMNS", help="sum the cells of each combination of these key columns (a,b)")
    ask.add_argument(
        "--queries",
        type=Path,
        metavar="FILE",
        help="CSV 'query,cell,coefficient': per line a cell (its label, key1|key2) and its integer "
        "coefficient in the named query",
    )
    q.add_argument("--level", default="0.9", help="probability of each interval, in (0, 1) (default 0.9)")
    q.add_argument(
        "--simultaneous",
        action="store_true",
        help="all intervals hold at once with probability LEVEL (each at 1 - (1 - LEVEL)/J)",
    )
    q.add_argument("-o", "--output", type=Path, help="write the CSV here (default: stdout)")
    v = sub.add_parser(
        "verify",
        help="check a release against its statement, from its public files",
        description=VERIFY_HELP,
        epilog=VERIFY_EXIT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _released(v)


def _released(p) -> None:
    p.add_argument("released", type=Path, nargs="+", help="the released table(s), in the statement's order")
    p.add_argument(
        "--statement", type=Path, help="the privacy statement (default: the first table's name + .statement.json)"
    )
    p.add_argument("--format", choices=("auto", "wide", "long"), default="auto", help="table layout, as isdp release's")
    p.add_argument("--count-column", default="count", help="count column of a long table (default 'count')")


def _statement(args) -> Path:
    return args.statement or args.released[0].with_name(args.released[0].name + ".statement.json")


def run_query(args) -> int:
    """``isdp query``: read the release, answer the queries, write one CSV line per query."""
    from .published import PublishedRelease  # deferred: loads numba and SciPy, which --help need not wait for

    published = PublishedRelease.read(args.released, _statement(args), fmt=args.format, count_column=args.count_column)
    if args.output is not None and args.output.resolve() in {p.resolve() for p in published.paths}:
        raise UsageError(f"-o/--output {args.output} is a released table: give another name")
    if args.by is not None:
        W, names = published.group_sums([c.strip() for c in args.by.split(",") if c.strip()])
    else:
        W, names = published.read_queries(args.queries)
    answer = published.query(W, names, level=args.level, simultaneous=args.simultaneous)
    rows = zip(
        answer["query"],
        answer["value"].tolist(),
        (f"{s:.6g}" for s in answer["noise_sd"].tolist()),
        answer["lower"].tolist(),
        answer["upper"].tolist(),
        (f"{c:.6f}" for c in answer["coverage"].tolist()),
        (f"{s:.2g}" for s in answer["coverage_se"].tolist()),
        answer["method"],
        strict=True,
    )
    if args.output is None:
        _write(sys.stdout, rows)
    else:
        from .files import write_text  # deferred, as above

        text = io.StringIO()
        _write(text, rows)
        write_text(text.getvalue(), args.output)  # whole or not at all
    methods = {m: answer["method"].count(m) for m in dict.fromkeys(answer["method"])}
    level = f"{args.level} for all at once (each at {answer['level']:.6g})" if args.simultaneous else str(args.level)
    print(
        f"{len(names):,} quer{'y' if len(names) == 1 else 'ies'} at level {level}: "
        + ", ".join(f"{count:,} {method}" for method, count in methods.items())
        + (f"; simulated laws from {answer['draws']:,} draws per block shape" if answer["draws"] else ""),
        file=sys.stderr,
    )
    return 0


def _write(fh, rows) -> None:
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(QUERY_COLUMNS)
    writer.writerows(rows)


def run_verify(args) -> int:
    """``isdp verify``: the checks, one line each; exit 1 at the first disagreement."""
    from .published import verify_release  # deferred, as above

    found = verify_release(args.released, _statement(args), fmt=args.format, count_column=args.count_column)
    for line in found.lines():
        print(line)
    print("verified: the release agrees with its statement" if found.passed else "NOT verified")
    return 0 if found.passed else 1
