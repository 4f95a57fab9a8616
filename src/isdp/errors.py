"""Every error isdp raises on purpose, in one hierarchy rooted in :class:`IsdpError`.

Their own module, below everything that raises them — the lattice (:class:`InvariantError`), the
draws files (:class:`DrawsError`), the solvers of the baselines (:class:`SolverError`), the
certificate (:class:`CertificationError`) and the refusals of ``isdp release``
(:class:`ReleaseError` and its kinds, each with the command's exit status; docs/release.md) — so
that none of those imports another to raise or catch.
"""

from __future__ import annotations


class IsdpError(Exception):
    """The root of every error isdp raises on purpose: catch it to handle them all.

    Each kind also derives from the builtin a Python user would catch: bad input is a
    :class:`ValueError` (:class:`InvariantError`, :class:`DrawsError`, :class:`UsageError`,
    :class:`InputError`, :class:`InfeasibleError`, and :class:`NotPartitionable`, a table a release
    cannot cut into parts), a computation that ended without a result a
    :class:`RuntimeError` (:class:`SolverError`, :class:`CertificationError`,
    :class:`UncertifiableError`). The refusals of ``isdp release`` derive from
    :class:`ReleaseError` too, which carries the command's exit status.

    Examples
    --------
    >>> from isdp.errors import CertificationError, InvariantError, IsdpError, UncertifiableError
    >>> [issubclass(kind, IsdpError) for kind in (InvariantError, CertificationError)]
    [True, True]
    >>> issubclass(UncertifiableError, CertificationError), issubclass(InvariantError, ValueError)
    (True, True)
    """


class ArgumentError(IsdpError, ValueError):
    """An argument of a public function that is not what it must be; ``argument`` names it.

    Raised by every public entry point, through one set of checks (``isdp._validate``), for a number, a
    size, a seed, a level or a matrix that is out of range or of the wrong kind: a bool where a number is
    asked, 2.5 where an integer is, ``"1_0"`` or NaN where an exact number is, a level outside (0, 1).
    The message starts with the argument's name and says what it must be. :class:`UsageError`, the
    command line's bad options, is one kind of it.

    Parameters
    ----------
    message : str
        What is wrong, starting with the argument's name.
    argument : str or None, default None
        The argument's name.

    Attributes
    ----------
    argument : str or None
        The argument's name, as the message gives it.

    Examples
    --------
    >>> from isdp.errors import ArgumentError
    >>> from isdp.opendp_measurements import make_isdp_laplace
    >>> try:
    ...     make_isdp_laplace([[1, 1]], epsilon=0)
    ... except ArgumentError as err:
    ...     print(f"{err.argument!r}: {err}")
    'epsilon': epsilon must be a positive number, got 0
    >>> issubclass(ArgumentError, ValueError)
    True
    """

    def __init__(self, message: str, argument: str | None = None):
        super().__init__(message)
        self.argument = argument


class InvariantError(IsdpError, ValueError):
    """The constraints, the data or a release violate the integer-invariant set-up.

    A :class:`ValueError` raised wherever isdp checks invariants: :func:`isdp.lattice.check_release` when a
    release is not integer or breaks A·x = a, :meth:`isdp.lattice.IntegerLattice.from_constraints` when A is not
    an integer matrix or admits no integer noise, :func:`isdp.lattice.integer_solution` when A x = b has no
    integer solution, and the samplers when a start lies outside Λ(A). The message names the
    problem (and, for a release, the first vector that breaks the invariants).

    See Also
    --------
    isdp.lattice.check_release : The check every stored release and noise draw goes through.

    Examples
    --------
    >>> from isdp.errors import InvariantError
    >>> from isdp.lattice import check_release, sum_constraint
    >>> try:
    ...     check_release([5, 1, 2], sum_constraint(3), [7])
    ... except InvariantError as err:
    ...     print(err)
    release: 1 of 1 vectors break the invariants A·x = a (first at index 0)
    >>> issubclass(InvariantError, ValueError)
    True
    """


