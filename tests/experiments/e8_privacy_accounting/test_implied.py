"""Tests of :mod:`isdp_papers.e8_privacy_accounting.implied`: implied constraints — the feasible parent totals
of the college-town example and the group-quarters totals against brute force, the network-flow reduction, Edmonds'
facet criterion against the LP, and the extension of two-way margins (fractional and integer) against exhaustive
enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import REGISTRY, ROOT
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting import implied
from isdp_papers.e8_privacy_accounting.implied import (
    feasible_totals,
    form_values,
    gq_extendable_totals,
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
    from isdp_papers.e8_privacy_accounting import implied

    regions, occupied, types = {"R1": 7, "R2": 5}, {"R1": ["F", "C"], "R2": ["M", "C"]}, ["F", "C", "M"]
    assert implied.flow_network(regions, occupied) == {"R1": 5, "R2": 3}
    feasible = {tuple(r) for r in implied.feasible_totals(regions, occupied, types).itertuples(index=False)}
    points = [(f, c, 12 - f - c) for f in range(13) for c in range(13 - f)]
    by_flow = implied.flow_feasible(points, regions, occupied, types)
    assert by_flow.tolist() == [p in feasible for p in points] and 0 < by_flow.sum() < len(points)
    assert implied.flow_feasible([(1, 2, 8)], regions, occupied, types).tolist() == [False]  # wrong total
    assert implied.flow_feasible(np.zeros((0, 3)), regions, occupied, types).size == 0


# --------------------------------------------------------------------------- group quarters


GQ_BLOCKS = [(4, {"A": 1}), (5, {"A": 1, "B": 2}), (3, {"B": 1, "C": 1}), (2, {"C": 1})]


def test_gq_implied_constraints_describe_exactly_the_extendable_totals():
    from isdp_papers.e8_privacy_accounting.implied import gq_feasible

    types = ["A", "B", "C"]
    feasible = gq_extendable_totals(GQ_BLOCKS, types)
    box = itertools.product(*(range(sum(p for p, _ in GQ_BLOCKS) + 1) for _ in types))
    by_constraints = {y for y in box if gq_feasible(dict(zip(types, y, strict=True)), GQ_BLOCKS)}
    assert by_constraints == feasible and len(feasible) > 20


@pytest.mark.parametrize("k", [2, 3, 4])
def test_every_combination_constraint_is_needed_when_every_combination_is_present(k):
    from isdp_papers.e8_privacy_accounting.implied import gq_blocks, gq_nonredundant

    types = list("ABCD")[:k]
    assert len(gq_nonredundant(gq_blocks(types, "every-combination"), types)) == 2**k - 1
    # data without shared blocks need only the single-type constraints
    assert gq_nonredundant(gq_blocks(types, "one-type-per-block"), types) == [(t,) for t in types]


def _random_gq_blocks(rng, types):
    """Blocks holding random combinations of ``types``, some with no spare person."""
    blocks = []
    for _ in range(rng.integers(1, 7)):
        held = [t for t in types if rng.random() < 0.5]
        occ = {t: int(rng.integers(1, 3)) for t in held}
        blocks.append((sum(occ.values()) + int(rng.choice([0, 0, 1, 2, 3])), occ))
    return blocks


def test_facet_criterion_agrees_with_the_lp_on_random_blocks():
    """Edmonds' criterion (closed and inseparable) picks exactly the combinations the LP finds needed."""
    from isdp_papers.e8_privacy_accounting.implied import gq_facets, gq_nonredundant

    rng = np.random.default_rng(20261125)
    compared, counts = 0, set()
    for _ in range(300):
        types = list("ABCD")[: rng.integers(2, 5)]
        blocks = _random_gq_blocks(rng, types)
        try:
            by_facets = gq_facets(blocks, types)
        except ValueError:  # a type without a spare person: not full-dimensional
            continue
        assert by_facets == gq_nonredundant(blocks, types), blocks
        compared, counts = compared + 1, counts | {(len(types), len(by_facets))}
    assert compared >= 100 and len(counts) >= 8  # many layouts, from few needed constraints to all of them


