"""The privacy statement of a release: the publishable record of the mechanism, the route taken, the
guarantee per person and the invariants (docs/release.md, "The statement").

Everything in it is derived from the invariants A, the options, the labels and the invariants' values
(which the release discloses anyway), never from anything else in the confidential table; the route's
record carries no timing (a timing goes to the confidential audit record, :mod:`isdp.release_files`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import __version__
from .double_geometric import dg_variance
from .tables import TableSet

if TYPE_CHECKING:
    from .certification import Certificate
    from .lattice import IntegerLattice
    from .privacy import Guarantee
    from .release import Plan
    from .tables import Table


def route_record(plan: Plan, table: Table | TableSet, lattice: IntegerLattice | None = None,
                  certificate: Certificate | None = None, proposal_eps: float | None = None) -> dict:
    """The route taken, for the statement: the exact routes' construction, or the chain's run and
    the certificate behind it (without its run time: a timing goes to the audit record)."""
    if plan.req.free_cells:
        v = plan.exact.variances(plan.unit)
        solved = plan.exact.solved
        return {"name": "free cells",
                "sampler": ("exact, in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
                            f"Alg. 2) with epsilon {plan.unit}, the invariants solved for the other cells; no "
                            "rejection. The free cells are the coordinates of the lattice of invariant-keeping "
                            "changes, so a change of l1 size d moves them by at most d: the same epsilon per "
                            "person as the l1 route, with the noise not spread evenly"),
                "solved_cells": [table.cell_labels[i] for i in solved],
                "noise_variance": {"free_cell": dg_variance(float(plan.unit)),
                                   "solved_cells": {table.cell_labels[i]: float(v[i]) for i in solved}}}
    if certificate is None:
        eps = 1 / plan.unit if plan.req.norm == "gaussian" else plan.unit
        how = ("exact rejection in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
               f"Alg. 2) with epsilon {eps}, the invariants solved for the other cells, accepted with probability "
               f"exp(-{eps}·sum |u_solved|)" + ("" if all(plan.tables_in_norm) else
                                                 " (the sum over the tables in the norm; a derived table's cells "
                                                 "are solved and do not enter it)"))
        if plan.req.norm == "gaussian":
            how += f", then kept with probability exp(-sum (|u_i| - {plan.unit})^2 / (2·{plan.unit}^2))"
        return {"name": "exact", "sampler": how, "solved_cells": [table.cell_labels[i] for i in plan.exact.solved]}
    iterations = certificate.burn_in(floor=1)
    summary = certificate.summary(burn_in=iterations)
    summary.pop("certify_seconds")
    return {"name": "certified chain",
            "sampler": ("compiled Gibbs-within-Metropolis (ISDP Alg. 1), one chain from u = 0, run "
                        f"{iterations} iterations; double geometric jumps from a 2**-52-rounded alias table"),
            "basis": {"kind": lattice.basis_name, "vectors": lattice.basis.T.tolist()},
            "certificate": {"method": "L-lag coupling (Biswas, Jacob & Vanetti 2019), pairs started at u = 0, as the "
                                      "chain",
                            "iterations": iterations, "proposal_eps": proposal_eps,
                            "tv_certified": summary["tv_bound_at_burn_in"], **summary, "tv_target": plan.eta_target()}}


def privacy_statement(plan: Plan, table: Table | TableSet, guarantee: Guarantee, route: dict,
                      invariant_values: np.ndarray | None) -> dict:
    """The publishable statement: derived from A, the options, the labels and the invariants'
    values (disclosed by the release itself), never from anything else in the table."""
    req = plan.req
    several = isinstance(table, TableSet)
    return {
        "isdp_privacy_statement": 1,
        "publishable": req.seed is None,
        "mechanism": plan.mechanism(),
        "route": route,
        "requested": {"epsilon_per_person": req.epsilon, "delta_per_person": req.delta, "norm": req.norm,
                      "allow_chain": req.allow_chain, "free_cells": req.free_cells, "nonnegative": req.nonnegative},
        "neighbouring_relation": (
            "two tables with the same invariants (A x = A x') that differ in the records of k persons, each added, "
            "removed, or moved from one cell to another (at most 2k in l1 and sqrt(2)·k in l2); stated for k = 1 "
            "(per person) and k = 2" if not several else
            f"two inputs of the {len(plan.tables_in_norm)} tables together with the same invariants (A x = A x', the "
            "ties included) that differ in the records of k persons, each person counted in at most one cell of each "
            "table and added, removed, or moved between cells in every table at once (at most 2k per table in l1 "
            "and sqrt(2)·k in l2; only the tables in the norm count: a derived table's change follows from the "
            "others'); stated for k = 1 (per person) and k = 2"),
        **({"tables": [{"name": name, "cells": len(t.keys), "in_norm": in_norm,
                        **({} if in_norm else {"derived": "its cells are determined by the other tables' through "
                                               "the invariants: its noise is theirs, summed"})}
                       for name, t, in_norm in zip(table.names, table.tables, plan.tables_in_norm, strict=True)]}
           if several else {}),
        "guarantee": guarantee.to_dict(plan.neighbours),
        "post_processing": (
            "non-negative: the integer l1 projection onto {z >= 0, A z = A x} (HiGHS MILP), a function of the "
            "noisy table and the invariants only, so the guarantee is unchanged" if req.nonnegative else None),
        "invariants": [{"label": lab,
                        "coefficients": {table.cell_labels[j]: int(c) for j, c in zip(
                            plan.A.indices[plan.A.indptr[i]:plan.A.indptr[i + 1]],
                            plan.A.data[plan.A.indptr[i]:plan.A.indptr[i + 1]], strict=True)},
                        **({} if invariant_values is None else {"value": int(invariant_values[i])})}
                       for i, lab in enumerate(plan.labels)],
        "cells": table.cell_labels,
        "randomness": ("seeded: reproducible, NOT for publication" if req.seed is not None
                       else "operating-system entropy (Python secrets.SystemRandom)"),
        "seed": req.seed,
        "package": {"name": "isdp", "version": __version__},
        "checks": ["integer", "every invariant exact (A·release = A·x)", "input shape and labels",
                   "guarantee at least as strong as requested", *(["non-negative"] if req.nonnegative else [])],
    }


__all__ = ["privacy_statement", "route_record"]
