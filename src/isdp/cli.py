"""The ``isdp`` command line (``isdp release …``, also ``python -m isdp``); see docs/release.md."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from . import __version__

EXIT_CODES = """exit codes:
  0  released: the table and its provenance are written
  2  bad options (e.g. --epsilon <= 0, a Gaussian without --sigma, --seed without its flag)
  3  bad input: unreadable table, wrong shape or labels, non-integer or negative counts
  4  infeasible invariants: they leave no room for noise, or a stated value disagrees with the table
  5  not certifiable: no sampler reaches the guarantee within the budget
On any error nothing is written."""

RELEASE_HELP = """Privatise an integer table: add integer noise that keeps the invariants exactly and
write the released table (same layout and labels) with a JSON provenance file stating the
privacy guarantee it meets.

example (the congenial paper's sex x age table, its three invariants, epsilon 0.5):
  isdp release data/e5/sex_by_age.csv --constraints data/release/sex_by_age_invariants.csv \\
      --epsilon 0.5 --output release.csv

With --norm l1 the noise is drawn exactly (integer arithmetic, operating-system entropy) and the
guarantee is pure epsilon-integer-subspace DP (the Gaussian too, on small tables: rho-zCDP).
With --norm l2 (or when the exact sampler runs out of --max-attempts) a Markov chain is run for as long as a coupling certificate
says it is within total variation --tv of the exact mechanism, and the guarantee becomes
(epsilon, delta) with delta computed from that bound."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="isdp", description="Integer subspace differential privacy.")
    parser.add_argument("--version", action="version", version=f"isdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("release", help="privatise a table, keeping its invariants exactly",
                       description=RELEASE_HELP, epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", type=Path, help="confidential table: CSV, wide (row labels, one column per "
                   "category; 'Total' rows/columns are checked and kept) or long (key columns and a count column)")
    p.add_argument("-o", "--output", type=Path, required=True, help="released table (CSV, the input's layout)")
    p.add_argument("--provenance", type=Path, help="provenance JSON (default: OUTPUT with .provenance.json)")
    g = p.add_argument_group("invariants (at least one)")
    g.add_argument("--invariant", action="append", default=[], metavar="FAMILY",
                   help="total, row-margins, column-margins or all-margins; repeat to combine")
    g.add_argument("--constraints", type=Path, metavar="FILE",
                   help="constraint matrix CSV: header 'constraint,<cell labels>[,value]' with cell labels "
                   "row|column, one line of integer coefficients per invariant")
    m = p.add_argument_group("mechanism")
    m.add_argument("--norm", choices=("l1", "l2", "gaussian"), default="l1",
                   help="l1: generalized Laplace, exact sampler (default); l2: generalized Laplace in the l2 "
                   "norm; gaussian: generalized Gaussian (needs --sigma)")
    m.add_argument("--epsilon", help="privacy parameter per unit distance, > 0 (read exactly: 0.1 is 1/10)")
    m.add_argument("--sigma", type=float, help="Gaussian noise scale")
    m.add_argument("--delta", type=float, default=1e-6, help="Gaussian: delta of its zCDP to (epsilon, delta) "
                   "conversion (default 1e-6)")
    m.add_argument("--nonnegative", action="store_true",
                   help="release only non-negative cells (congenial mechanism; l1 only; costs 2 epsilon)")
    c = p.add_argument_group("certificate and budget")
    c.add_argument("--tv", type=float, default=0.02, help="largest total variation distance from the exact "
                   "mechanism a chain may be certified to (default 0.02)")
    c.add_argument("--pairs", type=int, default=200, help="coupled pairs behind the certificate (default 200)")
    c.add_argument("--max-iter", type=int, default=200_000, help="iterations a coupled pair may take to meet "
                   "before the request is refused (default 200000)")
    c.add_argument("--max-attempts", type=int, default=20_000, help="proposals of the exact sampler before it "
                   "gives up (default 20000)")
    r = p.add_argument_group("randomness")
    r.add_argument("--seed", type=int, help="reproducible run; needs --reproducible-not-for-publication")
    r.add_argument("--reproducible-not-for-publication", action="store_true",
                   help="allow --seed; the provenance records the release as not for publication")
    p.add_argument("--format", choices=("auto", "wide", "long"), default="auto",
                   help="table layout; auto: long if the header has the count column (default)")
    p.add_argument("--count-column", default="count", help="count column of a long table (default 'count')")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    return parser


def _release(args, parser) -> int:
    from .release import (
        Request,
        UsageError,
        constraint_matrix,
        load_table,
        make_release,
        write_release,
    )

    if args.seed is not None and not args.reproducible_not_for_publication:
        parser.error("--seed makes the release reproducible, hence guessable: add "
                     "--reproducible-not-for-publication to confirm it is not for publication")
    provenance = args.provenance or args.output.with_name(args.output.name + ".provenance.json")
    for path in (args.output, provenance):
        if path.exists() and not args.force:
            raise UsageError(f"{path} exists: remove it or pass --force")
        if not path.parent.is_dir():
            raise UsageError(f"{path.parent} is not a directory")
    if args.epsilon is not None and args.norm == "gaussian":
        raise UsageError("--epsilon is not used by the Gaussian mechanism: give --sigma (and --delta)")
    req = Request(norm=args.norm, epsilon=args.epsilon, sigma=args.sigma, delta=args.delta,
                  nonnegative=args.nonnegative, tv=args.tv, pairs=args.pairs, max_iter=args.max_iter,
                  max_attempts=args.max_attempts, seed=args.seed, progress=not args.no_progress)
    req.check()  # cheap parameter errors before reading anything
    table = load_table(args.table, args.format, args.count_column)
    A, labels = constraint_matrix(table, args.invariant, args.constraints)
    release = make_release(table, A, labels, req)
    write_release(release, args.output, provenance)
    g = release.provenance["guarantee"]
    print(f"released {args.output} ({len(release.values)} cells, {len(labels)} invariants kept exactly)")
    print(f"provenance {provenance}")
    print(f"guarantee: {g['text']}")
    if args.seed is not None:
        print("warning: seeded run — reproducible, NOT for publication", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit status (see ``isdp release --help``)."""
    from .release import ReleaseError

    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        return _release(args, parser)
    except ReleaseError as err:
        print(f"isdp release: error: {err}", file=sys.stderr)
        return err.exit_code
