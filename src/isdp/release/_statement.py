"""The privacy statement of a release.

The publishable record of the mechanism, the route taken, the guarantee per person and the invariants (docs/release.md,
"The statement").

Everything in it is derived from the invariants A, the options, the labels and the invariants' values
(which the release discloses anyway), never from anything else in the confidential table; the route's
record carries no timing (a timing goes to the confidential audit record, :mod:`isdp.release`).

It is written from the plan (:class:`~isdp.release.Plan`, which holds A, its labels and rules and the
cells' labels) and what the draw gave, and reads neither the table nor the plan's module: the plan
imports the statement, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..exact import IntegerL1Sampler, LatticeBlock
from ..mcmc import DoubleGeometric

if TYPE_CHECKING:
    from ..convergence import Certificate
    from ..lattice import IntegerLattice
    from ..privacy import Guarantee


def route_record(
    plan,
    lattice: IntegerLattice | None = None,
    certificate: Certificate | None = None,
    proposal_eps: float | None = None,
) -> dict:
    r"""Return the route taken, for the statement.

    The exact routes' construction, or the chain's run and its certificate.

    Everything in it follows from the plan (the invariants and the options) and, for the chain,
    from its certificate — fresh random numbers, never the counts. The certificate's run time is
    left out: a timing goes to the audit record.

    Parameters
    ----------
    plan : isdp.release.Plan
        The plan of the release, with the table's labels (:meth:`isdp.release.Plan.of`; its cell
        labels name the solved cells).
    lattice : isdp.lattice.IntegerLattice, optional
        The chain's lattice, with the basis it ran on (the chain route only).
    certificate : isdp.convergence.Certificate, optional
        The chain's certificate; None for the exact and free-cell routes.
    proposal_eps : float, optional
        The chain's proposal ε, as certified.

    Returns
    -------
    dict
        ``name`` (``exact``, ``free cells`` or ``certified chain``) and ``sampler`` (the
        construction in words); the exact routes add ``solved_cells``, the free-cell route each
        solved cell's noise variance and a free cell's (``noise_variance``), the chain its
        ``basis`` and ``certificate`` (iterations, TV bound certified and targeted).

    See Also
    --------
    privacy_statement : The statement the route goes into.

    Examples
    --------
    The free-cell route under a table's total: the solved cell carries the sum of the three free
    cells' noise, three times their variance.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.release import Plan, Request
    >>> from isdp.release._statement import route_record
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["total"])
    >>> route = route_record(Plan.of(table, A, labels, Request(epsilon="1", free_cells=True)))
    >>> route["name"], route["solved_cells"]
    ('free cells', ['Male|old'])
    >>> variance = route["noise_variance"]
    >>> round(variance["solved_cells"]["Male|old"] / variance["free_cell"], 6)
    3.0
    >>> route_record(Plan.of(table, A, labels, Request(epsilon="1")))["sampler"][:60]
    'exact, in integer arithmetic, drawn directly on each block u'
    >>> A, labels = constraint_matrix(table, ["all-margins"])
    >>> route_record(Plan.of(table, A, labels, Request(epsilon="1")))["sampler"][:60]
    'exact rejection in integer arithmetic: free cells i.i.d. dou'
    """
    if certificate is None:
        return exact_route(
            plan.req, plan.unit, plan.tables_in_norm, ExactPieces.of(plan.exact, plan.unit, plan.cell_labels, plan.req)
        )
    assert lattice is not None  # the chain's route passes its lattice with its certificate
    iterations = certificate.burn_in(floor=1)
    summary = certificate.summary(burn_in=iterations)
    summary.pop("certify_seconds")
    return {
        "name": "certified chain",
        "sampler": (
            "compiled Gibbs-within-Metropolis (ISDP Alg. 1), one chain from u = 0, run "
            f"{iterations} iterations; double geometric jumps from a 2**-52-rounded alias table"
        ),
        "basis": {"kind": lattice.basis_name, "vectors": lattice.basis.T.tolist()},
        "certificate": {
            "method": "L-lag coupling (Biswas, Jacob & Vanetti 2019), pairs started at u = 0, as the chain",
            "iterations": iterations,
            "proposal_eps": proposal_eps,
            "tv_certified": summary["tv_bound_at_burn_in"],
            **summary,
            "tv_target": plan.eta_target(),
        },
    }


_KLEIN = (
    "exact discrete Gaussian on the lattice of each block whose invariants are one total or a table's two "
    "margins: Klein's sampler on the basis of differences of adjacent cells (their Gram-Schmidt vectors in "
    "closed form), one-dimensional discrete Gaussians drawn exactly in integer arithmetic, then an exact "
    "rejection step (Brakerski-Langlois-Peikert-Regev-Stehle 2013, Lemma 2.3), so the noise is exactly the "
    "discrete Gaussian on the lattice and every cell of a block has the same variance, at most the continuous "
    "Gaussian's on the same subspace (the lattice Gaussian is sub-Gaussian with the same sigma), equal to it "
    "in double precision from sigma = 3 and below it where sigma is small against the lattice's spacing"
)


@dataclass
class ExactPieces:
    """What the exact routes' record states of the blocks, in a form that adds up over parts of a table.

    A release made partition by partition (:func:`isdp.release.release_partitioned`) collects one
    per partition and joins them in table order (:meth:`join`); a whole table's comes from its
    sampler (:meth:`of`). Both give the same record.

    Parameters
    ----------
    solved : list of str
        The solved cells' labels, in the table's order.
    variances : list of float
        The free-cell route: each solved cell's noise variance (else empty).
    klein : dict
        Per shape of the blocks Klein's sampler draws, in the order of each shape's first block:
        the statement's entry (its ``blocks`` the count).
    blocks : int
        The blocks, Klein's and the others.
    direct : int
        The blocks whose ℓ1 law is drawn directly (:meth:`isdp.exact.IntegerL1Sampler.direct_signs`).
    """

    solved: list[str]
    variances: list[float]
    klein: dict
    blocks: int
    direct: int

    @classmethod
    def of(cls, exact, unit, cell_labels, req) -> ExactPieces:
        """Return the pieces of a whole sampler (:class:`isdp.exact.ExactSampler`) over cells named ``cell_labels``."""
        solved = exact.solved
        variances = exact.variances(unit)[solved].tolist() if req.free_cells else []
        klein: dict[tuple, dict] = {}
        if req.norm == "gaussian":
            sigma2 = unit * unit
            for _, sub in exact.parts:
                if isinstance(sub, LatticeBlock):
                    entry = klein.setdefault(
                        (sub.kind, sub.grid.shape),
                        {
                            "invariants": "one total" if sub.kind == "total" else "both margins",
                            "cells": int(sub.grid.size),
                            **({} if sub.kind == "total" else {"grid": list(sub.grid.shape)}),
                            "blocks": 0,
                            "noise_variance_per_cell_at_most": float(sub.variances(sigma2)[0]),
                        },
                    )
                    entry["blocks"] += 1
        direct, eps = 0, 1 / unit if req.norm == "gaussian" else unit
        if not req.free_cells:
            shared: dict[int, bool] = {}  # blocks of one shape share their sampler: decided once
            for _, sub in exact.parts:
                if isinstance(sub, IntegerL1Sampler):
                    if id(sub) not in shared:
                        shared[id(sub)] = sub.direct_signs(eps) is not None
                    direct += shared[id(sub)]
        take = getattr(cell_labels, "take", None)  # a large table's labels (CellLabels): a key column at a time
        names = take(solved) if take is not None else [cell_labels[i] for i in solved]
        return cls(names, variances, klein, len(exact.parts), direct)

    def join(self, other: ExactPieces) -> ExactPieces:
        """Return these pieces followed by ``other``'s (a later part of the table)."""
        klein = {key: dict(entry) for key, entry in self.klein.items()}
        for key, entry in other.klein.items():
            if key in klein:
                klein[key]["blocks"] += entry["blocks"]
            else:
                klein[key] = dict(entry)
        return ExactPieces(
            self.solved + other.solved,
            self.variances + other.variances,
            klein,
            self.blocks + other.blocks,
            self.direct + other.direct,
        )


