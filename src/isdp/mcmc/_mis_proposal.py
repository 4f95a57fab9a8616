"""The MIS's proposal (Congenial DP Algorithm 1, step 1; docs/method.md §6).

What the compiled kernels are given, and the loop that draws proposals until one is a point of S*.
:func:`_kernel_inputs` builds, once per run, the arrays of the proposal ``s̃_I ~ q``, of the integer solve for
``s̃_(I^c)`` and of the test ``B s̃ ≥ b``; :func:`_next_point` draws proposals from them. The sampler
(:func:`isdp.mcmc.mis_sample`), its meeting times and its exact draws (:mod:`._mis_coupling`) all propose through it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._rng import dg_draw, dg_table


def _csr(M: np.ndarray):
    """Row-compressed (ptr, idx, val) of a dense matrix, zeros dropped (SciPy's CSR layout)."""
    rows = sp.csr_array(M)
    return rows.indptr.astype(np.int64), rows.indices.astype(np.int64), rows.data


def _kernel_inputs(A, a, B, b, center, idx_i, idx_c, adj, det, eps, proposal_eps) -> tuple:
    """Return the compiled kernels' (equalities, inequalities, law), each a tuple built once per run.

    - equalities (idx_i, idx_c, ai_ptr, ai_idx, ai_val, adj, det, a): I (in the order its cells are drawn), I^c,
      A[:, I] row-wise in CSR form with column positions in the full vector, and adj(M), det(M) of
      M = A[:, I^c], to solve A s = a for s_(I^c);
    - inequalities (b_ptr, b_idx, b_val, b, one_coef, one_bound): per cell a row of B on that cell alone (its
      coefficient and bound; coefficient 0 where none), which the proposal checks as soon as the cell is drawn, and
      the other rows of B with their b, row-wise in CSR form (no rows without B);
    - law (center, ε, ε̃, DG table of ε̃): target and proposal.
    """
    ai_ptr, ai_idx, ai_val = _csr(A[:, idx_i])
    d = len(center)
    one_coef, one_bound = np.zeros(d), np.zeros(d)
    if B is None:
        inequalities = (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), one_coef, one_bound)
    else:
        # a proposal that breaks a one-cell row (a count's non-negativity) is infeasible however the rest is drawn,
        # so it is rejected at that cell; only where |det| = 1, as the solve is then always integral and the
        # proposal is counted as infeasible either way (never as non-integral)
        rest = np.ones(B.shape[0], dtype=bool)  # the rows the end of a proposal checks
        if abs(det) == 1:
            nonzero = B != 0
            single = np.flatnonzero(nonzero.sum(axis=1) == 1)
            cells, first = np.unique(nonzero[single].argmax(axis=1), return_index=True)  # a cell's first such row
            rows = single[first]
            one_coef[cells], one_bound[cells] = B[rows, cells], b[rows]
            rest[rows[np.isin(cells, idx_i)]] = False  # a drawn cell's row: checked by the same test as it is drawn
        b_ptr, b_idx, b_val = _csr(B[rest])
        inequalities = (b_ptr, b_idx, b_val, np.ascontiguousarray(b[rest]), one_coef, one_bound)
    # the free cells are drawn nearest their own bound first (a small count before a large one), where a proposal
    # most often ends: the order of independent draws does not change their law
    slack = np.where(one_coef > 0, center - one_bound / np.where(one_coef > 0, one_coef, 1), np.inf)
    draw_order = idx_i[np.argsort(slack[idx_i], kind="stable")]
    equalities = (draw_order, idx_c, ai_ptr, idx_i[ai_idx], ai_val, adj, np.int64(det), a)
    return equalities, inequalities, (center, eps, proposal_eps, dg_table(proposal_eps))


@njit(nogil=True, cache=True)
def _next_point(rng, prop, r, equalities, inequalities, law, limit, rejected):
    """Propose up to ``limit`` times, stopping at the first proposal that is a point of S*; it is left in ``prop``.

    Returns (proposals made, whether the last one is a point of S*, its log weight). The proposals before it were
    rejected as non-integral (counted in ``rejected[0]``) or infeasible, B s̃ < b (``rejected[1]``); a chain stays
    where it is on those, so its caller only acts on the point. Arguments as :func:`_kernel_inputs` (``r``: scratch
    of length m).

    The proposals loop here rather than in each caller so that numba counts the references to the arrays of
    ``equalities``, ``inequalities`` and ``law`` once per call, not once per proposal: about 40 atomic operations, which
    cost a proposal more than its draws did.
    """
    idx_i, idx_c, ai_ptr, ai_idx, ai_val, adj, det, a_vec = equalities
    b_ptr, b_idx, b_val, b_vec, one_coef, one_bound = inequalities
    center, eps, eps_q, dg_q = law
    m = a_vec.shape[0]
    n = 0
    while n < limit:
        n += 1
        # step 1-1: s̃_I ~ q, independent of the current state; a cell that breaks its own row of B ends the proposal
        # (infeasible whatever follows: the draws it leaves unread belong to no proposal, so each is still q's)
        feasible = True
        dev_i = 0
        for j in range(idx_i.shape[0]):
            i = idx_i[j]
            z = dg_draw(rng, dg_q)
            prop[i] = center[i] + z
            if one_coef[i] != 0.0 and one_coef[i] * prop[i] < one_bound[i] - 1e-9:
                feasible = False
                break
            dev_i += abs(z)
        if not feasible:
            rejected[1] += 1
            continue
        # step 1-2: r = a − A_I s̃_I, then s̃_(I^c) = adj(M) r / det(M) in integers
        for row in range(m):
            v = a_vec[row]
            for p in range(ai_ptr[row], ai_ptr[row + 1]):
                v -= ai_val[p] * prop[ai_idx[p]]
            r[row] = v
        integral = True
        dev_c = 0
        for row in range(m):
            num = 0
            for col in range(m):
                num += adj[row, col] * r[col]
            if num % det != 0:
                integral = False
                break
            i = idx_c[row]
            prop[i] = num // det
            dev_c += abs(prop[i] - center[i])
        if not integral:
            rejected[0] += 1
            continue
        # step 2: the indicator 1(B s̃ >= b), over the rows step 1-1 has not checked
        for row in range(b_vec.shape[0]):
            v = 0.0
            for p in range(b_ptr[row], b_ptr[row + 1]):
                v += b_val[p] * prop[b_idx[p]]
            if v < b_vec[row] - 1e-9:
                feasible = False
                break
        if not feasible:
            rejected[1] += 1
            continue
        return n, True, -eps * (dev_i + dev_c) + eps_q * dev_i
    return n, False, 0.0