class DrawsError(IsdpError, ValueError):
    """A draws file that cannot be used as the step expects; the message starts with the file's path.

    Raised by :func:`isdp.convergence.load_draws` and :func:`isdp.convergence.draws_attrs` when
    the file is missing or unreadable (a
    damaged compressed chunk, a truncated file), holds no (chains, draws, cells) integers, breaks the
    constraints the caller gives, or holds draws of another target.

    Examples
    --------
    >>> from isdp.errors import DrawsError
    >>> isinstance(DrawsError("results/e1/draws_l1.nc: missing"), ValueError)
    True
    """


class SolverError(IsdpError, RuntimeError):
    """An LP, MILP or QP solver did not return a certified optimum.

    Raised by :class:`isdp.baselines.L1Projector` (and so by :func:`isdp.baselines.dg_l1_projection` and the
    release's ``--nonnegative`` projection) when HiGHS does not report an optimal model status or its
    integer point fails the rounding check, and by :func:`isdp.baselines.nnl2_projection` when Clarabel does not
    solve the QP or its solution misses the equalities or the bounds by more than the tolerances.
    Bad inputs raise :class:`ValueError` instead.

    See Also
    --------
    isdp.baselines.L1Projector : The HiGHS projections.
    isdp.baselines.nnl2_projection : The Clarabel QP.

    Examples
    --------
    No s ≥ 0 has a negative total, so the NNL2 QP is infeasible:

    >>> from isdp.baselines import nnl2_projection
    >>> from isdp.errors import SolverError
    >>> try:
    ...     nnl2_projection([1.0, 2.0], [[1, 1]], [-1.0])
    ... except SolverError as err:
    ...     print(err)
    Clarabel did not solve the NNL2 QP (status PrimalInfeasible)
    >>> issubclass(SolverError, RuntimeError)
    True
    """


class CertificationError(IsdpError, RuntimeError):
    """Nothing certified: the confidence bound never reached the threshold. The message says why.

    Raised by :meth:`isdp.convergence.Certificate.require` and :meth:`isdp.convergence.Certificate.burn_in`
    on a certificate that
    certifies nothing (too few pairs to resolve the threshold, or pairs censored at the horizon),
    and by :func:`isdp.convergence.certify_searching_lag` when a pilot pair does not meet.
    The message is the
    certificate's :attr:`isdp.convergence.Certificate.status`.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.convergence import Certificate
    >>> from isdp.errors import CertificationError
    >>> cert = Certificate(basis="smith", lag=None, n_pairs=100, max_iter=50, level=0.95, threshold=0.01,
    ...                    tau=np.arange(100) % 10, met=np.ones(100, dtype=bool), seconds=0.0)
    >>> try:
    ...     cert.require()
    ... except CertificationError as err:
    ...     print(str(err).split(";")[0])
    not certified: 100 pairs cannot resolve 0.01
    """


class ReleaseError(IsdpError):
    """A request that cannot be released; ``exit_code`` is the command's exit status.

    The base class of every refusal of the release API: catch it to handle them all. Each kind
    carries the exit status :func:`isdp.cli.main` returns for it; the message names the problem
    (a file, a line, an option) and what would work instead. No file is written when one is
    raised: the three files of a release are written last (:func:`isdp.release.write_release`).

    Attributes
    ----------
    exit_code : int
        The exit status of ``isdp release`` for this kind of refusal: 1 here (no refusal raises
        the base class itself), 2 to 5 for its kinds.

    See Also
    --------
    UsageError, InputError, InfeasibleError, UncertifiableError : The kinds, exit statuses 2 to 5.
    isdp.cli.main : Catches a ``ReleaseError``, prints ``isdp release: error: <message>`` on
        stderr and returns its ``exit_code``.

    Examples
    --------
    >>> from isdp.errors import (InfeasibleError, InputError, ReleaseError, UncertifiableError,
    ...                          UsageError)
    >>> [(kind.__name__, kind.exit_code) for kind in (UsageError, InputError, InfeasibleError,
    ...                                               UncertifiableError)]
    [('UsageError', 2), ('InputError', 3), ('InfeasibleError', 4), ('UncertifiableError', 5)]

    Catch the base class as the command line does:

    >>> from isdp.release import Request
    >>> try:
    ...     Request(epsilon="0").check()
    ... except ReleaseError as err:
    ...     print(f"isdp release: error: {err} (exit {err.exit_code})")
    isdp release: error: --epsilon must be a positive number, got '0' (exit 2)
    """

    exit_code = 1