def exact_route(req, unit, tables_in_norm, pieces: ExactPieces) -> dict:
    """Return the route record of the exact and free-cell routes (:func:`route_record`), from the blocks' pieces."""
    if req.free_cells:
        return {
            "name": "free cells",
            "sampler": (
                "exact, in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
                f"Alg. 2) with epsilon {unit}, the invariants solved for the other cells; no "
                "rejection. The free cells are the coordinates of the lattice of invariant-keeping "
                "changes, so a change of l1 size d moves them by at most d: the same epsilon per "
                "person as the l1 route, with the noise not spread evenly"
            ),
            "solved_cells": pieces.solved,
            "noise_variance": {
                "free_cell": DoubleGeometric(float(unit)).variance(),
                "solved_cells": dict(zip(pieces.solved, pieces.variances, strict=True)),
            },
        }
    eps = 1 / unit if req.norm == "gaussian" else unit
    how = (
        "exact rejection in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
        f"Alg. 2) with epsilon {eps}, the invariants solved for the other cells, accepted with probability "
        f"exp(-{eps}·sum |u_solved|)"
        + (
            ""
            if all(tables_in_norm)
            else " (the sum over the tables in the norm; a derived table's cells are solved and do not enter it)"
        )
    )
    if pieces.direct:
        direct = (
            "exact, in integer arithmetic, drawn directly on each block under one total (n cells, coefficients "
            f"a_i = +-1): K by inversion of P(K) proportional to C(K + n - 1, n - 1)^2 exp(-2·{eps}·K), then "
            "u_i = a_i (g_i - g'_i) for g, g' two independent uniform weak compositions of K into n parts: the "
            f"law proportional to exp(-{eps}·sum |u_i|) on the block's lattice, no proposal rejected"
        )
        others = pieces.blocks - pieces.direct - sum(e["blocks"] for e in pieces.klein.values())
        how = direct if others == 0 else f"{direct}; on the other blocks, {how}"
    if req.norm == "gaussian":
        # sigma named, then given: a fraction written inside the formula (2·239329/40000^2) read as 3e-4
        how += (
            f", then kept with probability exp(-sum (|u_i| - sigma)^2 / (2 sigma^2)), sigma = {unit} "
            f"({float(unit):.6g})"
        )
        if pieces.klein:  # per shape, the largest first (a stable sort: equal sizes in the order first drawn)
            klein = sorted(pieces.klein.values(), key=lambda e: -e["cells"])
            every = sum(e["blocks"] for e in klein) == pieces.blocks
            return {
                "name": "exact",
                "sampler": _KLEIN + ("" if every else f"; on the other blocks, {how}"),
                "blocks": klein,
                "solved_cells": pieces.solved,
            }
    return {"name": "exact", "sampler": how, "solved_cells": pieces.solved}


