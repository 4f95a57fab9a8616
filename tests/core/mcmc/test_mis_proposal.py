"""The MIS's proposal (``isdp.mcmc._mis_proposal``): the rows of B each check reads, and the compiled loop against
a plain reading of Congenial DP Algorithm 1's step 1 on the same random stream."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp._rng import dg_draw, seed_states
from isdp.mcmc._mis import _problem
from isdp.mcmc._mis_proposal import _next_point

# A total and the first two cells' sum invariant; I^c = {0, 2}: A[:, I^c] has determinant -1.
A5 = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
S5 = np.array([2, 1, 0, 3, 1])
I5 = [1, 3, 4]
# s ≥ 0, then a second bound on the drawn cell 1 (s1 ≤ 2) and a row of two cells
B_ROWS = np.vstack([np.eye(5), -np.eye(5)[1], [0, 1, 0, 1, 0]])
B_BOUNDS = np.r_[np.zeros(5), -2.0, 1.0]
# a set-up whose solve is not unimodular (det 4): no row is checked as a cell is drawn
A_ODD = np.array([[1, 1, 2, 0, 0], [0, 1, 0, 1, 2]])
X_ODD = np.array([3, 2, 4, 1, 5])


def _kernel(A, x, index_set, B, b, proposal_eps=0.6, allow_nonunimodular=False):
    pb = _problem(
        A,
        A @ x,
        x,
        B,
        b,
        epsilon=0.5,
        proposal_eps=proposal_eps,
        index_set=index_set,
        n_chains=1,
        init=None,
        allow_nonunimodular=allow_nonunimodular,
    )
    return pb.kernel


def _reference(state, kernel, A, a, B, b, limit):
    """Step 1 of Algorithm 1 read literally, proposal after proposal, from the same DG draws: every cell of I drawn
    in the kernel's order until one breaks its own first one-cell row of B, s_(I^c) solved exactly, every row of B
    tested; stops at the first point of S*."""
    (order, idx_c, *_), (_, _, _, _, one_coef, one_bound), (center, eps, eps_q, dg) = kernel
    rejected = [0, 0]
    M = A[:, idx_c]
    for n in range(1, limit + 1):
        prop = np.zeros(len(center), dtype=np.int64)
        cut = False
        for i in order:
            prop[i] = center[i] + int(dg_draw(state, dg))
            if one_coef[i] != 0 and one_coef[i] * prop[i] < one_bound[i] - 1e-9:
                cut = True
                break
        if cut:
            rejected[1] += 1
            continue
        rest = a - A @ prop  # prop is 0 on I^c here
        solved = np.linalg.solve(M, rest)
        if not np.allclose(solved, np.rint(solved)):
            rejected[0] += 1
            continue
        prop[idx_c] = np.rint(solved).astype(np.int64)
        if np.any(B @ prop < b - 1e-9):
            rejected[1] += 1
            continue
        dev = np.abs(prop - center)
        return n, True, prop, -eps * dev.sum() + eps_q * dev[order].sum(), rejected
    return limit, False, None, 0.0, rejected


def test_a_drawn_cell_s_first_one_cell_row_is_left_to_the_draw():
    (order, *_), (b_ptr, b_idx, b_val, b_rest, one_coef, one_bound), _ = _kernel(A5, S5, I5, B_ROWS, B_BOUNDS)
    # drawn cells 1, 3, 4: their rows s ≥ 0 are checked as each is drawn; the solved cells' rows (0, 2), the second
    # bound on cell 1 and the two-cell row stay for the end of the proposal
    kept = [0, 2, 5, 6]
    assert b_rest.tolist() == B_BOUNDS[kept].tolist()
    dense = np.zeros((len(kept), 5))
    for row in range(len(kept)):
        dense[row, b_idx[b_ptr[row] : b_ptr[row + 1]]] = b_val[b_ptr[row] : b_ptr[row + 1]]
    assert np.array_equal(dense, B_ROWS[kept])
    assert one_coef.tolist() == [1.0] * 5 and one_bound.tolist() == [0.0] * 5  # each cell's first row: s ≥ 0
    assert sorted(order.tolist()) == I5


def test_without_a_unimodular_solve_every_row_is_left_to_the_end():
    kernel = _kernel(A_ODD, X_ODD, [0, 1, 3], np.eye(5), np.zeros(5), allow_nonunimodular=True)
    b_ptr, *_, b_rest, one_coef, _ = kernel[1]
    assert len(b_rest) == 5 and np.diff(b_ptr).tolist() == [1] * 5
    assert not one_coef.any()


@pytest.mark.parametrize(
    ("A", "x", "index_set", "B", "b", "odd"),
    [
        (A5, S5, I5, B_ROWS, B_BOUNDS, False),
        (A5, S5, I5, np.eye(5), np.zeros(5), False),
        (A_ODD, X_ODD, [0, 1, 3], np.eye(5), np.zeros(5), True),
    ],
    ids=["bounds of one and two cells", "non-negative", "not unimodular"],
)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), limit=st.integers(1, 60))
def test_next_point_is_algorithm_1_s_step_1_on_the_same_stream(A, x, index_set, B, b, odd, seed, limit):
    """Same number of proposals, same point, same weight, same counts of rejections, and the stream left at the same
    word, as the literal reading; ``limit`` proposals at most."""
    kernel = _kernel(A, x, index_set, B, b, proposal_eps=0.4, allow_nonunimodular=odd)
    a = A @ x
    state, twin = seed_states(seed, 1)[0], seed_states(seed, 1)[0]
    prop, r = np.zeros(5, dtype=np.int64), np.zeros(2, dtype=np.int64)
    rejected = np.zeros(2, dtype=np.int64)
    n, found, logw = _next_point(state, prop, r, *kernel, limit, rejected)
    n_ref, found_ref, prop_ref, logw_ref, rejected_ref = _reference(twin, kernel, A, a, B, b, limit)
    assert (n, found, rejected.tolist()) == (n_ref, found_ref, rejected_ref)
    assert np.array_equal(state, twin)
    if found:
        assert np.array_equal(prop, prop_ref) and logw == pytest.approx(logw_ref, abs=1e-12)
