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

import numpy as np
import pandas as pd


def _compositions(total: int, parts: int):
    """Every way to write ``total`` as an ordered sum of ``parts`` integers ≥ 1."""
    for cuts in itertools.combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        yield tuple(b - a for a, b in itertools.pairwise(bounds))


def feasible_totals(
    region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]], types: Sequence[str]
) -> pd.DataFrame:
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


def flow_network(region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Return the talk's network-flow reduction.

    Each "≥ 1" (every dorm occupied) moved out of the flow, a region's sink capacity is its population less one person
    per occupied dorm.
    """
    return {r: int(total) - len(occupied[r]) for r, total in region_totals.items()}


def flow_feasible(
    totals, region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]], types: Sequence[str]
) -> np.ndarray:
    """Return whether each row of town-wide ``totals`` extends to the regions, by max-flow/min-cut.

    The columns are in the order of ``types``; the flow is on the reduced network.

    Per row: source → type (capacity: the type's total less its lower bounds), type → region (unbounded
    where the type has a dorm there), region → sink (:func:`flow_network`); feasible iff the flow fills
    every region. All rows' networks are solved as one: disjoint copies joined at one source and one
    sink, whose maximum flow fills each copy as far as that copy alone allows (they share no edge), so
    SciPy's max-flow runs once instead of once per row.
    """
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import maximum_flow

    totals = np.atleast_2d(np.asarray(totals, dtype=np.int64))
    regions = list(region_totals)
    caps = np.array(list(flow_network(region_totals, occupied).values()), dtype=np.int64)
    lower = np.array([sum(t in occupied[r] for r in regions) for t in types], dtype=np.int64)
    ok = np.all(totals >= lower, axis=1) & (totals.sum(axis=1) == sum(region_totals.values()))
    rows = np.flatnonzero(ok)
    out = np.zeros(len(totals), dtype=bool)
    if rows.size == 0:
        return out
    # each row's copy: its type nodes, then its region nodes; node 0 is the source, node 1 the sink
    first = 2 + (len(types) + len(regions)) * np.arange(rows.size)[:, None]
    type_node, region_node = first + np.arange(len(types)), first + len(types) + np.arange(len(regions))
    big = int(sum(region_totals.values())) + 1
    links = [(i, j) for i, t in enumerate(types) for j, r in enumerate(regions) if t in occupied[r]]
    tails = [np.zeros(type_node.size, np.int64), *(type_node[:, i] for i, _ in links), region_node.ravel()]
    heads = [type_node.ravel(), *(region_node[:, j] for _, j in links), np.ones(region_node.size, np.int64)]
    capacity = [(totals[rows] - lower).ravel(), *(np.full(rows.size, big) for _ in links), np.tile(caps, rows.size)]
    n = 2 + type_node.size + region_node.size
    graph = coo_array(
        (np.concatenate(capacity).astype(np.int32), (np.concatenate(tails), np.concatenate(heads))), shape=(n, n)
    ).tocsr()
    into_sink = maximum_flow(graph, 0, 1).flow.tocsc()[:, [1]].toarray().ravel()
    filled = into_sink[region_node].sum(axis=1)
    out[rows] = filled == caps.sum()
    return out


# --------------------------------------------------------------------------- group quarters (the talk's GQ example)


def _combinations(types: Sequence[str]) -> list[tuple[str, ...]]:
    """Every non-empty combination of ``types``, smallest first."""
    return [S for k in range(1, len(types) + 1) for S in itertools.combinations(types, k)]


def gq_capacity(blocks: Sequence[tuple[int, Mapping[str, int]]], subset) -> int:
    """Return the talk's c for the combination ``subset`` of GQ types.

    Over the blocks holding a type of ``subset``, their population less one person per occupied facility of their other
    types.

    ``blocks``: (population, {type: occupied facilities}) per block; each facility holds at least one person
    and the block's GQ population is at most its population (the rest live in households).
    """
    subset = set(subset)
    return sum(
        pop - sum(n for t, n in occ.items() if t not in subset)
        for pop, occ in blocks
        if subset & {t for t, n in occ.items() if n > 0}
    )


def gq_lower(blocks: Sequence[tuple[int, Mapping[str, int]]], gq_type: str) -> int:
    """At least one person per occupied facility of ``gq_type``."""
    return sum(occ.get(gq_type, 0) for _, occ in blocks)


def gq_feasible(totals: Mapping[str, int], blocks: Sequence[tuple[int, Mapping[str, int]]]) -> bool:
    """Whether GQ population ``totals`` per type extend to the blocks, by the implied constraints.

    Every type at least its lower bound and, for every non-empty combination S, Σ_{t ∈ S} totals ≤ :func:`gq_capacity`
    (Gale's supply–demand theorem for the bipartite types → blocks network).
    """
    types = sorted(totals)
    if any(totals[t] < gq_lower(blocks, t) for t in types):
        return False
    return all(sum(totals[t] for t in S) <= gq_capacity(blocks, S) for S in _combinations(types))


def gq_nonredundant(blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]) -> list[tuple[str, ...]]:
    """Return the combinations S whose constraint Σ_{t ∈ S} y_t ≤ c_S the others do not imply.

    Not implied by the lower bounds and the other combinations' constraints: maximising Σ_{t ∈ S} y_t without it (HiGHS
    LP) exceeds c_S.
    """
    import numpy as np
    from scipy.optimize import linprog

    subsets = _combinations(types)
    rows = np.array([[t in S for t in types] for S in subsets], dtype=float)
    caps = np.array([gq_capacity(blocks, S) for S in subsets], dtype=float)
    bounds = [(gq_lower(blocks, t), None) for t in types]
    kept = []
    for i, S in enumerate(subsets):
        others = np.arange(len(subsets)) != i
        res = linprog(-rows[i], A_ub=rows[others], b_ub=caps[others], bounds=bounds, method="highs")
        if res.status == 3 or (res.status == 0 and -res.fun > caps[i] + 1e-9):  # unbounded or beyond c_S
            kept.append(S)
        elif res.status != 0:
            raise RuntimeError(f"HiGHS could not decide combination {S}: {res.message}")
    return kept


def _spare_blocks(blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]) -> np.ndarray:
    """Return the blocks with a spare person, as bitmasks of the types they hold.

    A spare person is population beyond one per occupied facility; raises when a block is overfull or a type has no such
    block (its total is then fixed).
    """
    index = {t: i for i, t in enumerate(types)}
    masks = []
    for pop, occ in blocks:
        held = [t for t, n in occ.items() if n > 0]
        facilities = sum(occ[t] for t in held)
        if pop < facilities:
            raise ValueError(f"a block of {pop} people cannot hold {facilities} occupied facilities")
        if pop > facilities and held:
            masks.append(sum(1 << index[t] for t in held))
    masks = np.array(masks, dtype=np.int64)
    fixed = [t for t in types if not np.any(masks & (1 << index[t]))]
    if fixed:
        raise ValueError(
            f"types {fixed} have no block with a spare person: their totals are fixed and the polytope "
            "is not full-dimensional; decide with gq_nonredundant"
        )
    return masks


def gq_facets(blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]) -> list[tuple[str, ...]]:
    """Return the combinations whose constraint is needed, by Edmonds' facet theorem for polymatroids.

    :func:`gq_nonredundant` decides the same by LP.

    Shifted by the lower bounds, z = y − lower, the constraints read z ≥ 0 and z(S) ≤ f(S) = Σ w_b over the
    blocks b holding a type of S, with w_b the block's population less one person per occupied facility (a block
    holding none of S has no facility of S, so the lower bounds of S come only from blocks meeting S). f is a
    weighted coverage function, hence a polymatroid rank function, and f(S₁) + f(S₂) − f(S₁ ∪ S₂) = Σ w_b over the
    blocks meeting both disjoint parts. When every type has a block with w_b > 0 (the polytope has full
    dimension), a constraint is needed exactly when it defines a facet, which by Edmonds (1970) is when S is
    closed (every type outside S is in a block with w_b > 0 that avoids S, so adding any type raises f) and
    inseparable (the types of S are connected through blocks with w_b > 0 that hold two of them).
    """
    masks = _spare_blocks(blocks, types)
    index = {t: i for i, t in enumerate(types)}
    linked = [int(np.bitwise_or.reduce(masks[(masks >> i) & 1 == 1])) for i in range(len(types))]

    def closed(S: int) -> bool:
        outside = ((1 << len(types)) - 1) & ~S
        return int(np.bitwise_or.reduce(masks[masks & S == 0], initial=0)) & outside == outside

    def connected(S: int) -> bool:
        seen = frontier = S & -S
        while frontier:
            i = frontier.bit_length() - 1
            frontier = (frontier & ~(1 << i)) | (linked[i] & S & ~seen)
            seen |= linked[i] & S
        return seen == S

    return [S for S in _combinations(types) if closed(mask := sum(1 << index[t] for t in S)) and connected(mask)]


def gq_every_combination_needed(blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]) -> bool:
    """Whether all 2^k − 1 combinations' constraints are needed, decided without listing them, so for any k.

    By :func:`gq_facets`' criterion: every S is closed iff each type has a block with a spare person holding no
    other type (take S = all the other types), and every S is inseparable iff each pair of types shares a block
    with a spare person (take S = the pair; then every S is connected). Both are O(k²) checks on the blocks.
    """
    masks = _spare_blocks(blocks, types)
    k = len(types)
    alone = all(np.any(masks == 1 << i) for i in range(k))
    paired = all(np.any((masks >> i) & (masks >> j) & 1) for i in range(k) for j in range(i + 1, k))
    return bool(alone and paired)


def gq_matrix(types: Sequence[str]) -> np.ndarray:
    """Return the implied constraints' matrix: one row per non-empty combination S of ``types``, its indicator."""
    return np.array([[t in S for t in types] for S in _combinations(types)], dtype=float)