#: what an invariant stated by rule means (the statement's ``invariant_rules``)
RULE_MEANING = (
    "an invariant with a rule is the sum of the cells its label names: 'total' every cell, 'row R' or "
    "'column C' a row or column of a wide table, 'by K=v, L=w' the cells whose key K is v and L is w; "
    "'tie …: S = T' says the group's total in table S equals that in table T; 'NAME: …' applies to the "
    "table NAME; the others are stated with their coefficients by cell label"
)


def invariant_entry(label: str, rule: str | None, coefficients: dict | None, value: int | None) -> dict:
    """One invariant of the statement: its label, its rule (or its coefficients by cell label) and its value."""
    entry: dict = {"label": label, **({"rule": rule} if rule is not None else {"coefficients": coefficients})}
    if value is not None:
        entry["value"] = value
    return entry


def _invariants(plan, values: np.ndarray | None) -> list[dict]:
    """Each invariant by label (and value).

    By its rule where ``--invariant``/``--tie`` made it (the plan's ``rules``), so the statement grows with the
    invariants and not with the cells; else with its coefficients by cell label.
    """
    A, cells = plan.A, plan.cell_labels
    return [
        invariant_entry(
            lab,
            rule,
            None
            if rule is not None
            else {
                cells[j]: int(c)
                for j, c in zip(
                    A.indices[A.indptr[i] : A.indptr[i + 1]], A.data[A.indptr[i] : A.indptr[i + 1]], strict=True
                )
            },
            None if values is None else int(values[i]),
        )
        for i, (lab, rule) in enumerate(zip(plan.labels, plan.rules, strict=True))
    ]


