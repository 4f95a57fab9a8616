"""Why a release is refused: one exception per kind of refusal, each with the exit status of
``isdp release`` (docs/release.md).

Their own module, below everything that raises them — reading tables (:mod:`isdp.tables`),
building invariants (:mod:`isdp.constraints`), the exact sampler (:mod:`isdp.exact_sampling`), the
chain's certificate (:mod:`isdp.certification`) and the release itself (:mod:`isdp.release`) —
so that none of those imports the release to refuse.
"""

from __future__ import annotations


class ReleaseError(Exception):
    """A request that cannot be released; ``exit_code`` is the command's exit status.

    The base class of every refusal of the release API: catch it to handle them all. Each kind
    carries the exit status :func:`isdp.cli.main` returns for it; the message names the problem
    (a file, a line, an option) and what would work instead. No file is written when one is
    raised: the three files of a release are written last (:func:`isdp.release_files.write_release`).

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


class UsageError(ReleaseError):
    """Bad parameters or output paths (ε ≤ 0, an unknown family, a missing δ, an output that exists, …).

    Raised by :meth:`isdp.release.Request.check` (ε not in [1e-9, 700], δ missing for the
    Gaussian or the chain, δ given to the pure ℓ1 route, a negative seed, ``free_cells`` with
    another norm, ``pairs`` outside [2, 100,000]), by :func:`isdp.constraints.constraint_matrix`
    (an unknown invariant family or tie, a key column the table lacks, no invariant at all), by
    :func:`isdp.tables.load_table` (an unknown format), and by the command line and
    :func:`isdp.release_files.write_release` for output paths (an output that exists without
    ``--force``, is a directory, is an input, or cannot be written). All but the last are
    raised before any count is read: the command line checks the output paths before sampling,
    and a file that another run creates meanwhile, or that cannot be written, is found at the
    end.

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


class InputError(ReleaseError):
    r"""Unreadable table or constraint file: wrong shape, labels, non-integer or negative counts.

    Raised by :func:`isdp.tables.load_table` (a missing or unreadable file, ragged lines, a
    repeated label or column name, a non-integer, negative or too large count, a margin that
    disagrees with its cells, a wide table whose labels read as numbers under ``fmt="auto"``, a
    label containing ``|``), by :func:`isdp.constraints.read_constraint_file` (cell labels that
    are not the table's, a coefficient beyond ±2**31, an all-zero constraint), by a tie between
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


class InfeasibleError(ReleaseError):
    """The invariants cannot be kept with noise (full rank) or disagree with the table.

    Raised by :meth:`isdp.release.Plan.make` when the invariants fix every cell (no non-zero
    integer change keeps them, so no noise can be added) and by
    :func:`isdp.release.make_release` when the chain's lattice cannot be built from them, by
    :func:`isdp.constraints.read_constraint_file` when a constraint's stated ``value`` is not the
    table's (a constraint file written for another table), and by
    :func:`isdp.constraints.constraint_matrix` when tables released together disagree where they
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


class UncertifiableError(ReleaseError):
    """No route reaches the requested guarantee within the budget, or the route is refused for publication.

    Raised, always before or instead of a release weaker than the request: by
    :meth:`isdp.release.Request.check` for the certified chain without a seed (its random numbers
    are not cryptographic: refused for publication); by :meth:`isdp.release.Plan.make` when the
    free cells are not the lattice's coordinates and no chain is allowed, or when the exact
    sampler's forecast, from the invariants and ε alone, needs more than ``max_attempts``
    proposals for some block; by :meth:`isdp.release.Plan.pairs` when δ is too small for a
    certificate of at most :data:`isdp.release.MAX_PAIRS` pairs; by
    :func:`isdp.release.make_release` when the exact sampler accepts no proposal within
    ``max_attempts``; by :func:`isdp.certification.certify_chain` when the coupled pairs do not
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

__all__ = [
    "InfeasibleError",
    "InputError",
    "ReleaseError",
    "UncertifiableError",
    "UsageError",
]
