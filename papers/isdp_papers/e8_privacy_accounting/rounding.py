"""TopDown's rounding step (TopDown talk, 'State Level Histograms: Linear solve with invariants').

The talk rounds the nonnegative fractional child histograms H*_j of the L2 solve to integers by an
integer program, min Σ_j ‖H̃_j − H*_j‖₁ subject to H̃_j ≥ 0, |H̃_j[x] − H*_j[x]| ≤ 1, the invariants
C_j (here each child's total) and Σ_j H̃_j = H̃ (the parent's integer histogram), and says the IP "is
equivalent to LP when using barrier+crossover or simplex algorithms" under conditions like a TUM
constraint matrix. :func:`printed_lp` solves that program's LP relaxation as printed; :func:`offset_lp`
the same rounding written in offsets d = H̃ − ⌊H*⌋ ∈ [0, 1], whose right-hand sides are integers.
Both with one of the two algorithms the talk names (:data:`LP_METHODS`): HiGHS's dual simplex or its interior
point method followed by crossover; each returns a vertex.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize, sparse


def _sum_rows(m: int, c: int, per_cell: bool = True, per_child: bool = True) -> sparse.csr_array:
    """Return the rows summing v, flattened child-major (m × c), per cell and per child.

    Σ_j v_j[x] for every cell x (rows 0..c−1, ``per_cell``), then Σ_x v_j[x] for every child j (rows c..c+m−1,
    ``per_child``), of v flattened child-major (m × c).
    """
    rows = ([sparse.kron(np.ones((1, m)), sparse.eye(c))] if per_cell else []) + (
        [sparse.kron(sparse.eye(m), np.ones((1, c)))] if per_child else []
    )
    return sparse.csr_array(sparse.vstack(rows))


def _program(children, parent, child_totals: bool) -> tuple[np.ndarray, sparse.csr_array, np.ndarray]:
    """Return the rounding's equalities S H̃ = b.

    Σ_j H̃_j = ``parent`` (left out when ``parent`` is None: the national program, one 'child' whose total is kept) and,
    with ``child_totals``, each child's total (its invariant). Returns (H* (m, cells), S, b); the right-hand sides must
    be integers.
    """
    H = np.asarray(children, dtype=float)
    if H.ndim != 2 or (H < 0).any() or (parent is not None and np.shape(parent) != (H.shape[1],)):
        raise ValueError("children must be a nonnegative (m, cells) array and parent None or a vector of cells")
    if parent is not None and not np.allclose(H.sum(axis=0), parent):
        raise ValueError("the children must add up to the parent")
    b = np.concatenate(
        [[] if parent is None else np.asarray(parent, dtype=float), H.sum(axis=1) if child_totals else []]
    )
    if not np.allclose(b, np.rint(b)):
        raise ValueError("the parent and the kept child totals (the invariants) must be integers")
    return H, _sum_rows(*H.shape, per_cell=parent is not None, per_child=child_totals), np.rint(b)


#: The talk's 'LP algorithms (barrier+crossover, simplex)' as SciPy's HiGHS methods (``highs-ipm`` runs crossover
#: after the interior point method, so it ends at a vertex).
LP_METHODS = {"simplex": "highs-ds", "barrier+crossover": "highs-ipm"}


def _solve(c, A_eq, b_eq, bounds, method: str = "simplex") -> optimize.OptimizeResult:
    res = optimize.linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method=LP_METHODS[method])
    if res.status != 0:
        raise RuntimeError(f"HiGHS did not solve the rounding LP: {res.message}")
    return res


def printed_lp(
    children, parent, integer: bool = False, child_totals: bool = True, method: str = "simplex"
) -> tuple[np.ndarray, float]:
    """Return the LP relaxation of the talk's rounding IP (``integer``: the IP itself, by HiGHS's MILP solver).

    Variables H̃_j and t_j ≥ |H̃_j − H*_j|. ``parent`` None: the national program (one histogram, its total kept);
    ``child_totals`` False: the state-level program without invariants; ``method`` one of :data:`LP_METHODS`. Returns
    (H̃ (m, cells), objective).
    """
    H, S, b = _program(children, parent, child_totals)
    m, c = H.shape
    k = m * c
    h = H.ravel()
    eye = sparse.eye(k)
    # t − H̃ ≥ −H*  and  t + H̃ ≥ H*, written as equalities with slacks s1, s2 ≥ 0
    A_eq = sparse.vstack(
        [
            sparse.hstack([S, sparse.csr_array((S.shape[0], 3 * k))]),
            sparse.hstack([-eye, eye, -eye, sparse.csr_array((k, k))]),
            sparse.hstack([eye, eye, sparse.csr_array((k, k)), -eye]),
        ]
    )
    b_eq = np.concatenate([b, -h, h])
    lo = np.concatenate([np.maximum(0.0, h - 1.0), np.zeros(3 * k)])
    hi = np.concatenate([h + 1.0, np.full(3 * k, np.inf)])
    cost = np.concatenate([np.zeros(k), np.ones(k), np.zeros(2 * k)])
    if integer:
        res = optimize.milp(
            cost,
            constraints=optimize.LinearConstraint(sparse.csr_array(A_eq), b_eq, b_eq),
            bounds=optimize.Bounds(lo, hi),
            integrality=np.r_[np.ones(k), np.zeros(3 * k)],
        )
        if res.status != 0:
            raise RuntimeError(f"HiGHS did not solve the rounding IP: {res.message}")
    else:
        res = _solve(cost, sparse.csr_array(A_eq), b_eq, list(zip(lo, hi, strict=True)), method)
    return res.x[:k].reshape(m, c), float(res.fun)


def offset_lp(children, parent, child_totals: bool = True, method: str = "simplex") -> tuple[np.ndarray, float]:
    """Return the same rounding in offsets.

    H̃ = ⌊H*⌋ + d, d ∈ [0, 1], minimising Σ |⌊H*⌋ + d − H*| = Σ (f + (1 − 2f) d) (f the fractional parts); its
    equalities have integer right-hand sides and the matrix of :func:`_sum_rows` (rows of a transportation matrix),
    which is TUM; ``method`` one of :data:`LP_METHODS`. Returns (H̃ (m, cells), objective).
    """
    H, S, b = _program(children, parent, child_totals)
    floor = np.floor(H)
    f = (H - floor).ravel()
    res = _solve(1.0 - 2.0 * f, S, b - S @ floor.ravel(), [(0.0, 1.0)] * f.size, method)
    return floor + res.x.reshape(H.shape), float(res.fun + f.sum())


def national_matrix(cells: int) -> np.ndarray:
    """Return the constraint matrix of the talk's national rounding IP in H̃.

    A row per cell for nonnegativity and for |H̃ − H*| ≤ 1 (the same unit rows, with either sign), and the total-sum
    row.
    """
    return np.vstack([np.eye(cells), np.ones((1, cells))])


def state_matrix(children: int, cells: int) -> np.ndarray:
    """Return the constraint matrix of the state-level rounding with each child's total invariant.

    The sums over children per cell and over cells per child (:func:`_sum_rows`), and the unit rows of the bounds.
    """
    return np.vstack([_sum_rows(children, cells).toarray(), np.eye(children * cells)])


def non_unimodular_minor(A) -> tuple[tuple[int, ...], tuple[int, ...], float] | None:
    """Return a square submatrix of ``A`` whose determinant is not −1, 0 or 1, or None.

    As (rows, columns, determinant), by brute force over every square submatrix; None when ``A`` is totally unimodular.
    """
    A = np.asarray(A, dtype=float)
    m, n = A.shape
    for k in range(1, min(m, n) + 1):
        for rows in itertools.combinations(range(m), k):
            cols = list(itertools.combinations(range(n), k))
            dets = np.rint(np.linalg.det(A[np.ix_(rows, range(n))][:, cols].transpose(1, 0, 2)))
            bad = np.flatnonzero(np.abs(dets) > 1)
            if bad.size:
                return rows, cols[bad[0]], float(dets[bad[0]])
    return None


def is_integral(H, tol: float = 1e-9) -> bool:
    """Every entry within ``tol`` of an integer."""
    H = np.asarray(H, dtype=float)
    return bool(np.all(np.abs(H - np.rint(H)) <= tol))


def two_level_solve(
    parent_noisy, children_noisy, total: int, weaker: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Run TopDown on a parent and its children for R draws of noisy identity measurements.

    Each level in the talk's two solves: L2 (the nonnegative histogram closest to the measurements under the level's
    equalities) then the rounding (:func:`offset_lp`, the same equalities). The parent first, with its total = ``total``
    (the invariant); then the children (``weaker`` None, the regular solve) with Σ_j H_j[x] = H_parent[x] for every cell
    x. The talk's failsafe ('Workarounds'), ``weaker="total"``: the children with only Σ_j Σ_x H_j[x] = Σ_x H_parent[x],
    and the parent changed to the sum of the children; ``weaker="none"`` drops that requirement too (nonnegativity only,
    rounded to the nearest integer). ``parent_noisy`` (R, cells), ``children_noisy`` (R, m, cells); returns the final
    parent (R, cells) and children (R, m, cells).
    """
    from isdp.baselines import nonnegative_total_projection

    P = np.asarray(parent_noisy, dtype=float)
    C = np.asarray(children_noisy, dtype=float)
    r, m, c = C.shape
    # every draw is its own block of the rounding LP, so one LP rounds all R draws
    parent = offset_lp(nonnegative_total_projection(P, total), None)[0]
    if weaker is None:  # per draw and cell, the m children's L2 solve under that cell's parent count
        l2 = nonnegative_total_projection(C.transpose(0, 2, 1).reshape(r * c, m), parent.ravel())
        children = offset_lp(l2.T, parent.ravel(), child_totals=False)[0].T.reshape(r, c, m).transpose(0, 2, 1)
        return parent, children
    if weaker == "total":
        children = offset_lp(nonnegative_total_projection(C.reshape(r, m * c), total), None)[0].reshape(r, m, c)
    elif weaker == "none":
        children = np.rint(np.maximum(C, 0.0))
    else:
        raise ValueError(f"weaker must be None, 'total' or 'none', got {weaker!r}")
    return children.sum(axis=1), children
