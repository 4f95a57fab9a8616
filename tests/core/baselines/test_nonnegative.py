"""Tests of the ℓ1 projections of the release's non-negative post-processing: one HiGHS model against fresh SciPy
calls, the MILP and the closed form onto one total (isdp.baselines._nonnegative, public as isdp.baselines' names)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from projection_support import l1, sum_row
from scipy.optimize import linprog

from isdp.baselines import L1Projector, l1_total_projection
from isdp.baselines._nonnegative import l1_projection_milp
from isdp.mcmc import DoubleGeometric

# --------------------------------------------------------------------------- one HiGHS model


def _scipy_projection(m, A, b, kind):
    """The previous path: one fresh SciPy call per release (linprog / milp on the same LP)."""
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = m.size
    eye = sp.eye_array(n, format="csr")
    c = np.concatenate([np.zeros(n), np.ones(n)])
    A_ub = sp.block_array([[eye, -eye], [-eye, -eye]], format="csr")
    A_eq = sp.hstack([sp.csr_array(A.astype(float)), sp.csr_array((A.shape[0], n))], format="csr")
    bounds = [(None, None)] * n + [(0, None)] * n
    if kind == "vertex":
        return linprog(c, A_ub=A_ub, b_ub=np.concatenate([m, -m]), A_eq=A_eq, b_eq=b, bounds=bounds, method="highs").x[
            :n
        ]
    if kind == "interior":
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = linprog(
                c,
                A_ub=A_ub,
                b_ub=np.zeros(2 * n),
                A_eq=A_eq,
                b_eq=b - A @ m,
                bounds=bounds,
                method="highs-ipm",
                options={"run_crossover": "off", "presolve": False},
            )
        return m + res.x[:n]
    res = milp(
        c,
        integrality=np.concatenate([np.ones(n), np.zeros(n)]),
        bounds=Bounds(np.concatenate([np.full(n, -np.inf), np.zeros(n)]), np.inf),
        constraints=[LinearConstraint(A_ub, -np.inf, np.concatenate([m, -m])), LinearConstraint(A_eq, b, b)],
        options={"mip_rel_gap": 0.0},
    )
    return np.rint(res.x[:n]).astype(np.int64)


@pytest.mark.parametrize("kind", ["vertex", "interior", "integer"])
@pytest.mark.parametrize("n", [14, 102])
def test_one_highs_model_gives_what_fresh_scipy_calls_gave(kind, n):
    """L1Projector re-solves one model per state, cold: the same optimum, release by release, as a
    fresh SciPy call (the vertex and the integer point exactly, the interior point to 1e-9)."""
    rng = np.random.default_rng(n)
    A = np.ones((1, n), dtype=np.int64)
    x = rng.lognormal(9, 1.5, n).astype(np.int64) + 50  # county-like counts, a state total invariant
    b = A @ x
    project = L1Projector(A, kind)
    for m in x + DoubleGeometric(0.192).rvs((30, n), rng):
        y, ref = project(m.astype(float), b), _scipy_projection(m.astype(float), A, b.astype(float), kind)
        if kind == "interior":
            np.testing.assert_allclose(y, ref, rtol=0, atol=1e-9)
        else:
            np.testing.assert_array_equal(y, ref)


def test_projector_rejects_a_bad_kind_and_a_wrong_length():
    with pytest.raises(ValueError, match="kind"):
        L1Projector([[1, 1]], "simplex")
    with pytest.raises(ValueError):
        L1Projector([[1, 1]])([1.0, 2.0, 3.0], [3])


def test_milp_rejects_fractional_b():
    with pytest.raises(ValueError, match="integer"):
        l1_projection_milp([0, 0], [[1, 1]], [0.5])


# --------------------------------------------------------------------------- ℓ1 onto one total, by a rule


def test_one_total_returns_the_rules_optimum_not_a_solvers_vertex():
    """Inputs with many ℓ1 optima: the documented choice (the ℓ2-nearest, ties to the lower index), which
    HiGHS' vertex is not."""
    cases = [  # (m, total, nonnegative, the rule's y)
        ([4.0, 3.0, 2.0], 12, False, [5, 4, 3]),  # 3 added, one unit each
        ([4.0, 3.0, 2.0], 7, False, [3, 2, 2]),  # 2 taken away: the lower indices give
        ([-3.0, 5.0, 1.0, 4.0], 6, True, [0, 3, 0, 3]),  # raised to 0, the excess 4 taken evenly, cell 2 stops at 0
        ([0.0, 1.0, 2.0, 3.0, 50.0, 80.0], 130, True, [0, 0, 0, 2, 49, 79]),  # 1 from each count > 0, 1 by index
        ([0.5, 0.5, 0.5], 3, False, [1, 1, 1]),  # each rounds up at the same cost: no tie left
    ]
    for m, total, nonnegative, expected in cases:
        A = sum_row(len(m))
        y = l1_total_projection(m, total, nonnegative)
        assert y.dtype == np.int64 and y.tolist() == expected
        assert np.array_equal(l1_projection_milp(m, A, [total], nonnegative), y)
        vertex = L1Projector(A, "integer", nonnegative)(m, [total])
        assert l1(vertex, m) == pytest.approx(l1(y, m))  # both optimal ...
        assert np.sum((y - np.asarray(m)) ** 2) <= np.sum((vertex - np.asarray(m)) ** 2)  # ... the rule's nearer in ℓ2
    # HiGHS returns a vertex here, one cell taking the whole discrepancy; the rule spreads it
    assert L1Projector(sum_row(3), "integer")([4.0, 3.0, 2.0], [12]).tolist() != [5, 4, 3]