def gq_vertices(
    blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str], max_combination: int | None = None
) -> np.ndarray:
    """Every vertex of the implied-constraint polytope {y.

    Y_t ≥ the lower bound of t, Σ_{t ∈ S} y_t ≤ c_S for every combination S (of at most ``max_combination`` types,
    default all)}.
    """
    combos = [S for S in _combinations(types) if max_combination is None or len(S) <= max_combination]
    A = np.vstack([-np.eye(len(types)), [[t in S for t in types] for S in combos]])
    b = np.array([-gq_lower(blocks, t) for t in types] + [gq_capacity(blocks, S) for S in combos], dtype=float)
    return polytope_vertices(A, b)


def polytope_vertices(A, b) -> np.ndarray:
    """Every vertex of {y : A y ≤ b}: the feasible solutions of each set of dim(y) of its constraints made tight."""
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    rows = np.array(list(itertools.combinations(range(len(A)), A.shape[1])), dtype=np.int64).reshape(-1, A.shape[1])
    rows = rows[np.abs(np.linalg.det(A[rows])) >= 1e-9]  # the bases: every set of tight constraints solved at once
    y = np.linalg.solve(A[rows], b[rows][..., None])[..., 0]
    feasible = np.all(y @ A.T <= b + 1e-9, axis=1)
    return np.array(sorted({tuple(v) for v in np.round(y[feasible], 9)}))


