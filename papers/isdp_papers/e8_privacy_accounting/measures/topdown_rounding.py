"""Measures of the TopDown talk's integer solutions.

With the helpers of :mod:`isdp_papers.e8_privacy_accounting.rounding` and
:mod:`~isdp_papers.e8_privacy_accounting.implied`.

Statements: the rounding LP gives integer solutions (``rounding_lp``); total unimodularity of the national, state
and GQ constraint matrices and integral vertices (``tum_statements``, ``tum_integral_vertices``); the GQ constraints
and integer solutions (``gq_integer_solution``).
"""

from __future__ import annotations

import itertools
import string

import numpy as np

from isdp_papers.claims import Measurement, Run


def rounding_lp(run: Run, paper, *, children, parent=None, child_totals: bool = True) -> Measurement:
    """Measure whether each LP algorithm the talk names returns an integer solution of its rounding LP as printed.

    The algorithms are HiGHS's simplex and its barrier with crossover; on the instance ``children`` (fractional H*_j
    adding up to the integer ``parent``; ``parent`` None: the national program, one histogram whose total is kept;
    ``child_totals``: each child's total kept, the invariants); beside it the IP's optimum and the offset formulation's
    LP.
    """
    from isdp_papers.e8_privacy_accounting import rounding

    _, ip_obj = rounding.printed_lp(children, parent, integer=True, child_totals=child_totals)
    value, parts = {}, []
    for method in rounding.LP_METHODS:
        lp, lp_obj = rounding.printed_lp(children, parent, child_totals=child_totals, method=method)
        off, off_obj = rounding.offset_lp(children, parent, child_totals=child_totals, method=method)
        value[f"{method}_integral"] = rounding.is_integral(lp)
        parts.append(
            f"{method}: the printed LP's vertex is {'H* itself' if np.allclose(lp, children) else 'not H*'} "
            f"({np.round(lp, 3).tolist()}, objective {round(lp_obj, 9) + 0.0:g}): "
            f"{'integral' if value[f'{method}_integral'] else 'FRACTIONAL'}; in offsets d = H̃ − ⌊H*⌋ ∈ "
            f"[0, 1] (integer right-hand sides) {'integral' if rounding.is_integral(off) else 'fractional'}"
            f" with objective {round(off_obj, 9) + 0.0:g}"
        )
    return Measurement(value, "; ".join(parts) + f". The IP's optimum is {ip_obj:g}")


def tum_statements(run: Run, paper, *, cells: int, children: int, child_cells: int, gq_types: list[str]) -> Measurement:
    """Total unimodularity by brute force over every square submatrix.

    The national rounding's constraint matrix (``cells`` cells), the state-level one with each child's total invariant
    (``children`` × ``child_cells``), and the matrix of the GQ implied constraints (every combination of ``gq_types``).
    """
    from isdp_papers.e8_privacy_accounting import implied, rounding

    combos = [S for k in range(1, len(gq_types) + 1) for S in itertools.combinations(gq_types, k)]
    matrices = {
        "national_tum": (rounding.national_matrix(cells), None),
        "state_tum": (rounding.state_matrix(children, child_cells), None),
        "gq_tum": (implied.gq_matrix(gq_types), ["".join(S) for S in combos]),
    }
    words, value = {}, {}
    for key, (A, row_names) in matrices.items():
        minor = rounding.non_unimodular_minor(A)
        value[key] = minor is None
        rows = ", ".join(row_names[r] if row_names else str(r) for r in minor[0]) if minor else ""
        words[key] = "TUM" if minor is None else f"NOT TUM (rows {rows}: determinant {minor[2]:g})"
    return Measurement(
        value,
        f"national ({cells} cells): {words['national_tum']}; state ({children} × {child_cells} "
        f"cells, child totals invariant): {words['state_tum']}; GQ implied constraints "
        f"({len(gq_types)} types): {words['gq_tum']}",
    )


