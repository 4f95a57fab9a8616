"""Exact laws in floating point.

The MCMC experiments' compiled exact ℓ1 sampler for one sum constraint (docs/method.md §7), and the MCMC's ground truth
on small lattices (enumeration, transition matrices).

Release mode's exact sampler, in integer arithmetic and for any invariants, is
:class:`isdp.exact.IntegerL1Sampler`.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from numba import njit

from .. import _validate as check
from .._rng import dg_draw, dg_table, seed_states, uniform_pos
from .._runner import check_dg_eps, over_streams
from ..lattice import IntegerLattice, Target
from ..mcmc import DoubleGeometric


@njit(nogil=True, cache=True)
def _sum_zero_rejection(lo, hi, rng, dg, out, tries):
    log_a = dg[3]
    n = out.shape[1]
    for r in range(lo, hi):
        s = rng[r]
        attempts = 0
        while True:
            attempts += 1
            total = 0
            for i in range(n - 1):
                v = dg_draw(s, dg)
                out[r, i] = v
                total += v
            if np.log(uniform_pos(s)) <= abs(total) * log_a:
                out[r, n - 1] = -total
                break
        tries[r] = attempts


#: default budget of :func:`sample_sum_constraint_l1`: expected DG draws (about 10 s on one core)
MAX_PROPOSALS = 10**9


def sum_constraint_acceptance(n: int, epsilon: float) -> float:
    """Return acceptance probability of :func:`sample_sum_constraint_l1`'s rejection step.

    P(S_n = 0)/P(DG = 0), S_n a sum of n i.i.d. DG(e^{-ε}).

    It fixes the sampler's cost, (n − 1)/acceptance DG draws per draw, which the sampler forecasts
    before it runs (and refuses beyond ``max_proposals``, :data:`MAX_PROPOSALS` by default).

    Parameters
    ----------
    n : int
        Number of cells under the sum constraint, ≥ 2.
    epsilon : float
        ε of the target, positive.

    Returns
    -------
    float
        P(S_n = 0)/P(DG = 0), in (0, 1]. Exact (characteristic function on an FFT grid) while S_n's
        standard deviation is below 10⁵; beyond, the local central limit theorem 1/sqrt(2π n Var DG)
        over P(DG = 0), whose relative error is O(1/(n Var DG)) < 1e-10 there.

    Examples
    --------
    On two cells, P(S_2 = 0) = Σ_k DG(k)², in closed form:

    >>> import numpy as np
    >>> from isdp.exact import sum_constraint_acceptance
    >>> a = np.exp(-1.0)
    >>> p0 = (1 - a) / (1 + a)
    >>> round(sum_constraint_acceptance(2, 1.0), 12), round(float(p0 * (1 + 2 * a**2 / (1 - a**2))), 12)
    (0.606776133517, 0.606776133517)
    >>> round(sum_constraint_acceptance(3, 1.0), 4)
    0.4455
    """
    a = float(np.exp(-epsilon))
    var = DoubleGeometric(epsilon).variance()
    p0 = (1 - a) / (1 + a)
    sd_sum = float(np.sqrt(n * var))
    if sd_sum > 1e5:
        return 1 / (np.sqrt(2 * np.pi * n * var) * p0)
    size = int(2 ** np.ceil(np.log2(40 * sd_sum + 64)))
    t = 2 * np.pi * np.arange(size) / size
    phi = (1 - a) ** 2 / (1 - 2 * a * np.cos(t) + a**2)
    return float(np.fft.ifft(phi**n).real[0]) / p0


def sample_sum_constraint_l1(
    n: int, epsilon: float, size: int, seed: int, *, max_proposals: int = MAX_PROPOSALS
) -> np.ndarray:
    """Return the MCMC experiments' exact ℓ1 generalized Laplace noise on {u ∈ Z^n.

    Σ u = 0}, one sum constraint only, compiled and in floating point (int64, size × n).

    The target is π(u) ∝ exp(−ε‖u‖₁) on the lattice of one sum constraint over n cells; the draws
    are exact (rejection), so they serve as Y's start of an exact-start certificate
    (:func:`isdp.convergence.certify`, :func:`isdp.convergence.certify_heat_bath`) and as ground truth for the MCMC. The
    expected cost size·(n − 1)/acceptance DG draws is computed first
    (:func:`sum_constraint_acceptance`), and a run expected to need more than ``max_proposals`` is
    refused with a ValueError giving the cost, instead of running for hours.

    Parameters
    ----------
    n : int
        Number of cells, ≥ 2.
    epsilon : float
        ε of the target, a usable double geometric ε (in [1e-9, 700]).
    size : int
        Number of draws (≥ 0).
    seed : int
        Non-negative seed; one random stream per draw, so the draws do not depend on the number of
        threads.
    max_proposals : int, default 10**9
        Budget in expected double geometric draws (:data:`MAX_PROPOSALS`, about ten seconds on one
        core).

    Returns
    -------
    numpy.ndarray
        int64, shape (size, n); every row sums to 0.

    Raises
    ------
    ValueError
        If ``n``, ``size`` or ``epsilon`` is out of range, or the expected cost exceeds ``max_proposals``.

    See Also
    --------
    isdp.mcmc.sample : the MCMC sampler for general invariants.
    IntegerL1Sampler : release mode's exact ℓ1 sampler: any invariants, in integer arithmetic (the law is exact,
        no rounding in the double geometric), for publication.

    Notes
    -----
    Proof sketch. The target is π(u) ∝ Π_i a^{|u_i|} on Σu = 0, a = e^{-ε} — i.i.d. DG(a)
    conditioned on a zero sum (docs/method.md §2). Draw u_1..u_{n-1} i.i.d. DG(a), set
    u_n = -Σ_{i<n} u_i and accept with probability a^{|u_n|} ≤ 1. The accepted law is
    ∝ Π_{i<n} DG(u_i) · a^{|u_n|} ∝ Π_{i≤n} DG(u_i) on Σu = 0, which is π. The acceptance
    probability is P(S_n = 0)/P(DG = 0) ≈ (1+a)/((1-a)·sqrt(2π n Var DG)) — a few per cent
    for a state's counties, so each draw costs tens of proposals. As ε → 0 it tends to the
    floor 1/sqrt(π n), so the cost grows like n^{3/2} per draw (docs/method.md §7).

    Examples
    --------
    >>> from isdp.exact import sample_sum_constraint_l1
    >>> sample_sum_constraint_l1(3, 1.0, 4, seed=0).tolist()
    [[0, 0, 0], [0, -1, 1], [0, 0, 0], [1, -1, 0]]
    """
    # outside DG_EPS_RANGE the rejection loop never accepts (nan, a = 0) or returns garbage (a = 1)
    n = check.size("n", n, 2)  # a sum constraint needs 2 cells to leave room for noise
    size, epsilon = check.size("size", size, 0), check_dg_eps("epsilon", epsilon)
    max_proposals = check.size("max_proposals", max_proposals, 1, 2**62)
    acceptance = sum_constraint_acceptance(n, epsilon)
    cost = size * (n - 1) / acceptance
    if cost > max_proposals:
        raise ValueError(
            f"sample_sum_constraint_l1(n={n}, epsilon={epsilon:g}, size={size}): the rejection sampler "
            f"accepts {acceptance:.3g} of its proposals, so it would need about {cost:.3g} "
            f"double geometric draws, more than max_proposals = {max_proposals:.3g}; raise "
            "max_proposals, use a larger epsilon, or the MCMC sampler (isdp.mcmc.sample)"
        )
    out = np.empty((size, n), dtype=np.int64)
    tries = np.empty(size, dtype=np.int64)
    over_streams(_sum_zero_rejection, size, seed_states(seed, size), dg_table(epsilon), out, tries)
    return out


@njit(nogil=True, cache=True)
def _conditioned_rejection(lo, hi, rng, dg, A, done_ptr, done_rows, out):
    """Draw rows lo..hi − 1; a proposal ends at the first cell that completes a constraint it breaks.

    ``done_rows[done_ptr[i]:done_ptr[i + 1]]`` are the constraints whose last cell is i. The cells a proposal leaves
    undrawn belong to no proposal, so each proposal's cells are still i.i.d. DG: the accepted law is unchanged.
    """
    n = A.shape[1]
    for r in range(lo, hi):
        s = rng[r]
        i = 0
        while i < n:
            out[r, i] = dg_draw(s, dg)
            ok = True
            for p in range(done_ptr[i], done_ptr[i + 1]):
                total = 0
                for j in range(i + 1):
                    total += A[done_rows[p], j] * out[r, j]
                if total != 0:
                    ok = False
                    break
            i = i + 1 if ok else 0


def sample_conditioned_dg(A, epsilon: float, size: int, seed: int) -> np.ndarray:
    """Exact draws of i.i.d. DG(e^{-ε}) noise conditioned on A u = 0, by rejection.

    By the identity of docs/method.md §2 this is the ℓ1 generalized Laplace on Λ(A). Exact by
    definition of conditioning, and independent of the lattice basis and of the MCMC — hence
    a ground truth for it. Feasible only when P(A u = 0) is not tiny: small tables, larger ε.
    A proposal's cells are drawn in order, and it is rejected at the first cell that completes a
    constraint it breaks; the cells it leaves undrawn belong to no proposal, so every proposal is
    still i.i.d. DG and the accepted law is the conditioned one.

    Parameters
    ----------
    A : array_like of int
        The invariants' matrix, shape (m, n), integer-valued.
    epsilon : float
        ε of the target, a usable double geometric ε (in [1e-9, 700]).
    size : int
        Number of draws (≥ 0).
    seed : int
        Non-negative seed; one random stream per draw.

    Returns
    -------
    numpy.ndarray
        int64, shape (size, n); every row u has A u = 0.

    Raises
    ------
    isdp.errors.InvariantError
        If ``A`` is not an integer-valued 2-D matrix.
    ValueError
        If ``size`` or ``epsilon`` is out of range.

    See Also
    --------
    sample_sum_constraint_l1 : The same law for one sum constraint, far faster.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.exact import sample_conditioned_dg
    >>> sample_conditioned_dg(np.array([[1, 1, 0, 0], [0, 0, 1, 1]]), 1.0, 4, seed=0).tolist()
    [[0, 0, 0, 0], [-1, 1, 0, 0], [0, 0, -1, 1], [-2, 2, 1, -1]]
    """
    A = np.ascontiguousarray(check.integer_matrix("A", A))
    size, epsilon = check.size("size", size, 0), check_dg_eps("epsilon", epsilon)
    out = np.empty((size, A.shape[1]), dtype=np.int64)
    # each constraint is checked at its last cell (a zero row at the first), so a proposal stops as soon as one breaks
    last = np.where(A.any(axis=1), A.shape[1] - 1 - np.argmax(A[:, ::-1] != 0, axis=1), 0)
    rows = np.argsort(last, kind="stable")
    done_ptr = np.searchsorted(last[rows], np.arange(A.shape[1] + 1))
    over_streams(_conditioned_rejection, size, seed_states(seed, size), dg_table(epsilon), A, done_ptr, rows, out)
    return out


#: largest box the exact computations enumerate ((2·radius + 1)^k states)
MAX_STATES = 10**6


def _check_box(lattice, radius) -> int:
    """``radius`` as a positive int whose box (2·radius + 1)^k fits :data:`MAX_STATES`, or an error."""
    if not isinstance(lattice, IntegerLattice):
        raise TypeError(f"lattice must be an IntegerLattice, got {type(lattice).__name__}")
    radius = check.size("radius", radius, 1)
    states = (2 * radius + 1) ** lattice.dim
    if states > MAX_STATES:
        raise ValueError(
            f"the box |w|_∞ <= {radius} of a {lattice.dim}-dimensional lattice has {states:.3g} "
            f"states, more than {MAX_STATES:.0e}: use a smaller radius or lattice"
        )
    return radius


def _box(k: int, radius: int) -> np.ndarray:
    return np.array(list(itertools.product(range(-radius, radius + 1), repeat=k)), dtype=np.int64)


def enumerate_target(lattice: IntegerLattice, target: Target, radius: int):
    """All lattice points u = B w with |w|_∞ ≤ radius and their normalised target probabilities.

    Exact laws on small lattices, the ground truth of the tests. The truncation is exact up to the
    target mass outside the box; check it is negligible by comparing two radii.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) with basis B (n × k); the box is in its lattice coordinates w.
    target : Target
        The target π.
    radius : int
        Half-width of the box |w|_∞ ≤ radius, ≥ 1; the box's (2·radius + 1)^k points must not exceed
        :data:`MAX_STATES`.

    Returns
    -------
    points : numpy.ndarray
        int64, shape (m, n), m = (2·radius + 1)^k: the lattice vectors u = B w.
    probs : numpy.ndarray
        float, shape (m,): π restricted to the box and renormalised.
    coords : numpy.ndarray
        int64, shape (m, k): the coordinates w, in :func:`itertools.product` order.

    Raises
    ------
    TypeError
        If ``lattice`` is not an IntegerLattice.
    ValueError
        If ``radius`` is not a positive integer or the box is too large.

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.exact import enumerate_target
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> points, probs, coords = enumerate_target(lattice, generalized_laplace(1.0), radius=2)
    >>> points.shape, coords.shape
    ((25, 3), (25, 2))
    >>> points[probs.argmax()].tolist(), round(float(probs.max()), 3)
    ([0, 0, 0], 0.49)
    """
    radius = _check_box(lattice, radius)
    w = _box(lattice.dim, radius)
    u = w @ lattice.basis.T
    logp = target.log_density(u)
    p = np.exp(logp - logp.max())
    return u, p / p.sum(), w


def sweep_transition_matrix(lattice: IntegerLattice, target: Target, proposal_eps: float, radius: int):
    """One-iteration transition matrix of the component-wise sampler on the box |w|_∞ ≤ radius.

    The exact kernel of :func:`isdp.mcmc.sample` (one Metropolis update per basis column, double
    geometric pre-jumps) on the lattice's basis. Row-stochastic except for the (tiny, to be checked)
    mass of moves that leave the box, which is dropped rather than folded back, so μ P^t loses
    exactly that mass. For small lattices only (the state space is (2·radius+1)^k).

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A); the sampler sweeps its basis columns in order.
    target : Target
        The target π.
    proposal_eps : float
        ε̃ of the double geometric pre-jumps.
    radius : int
        Half-width of the box of lattice coordinates, ≥ 1, within :data:`MAX_STATES` states.

    Returns
    -------
    P : scipy.sparse.csr_matrix
        Shape (m, m), m = (2·radius + 1)^k: P[a, b] is the probability of moving from state a to
        state b in one iteration (a sweep over all k columns).
    coords : numpy.ndarray
        int64, shape (m, k): the states' lattice coordinates w, as in :func:`enumerate_target`.
    u : numpy.ndarray
        int64, shape (m, n): the states' lattice vectors.

    Raises
    ------
    TypeError
        If ``lattice`` or ``target`` has the wrong type.
    ValueError
        If ``radius`` or ``proposal_eps`` is out of range, or the box is too large.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.exact import sweep_transition_matrix
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> P, coords, u = sweep_transition_matrix(lattice, generalized_laplace(1.0), 1.0, radius=2)
    >>> P.shape
    (25, 25)
    >>> rows = np.asarray(P.sum(axis=1)).ravel()
    >>> bool(np.all(rows <= 1 + 1e-12)), round(float(rows.min()), 3)
    (True, 0.944)
    """
    radius = _check_box(lattice, radius)
    proposal_eps = check_dg_eps("proposal_eps", proposal_eps)
    if not isinstance(target, Target):
        raise TypeError(f"target must be an isdp Target, got {type(target).__name__}")
    k = lattice.dim
    w = _box(k, radius)
    width = 2 * radius + 1
    index = lambda coords: np.ravel_multi_index(tuple((coords + radius).T), (width,) * k)  # noqa: E731
    u = w @ lattice.basis.T
    logp = target.log_density(u)
    # Jumps far enough that the DG tail beyond them is < 1e-18: every move that leaves the box is counted.
    reach = 2 * radius + int(np.ceil(np.log(1e-18) / -proposal_eps))
    jumps = np.arange(-reach, reach + 1)
    log_q = DoubleGeometric(proposal_eps).logpmf(jumps)
    m = len(w)
    P = sp.identity(m, format="csr")
    for j in range(k):
        rows, cols, vals = [], [], []
        for z, lq in zip(jumps, log_q, strict=True):
            if z == 0:
                continue
            dest = w.copy()
            dest[:, j] += z
            inside = np.abs(dest[:, j]) <= radius
            src = np.flatnonzero(inside)
            dst = index(dest[inside])
            acc = np.exp(np.minimum(0.0, logp[dst] - logp[src]))
            rows.append(src)
            cols.append(dst)
            vals.append(np.exp(lq) * acc)
        entries = np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))
        move = sp.csr_matrix(entries, shape=(m, m))
        # Rejections and z = 0 keep the state; moves leaving the box are dropped.
        leave = np.zeros(m)
        for z, lq in zip(jumps, log_q, strict=True):
            if z == 0:
                continue
            dest_j = w[:, j] + z
            outside = np.abs(dest_j) > radius
            if outside.any():
                # acceptance of out-of-box moves, to know how much mass to drop
                du = (z * lattice.basis[:, j])[None, :]
                acc = np.exp(np.minimum(0.0, target.log_density(u[outside] + du) - logp[outside]))
                leave[outside] += np.exp(lq) * acc
        stay = 1.0 - np.asarray(move.sum(axis=1)).ravel() - leave
        P = P @ (move + sp.diags(stay))
    return P.tocsr(), w, u
