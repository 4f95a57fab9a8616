"""Measures of the TopDown talk's dormitory example ('Invariants', 'An Example' and 'via Network Flows').

With the helpers of :mod:`isdp_papers.e8_privacy_accounting.implied`.

Statements: the necessary and sufficient town-wide constraints (``dorm_constraints``), the counterexample
(``dorm_point``), the projection FME computes over fractional tables (``dorm_fractional_projection``), the
network-flow reduction (``dorm_flow``).
"""

from __future__ import annotations

import math

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run


def _dorm(run: Run):
    """``e8_dorm_bounds`` (indexed by form) and ``e8/dorm_feasible_totals.csv``.

    Every configured form once with integer bounds; every feasible (F, C, M) once, non-negative integers with the same
    town total; and each form's bounds the least and largest value of the form over the feasible totals (recomputed, not
    trusted).
    """
    forms = run.config["e8"]["dorm"]["forms"]
    b = ec.table(run, "e8_dorm_bounds", key="form", keys=forms, integer=["min", "max"])
    feas = ec.table_at(run, "e8/dorm_feasible_totals.csv", key=["F", "C", "M"], count=["F", "C", "M"])
    where = str(run.path("e8/dorm_feasible_totals.csv"))
    if feas[["F", "C", "M"]].sum(axis=1).nunique() != 1:
        raise ec.EvidenceError(f"{where}: the feasible totals do not share one town total")
    for form in forms:
        values = feas[form.split("+")].sum(axis=1)
        row = b.loc[b["form"] == form].iloc[0]
        ec.check_consistent(
            [row["min"], row["max"]],
            [values.min(), values.max()],
            str(run.path("tables/e8_dorm_bounds.csv")),
            f"the bounds of {form} = its least and largest value over {where}",
            rtol=0,
            atol=0,
        )
    return b.set_index("form"), feas


def dorm_constraints(run: Run, paper) -> Measurement:
    """Measure the tight bounds of the talk's linear forms, and whether the stated set is exactly the feasible one.

    The bounds are found by enumeration. ``paper`` maps ``F_min, C_min, M_min, F_max, CF_min, total, sufficient`` (the
    talk's inequalities).
    """
    b, feas = _dorm(run)
    total = int(b.loc["F+C+M", "min"]) if b.loc["F+C+M", "min"] == b.loc["F+C+M", "max"] else None
    value = {
        "F_min": int(b.loc["F", "min"]),
        "C_min": int(b.loc["C", "min"]),
        "M_min": int(b.loc["M", "min"]),
        "F_max": int(b.loc["F", "max"]),
        "CF_min": int(b.loc["C+F", "min"]),
        "total": total,
    }
    # sufficiency: every integer point satisfying the talk's inequalities has a feasible extension
    F, C = np.meshgrid(np.arange(paper["total"] + 1), np.arange(paper["total"] + 1), indexing="ij")
    M = paper["total"] - F - C
    stated = (
        (F >= paper["F_min"])
        & (C >= paper["C_min"])
        & (M >= paper["M_min"])
        & (F <= paper["F_max"])
        & (C + F >= paper["CF_min"])
    )
    stated_points = set(zip(F[stated].tolist(), C[stated].tolist(), M[stated].tolist(), strict=True))
    feasible_points = set(map(tuple, feas[["F", "C", "M"]].to_numpy().tolist()))
    value["sufficient"] = stated_points == feasible_points
    text = (
        ", ".join(f"{k} {v}" for k, v in value.items() if k != "sufficient")
        + f"; the stated inequalities hold {len(stated_points):,} integer points, the feasible set "
        f"{len(feasible_points):,}: " + ("the same set" if value["sufficient"] else "DIFFERENT sets")
    )
    return Measurement(value, text)


def dorm_point(run: Run, paper, *, point: dict) -> Measurement:
    """Whether a town-wide (F, C, M) meets the single-type bounds and the total, and whether it is feasible."""
    b, feas = _dorm(run)
    first_pass = bool(
        all(point[t] >= b.loc[t, "min"] for t in ("F", "C", "M"))
        and sum(point.values()) == b.loc["F+C+M", "min"] == b.loc["F+C+M", "max"]
    )
    feasible = bool(((feas["F"] == point["F"]) & (feas["C"] == point["C"]) & (feas["M"] == point["M"])).any())
    return Measurement(
        {"first_pass": first_pass, "feasible": feasible},
        f"(F, C, M) = ({point['F']}, {point['C']}, {point['M']}): single-type bounds and total "
        f"{'met' if first_pass else 'NOT met'}; {'feasible' if feasible else 'infeasible'} "
        f"(M ≤ {int(b.loc['M', 'max'])})",
    )