def gq_lp_extends(
    totals: Sequence[float], blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]
) -> bool:
    """Return whether GQ totals per type extend to a fractional block-level table (HiGHS LP feasibility).

    The totals are in the order of ``types``, fractional allowed; the table has x[b, t] ≥ the facilities of t in block b
    (0 where it has none), Σ_t x[b, t] ≤ the block's population, Σ_b x[b, t] = the total of t (HiGHS LP feasibility).
    """
    cells = [(i, t) for i, (_, occ) in enumerate(blocks) for t in types if occ.get(t, 0) > 0]
    per_type = np.array([[t == u for _, u in cells] for t in types], dtype=float)
    per_block = np.array([[i == j for j, _ in cells] for i in range(len(blocks))], dtype=float)
    return _lp_feasible(
        len(cells),
        A_ub=per_block,
        b_ub=[pop for pop, _ in blocks],
        A_eq=per_type,
        b_eq=np.asarray(totals, dtype=float),
        bounds=[(blocks[i][1][t], None) for i, t in cells],
    )


def _lp_feasible(n: int, **constraints) -> bool:
    """Return whether the linear system ``constraints`` in ``n`` variables has a fractional solution.

    ``constraints`` are ``scipy.optimize.linprog``'s keywords; HiGHS with a zero objective, infeasible (status 2) read
    as False, any other failure raised.
    """
    from scipy.optimize import linprog

    res = linprog(np.zeros(n), method="highs", **constraints)
    if res.status not in (0, 2):
        raise RuntimeError(f"HiGHS could not decide the extension: {res.message}")
    return res.status == 0