class UsageError(ReleaseError, ArgumentError):
    """Bad parameters or output paths (ε ≤ 0, an unknown family, a missing δ, an output that exists, …).

    Raised by :meth:`isdp.release.Request.check` (ε not in [1e-9, 700], δ missing for the
    Gaussian or the chain, δ given to the pure ℓ1 route, a negative seed, ``free_cells`` with
    another norm, ``pairs`` outside [2, 100,000]), by :func:`isdp.tables.constraint_matrix`
    (an unknown invariant family or tie, a key column the table lacks, no invariant at all), by
    :func:`isdp.tables.load_table` (an unknown format), and by the command line and
    :func:`isdp.release.write_release` for output paths (an output that exists without
    ``--force``, is a directory, is an input, or cannot be written). All but the last are
    raised before any count is read: the command line checks the output paths before sampling,
    and a file that another run creates meanwhile, or that cannot be written, is found at the
    end.

    Parameters
    ----------
    message : str
        What is wrong, naming the option or path.
    argument : str or None, default None
        The option's name, where one option is at fault (``"--delta"``).

    Attributes
    ----------
    exit_code : int
        2, the exit status of ``isdp release`` for bad options or paths (also argparse's).

    See Also
    --------
    isdp.release.Request.check : Raises it for inconsistent options.

    Notes
    -----
    :func:`isdp.cli.main` prints ``isdp release: error: <message>`` on stderr and returns 2;
    nothing is written.

    Examples
    --------
    >>> from isdp.errors import UsageError
    >>> from isdp.release import Request
    >>> try:
    ...     Request(epsilon="1", norm="gaussian").check()
    ... except UsageError as err:
    ...     print(err)
    the Gaussian's guarantee has a delta: give --delta (per person, in (0, 1))
    """

    exit_code = 2


class InputError(ReleaseError, ValueError):
    r"""Unreadable table or constraint file: wrong shape, labels, non-integer or negative counts.

    Raised by :func:`isdp.tables.load_table` (a missing or unreadable file, ragged lines, a
    repeated label or column name, a non-integer, negative or too large count, a margin that
    disagrees with its cells, a wide table whose labels read as numbers under ``fmt="auto"``, a
    label containing ``|``), by :func:`isdp.tables.constraint_matrix` reading a constraint file (cell labels
    that are not the table's, a coefficient beyond ±2**31, an all-zero constraint), by a tie between
    tables that do not share their groups, and by :func:`isdp.release.make_release` when an
    invariant's value is beyond ±2**53. The message names the file and the line, row or column.

    Attributes
    ----------
    exit_code : int
        3, the exit status of ``isdp release`` for bad input.

    See Also
    --------
    isdp.tables.load_table : Reads a table and raises it for anything a release cannot use.

    Notes
    -----
    :func:`isdp.cli.main` prints ``isdp release: error: <message>`` on stderr and returns 3;
    nothing is written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.errors import InputError
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "ages.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,-5\nMale,4,2\n")
    ...     try:
    ...         load_table(path)
    ...     except InputError as err:
    ...         print(err)  # doctest: +ELLIPSIS
    /.../ages.csv: row 'Female', column 'old': negative count
    """

    exit_code = 3


