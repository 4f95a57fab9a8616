"""Constraints that invariants imply on coarser tables (TopDown talk, "implied constraints").

When a parent-level release must extend to child-level tables that keep the invariants, its
counts are restricted by constraints implied by those invariants. For the talk's college-town
example (regions with known populations, each housing only some dorm types, every dorm occupied)
the town-wide counts per dorm type that admit a feasible extension are enumerated here, so the
implied bounds the talk derives by Fourier–Motzkin elimination can be checked exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import pandas as pd


def _compositions(total: int, parts: int):
    """Every way to write ``total`` as an ordered sum of ``parts`` integers ≥ 1."""
    for cuts in itertools.combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        yield tuple(b - a for a, b in itertools.pairwise(bounds))


def feasible_totals(region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]],
                    types: Sequence[str]) -> pd.DataFrame:
    """Every vector of town-wide counts per type that some region-level table explains.

    Parameters
    ----------
    region_totals : mapping
        Region → its (invariant) population.
    occupied : mapping
        Region → the types of its (occupied) dorms: each holds at least one person; the other
        types hold none in that region.
    types : sequence of str
        All types, the columns of the result.

    Returns
    -------
    DataFrame
        One row per feasible vector of totals (columns ``types``), sorted.
    """
    sums = {tuple(0 for _ in types)}
    for region, total in region_totals.items():
        idx = [types.index(t) for t in occupied[region]]
        region_vectors = []
        for comp in _compositions(int(total), len(idx)):
            v = [0] * len(types)
            for i, c in zip(idx, comp, strict=True):
                v[i] = c
            region_vectors.append(v)
        sums = {tuple(a + b for a, b in zip(s, v, strict=True)) for s in sums for v in region_vectors}
    return pd.DataFrame(sorted(sums), columns=list(types))


def form_values(totals: pd.DataFrame, form: str) -> pd.Series:
    """Values of a linear form written as types joined by ``+`` (e.g. ``"C+F"``) on each row."""
    return sum(totals[t.strip()] for t in form.split("+"))


def implied_bounds(totals: pd.DataFrame, forms: Sequence[str]) -> pd.DataFrame:
    """Tight lower and upper bounds of each linear form over the feasible totals."""
    rows = []
    for form in forms:
        v = form_values(totals, form)
        rows.append({"form": form, "min": int(v.min()), "max": int(v.max())})
    return pd.DataFrame(rows)


__all__ = ["feasible_totals", "form_values", "implied_bounds"]


def flow_network(region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """The talk's network-flow reduction: each "≥ 1" (every dorm occupied) moved out of the flow,
    a region's sink capacity is its population less one person per occupied dorm."""
    return {r: int(total) - len(occupied[r]) for r, total in region_totals.items()}


def flow_feasible(totals: Mapping[str, int], region_totals: Mapping[str, int],
                  occupied: Mapping[str, Sequence[str]], types: Sequence[str]) -> bool:
    """Whether town-wide ``totals`` extend to the regions, by max-flow/min-cut on the reduced network.

    Source → type (capacity: the type's total less its lower bounds), type → region (unbounded where
    the type has a dorm there), region → sink (:func:`flow_network`); feasible iff the flow fills
    every region.
    """
    import numpy as np
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    regions = list(region_totals)
    caps = flow_network(region_totals, occupied)
    lower = {t: sum(t in occupied[r] for r in regions) for t in types}
    if any(totals[t] < lower[t] for t in types) or sum(totals.values()) != sum(region_totals.values()):
        return False
    n = 2 + len(types) + len(regions)  # 0 source, 1 sink, then types, then regions
    big = sum(region_totals.values()) + 1
    cap = np.zeros((n, n), dtype=np.int32)
    for i, t in enumerate(types):
        cap[0, 2 + i] = totals[t] - lower[t]
        for j, r in enumerate(regions):
            if t in occupied[r]:
                cap[2 + i, 2 + len(types) + j] = big
    for j, r in enumerate(regions):
        cap[2 + len(types) + j, 1] = caps[r]
    return maximum_flow(csr_array(cap), 0, 1).flow_value == sum(caps.values())
