"""What to release and how.

The options of a release (the norm, ε and δ per person, the route's switches and budgets) and their checks, made before
anything is read (docs/release.md, "Options").

ε and δ are the guarantee needed per person (the neighbouring relation is :mod:`isdp.release`'s); the
mechanism's own parameters follow from them in the plan (:class:`~isdp.release.Plan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import _validate as check
from ..errors import UncertifiableError, UsageError
from ._workers import checked_workers

#: the norms of ``Request.norm`` (``--norm``): ``l1`` the generalized Laplace in ℓ1 (exact),
#: ``l2`` the generalized Laplace in ℓ2 (certified chain), ``gaussian`` the generalized Gaussian (exact)
NORMS = ("l1", "l2", "gaussian")
#: most coupled pairs a chain certificate may ask for (each costs a coupled run)
MAX_PAIRS = 100_000


@dataclass
class Request:
    """What to release and how (the command's options).

    ``epsilon`` and ``delta`` are the guarantee needed **per person** (:mod:`isdp.release`); the
    mechanism's own parameters follow from them (:class:`Plan`). Nothing is checked until
    :meth:`check`, which :meth:`Plan.make` calls.

    Parameters
    ----------
    norm : {"l1", "l2", "gaussian"}, default "l1"
        The mechanism: the generalized Laplace in ℓ1 drawn exactly, the
        generalized Laplace in ℓ2 by a certified chain (study runs only), or the generalized
        Gaussian drawn exactly.
    epsilon : str or None, default None
        The ε needed per person, > 0, read exactly as typed (``"0.1"`` is 1/10, ``"1/3"`` works);
        required. Written as an integer, a decimal, a decimal with an exponent or a fraction in ASCII
        digits (an int or a ``Fraction`` works too); other forms Python reads (``"1_0"``, other
        scripts' digits) are refused.
    delta : float or None, default None
        The δ needed per person, in (0, 1), read as ``epsilon`` is (a float, a ``Fraction`` or text
        such as ``"1e-6"``): required by ``norm="gaussian"`` and by the chain (``norm="l2"``,
        ``allow_chain``), refused elsewhere.
    allow_chain : bool, default False
        ``l1``, ``gaussian``: run the certified chain when the exact sampler cannot serve.
    free_cells : bool, default False
        ``l1`` only: release the exact sampler's proposal, without its rejection step.
    nonnegative : bool, default False
        Post-process the release onto the non-negative tables with the same invariants.
    pairs : int or None, default None
        The chain's coupled pairs, in [2, 100,000]; None is twice the least that can
        certify the TV bound ``delta`` needs (at least 200).
    max_iter : int, default 200_000
        Iterations a coupled pair may take to meet before the request is refused.
    max_attempts : int, default 20_000
        Proposals of the exact sampler per block before it gives up; the plan refuses at once
        when its forecast exceeds this.
    seed : int or None, default None
        A non-negative seed for a reproducible run, not for publication (the statement says
        ``"publishable": false``); None draws from operating-system entropy.
    progress : bool, default False
        Show progress on stderr (:class:`Progress`).
    rules : tuple of str, default ()
        The invariant families the invariants were built from (``--invariant``: ``total``,
        ``by:state,county``, …), so the statement states those invariants by rule rather than by
        coefficients (:func:`~isdp.release._statement.privacy_statement`).
    ties : tuple of str, default ()
        Likewise the ties between tables (``--tie``).
    uncertainty : float or None, default None
        Add to the released long table each cell's noise standard deviation and an interval at
        this level, in (0, 1), for its true count (``--uncertainty``: exact routes only, not with
        ``nonnegative``; :func:`isdp.privacy.cell_uncertainty`).
    workers : int or None, default None
        The worker processes that release a large table's parts on this machine
        (:func:`~isdp.release.release_partitioned`'s local engine, ``--workers``), at most 4 per core;
        None: one per core from 2²³ cells, else this process alone.

    See Also
    --------
    Plan.make : Checks the request and chooses the route.
    make_release : Draws the release.

    Examples
    --------
    >>> from isdp.release import Request
    >>> req = Request(epsilon="1/3")
    >>> req.epsilon_person, req.chain_possible
    (Fraction(1, 3), False)
    >>> req.check()  # consistent: nothing raised
    >>> from isdp.errors import UsageError
    >>> try:
    ...     Request(epsilon="1", delta=1e-6).check()
    ... except UsageError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    --delta is used only by --norm gaussian and the certified chain (--norm l2, --allow-chain):
    the l1 exact release is pure epsilon
    """

    norm: str = "l1"
    epsilon: str | None = None  # per person; exact decimal or fraction as typed
    delta: float | None = None  # per person: the Gaussian's and the certified chain's δ
    allow_chain: bool = False  # l1, Gaussian: a certified chain when the exact route cannot serve
    free_cells: bool = False  # l1: the exact route's proposal, released without rejection
    nonnegative: bool = False
    pairs: int | None = None  # chain: coupled pairs (None: twice the least that resolves its target)
    max_iter: int = 200_000
    max_attempts: int = 20_000
    seed: int | None = None  # None: operating-system entropy
    progress: bool = False
    rules: tuple[str, ...] = ()  # the --invariant families: the statement states their rows by rule
    ties: tuple[str, ...] = ()  # the --tie rules, likewise
    uncertainty: float | None = None  # the level of each cell's interval for its true count, or None: none
    workers: int | None = None  # the local engine's worker processes, or None: one per core on a large table

    @property
    def chain_possible(self) -> bool:
        """Whether this request may run the certified chain (``norm="l2"``, or ``allow_chain``)."""
        return self.norm == "l2" or self.allow_chain

    @property
    def epsilon_person(self) -> Fraction:
        """The ε per person as an exact fraction (``"0.1"`` is 1/10); UsageError if it is not positive."""
        return check.positive("--epsilon", self.epsilon, error=UsageError)

    def check(self) -> None:
        """Refuse an inconsistent request before anything is read, and keep each value as read.

        Each option is read through one check (:mod:`isdp._validate`) and kept in the form read: δ
        and ``uncertainty`` as floats (``"1e-6"`` and ``Fraction(1, 10**6)`` work), the seed, the
        pairs and the budgets as ints, ``rules`` and ``ties`` as tuples; ε stays as typed (the
        statement repeats it).

        Raises
        ------
        isdp.errors.UsageError
            An unknown norm; ε missing, not a number or outside [1e-9, 700]; a seed that is not
            an integer ≥ 0; a switch that is not a bool; ``rules`` or ``ties`` not a tuple of str; δ
            missing or outside (0, 1) for the Gaussian or the chain, or given to the pure ℓ1
            route; ``free_cells`` with another norm or with ``allow_chain``; ``pairs`` outside
            [2, 100,000]; ``max_iter`` or ``max_attempts`` below 2; ``uncertainty``
            outside (0, 1), with ``nonnegative``, or with a route that may run the chain.
        isdp.errors.UncertifiableError
            A run without a seed that may need the chain: its random numbers are not
            cryptographic, so it is refused for publication.
        """
        if self.norm not in NORMS:
            raise UsageError(f"unknown norm {self.norm!r}: choose from {', '.join(NORMS)}")
        if self.epsilon is None:
            raise UsageError("give --epsilon: the guarantee needed per person")
        check.positive("--epsilon", self.epsilon, error=UsageError)
        check.exact_number(
            "--epsilon",
            self.epsilon,
            low=Fraction(1, 10**9),
            low_closed=True,
            high=700,
            high_closed=True,
            error=UsageError,
        )
        if self.seed is not None:
            self.seed = check.seed(self.seed, "--seed", error=UsageError)
        for switch in ("allow_chain", "free_cells", "nonnegative", "progress"):
            if not isinstance(getattr(self, switch), bool | np.bool_):  # "no" would be read as True
                raise UsageError(f"{switch} must be True or False, got {getattr(self, switch)!r}", switch)
        for name, option in (("rules", "--invariant"), ("ties", "--tie")):
            given = getattr(self, name)
            if not isinstance(given, tuple | list) or not all(isinstance(rule, str) for rule in given):
                raise UsageError(f"{name} must be a tuple of str (each an {option} rule), got {given!r}", name)
            setattr(self, name, tuple(given))
        if self.norm == "gaussian" or self.chain_possible:
            if self.delta is None:
                raise UsageError(
                    f"the {'Gaussian' if self.norm == 'gaussian' else 'certified chain'}'s guarantee "
                    "has a delta: give --delta (per person, in (0, 1))"
                )
            delta = check.probability("--delta", self.delta, error=UsageError)
            if float(delta) == 0:  # the accounting is in floating point: a δ below 2**-1074 would be read as 0
                raise UsageError(f"--delta must be at least 1e-300, got {self.delta!r}", "--delta")
            self.delta = float(delta)
        elif self.delta is not None:
            raise UsageError(
                "--delta is used only by --norm gaussian and the certified chain (--norm l2, "
                "--allow-chain): the l1 exact release is pure epsilon"
            )
        if self.free_cells and (self.norm != "l1" or self.allow_chain):
            raise UsageError(
                "--free-cells is an l1 route of its own: not with --norm l2 or gaussian, nor with --allow-chain"
            )
        if self.pairs is not None:
            self.pairs = check.size("--pairs", self.pairs, 2, MAX_PAIRS, error=UsageError)
        for name in ("max_iter", "max_attempts"):
            setattr(self, name, check.size(f"--{name.replace('_', '-')}", getattr(self, name), 2, error=UsageError))
        if self.uncertainty is not None:
            self.uncertainty = check.level("--uncertainty", self.uncertainty, error=UsageError)
        if self.workers is not None:
            self.workers = checked_workers(self.workers)
        if self.uncertainty is not None and self.nonnegative:
            raise UsageError(
                "--uncertainty with --nonnegative: the intervals are the noise's, around the release "
                "before its projection onto the non-negative tables, and do not hold their level around "
                "the projected counts; give one of the two"
            )
        if self.uncertainty is not None and self.chain_possible:
            raise UsageError(
                "--uncertainty LEVEL needs an exact route (--norm l1 or gaussian, without "
                "--allow-chain); got a route that may run the chain"
            )
        if self.chain_possible and self.seed is None:
            raise UncertifiableError(
                "the certified chain is refused for publication: its random numbers come from xoshiro256** "
                "(fast, not cryptographic) and its delta rests on a statistical certificate; "
                + (
                    "use --norm l1 or gaussian (exact, operating-system entropy), or "
                    if self.norm == "l2"
                    else "drop --allow-chain (the exact route draws from operating-system entropy), or "
                )
                + "run a study with --seed N --reproducible-not-for-publication"
            )

    def delta_split(self) -> tuple[float | None, float | None]:
        """How δ per person is spent: the Gaussian's zCDP → (ε, δ) conversion, and a chain's TV bound.

        Returns
        -------
        delta_conversion : float or None
            The Gaussian's δ (None for the Laplace routes).
        delta_chain : float or None
            The δ left for a chain (None when no chain can run). Halves of ``delta`` when both
            apply (a Gaussian with ``allow_chain``).

        Examples
        --------
        >>> from isdp.release import Request
        >>> Request(norm="gaussian", epsilon="1", delta=1e-6).delta_split()
        (1e-06, None)
        >>> Request(norm="gaussian", epsilon="1", delta=1e-6, allow_chain=True).delta_split()
        (5e-07, 5e-07)
        """
        if self.delta is None:
            return None, None
        if self.norm == "gaussian":
            return (self.delta / 2, self.delta / 2) if self.allow_chain else (self.delta, None)
        return None, self.delta