def tum_integral_vertices(
    run: Run,
    paper,
    *,
    systems: list[str],
    cells: int,
    children: int,
    child_cells: int,
    gq_types: list[str],
    draws: int,
    seed: int,
) -> Measurement:
    """Count the fractional vertices of the talk's systems, whose constraint matrices it calls TUM.

    The talk's 'linear implied constraints … do [guarantee a feasible integer solution] if the problem constraint matrix
    is TUM': for each of ``systems`` ("national", "state" or "gq": the matrices of :func:`tum_statements`), ``draws``
    random integer bounds lo ≤ M y ≤ hi (lo in 0…2, hi − lo in 0…2, ``seed``) and every vertex of each non-empty
    polytope (:func:`implied.polytope_vertices`). The value is the number of fractional vertices over the systems; the
    text gives each system's counts.
    """
    from isdp_papers.e8_privacy_accounting import implied, rounding

    matrices = {
        "national": rounding.national_matrix(cells),
        "state": rounding.state_matrix(children, child_cells),
        "gq": implied.gq_matrix(gq_types),
    }
    rng = np.random.default_rng(seed)
    total, parts = 0, []
    for name in systems:
        M = matrices[name]
        polytopes = vertices = fractional = 0
        for _ in range(draws):
            lo = rng.integers(0, 3, len(M))
            hi = lo + rng.integers(0, 3, len(M))
            V = implied.polytope_vertices(np.vstack([M, -M]), np.concatenate([hi, -lo]))
            polytopes += len(V) > 0
            vertices += len(V)
            fractional += int(np.any(np.abs(V - np.rint(V)) > 1e-9, axis=1).sum()) if len(V) else 0
        total += fractional
        parts.append(
            f"{name} ({M.shape[0]} × {M.shape[1]}): {fractional} fractional of {vertices} vertices of "
            f"{polytopes} non-empty polytopes"
        )
    return Measurement(
        total, f"{total} fractional vertices; {draws} integer bound vectors per matrix: " + "; ".join(parts)
    )


def gq_integer_solution(run: Run, paper, *, blocks: list, types: list[str], vertex_types: list[int]) -> Measurement:
    """Return the GQ implied constraints.

    Whether their (not TUM) matrix with some other integer right-hand side admits a fractional point but no integer one;
    whether every vertex of the polytope they cut out of block data is integral (``blocks``, and every-combination data
    for each size in ``vertex_types``); and whether every integer total meeting them extends to an integer block-level
    table (brute force over ``blocks``).
    """
    from scipy.optimize import linprog

    from isdp_papers.e8_privacy_accounting import implied, rounding

    blocks = [(int(pop), dict(occ)) for pop, occ in blocks]
    # the pair rows of the GQ matrix set to 1: y = (1/2, 1/2, 1/2) but no integer point (an odd cycle)
    pairs = implied.gq_matrix(types[:3])[3:6]
    lp = linprog(np.zeros(3), A_eq=pairs, b_eq=np.ones(3), bounds=[(0, None)] * 3, method="highs")
    integer_points = [y for y in itertools.product((0, 1), repeat=3) if np.all(pairs @ y == 1)]
    fractional_only = lp.status == 0 and not integer_points
    data = [("the blocks", blocks, types)] + [
        (
            f"every combination of {k} types",
            implied.gq_blocks(list(string.ascii_uppercase[:k]), "every-combination"),
            list(string.ascii_uppercase[:k]),
        )
        for k in vertex_types
    ]
    vertices = {name: implied.gq_vertices(b, t) for name, b, t in data}
    integral_by = {name: rounding.is_integral(v) for name, v in vertices.items()}
    extendable = implied.gq_extendable_totals(blocks, types)
    box = itertools.product(range(sum(pop for pop, _ in blocks) + 1), repeat=len(types))
    meeting = {y for y in box if implied.gq_feasible(dict(zip(types, y, strict=True)), blocks)}
    value = {
        "some_rhs_without_integer_point": fractional_only,
        "integral_vertices": all(integral_by.values()),
        "integer_extension": meeting == extendable,
    }
    return Measurement(
        value,
        f"pair constraints = 1: LP {'feasible' if lp.status == 0 else 'infeasible'}, "
        f"{len(integer_points)} integer points; vertices of the implied-constraint polytope: "
        + "; ".join(
            f"{name}: {len(v)}, " + ("all integral" if integral_by[name] else "SOME FRACTIONAL")
            for name, v in vertices.items()
        )
        + f"; integer totals meeting the constraints {len(meeting)}, extendable to integer block "
        f"tables {len(extendable)}, {'the same set' if meeting == extendable else 'DIFFERENT'}",
    )