class InfeasibleError(ReleaseError, ValueError):
    """The invariants cannot be kept with noise (full rank) or disagree with the table.

    Raised by :meth:`isdp.release.Plan.make` when the invariants fix every cell (no non-zero
    integer change keeps them, so no noise can be added) and by
    :func:`isdp.release.make_release` when the chain's lattice cannot be built from them, by
    :func:`isdp.tables.constraint_matrix` when a constraint file's stated ``value`` is not the
    table's (a constraint file written for another table), and by
    :func:`isdp.tables.constraint_matrix` when tables released together disagree where they
    are tied. Values are compared in exact integers; the message never shows a count beyond the
    invariant's own value.

    Attributes
    ----------
    exit_code : int
        4, the exit status of ``isdp release`` for infeasible invariants.

    See Also
    --------
    isdp.release.Plan.make : Refuses invariants that fix every cell.

    Notes
    -----
    :func:`isdp.cli.main` prints ``isdp release: error: <message>`` on stderr and returns 4;
    nothing is written.

    Examples
    --------
    Each row margin of a one-column table fixes its one cell:

    >>> from isdp.errors import InfeasibleError
    >>> from isdp.release import Plan, Request
    >>> try:
    ...     Plan.make([[1, 0], [0, 1]], ["row Female", "row Male"], Request(epsilon="1"))
    ... except InfeasibleError as err:
    ...     print(err)
    infeasible invariants: they fix every cell, so no noise can be added
    """

    exit_code = 4


class UncertifiableError(ReleaseError, CertificationError):
    """No route reaches the requested guarantee within the budget, or the route is refused for publication.

    Raised, always before or instead of a release weaker than the request: by
    :meth:`isdp.release.Request.check` for the certified chain without a seed (its random numbers
    are not cryptographic: refused for publication); by :meth:`isdp.release.Plan.make` when the
    free cells are not the lattice's coordinates and no chain is allowed, or when the exact
    sampler's forecast, from the invariants and ε alone, needs more than ``max_attempts``
    proposals for some block; by :meth:`isdp.release.Plan.pairs` when δ is too small for a
    certificate of at most :data:`isdp.release.MAX_PAIRS` pairs; by
    :func:`isdp.release.make_release` when the exact sampler accepts no proposal within
    ``max_attempts``; by :func:`isdp.release._chain.certify_chain` when the coupled pairs do not
    meet within ``max_iter``; and by :meth:`isdp.release.Plan.check_not_weaker`. The message
    says what would work instead.

    Attributes
    ----------
    exit_code : int
        5, the exit status of ``isdp release`` for a refused request.

    See Also
    --------
    isdp.release.Plan.make : Forecasts the exact sampler and refuses before any count is used.

    Notes
    -----
    Every refusal depends on the invariants, the options and fresh random numbers only, never on
    the counts, so a refusal discloses nothing about the table (docs/method.md §11, "Forecast and
    refusal"). :func:`isdp.cli.main` prints ``isdp release: error: <message>`` on stderr and
    returns 5; nothing is written.

    Examples
    --------
    >>> from isdp.errors import UncertifiableError
    >>> from isdp.release import Request
    >>> try:
    ...     Request(norm="l2", epsilon="1", delta=1e-6).check()
    ... except UncertifiableError as err:
    ...     print(str(err).split(":")[0])
    the certified chain is refused for publication
    """

    exit_code = 5


class NotPartitionable(IsdpError, ValueError):  # noqa: N818 -- a decision, not a failure: the whole table is released
    """A table that cannot be released part by part with the whole table's statement (the reason given).

    Raised by :func:`isdp.release.release_partitioned` before a count is read, or by a part whose
    columns need the row-by-row reading; nothing is written. ``isdp release`` then releases the
    whole table instead, which states any refusal with its row (``--engine dask`` refuses).

    Examples
    --------
    >>> from isdp.errors import NotPartitionable
    >>> from isdp.tables._partitions import partition_key
    >>> try:
    ...     partition_key(["all-margins"], ["sex", "age"])
    ... except NotPartitionable as why:
    ...     print(why)
    the family 'all-margins' is not a total by key columns
    """


__all__ = [
    "ArgumentError",
    "CertificationError",
    "DrawsError",
    "InfeasibleError",
    "InputError",
    "InvariantError",
    "IsdpError",
    "NotPartitionable",
    "ReleaseError",
    "SolverError",
    "UncertifiableError",
    "UsageError",
]