def _milp_feasible(n: int, A_eq: np.ndarray, b_eq: np.ndarray) -> bool:
    """Whether ``A_eq x = b_eq`` has a nonnegative integer solution in ``n`` variables.

    HiGHS's branch and bound with a zero objective, infeasible read as False, any other failure raised.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    res = milp(
        np.zeros(n), constraints=LinearConstraint(A_eq, b_eq, b_eq), integrality=np.ones(n), bounds=Bounds(0, np.inf)
    )
    if res.status not in (0, 2):
        raise RuntimeError(f"HiGHS could not decide the integer extension: {res.message}")
    return res.status == 0


def margin_extension(region_a: np.ndarray, region_b: np.ndarray, parent: np.ndarray) -> tuple[bool, bool]:
    """Return the talk's schema extension with regions that know two one-way marginals each.

    Whether the parent A × B table ``parent`` extends to a region × A × B table whose region × A and region × B margins
    are ``region_a`` and ``region_b``, fractionally (HiGHS LP) and with nonnegative integer counts (HiGHS MILP).
    """
    region_a, region_b, parent = (np.asarray(m, dtype=int) for m in (region_a, region_b, parent))
    cell = np.arange(region_a.shape[0] * region_a.shape[1] * region_b.shape[1]).reshape(
        region_a.shape[0], region_a.shape[1], region_b.shape[1]
    )
    rows, rhs = [], []
    for margin, axis in ((region_a, 2), (region_b, 1), (parent, 0)):
        lines = np.moveaxis(cell, axis, -1).reshape(-1, cell.shape[axis])
        for line, total in zip(lines, margin.ravel(), strict=True):
            row = np.zeros(cell.size)
            row[line] = 1
            rows.append(row)
            rhs.append(total)
    A_eq, b_eq = np.array(rows), np.array(rhs, dtype=float)
    fractional = _lp_feasible(cell.size, A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * cell.size)
    return fractional, fractional and _milp_feasible(cell.size, A_eq, b_eq)


def read_three_way_margins(path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read the region × A, region × B and A × B tables of a committed three-way margins file.

    The file is a long CSV ``margin, i, j, count``, 1-based, margins ``top``, ``left``, ``right``.
    """
    long = pd.read_csv(path)
    tables = []
    for name in ("top", "left", "right"):
        part = long[long["margin"] == name]
        if part.empty:
            raise ValueError(f"{path}: no rows for margin {name!r}")
        table = np.zeros((part["i"].max(), part["j"].max()), dtype=int)
        table[part["i"] - 1, part["j"] - 1] = part["count"]
        tables.append(table)
    return tuple(tables)


def merge_last_values(region_b: np.ndarray, parent: np.ndarray, pair: tuple[int, int]):
    """Return the same extension problem with B's values ``pair`` merged into one (B one value smaller)."""

    def merged(m):
        keep = [k for k in range(m.shape[1]) if k not in pair]
        return np.column_stack([m[:, keep], m[:, list(pair)].sum(axis=1)])

    return merged(region_b), merged(parent)