def dorm_fractional_projection(run: Run, paper, *, region_totals: dict | None = None) -> Measurement:
    """Return the dorm example's constraints as the projection FME computes, over fractional region-level tables.

    The LP bounds of the talk's forms (in ``paper``'s keys), and whether every vertex of the polytope the stated
    inequalities cut out has a fractional extension (then, by convexity, every point of it has one). ``region_totals``
    replaces the configured populations.
    """
    from isdp_papers.e8_privacy_accounting import implied

    cfg = run.config["e8"]["dorm"]
    regions, occupied, types = region_totals or cfg["region_totals"], cfg["occupied"], cfg["types"]

    def ends(form: str) -> tuple[float, float]:
        return implied.dorm_lp_range([t in form.split("+") for t in types], regions, occupied, types)

    lo_total, hi_total = ends("F+C+M")
    value = {
        "F_min": ends("F")[0],
        "C_min": ends("C")[0],
        "M_min": ends("M")[0],
        "F_max": ends("F")[1],
        "CF_min": ends("C+F")[0],
        "total": lo_total if math.isclose(lo_total, hi_total) else None,
    }
    # the stated polytope in the totals (order of ``types``): y ≥ minima, F ≤ F_max, C + F ≥ CF_min, Σ y = total
    unit = {t: np.eye(len(types))[types.index(t)] for t in types}
    A = [
        -unit["F"],
        -unit["C"],
        -unit["M"],
        unit["F"],
        -(unit["C"] + unit["F"]),
        np.ones(len(types)),
        -np.ones(len(types)),
    ]
    b = [
        -paper["F_min"],
        -paper["C_min"],
        -paper["M_min"],
        paper["F_max"],
        -paper["CF_min"],
        paper["total"],
        -paper["total"],
    ]
    vertices = implied.polytope_vertices(A, b)
    outside = [v for v in vertices if not implied.dorm_lp_extends(v, regions, occupied, types)]
    value["sufficient"] = len(vertices) > 0 and not outside
    return Measurement(
        value,
        "over fractional region tables: "
        + ", ".join(f"{k} {v:g}" for k, v in value.items() if k != "sufficient" and v is not None)
        + f"; the stated inequalities' polytope has {len(vertices)} vertices ("
        + ", ".join(str(tuple(int(x) if float(x).is_integer() else round(float(x), 3) for x in v)) for v in vertices)
        + f" as ({', '.join(types)})), {len(outside)} without a fractional extension",
    )


def dorm_flow(run: Run, paper) -> Measurement:
    """Return the network-flow reduction of the dorm example.

    The region capacities after moving the "≥ 1" constraints out, the uncapacitated dorm → region arcs, and whether
    max-flow feasibility equals the enumerated feasible set for every split of the town total.
    """
    from isdp_papers.e8_privacy_accounting import implied

    cfg = run.config["e8"]["dorm"]
    caps = implied.flow_network(cfg["region_totals"], cfg["occupied"])
    feas = {
        tuple(r)
        for r in implied.feasible_totals(cfg["region_totals"], cfg["occupied"], cfg["types"]).itertuples(index=False)
    }
    total = sum(cfg["region_totals"].values())
    points = np.array([(f, c, total - f - c) for f in range(total + 1) for c in range(total + 1 - f)])
    by_flow = implied.flow_feasible(points, cfg["region_totals"], cfg["occupied"], cfg["types"])
    disagree = int(sum(flow != (tuple(p) in feas) for p, flow in zip(points.tolist(), by_flow, strict=True)))
    n_points = (total + 1) * (total + 2) // 2
    arcs = sum(len(types) for types in cfg["occupied"].values())  # dorm type → region, uncapacitated
    value = {"capacities": caps, "infinite_arcs": arcs, "reduction_exact": disagree == 0}
    return Measurement(
        value,
        f"region capacities {caps}; {arcs} uncapacitated dorm → region arcs (one per dorm "
        f"type a region has); max-flow feasibility against enumeration on all "
        f"{n_points:,} splits of {total}: {disagree} disagree",
    )