def test_every_combination_needed_iff_every_type_alone_and_every_pair_share_a_block():
    from isdp_papers.e8_privacy_accounting.implied import gq_every_combination_needed, gq_facets

    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(200):
        types = list("ABCDE")[: rng.integers(2, 6)]
        singles = [(3, {t: 1}) for t in types if rng.random() < 0.85]
        pairs = [(4, {a: 1, b: 1}) for a, b in itertools.combinations(types, 2) if rng.random() < 0.85]
        blocks = singles + pairs + _random_gq_blocks(rng, types)[:2]
        try:
            needed = gq_facets(blocks, types)
        except ValueError:
            continue
        decided = gq_every_combination_needed(blocks, types)
        assert decided == (len(needed) == 2 ** len(types) - 1), blocks
        seen.add(decided)
    assert seen == {True, False}


def test_facet_criterion_refuses_blocks_it_cannot_decide():
    from isdp_papers.e8_privacy_accounting.implied import gq_facets

    with pytest.raises(ValueError, match="cannot hold"):
        gq_facets([(1, {"A": 2})], ["A"])
    with pytest.raises(ValueError, match=r"\['B'\] have no block with a spare person"):
        gq_facets([(3, {"A": 1}), (1, {"B": 1})], ["A", "B"])


def test_dropping_a_needed_combination_admits_an_infeasible_total():
    """Control: the 2-type constraint of GQ_BLOCKS is not implied by the single-type ones."""
    from isdp_papers.e8_privacy_accounting.implied import (
        gq_capacity,
        gq_lower,
        gq_nonredundant,
    )

    types = ["A", "B", "C"]
    assert ("A", "B") in gq_nonredundant(GQ_BLOCKS, types)
    singles_only = {
        y
        for y in itertools.product(range(15), repeat=3)
        if all(gq_lower(GQ_BLOCKS, t) <= y[i] <= gq_capacity(GQ_BLOCKS, [t]) for i, t in enumerate(types))
    }
    assert singles_only - gq_extendable_totals(GQ_BLOCKS, types)


def test_lp_extension_agrees_with_the_brute_force_on_integer_totals():
    blocks = [
        (int(p), dict(o)) for p, o in claims.claim("TDA-E8-implied-fractional-extension", REGISTRY)["args"]["blocks"]
    ]
    extendable = implied.gq_extendable_totals(blocks, ["A", "B", "C"])
    for y in [(2, 3, 2), (7, 4, 2), (7, 6, 4), (9, 3, 2)]:
        assert implied.gq_lp_extends(y, blocks, ["A", "B", "C"]) == (y in extendable), y


# --------------------------------------------------------------------------- extensions of margins


def _integer_extensions(region_a, region_b, parent) -> int:
    """Brute force: the nonnegative integer region × A × B tables with the three margins, region by region (each
    region's A × B slice has the region's two margins and stays within what the parent has left)."""

    def slices(rows, cols, upper):
        if len(rows) == 0:
            if not cols.any():
                yield np.zeros((0, len(cols)), dtype=int)
            return
        for first in itertools.product(*(range(int(c) + 1) for c in np.minimum(upper[0], cols))):
            if sum(first) == rows[0]:
                for rest in slices(rows[1:], cols - np.array(first), upper[1:]):
                    yield np.vstack([first, rest])

    def count(region, left):
        if region == len(region_a):
            return int(not left.any())
        return sum(count(region + 1, left - piece) for piece in slices(region_a[region], region_b[region], left))

    return count(0, np.asarray(parent))


def test_margin_extension_agrees_with_brute_force():
    """HiGHS's integer answer against exhaustive enumeration on the instance and its three contractions, and the
    count on a 2 × 2 × 2 table of ones (one free checkerboard: cell (0,0,0) ∈ {0, 1, 2})."""
    region_a, region_b, parent = implied.read_three_way_margins(
        ROOT / claims.claim("TDA-E8-two-marginals-integer-gap", REGISTRY)["args"]["instance"]
    )
    cases = [
        (region_b, parent),
        *(implied.merge_last_values(region_b, parent, pair) for pair in itertools.combinations(range(3), 2)),
    ]
    for b_region, b_parent in cases:
        fractional, integer = implied.margin_extension(region_a, b_region, b_parent)
        assert fractional and integer == (_integer_extensions(region_a, b_region, b_parent) > 0)
    ones = np.ones((2, 2, 2), dtype=int)
    assert _integer_extensions(ones.sum(2), ones.sum(1), ones.sum(0)) == 3
    assert implied.margin_extension(ones.sum(2), ones.sum(1), ones.sum(0)) == (True, True)