def dorm_lp(region_totals: Mapping[str, int], occupied: Mapping[str, Sequence[str]], types: Sequence[str]):
    """Return the dorm example's fractional region-level system.

    X[r, t] ≥ 1 where region r has a dorm of type t, 0 elsewhere, Σ_t x[r, t] = the region's population. Returns (A_eq,
    b_eq, bounds, P) with P x the town-wide totals per type (in the order of ``types``).
    """
    regions = list(region_totals)
    A_eq = np.kron(np.eye(len(regions)), np.ones((1, len(types))))
    P = np.kron(np.ones((1, len(regions))), np.eye(len(types)))
    bounds = [(1, None) if t in occupied[r] else (0, 0) for r in regions for t in types]
    return A_eq, np.array([region_totals[r] for r in regions], dtype=float), bounds, P


def dorm_lp_range(form: Sequence[float], region_totals, occupied, types) -> tuple[float, float]:
    """Return the least and largest value of the linear form ``form`` · (town-wide totals).

    Over the fractional tables.
    """
    from scipy.optimize import linprog

    A_eq, b_eq, bounds, P = dorm_lp(region_totals, occupied, types)
    c = np.asarray(form, dtype=float) @ P
    ends = [linprog(sign * c, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs") for sign in (1, -1)]
    if any(r.status != 0 for r in ends):
        raise RuntimeError("HiGHS could not bound the form")
    return float(ends[0].fun), float(-ends[1].fun)


def dorm_lp_extends(totals: Sequence[float], region_totals, occupied, types) -> bool:
    """Whether town-wide totals per type (fractional allowed) extend to a fractional region-level table."""
    A_eq, b_eq, bounds, P = dorm_lp(region_totals, occupied, types)
    return _lp_feasible(A_eq.shape[1], A_eq=np.vstack([A_eq, P]), b_eq=np.r_[b_eq, totals], bounds=bounds)


def gq_extendable_totals(blocks: Sequence[tuple[int, Mapping[str, int]]], types: Sequence[str]) -> set[tuple]:
    """Every GQ total per type that some integer block-level table explains, by brute force.

    Each occupied facility holds ≥ 1 person, a type without a facility in a block holds none there, a block's GQ
    population ≤ its population.
    """
    per_block = []
    for pop, occ in blocks:
        present = [t for t in types if occ.get(t, 0) > 0]
        options = [
            v
            for v in itertools.product(range(pop + 1), repeat=len(present))
            if sum(v) <= pop and all(x >= occ[t] for x, t in zip(v, present, strict=True))
        ]
        per_block.append([dict(zip(present, v, strict=True)) for v in options])
    return {tuple(sum(choice.get(t, 0) for choice in combo) for t in types) for combo in itertools.product(*per_block)}


def gq_blocks(types: Sequence[str], layout: str) -> list[tuple[int, dict[str, int]]]:
    """Block data for :func:`gq_nonredundant`.

    ``"every-combination"`` — one block per non-empty combination of types, one facility of each, population
    2·|combination| + 1; ``"singles-and-pairs"`` — the same for the combinations of one or two types only (k + k(k −
    1)/2 blocks, so it can be built for many types); ``"one-type-per-block"`` — one block per type.
    """
    if layout == "every-combination":
        combos = _combinations(types)
    elif layout == "singles-and-pairs":
        combos = [*itertools.combinations(types, 1), *itertools.combinations(types, 2)]
    elif layout == "one-type-per-block":
        combos = [(t,) for t in types]
    else:
        raise ValueError(f"unknown layout {layout!r}")
    return [(2 * len(S) + 1, dict.fromkeys(S, 1)) for S in combos]


__all__ = [
    "feasible_totals",
    "form_values",
    "implied_bounds",
    "flow_network",
    "flow_feasible",
    "gq_capacity",
    "gq_lower",
    "gq_feasible",
    "gq_nonredundant",
    "gq_facets",
    "gq_every_combination_needed",
    "gq_blocks",
    "gq_matrix",
    "gq_vertices",
    "gq_extendable_totals",
    "polytope_vertices",
    "gq_lp_extends",
    "dorm_lp",
    "dorm_lp_range",
    "dorm_lp_extends",
    "margin_extension",
    "read_three_way_margins",
    "merge_last_values",
]
