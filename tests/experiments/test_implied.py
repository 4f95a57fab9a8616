"""Implied constraints: feasible parent totals of the college-town example, against brute force."""

from __future__ import annotations

import itertools

import pytest

from isdp.experiments.e8_privacy_accounting.implied import (
    feasible_totals,
    form_values,
    implied_bounds,
)

TYPES = ["F", "C", "M"]
OCCUPIED = {"R1": ["F", "C"], "R2": ["M", "C"]}


def brute_force(n1, n2):
    """All (F, C, M) from region tables with F1 + C1 = n1, M2 + C2 = n2, occupied dorms ≥ 1, others 0."""
    r1 = [v for v in itertools.product(range(n1 + 1), repeat=3) if sum(v) == n1 and v[2] == 0 and min(v[:2]) >= 1]
    r2 = [v for v in itertools.product(range(n2 + 1), repeat=3) if sum(v) == n2 and v[0] == 0 and min(v[1:]) >= 1]
    return {tuple(a + b for a, b in zip(u, v, strict=True)) for u in r1 for v in r2}


@pytest.mark.parametrize("n1, n2", [(2, 2), (5, 4), (7, 3)])
def test_feasible_totals_match_brute_force(n1, n2):
    t = feasible_totals({"R1": n1, "R2": n2}, OCCUPIED, TYPES)
    assert set(map(tuple, t[TYPES].to_numpy().tolist())) == brute_force(n1, n2)


def test_bounds_are_tight_and_the_sum_is_invariant():
    t = feasible_totals({"R1": 6, "R2": 5}, OCCUPIED, TYPES)
    b = implied_bounds(t, ["F", "C+F", "F+C+M"]).set_index("form")
    assert (b.loc["F", "min"], b.loc["F", "max"]) == (1, 5)  # F = F1 ∈ [1, n1 − 1]
    assert b.loc["C+F", "min"] == 6 + 1  # C + F = n1 + C2 ≥ n1 + 1
    assert b.loc["F+C+M", "min"] == b.loc["F+C+M", "max"] == 11
    assert (form_values(t, "C + F") == t["C"] + t["F"]).all()


def test_a_point_inside_the_single_type_bounds_can_be_infeasible():
    """As in the talk: per-type minima and the total do not characterise the feasible set."""
    t = feasible_totals({"R1": 6, "R2": 5}, OCCUPIED, TYPES)
    feasible = set(map(tuple, t[TYPES].to_numpy().tolist()))
    assert (2, 2, 7) not in feasible  # M ≥ 1, F ≥ 1, C ≥ 2, sum 11, yet M ≤ 4 in region 2


def test_network_flow_reduction_decides_feasibility_exactly():
    """Max-flow on the reduced network (the talk's 'via Network Flows') accepts exactly the
    enumerated feasible totals, on a small town where every split can be checked."""
    from isdp.experiments.e8_privacy_accounting import implied

    regions, occupied, types = {"R1": 7, "R2": 5}, {"R1": ["F", "C"], "R2": ["M", "C"]}, ["F", "C", "M"]
    assert implied.flow_network(regions, occupied) == {"R1": 5, "R2": 3}
    feasible = {tuple(r) for r in implied.feasible_totals(regions, occupied, types).itertuples(index=False)}
    for f in range(13):
        for c in range(13 - f):
            point = {"F": f, "C": c, "M": 12 - f - c}
            assert implied.flow_feasible(point, regions, occupied, types) == ((f, c, 12 - f - c) in feasible)
    assert not implied.flow_feasible({"F": 1, "C": 2, "M": 8}, regions, occupied, types)  # wrong total