def _greedy_reference(m, total, nonnegative):
    """The rule as its Notes state it, one unit at a time: from ⌊m⌋ (raised to 0), each unit where |y − m| is
    smallest on the side it moves to, ties to the lowest index (np.argmin)."""
    m = np.asarray(m, float)
    y = np.maximum(np.floor(m), 0) if nonnegative else np.floor(m)
    while y.sum() != total:
        up = y.sum() < total
        cost = y - m if up else np.where((y > 0) | (not nonnegative), m - y, np.inf)
        y[np.argmin(cost)] += 1 if up else -1
    return y


@settings(max_examples=300, deadline=None)
@given(
    m8=st.lists(st.integers(-40, 100), min_size=1, max_size=7), total=st.integers(-20, 40), nonnegative=st.booleans()
)
def test_one_total_projection_is_feasible_integer_l1_optimal_and_the_rules_choice(m8, total, nonnegative):
    """Feasible, integer, as ℓ1-close as HiGHS' proven MILP optimum, no further in ℓ2, and the unit-by-unit
    greedy of the Notes (m in eighths, so every cost is exact in floating point)."""
    m = np.array(m8) / 8
    if nonnegative and total < 0:
        with pytest.raises(ValueError, match="negative total"):
            l1_total_projection(m, total, nonnegative)
        return
    y = l1_total_projection(m, total, nonnegative)
    assert y.dtype == np.int64 and y.sum() == total and (not nonnegative or y.min() >= 0)
    milp = L1Projector(sum_row(m.size), "integer", nonnegative)(m, [total])
    assert l1(y, m) == pytest.approx(l1(milp, m), abs=1e-9)
    assert np.sum((y - m) ** 2) <= np.sum((milp - m) ** 2) + 1e-9
    np.testing.assert_array_equal(y, _greedy_reference(m, total, nonnegative))


@settings(max_examples=100, deadline=None)
@given(
    m8=st.lists(st.integers(-40, 100), min_size=1, max_size=7),
    total=st.integers(-20, 40),
    shift=st.integers(-1000, 1000),
)
def test_one_total_projection_without_bounds_commutes_with_integer_shifts(m8, total, shift):
    """Without y ≥ 0 the error of x + e projected onto Σx depends on e alone (the Notes): a shift v of m and of the
    total shifts y by v."""
    m = np.array(m8) / 8
    v = (shift * np.arange(1, m.size + 1)) % 997 - 498
    np.testing.assert_array_equal(l1_total_projection(m + v, total + v.sum()), l1_total_projection(m, total) + v)


def test_one_total_projection_of_large_counts_is_exact():
    """100 units over counts up to 2⁴⁰: y − m levels off at 25.5, 26, 26, 25 (the ties at 25 to cells 1 and 2)."""
    m = np.array([5e6 + 0.5, -3.0, 1e7, 2.0**40])
    start = np.array([5_000_000, 0, 10_000_000, 2**40])
    y = l1_total_projection(m, int(start.sum()) + 100, nonnegative=True)
    np.testing.assert_array_equal(y - start, [26, 23, 26, 25])


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call",
    [
        lambda: l1_projection_milp([1, np.nan], [[1, 1]], [0]),  # m not finite
        lambda: l1_total_projection([1, 2], 2.5),  # total not an integer
        lambda: l1_total_projection([1, 2], [3]),  # total not a number
        lambda: l1_total_projection([1, 2], -1, nonnegative=True),  # no y ≥ 0 has it
    ],
)
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("kind", ["vertex", "interior", "integer"])
def test_l1_projector_nonnegative_holds_for_every_kind(kind):
    """y ≥ 0 with ``nonnegative``: the interior model works in d = y − m, so its bound is d ≥ −m (a
    bound d ≥ 0 would give y ≥ m, here [4.33, −0.67, 2.33]); every kind reaches the optimum 1."""
    A = np.ones((1, 3), dtype=int)
    y = L1Projector(A, kind, nonnegative=True)([4.0, -1.0, 2.0], [6])
    assert np.all(y >= -1e-9) and abs(y.sum() - 6) < 1e-6
    assert abs(np.abs(y - [4.0, -1.0, 2.0]).sum() - 1.0) < 1e-6


def test_a_sparse_block_is_projected_without_a_dense_copy():
    """The release passed each block to the projection dense: both margins of a 1000 × 1000 block that Klein's
    sampler drew became a 2000 × 10⁶ matrix (16 GB). Sparse, the projection is the dense one's, in memory linear
    in the cells."""
    import tracemalloc

    from scipy import sparse

    from isdp.lattice import table_margins

    rng = np.random.default_rng(3)
    for A in (np.ones((1, 6), dtype=np.int64), table_margins(3, 4)):
        x = rng.poisson(2, A.shape[1])
        y = (x + rng.integers(-3, 4, A.shape[1])).astype(float)
        dense = l1_projection_milp(y, A, A @ x, nonnegative=True)
        assert np.array_equal(l1_projection_milp(y, sparse.csr_array(A), A @ x, nonnegative=True), dense)
    A = sparse.csr_array(table_margins(100, 100))
    x = rng.poisson(2, A.shape[1])
    tracemalloc.start()
    z = l1_projection_milp((x + rng.integers(-3, 4, A.shape[1])).astype(float), A, A @ x, nonnegative=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < A.shape[0] * A.shape[1] * 8 / 4 and np.array_equal(A @ z, A @ x) and z.min() >= 0  # dense: 16 MB