def privacy_statement(
    plan,
    guarantee: Guarantee,
    route: dict,
    invariant_values: np.ndarray | None,
    *,
    invariants: list[dict] | None = None,
    cells: int | None = None,
) -> dict:
    r"""Return the publishable privacy statement of a release, from the plan, the labels and the invariants' values.

    Derived from A, the options, the labels and the invariants' values (disclosed by the release
    itself), never from anything else in the table: two tables with the same invariants give
    the same statement under the same options and seed. It is the JSON of
    ``OUTPUT.statement.json`` (docs/release.md).

    Parameters
    ----------
    plan : isdp.release.Plan
        The plan of the release, with the table's labels (:meth:`isdp.release.Plan.of`): its cell
        labels, each invariant's rule, and for several tables their names.
    guarantee : isdp.privacy.Guarantee
        The guarantee the release meets (:meth:`isdp.release.Plan.guarantee`).
    route : dict
        The route taken (:func:`route_record`).
    invariant_values : numpy.ndarray or None
        The invariants' values A x, one per row of ``plan.A``; None for a dry run (no value is
        stated).
    invariants : list of dict, optional
        The statement's invariants, each as :func:`invariant_entry` makes it, in place of those of
        ``plan.A`` (a release made partition by partition, whose plan holds no A).
    cells : int, optional
        The number of cells, in place of ``len(plan.cell_labels)`` (likewise).

    Returns
    -------
    dict
        JSON-ready: ``isdp_privacy_statement`` (format 1), ``publishable`` (False for a seeded
        run), ``mechanism``, ``route``, ``requested`` (ε and δ per person and the options),
        ``neighbouring_relation``, ``tables`` (several tables only: which are in the norm),
        ``guarantee`` (per person and for two persons, each with ``realisable``),
        ``post_processing``, ``invariants`` (label, coefficients by cell label, value), ``cells``,
        ``randomness``, ``seed``, ``package`` and ``checks``.

    See Also
    --------
    isdp.release.make_release : Makes the statement of a release.
    isdp.release.dry_run : The statement before any count is read.

    Notes
    -----
    The guarantee lines are :meth:`isdp.privacy.Guarantee.to_dict`: ε (and δ, ρ) for one person
    and for two, and whether the invariants can absorb such a change (docs/method.md §11,
    "Neighbours, per person").

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from isdp._sparse import row_values
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.release import Plan, Request
    >>> from isdp.release._statement import privacy_statement, route_record
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["all-margins"])
    >>> plan = Plan.of(table, A, labels, Request(epsilon="1"))
    >>> statement = privacy_statement(plan, plan.guarantee(), route_record(plan), np.array(row_values(plan.A, table.x)))
    >>> statement["publishable"], statement["requested"]["epsilon_per_person"], statement["invariants"][0]
    (True, '1', {'label': 'row Female', 'coefficients': {'Female|young': 1, 'Female|old': 1}, 'value': 8})
    >>> per_person, two = statement["guarantee"]["per_person"], statement["guarantee"]["two_persons"]
    >>> per_person["epsilon"], per_person["realisable"], two["epsilon"], two["realisable"]
    (1.0, False, 2.0, True)
    """
    req = plan.req
    several = bool(plan.tables)
    return {
        "isdp_privacy_statement": 1,
        "publishable": req.seed is None,
        "mechanism": plan.mechanism(),
        "route": route,
        "requested": {
            "epsilon_per_person": str(req.epsilon),
            "delta_per_person": req.delta,
            "norm": req.norm,
            "allow_chain": req.allow_chain,
            "free_cells": req.free_cells,
            "nonnegative": req.nonnegative,
        },
        "neighbouring_relation": (
            "two tables with the same invariants (A x = A x') that differ in the records of k persons, each added, "
            "removed, or moved from one cell to another (at most 2k in l1 and sqrt(2)·k in l2); stated for k = 1 "
            "(per person) and k = 2"
            if not several
            else f"two inputs of the {len(plan.tables_in_norm)} tables together with the same invariants "
            "(A x = A x', the "
            "ties included) that differ in the records of k persons, each person counted in at most one cell of each "
            "table and added, removed, or moved between cells in every table at once (at most 2k per table in l1 "
            "and sqrt(2)·k in l2; only the tables in the norm count: a derived table's change follows from the "
            "others'); stated for k = 1 (per person) and k = 2"
        ),
        **(
            {
                "tables": [
                    {
                        "name": name,
                        "cells": cells,
                        "in_norm": in_norm,
                        **(
                            {}
                            if in_norm
                            else {
                                "derived": "its cells are determined by the other tables' through "
                                "the invariants: its noise is theirs, summed"
                            }
                        ),
                    }
                    for (name, cells), in_norm in zip(plan.tables, plan.tables_in_norm, strict=True)
                ]
            }
            if several
            else {}
        ),
        "guarantee": guarantee.to_dict(plan.neighbours),
        "post_processing": (
            "non-negative: the integer l1 projection onto {z >= 0, A z = A x} (of its optima the l2-nearest where "
            "a block is one total, else HiGHS' MILP optimum), a function of the noisy table and the invariants "
            "only, so the guarantee is unchanged"
            if req.nonnegative
            else None
        ),
        **(
            {"invariant_rules": {"families": list(req.rules), "ties": list(req.ties), "meaning": RULE_MEANING}}
            if req.rules or req.ties
            else {}
        ),
        "invariants": _invariants(plan, invariant_values) if invariants is None else invariants,
        "cells": {
            "count": len(plan.cell_labels) if cells is None else cells,
            "labels": "the released table's, in its order",
        },
        "randomness": (
            "seeded: reproducible, NOT for publication"
            if req.seed is not None
            else "operating-system entropy (Python secrets.SystemRandom)"
        ),
        "seed": None if req.seed is None else int(req.seed),  # a NumPy integer is no JSON number
        "package": {"name": "isdp", "version": __version__},
        "checks": [
            "integer",
            "every invariant exact (A·release = A·x)",
            "input shape and labels",
            "guarantee at least as strong as requested",
            *(["non-negative"] if req.nonnegative else []),
        ],
    }
