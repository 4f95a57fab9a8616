"""The plan of a release, decided before any count is read.

The route, the mechanism calibrated to the guarantee per person, the exact sampler and the forecast of its acceptance,
the refusals, and the dry run. The plan is made from A, the options and the table's labels alone (:meth:`Plan.make`,
:meth:`Plan.of`), so neither it nor a refusal depends on the counts; a release draws under it
(:func:`isdp.release.make_release`) and its statement is written from it
(:func:`~isdp.release._statement.privacy_statement`). The calibration is docs/method.md §11's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import ClassVar

import numpy as np
from scipy import sparse

from .._sparse import as_sparse
from .._validate import MAX_SHIFT
from ..errors import InfeasibleError, UncertifiableError, UsageError
from ..exact import ExactSampler, IntegerL1Sampler
from ..lattice import generalized_gaussian, generalized_laplace
from ..privacy import (
    UNCERTAINTY_COLUMNS,
    Guarantee,
    Neighbours,
    cell_uncertainty,
    gaussian_sigma,
    uncertainty_record,
    unit_epsilon,
)
from ..tables import LongTable, Table, TableSet
from ._exact_route import NO_EXACT_SAMPLER, exact_sampler, refuse_noise_beyond_int64
from ._request import MAX_PAIRS, Request
from ._row_rules import rules_of_rows
from ._same_invariants import built_once
from ._statement import privacy_statement, route_record

#: the mechanism's name in the statement, by route: the norms of ``Request.norm`` and ``free-cells``
MECHANISMS = {
    "l1": "generalized Laplace, l1 norm (ISDP Def. 9)",
    "l2": "generalized Laplace, l2 norm (ISDP Def. 9)",
    "gaussian": "generalized Gaussian (ISDP Eq. 8)",
    "free-cells": "free-cell double geometric: i.i.d. noise on the lattice's coordinates (docs/method.md §11)",
}


@dataclass(frozen=True)
class Plan:
    """What a request does under invariants A, decided from A and the options alone (no count).

    Made by :meth:`make`, which checks the request, calibrates the mechanism to the guarantee per person, builds
    the exact sampler block by block, forecasts its acceptance and refuses what it cannot serve — all before any
    count is read. :meth:`of` adds the cells' labels, the tables' names and the rule behind each invariant.

    Parameters
    ----------
    req : Request
        The request.
    A : scipy.sparse.csr_array
        The invariants, int64, rows × cells, canonical (:func:`isdp._sparse.as_sparse`).
    labels : list of str
        One label per row of ``A``.
    neighbours : isdp.privacy.Neighbours
        Whether a change of one or two persons can keep the invariants.
    exact : isdp.exact.ExactSampler or None
        The exact sampler, block by block; None on the ℓ2 route (the chain only).
    unit : fractions.Fraction or float
        The mechanism's own parameter: ε per unit ℓ1 distance (a fraction) or ℓ2 distance (a
        float), or the Gaussian's σ (a fraction).
    expected_attempts : float
        The exact sampler's forecast proposals per draw for its hardest block (1 where nothing is forecast: the
        free-cell and ℓ2 routes; ``inf`` beyond e^700).
    tables_in_norm : tuple of bool, default (True,)
        Per table released: whether it enters the mechanism's norm
        (:meth:`isdp.exact.IntegerL1Sampler.norm_tables`; False for a table derived from the others).
    cell_labels : tuple of str or Sequence of str, default ()
        The label of each cell, a column of ``A`` (:meth:`of`; empty from :meth:`make`; made when
        read for a table whose keys are held a column at a time).
    tables : tuple of (str, int), default ()
        Several tables released together: each one's name and number of cells, in order (:meth:`of`;
        empty for one table).
    rules : tuple of str or None, default ()
        Per row of ``A``, the ``Request.rules`` family (``--invariant``) or ``tie`` + a ``Request.ties`` rule
        (``--tie``) that made it, None for a row none made (a constraint file's): the statement states a row by
        its rule (:meth:`of`; empty from :meth:`make`).

    Attributes
    ----------
    MECHANISMS : dict of str to str
        The mechanism's name in the statement, by route: ``l1``, ``l2``, ``gaussian`` and ``free-cells``
        (a class attribute).

    See Also
    --------
    dry_run : The statement a plan would carry.
    make_release : Draws a release under a plan.

    Notes
    -----
    The calibration is that of docs/method.md §11: one person changes a table by at most 2 in ℓ1 and √2 in ℓ2,
    so ε per unit ℓ1 distance is ε/2 (ε/(2T) over T tables in the norm), per unit ℓ2 distance ε/√2, and the
    Gaussian's σ is the smallest on a 10⁻⁶ grid whose exact privacy profile meets (ε, δ) for one person's
    change (:func:`isdp.privacy.gaussian_sigma`).

    Examples
    --------
    Both margins of a 2 × 2 table: no single person's change keeps them, a swap of two does.

    >>> from isdp.release import Plan, Request
    >>> A = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]
    >>> plan = Plan.make(A, ["row Female", "row Male", "column young", "column old"], Request(epsilon="1"))
    >>> plan.unit, plan.exact_feasible, round(plan.expected_attempts, 1)
    (Fraction(1, 2), True, 3.1)
    >>> plan.neighbours
    Neighbours(one_person=False, two_persons=True)
    >>> plan.mechanism()
    {'name': 'generalized Laplace, l1 norm (ISDP Def. 9)', 'epsilon_per_unit_l1_distance': '1/2'}
    >>> plan.mechanism()["name"] == Plan.MECHANISMS["l1"]
    True
    >>> print(plan.guarantee().sentence(1))  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    """

    req: Request
    A: sparse.csr_array
    labels: list[str]
    neighbours: Neighbours
    exact: ExactSampler | None
    unit: Fraction | float  # ε per unit distance (Laplace) or σ (Gaussian)
    expected_attempts: float  # the exact sampler's forecast proposals per draw (hardest block)
    tables_in_norm: tuple[bool, ...] = (True,)  # per table released: whether it enters the norm (norm_tables)
    cell_labels: Sequence[str] = ()
    tables: tuple[tuple[str, int], ...] = ()  # several tables: (name, cells) of each; empty for one table
    rules: tuple[str | None, ...] = ()  # per row of A: the --invariant or --tie rule that made it, or None
    MECHANISMS: ClassVar[dict[str, str]] = MECHANISMS

    @classmethod
    def make(
        cls,
        A: np.ndarray | sparse.sparray,
        labels: list[str],
        req: Request,
        groups: list[np.ndarray] | None = None,
        *,
        part=False,
    ) -> Plan:
        """Check the request and choose the route, before any count is read.

        Parameters
        ----------
        A : array_like or scipy.sparse array
            The invariants, rows × cells (:func:`isdp.tables.constraint_matrix`).
        labels : list of str
            One label per row of ``A`` (required: the statement names each invariant by it).
        req : Request
            The request (checked here: :meth:`Request.check`).
        groups : list of numpy.ndarray, optional
            Each table's cells, when several tables are released together
            (:attr:`isdp.tables.TableSet.groups`).
        part : bool, default False
            ``A`` is one part of a table's invariants (:func:`isdp.release.release_partitioned`): a part may
            have no free cell, as long as the table has one.

        Returns
        -------
        Plan
            The route and its parameters.

        Raises
        ------
        isdp.errors.UsageError
            As :meth:`Request.check`; ``labels`` that are not one str per row of ``A``; or several
            tables with a route that may run the chain.
        isdp.errors.InvariantError
            ``A`` not a matrix of integers (:func:`isdp._sparse.as_sparse`).
        isdp.errors.InfeasibleError
            Invariants that fix every cell.
        isdp.errors.UncertifiableError
            As :meth:`Request.check`; the exact sampler's forecast needs more than
            ``req.max_attempts`` proposals for some block (without ``allow_chain``); no exact
            sampler applies and no chain is allowed; noise that could exceed ±2**62, the
            64-bit integers a release is held in (a chance above 2**-64, forecast from the
            invariants and ε); an exact route whose guarantee would be weaker than the
            request (:meth:`check_not_weaker`); or a chain that cannot be certified at
            ``req.delta`` (:meth:`pairs`).
        """
        req.check()
        A = as_sparse(A)
        if (
            isinstance(labels, str)
            or not isinstance(labels, Sequence)
            or len(labels) != A.shape[0]
            or not all(isinstance(label, str) for label in labels)
        ):  # the statement names each row by its label
            raise UsageError(
                f"labels must be a list of {A.shape[0]} str, one per row of A; got "
                f"{type(labels).__name__} {labels!r:.80}",
                "labels",
            )
        if groups is not None and len(groups) > 1 and req.chain_possible:
            raise UsageError(
                "several tables are released by the exact routes only (--norm l1, --norm gaussian, "
                "--free-cells): the certified chain takes one table"
            )
        if (
            req.norm == "l2"
            and A.shape[0] >= A.shape[1]
            and np.linalg.matrix_rank(A.toarray().astype(float)) >= A.shape[1]
        ):
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        tables_in_norm = np.ones(1, dtype=bool)
        if groups is not None and len(groups) > 1:
            tables_in_norm = IntegerL1Sampler.norm_tables(A, groups)
        derived = np.zeros(A.shape[1], dtype=bool)
        if groups is not None:  # one table is all in the norm
            for k in np.flatnonzero(~tables_in_norm):
                derived[groups[k]] = True
        n_in_norm = int(tables_in_norm.sum())
        if req.norm == "gaussian" and n_in_norm * Neighbours.TWO_PERSON_SHIFT > MAX_SHIFT:
            raise UsageError(
                f"--norm gaussian: {n_in_norm} tables enter the norm, and the exact privacy profile "
                f"serves at most {MAX_SHIFT // Neighbours.TWO_PERSON_SHIFT} (two persons' change has ‖v‖² up to "
                f"{Neighbours.TWO_PERSON_SHIFT} in each, {MAX_SHIFT} in all): release them in groups, or with "
                "--norm l1"
            )
        unit = calibrate(req, n_in_norm)
        exact: ExactSampler | None = None
        worst = 0.0
        if req.norm != "l2":  # a part's are built once per process while its invariants are the last part's
            key = (repr(req), repr(unit), derived.tobytes())  # the exact sampler's every input besides A
            exact, worst = built_once("exact sampler", A, key, lambda: exact_sampler(A, req, unit, derived), part)
        if exact is not None and exact.n_free == 0 and not part:
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        if exact is None and not req.chain_possible:
            raise UncertifiableError(NO_EXACT_SAMPLER)
        if exact is not None:
            refuse_noise_beyond_int64(exact, req, unit, worst)
        attempts = math.exp(-worst) if -worst < 700 else math.inf
        neighbours = built_once("neighbours", A, None, lambda: Neighbours.of(A), part)
        if len(tables_in_norm) > 1 and not neighbours.one_person:
            # one person's change may touch every table at once: single-cell moves do not settle it
            neighbours = Neighbours(one_person=None, two_persons=None)
        plan = cls(req, A, labels, neighbours, exact, unit, attempts, tuple(bool(b) for b in tables_in_norm))
        if exact is not None:  # the exact route's guarantee is known now: a refusal comes before any draw
            plan.check_not_weaker(plan.guarantee())
        if req.chain_possible:
            plan.pairs()  # a chain that cannot be certified is refused before anything runs
        return plan

    @classmethod
    def of(
        cls, table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request, *, part=False, rules=None
    ) -> Plan:
        r"""Return the plan of releasing ``table``: :meth:`make`, and what the statement states of the table.

        The table's labels only are read (its cells', its tables' names), never its counts; each
        row's rule is found by building each of ``req.rules`` and ``req.ties`` alone on the table's
        keys and matching the rows by label and coefficients.

        Parameters
        ----------
        table : Table or TableSet
            The table, its labels at least (:func:`isdp.tables.load_table`).
        A : array_like or scipy.sparse array
            The invariants, rows × cells (:func:`isdp.tables.constraint_matrix`).
        labels : list of str
            One label per row of ``A``.
        req : Request
            The request (checked here: :meth:`Request.check`).
        part : bool, default False
            ``table`` is one part of a table (:func:`isdp.release.release_partitioned`, which checks the
            table's columns itself), as in :meth:`make`.
        rules : sequence of str or None, optional
            Per row of ``A``, the rule that made it, when the caller built ``A`` rule by rule; by default each
            row's rule is found here.

        Returns
        -------
        Plan
            The route and its parameters, with :attr:`cell_labels`, :attr:`tables` and :attr:`rules`.

        Raises
        ------
        isdp.errors.ReleaseError
            As :meth:`make`, or as :func:`isdp.tables.constraint_matrix` for a rule of ``req``;
            :class:`~isdp.errors.UsageError` for ``req.uncertainty`` with a wide table, or a long one
            that has a column of the names it adds.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from isdp.release import Plan, Request
        >>> from isdp.tables import constraint_matrix, load_table
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = Path(tmp, "sex_by_age.csv")
        ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
        ...     table = load_table(path)
        >>> A, labels = constraint_matrix(table, ["total", "row-margins"])
        >>> plan = Plan.of(table, A, labels, Request(epsilon="1", rules=("row-margins",)))
        >>> plan.cell_labels
        ('Female|young', 'Female|old', 'Male|young', 'Male|old')
        >>> list(zip(plan.labels, plan.rules))
        [('total', None), ('row Female', 'row-margins'), ('row Male', 'row-margins')]
        """
        if req.uncertainty is not None and not part:
            _check_uncertainty_columns(table)
        cells = len(table.cell_labels)
        A = as_sparse(A)
        if A.shape[1] != cells:
            raise UsageError(
                f"A has {A.shape[1]} columns; the table has {cells} cells: one column per cell, in the table's order",
                "A",
            )
        plan = cls.make(A, labels, req, getattr(table, "groups", None), part=part)
        tables = (
            tuple((name, len(t.keys)) for name, t in zip(table.names, table.tables, strict=True))
            if isinstance(table, TableSet)
            else ()
        )
        names = table.cell_labels  # a large table's are made when read (CellLabels), not held
        return replace(
            plan,
            cell_labels=tuple(names) if isinstance(names, list) else names,
            tables=tables,
            rules=tuple(rules) if rules is not None else rules_of_rows(table, plan.A, labels, req),
        )

    @property
    def exact_feasible(self) -> bool | None:
        """Whether the exact sampler is expected to accept within ``max_attempts`` per block.

        A forecast from the invariants and ε only
        (:meth:`isdp.exact.IntegerL1Sampler.log_acceptance`); None when there is no exact
        sampler (the ℓ2 route).
        """
        if self.exact is None:
            return None
        return self.expected_attempts <= self.req.max_attempts

    def guarantee(self, eta: float | None = None, confidence: float | None = None) -> Guarantee:
        """Return the guarantee of the exact mechanism, or of the chain within TV ``eta`` of it.

        Parameters
        ----------
        eta : float, optional
            The chain's certified TV bound; None for an exact draw.
        confidence : float, optional
            The certificate's confidence level, with ``eta``.

        Returns
        -------
        isdp.privacy.Guarantee
            Its ε, δ (and ρ) per person and for two persons (:meth:`~isdp.privacy.Guarantee.at`).
        """
        return Guarantee(
            self.req.norm,
            self.unit,
            self.req.delta_split()[0],
            eta,
            confidence,
            n_tables=sum(self.tables_in_norm),
            released=len(self.tables_in_norm),
            two_person_shift=self.neighbours.two_person_shift(self.A),
        )

    def eta_target(self) -> float:
        """Return the TV bound a chain must certify so that δ per person stays within the request.

        Returns
        -------
        float
            The target η* = δ_chain/(1 + e^ε), ε the exact mechanism's per person (docs/method.md §11,
            "From a TV bound to δ").
        """
        delta_chain = self.req.delta_split()[1]
        assert delta_chain is not None  # Request.check refuses a chain without δ
        return delta_chain / (1 + math.exp(self.guarantee().at(1)["epsilon"]))

    def pairs(self) -> int:
        """Return the coupled pairs behind the chain's certificate.

        Returns
        -------
        int
            ``req.pairs``, or twice the least that can certify :meth:`eta_target` at 95 %
            (at least 200, at most 100,000).

        Raises
        ------
        isdp.errors.UncertifiableError
            When more than 100,000 pairs, or more than ``req.pairs``, would be needed.
        """
        from ..convergence import Certificate  # deferred: isdp.convergence loads pandas, which only a chain needs

        eta, req = self.eta_target(), self.req
        needed = Certificate.pairs_needed(eta)
        if needed > MAX_PAIRS:
            floor = (1 + math.exp(self.guarantee().at(1)["epsilon"])) * (1 - (1 - Certificate.LEVEL) ** (1 / MAX_PAIRS))
            raise UncertifiableError(
                f"--delta {req.delta:g} needs the chain within TV {eta:.3g} of the exact "
                f"mechanism, which {needed:,} coupled pairs would be needed to certify at 95 % "
                f"(at most {MAX_PAIRS:,}): a certified chain cannot state a delta below about "
                f"{floor:.2g} here; raise --delta or use an exact route"
            )
        if req.pairs is None:
            return min(max(200, 2 * needed), MAX_PAIRS)
        if req.pairs < needed:
            raise UncertifiableError(
                f"--pairs {req.pairs} cannot certify TV {eta:.3g} (needed for --delta "
                f"{req.delta:g}) at 95 %: {needed} pairs are needed"
            )
        return req.pairs

    def chain_target(self):
        """Return the chain's target law on Λ(A).

        Returns
        -------
        isdp.lattice.Target
            The generalized Gaussian with σ, or the generalized Laplace with ε per unit distance
            in the request's norm.
        """
        if self.req.norm == "gaussian":
            return generalized_gaussian(float(self.unit))
        return generalized_laplace(float(self.unit), self.req.norm)

    def mechanism(self) -> dict:
        """Return the mechanism and its own parameter, for the statement.

        Returns
        -------
        dict
            ``name`` (:attr:`MECHANISMS`) and ``sigma`` (the Gaussian) or
            ``epsilon_per_unit_<norm>_distance``; exact fractions as strings.
        """
        out: dict[str, str | float] = {"name": MECHANISMS["free-cells" if self.req.free_cells else self.req.norm]}
        if self.req.norm == "gaussian":
            out["sigma"] = str(self.unit)
        else:
            key = f"epsilon_per_unit_{self.req.norm}_distance"
            out[key] = str(self.unit) if isinstance(self.unit, Fraction) else float(self.unit)
        return out

    def check_not_weaker(self, g: Guarantee) -> None:
        """Refuse a guarantee weaker than the request (ε, δ per person), or a δ of 1 or more.

        Parameters
        ----------
        g : isdp.privacy.Guarantee
            The guarantee a release would meet.

        Raises
        ------
        isdp.errors.UncertifiableError
            Its ε or δ per person exceeds the request's (ε with a relative slack of 1e-12).
        """
        got, req = g.at(1), self.req
        eps_ok = got["epsilon"] <= float(req.epsilon_person) * (1 + 1e-12)
        delta_ok = got["delta"] <= (req.delta or 0.0) and got["delta"] < 1
        if not (eps_ok and delta_ok):
            raise UncertifiableError(
                f"the release would meet ({got['epsilon']:.6g}, {got['delta']:.3g}) per person, "
                f"weaker than the ({req.epsilon}, {req.delta or 0:g}) asked: nothing is "
                "released"
            )


def calibrate(req: Request, n_in_norm: int = 1) -> Fraction | float:
    """Return the mechanism's own parameter for the guarantee asked (docs/method.md §11).

    Parameters
    ----------
    req : Request
        The request (its norm, ε and δ per person).
    n_in_norm : int, default 1
        The tables in the norm.

    Returns
    -------
    fractions.Fraction or float
        The Gaussian's σ (:func:`isdp.privacy.gaussian_sigma`), else ε per unit distance
        (:func:`isdp.privacy.unit_epsilon`).
    """
    if req.norm == "gaussian":
        delta = req.delta_split()[0]
        assert delta is not None  # Request.check refuses the Gaussian without δ
        return gaussian_sigma(float(req.epsilon_person), delta, n_in_norm)
    return unit_epsilon(req.epsilon_person, req.norm, n_in_norm)


def dry_run(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> dict:
    r"""Return the statement a run with these options would carry, from the labels and the options only.

    What ``isdp release --dry-run`` prints. The route is the one that would be tried first; on the chain route the
    δ stated is the most a run may reach (its certificate is computed at run time, from the invariants and fresh
    random numbers only). No count is used: the table may be read with ``labels_only``.

    Parameters
    ----------
    table : Table or TableSet
        The table, its labels at least (:func:`isdp.tables.load_table`).
    A : array_like or scipy.sparse array
        The invariants, rows × cells.
    labels : list of str
        One label per row of ``A``.
    req : Request
        The request.

    Returns
    -------
    dict
        The privacy statement without the invariants' values, with ``"dry_run": True``.

    Raises
    ------
    isdp.errors.ReleaseError
        As :meth:`Plan.of`.

    See Also
    --------
    make_release : The release itself.

    Examples
    --------
    A table whose counts are ``?``: only its labels are read.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import Request, dry_run
    >>> from isdp.tables import constraint_matrix, load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,?,?\nMale,?,?\n")
    ...     table = load_table(path, labels_only=True)
    >>> A, labels = constraint_matrix(table, ["total"])
    >>> statement = dry_run(table, A, labels, Request(epsilon="1"))
    >>> statement["dry_run"], statement["route"]["name"], statement["mechanism"]["name"]
    (True, 'exact', 'generalized Laplace, l1 norm (ISDP Def. 9)')
    >>> print(statement["guarantee"]["per_person"]["text"])  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    >>> statement["invariants"]  # no value: no count is read
    [{'label': 'total', 'coefficients': {'Female|young': 1, 'Female|old': 1, 'Male|young': 1, 'Male|old': 1}}]
    """
    plan = Plan.of(table, A, labels, req)
    if plan.exact is not None and plan.exact_feasible:
        route = route_record(plan)
        g = plan.guarantee()
    else:
        route = {
            "name": "certified chain",
            "pairs": plan.pairs(),
            "tv_target": plan.eta_target(),
            "certificate": "computed at run time from the invariants and fresh random numbers",
        }
        from ..convergence import Certificate  # deferred: isdp.convergence loads pandas

        g = plan.guarantee(plan.eta_target(), Certificate.LEVEL)
    statement = privacy_statement(plan, g, route, None)
    if req.uncertainty is not None:  # the intervals' offsets come from the mechanism alone: stated as the run would
        assert isinstance(plan.unit, Fraction)  # the exact routes' ε per unit ℓ1 distance or σ (no ℓ2 interval)
        got = cell_uncertainty(plan.exact, plan.A.shape[1], req, plan.unit, req.uncertainty)
        statement["uncertainty"] = uncertainty_record(req.uncertainty, got["draws"])
    return {**statement, "dry_run": True}


def _check_uncertainty_columns(table: Table | TableSet) -> None:
    """Refuse ``--uncertainty`` for a wide table, or a long one with a column of the names it adds."""
    for t in table.tables if isinstance(table, TableSet) else (table,):
        if not isinstance(t.layout, LongTable):
            raise UsageError(
                f"--uncertainty adds columns to a long table (key columns and a count column); {t.path} is wide"
            )
        clash = [c for c in UNCERTAINTY_COLUMNS if c.casefold() in {h.casefold() for h in t.layout.header}]
        if clash:
            raise UsageError(
                f"--uncertainty adds the columns {', '.join(UNCERTAINTY_COLUMNS)}; {t.path} has {clash[0]!r} already"
            )
