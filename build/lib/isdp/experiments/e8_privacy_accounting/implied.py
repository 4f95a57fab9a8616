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
