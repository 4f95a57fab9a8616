"""Exact laws of coupled chains on small lattices: the ground truth for the lattice study's coupling bounds.

The L-lag coupling (ISDP §4, App. D.2; :mod:`isdp.mcmc`) estimates an upper bound on the TV distance of the
component-wise sampler from its target. On lattices of dimension 1 or 2 the laws it works with can be computed
exactly, so the estimate and Alg. 2's claims can be checked against them:

- :func:`jump_law`: the law of Eq. 11's jump v = B z, for z with i.i.d. coordinates of a finite law;
- :func:`coupled_sweep_exact`: one coupled sweep of Alg. 2 on a two-dimensional lattice: P(X' = Y'), the two
  single-chain one-sweep laws and their TV (a maximal coupling would meet with probability 1 − TV);
- :func:`apart_probabilities`: the law of Alg. 2's L-lag pair on a rank-1 lattice propagated for many
  iterations, hence P(τ − L > t).

On a lattice of rank 1 the pair (w_X, w_Y) of lattice coordinates is a Markov chain on Z², so its law after
t coupled iterations can be propagated exactly on a box [-K, K]². One iteration is
:func:`isdp.mcmc._coupling._coupled_sweep` for one basis column: the proposals w_X + DG and w_Y + DG are maximally
coupled (equal at q with probability c(q) = min of the two pmfs; otherwise drawn independently from the two
residuals, whose supports are disjoint) and one uniform decides both Metropolis tests. Mass that a move takes
out of the box, and the DG tails cut where less than ``mass`` is left, is dropped, so 1 − P(X_t = Y_{t−L})
over-states the chance that the pair has not met.

The single chain's exact laws (enumeration, transition matrix, TV curve) are :mod:`isdp.exact`'s.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from isdp.mcmc import DoubleGeometric

#: how the two Metropolis tests share randomness: Alg. 2's one uniform, or one uniform per chain
UNIFORMS = ("common", "independent")


def jump_law(lattice, pmf: dict[int, float]) -> dict[tuple[int, ...], float]:
    """Return the exact law of ISDP Eq. 11's jump v = V(0, …, 0, z) = B z.

    B is the lattice basis (V's last columns, Smith or LLL-reduced) and z has i.i.d. coordinates of the finite
    law ``pmf``. Every z of the product support is enumerated, so the law is exact; the cost is
    ``len(pmf) ** lattice.dim``.

    Parameters
    ----------
    lattice : IntegerLattice
        The lattice Λ(A); its ``basis`` (n × k) maps z ∈ Z^k to v ∈ Λ(A).
    pmf : dict[int, float]
        The finite law of each coordinate of z: value → probability.

    Returns
    -------
    dict[tuple[int, ...], float]
        The pmf of v: each jump (a lattice vector, as a tuple of n ints) → its probability.

    See Also
    --------
    coupled_sweep_exact : the exact law of one coupled sweep.

    Examples
    --------
    One sum over three cells (Smith basis e_2 − e_1, e_3 − e_1), z_j ∈ {−1, 0, 1}:

    >>> from isdp.lattice import IntegerLattice, sum_constraint
    >>> from isdp_papers.lattice_study.coupled_laws import jump_law
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> law = jump_law(lattice, {-1: 0.25, 0: 0.5, 1: 0.25})
    >>> len(law), law[(0, 0, 0)], law[(-2, 1, 1)]
    (9, 0.25, 0.0625)
    """
    values, probs = np.array(list(pmf), dtype=np.int64), np.array(list(pmf.values()), dtype=float)
    index = np.indices((len(values),) * lattice.dim).reshape(lattice.dim, -1).T  # every z, as indices of values
    jumps, which = np.unique(values[index] @ np.asarray(lattice.basis, dtype=np.int64).T, axis=0, return_inverse=True)
    mass = np.bincount(which.ravel(), weights=probs[index].prod(axis=1), minlength=len(jumps))
    return {tuple(int(c) for c in v): float(m) for v, m in zip(jumps, mass, strict=True)}


def _aligned_tv(law_x, law_y, shift) -> float:
    """TV of two laws given on boxes of one shape whose corners differ by the integer vector ``shift`` (y − x)."""
    shift = np.asarray(shift)
    canvas = [np.zeros(np.abs(shift) + law_x.shape) for _ in range(2)]
    for c, law, corner in ((canvas[0], law_x, np.maximum(-shift, 0)), (canvas[1], law_y, np.maximum(shift, 0))):
        c[tuple(slice(o, o + s) for o, s in zip(corner, law.shape, strict=True))] = law
    return 0.5 * float(np.abs(canvas[0] - canvas[1]).sum())


def coupled_sweep_exact(lattice, target, proposal_eps: float, pairs, mass: float = 1e-15) -> list[dict]:
    """Exact one-iteration laws of Alg. 2 on a two-dimensional lattice, for each pair (w_x, w_y) of coordinates.

    One coupled sweep (:func:`isdp.mcmc._coupling._coupled_sweep`: coordinate j's proposals w_x[j] + DG and w_y[j] + DG
    maximally coupled, one uniform for both Metropolis tests): P(X' = Y'), the single-chain one-sweep laws
    K(x, ·) and K(y, ·) and their TV; the same for the first update alone. The DG jumps are cut at T with
    P(|DG| > T) < ``mass``, moves beyond it dropped (the stay probability is what the kept moves leave).

    Meeting needs equality after every update (coordinate j changes only at update j), so it is a recursion on the
    common coordinates: with c(z) = min(p(z), p(z − d)) (proposals equal at w_x[j] + z; the maximal coupling's
    residuals have disjoint supports, so unequal proposals never meet) and a_X, a_Y the two acceptances, the pair
    meets at w_x[j] + z with probability c(z) min(a_X, a_Y) and, when d = w_y[j] − w_x[j] = 0, also stays together
    with probability Σ c (1 − max(a_X, a_Y)).

    Parameters
    ----------
    lattice : IntegerLattice
        A lattice of dimension 2 (a ValueError otherwise).
    target : Target
        The target π (its ``log_density`` of lattice vectors).
    proposal_eps : float
        The DG proposal's ε.
    pairs : sequence of (w_x, w_y)
        Pairs of lattice coordinates (each a length-2 integer vector) to start the coupled sweep from.
    mass : float
        The DG tail mass left out: T is the smallest cut with P(|DG| > T) < ``mass``.

    Returns
    -------
    list[dict]
        One dict per pair: ``meet`` (P(X' = Y')), ``tv`` (TV(K(x, ·), K(y, ·))), ``law_x`` and ``law_y``
        (K(x, ·) and K(y, ·) as (2T + 1) × (2T + 1) arrays over the moves (z₀, z₁) ∈ [−T, T]²), ``T``, and
        ``meet_first``, ``tv_first`` (the same for the first update alone; NaN unless the pair differs only in
        its first coordinate).

    Raises
    ------
    ValueError
        If the lattice is not two-dimensional.

    See Also
    --------
    apart_probabilities : the pair law over many iterations on a rank-1 lattice.

    Examples
    --------
    Two pairs on one sum over three cells, apart by one and by two coordinates:

    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp_papers.lattice_study.coupled_laws import coupled_sweep_exact
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> out = coupled_sweep_exact(lattice, generalized_laplace(1.0), 1.0, [([0, 0], [1, 0]), ([0, 0], [1, 1])])
    >>> [(round(o["meet"], 3), round(o["tv"], 3)) for o in out]
    [(0.203, 0.782), (0.044, 0.896)]
    """
    if lattice.dim != 2:
        raise ValueError(f"the exact coupled sweep is written for two-dimensional lattices, not {lattice.dim}")
    a = np.exp(-proposal_eps)
    T = int(np.ceil(np.log(mass * (1 + a) / 2) / -proposal_eps))  # P(|DG| > T) = 2 a^(T+1) / (1 + a)
    z = np.arange(-T, T + 1)
    p = DoubleGeometric(proposal_eps).pmf(z)
    pairs = [(np.asarray(wx, dtype=np.int64), np.asarray(wy, dtype=np.int64)) for wx, wy in pairs]
    points = np.array([w for pair in pairs for w in pair])
    lo, hi = points.min(axis=0) - T, points.max(axis=0) + T
    w1 = np.arange(lo[1], hi[1] + 1)
    # log π on the box of every pair (rows w[0], columns w[1]), in blocks of rows to bound the memory
    blocks = np.array_split(np.arange(lo[0], hi[0] + 1), max(1, (hi[0] - lo[0]) // 128))
    b0, b1 = lattice.basis[:, 0], lattice.basis[:, 1]
    logp = np.concatenate([target.log_density(w0[:, None, None] * b0 + w1[None, :, None] * b1) for w0 in blocks])
    second = {}  # the second update's acceptance at every (w[0], w[1] + z) from column w[1] = c

    def accept_second(c):
        if c not in second:
            second[c] = np.exp(np.minimum(0.0, logp - logp[:, c - lo[1], None]))
        return second[c]

    def box(c, axis):  # the rows (axis 0) or columns (axis 1) c + z
        return slice(c - lo[axis] - T, c - lo[axis] + T + 1)

    def accept_first(w_from, c):  # the first update from w_from, proposing (w_x[0] + z, c)
        return np.exp(np.minimum(0.0, logp[box(c[0], 0), c[1] - lo[1]] - logp[w_from[0] - lo[0], w_from[1] - lo[1]]))

    def one_sweep(w):
        first = p * accept_first(w, w)
        first[T] = 0.0
        first[T] = 1.0 - first.sum()
        law = first[:, None] * p * accept_second(w[1])[box(w[0], 0), box(w[1], 1)]
        law[:, T] = 0.0
        law[:, T] = first - law.sum(axis=1)
        return first, law

    def overlap(d):
        return np.minimum(p, np.where(np.abs(z - d) <= T, DoubleGeometric(proposal_eps).pmf(z - d), 0.0))

    out = []
    for wx, wy in pairs:
        d = wy - wx
        c = overlap(d[0])
        ax, ay = accept_first(wx, wx), accept_first(wy, (wx[0], wy[1]))
        met = c * np.minimum(ax, ay)
        if d[0] == 0:
            met[T] += (c * (1 - np.maximum(ax, ay))).sum()
        c = overlap(d[1])
        ax = accept_second(wx[1])[box(wx[0], 0), box(wx[1], 1)]
        ay = accept_second(wy[1])[box(wx[0], 0), box(wx[1], 1)]
        per_row = (c * np.minimum(ax, ay)).sum(axis=1)
        if d[1] == 0:
            per_row += (c * (1 - np.maximum(ax, ay))).sum(axis=1)
        (first_x, law_x), (first_y, law_y) = one_sweep(wx), one_sweep(wy)
        alone = d[1] == 0  # the first update alone is comparable for pairs that differ only in its coordinate
        out.append(
            dict(
                meet=float(met @ per_row),
                tv=_aligned_tv(law_x, law_y, d),
                law_x=law_x,
                law_y=law_y,
                T=T,
                meet_first=float(met.sum()) if alone else np.nan,
                tv_first=_aligned_tv(first_x, first_y, d[:1]) if alone else np.nan,
            )
        )
    return out


@njit(cache=True)
def _tests(ax, ay, common):
    """P(both accept), P(only X accepts), P(only Y accepts) for acceptances ax, ay."""
    if common:
        return min(ax, ay), max(0.0, ax - ay), max(0.0, ay - ax)
    return ax * ay, ax * (1.0 - ay), (1.0 - ax) * ay


@njit(cache=True)
def _acceptances(logpi, n, T):
    """``acc[i, q − i + T]``: the Metropolis acceptance of a move from i to q (box indices, |q − i| ≤ T)."""
    acc = np.empty((n, 2 * T + 1))
    for i in range(n):
        for k in range(2 * T + 1):
            acc[i, k] = min(1.0, np.exp(logpi[i + k] - logpi[i + T]))
    return acc


@njit(cache=True)
def _pair_step(P, logpi, pmf, common):
    """One coupled iteration applied to the pair law ``P`` (index w + K on both axes).

    ``logpi`` is the log target on [-K - T, K + T] (index w + K + T), ``pmf`` the DG proposal on [-T, T].

    Every term is added to its cell in the order of the plain double loop over the states (i, j) and the
    proposals (q, r), so the result does not depend on how the loop is arranged, to the last bit: the
    acceptances are tabulated once, the residual proposals listed once per state, and the cells (i, j) and
    (q, j) that a proposal row keeps adding to are held in registers. (Summing the stay-put share of the
    residual moves that leave the box in closed form would be faster still, but it changes the rounding of the
    kept mass, and 1 − trace, the dropped mass a row reads at 1e-11, carries that rounding: about 1e-14.)
    """
    n, T = P.shape[0], (pmf.shape[0] - 1) // 2
    m = 2 * T + 1
    out = np.zeros_like(P)
    acc = _acceptances(logpi, n, T)
    qs, mrx, axs = np.empty(m, dtype=np.int64), np.empty(m), np.empty(m)
    rs, rys, ays = np.empty(m, dtype=np.int64), np.empty(m), np.empty(m)

    def put(q, r, w):  # a move out of the box is dropped
        if 0 <= q < n and 0 <= r < n:
            out[q, r] += w

    for i in range(n):
        for j in range(n):
            mass = P[i, j]
            if mass == 0.0:
                continue
            overlap = 0.0
            for q in range(max(i, j) - T, min(i, j) + T + 1):  # both propose q
                c = min(pmf[q - i + T], pmf[q - j + T])
                overlap += c
                both, x_only, y_only = _tests(acc[i, q - i + T], acc[j, q - j + T], common)
                put(q, q, mass * c * both)
                put(q, j, mass * c * x_only)
                put(i, q, mass * c * y_only)
                out[i, j] += mass * c * (1.0 - both - x_only - y_only)
            rest = 1.0 - overlap
            if rest <= 1e-300:
                continue
            # unequal proposals: independent residuals; the proposals of positive residual, in increasing order
            nq = 0
            for q in range(i - T, i + T + 1):
                rx = pmf[q - i + T] - (min(pmf[q - i + T], pmf[q - j + T]) if abs(q - j) <= T else 0.0)
                if rx > 0.0:
                    qs[nq], mrx[nq], axs[nq] = q, mass * rx, acc[i, q - i + T]
                    nq += 1
            nr, r_lo, r_hi = 0, 0, 0  # rs[r_lo:r_hi] are the proposals r inside the box
            for r in range(j - T, j + T + 1):
                ry = pmf[r - j + T] - (min(pmf[r - i + T], pmf[r - j + T]) if abs(r - i) <= T else 0.0)
                if ry > 0.0:
                    rs[nr], rys[nr], ays[nr] = r, ry, acc[j, r - j + T]
                    nr += 1
                    r_lo += r < 0
                    r_hi += r < n
            stay = out[i, j]
            for a in range(nq):
                q, mx, ax = qs[a], mrx[a], axs[a]
                if q < 0 or q >= n:  # X's move is dropped: Y's move to r in the box and staying put are kept
                    for b in range(r_lo):
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        stay += mx * rys[b] / rest * (1.0 - both - x_only - y_only)
                    for b in range(r_lo, r_hi):
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        w = mx * rys[b] / rest
                        if rs[b] == j:
                            stay += w * y_only
                        else:
                            out[i, rs[b]] += w * y_only
                        stay += w * (1.0 - both - x_only - y_only)
                    for b in range(r_hi, nr):
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        stay += mx * rys[b] / rest * (1.0 - both - x_only - y_only)
                elif q != i:  # X moves to q: cells (q, r), (q, j), (i, r), (i, j)
                    moved = out[q, j]
                    for b in range(r_lo):
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        w = mx * rys[b] / rest
                        moved += w * x_only
                        stay += w * (1.0 - both - x_only - y_only)
                    for b in range(r_lo, r_hi):
                        r = rs[b]
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        w = mx * rys[b] / rest
                        if r == j:
                            moved += w * both
                            moved += w * x_only
                            stay += w * y_only
                        else:
                            out[q, r] += w * both
                            moved += w * x_only
                            out[i, r] += w * y_only
                        stay += w * (1.0 - both - x_only - y_only)
                    for b in range(r_hi, nr):
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        w = mx * rys[b] / rest
                        moved += w * x_only
                        stay += w * (1.0 - both - x_only - y_only)
                    out[q, j] = moved
                else:  # X proposes its own state: (q, r) is (i, r) and (q, j) is (i, j)
                    for b in range(nr):
                        r = rs[b]
                        both, x_only, y_only = _tests(ax, ays[b], common)
                        w = mx * rys[b] / rest
                        if r == j:
                            stay += w * both
                            stay += w * x_only
                            stay += w * y_only
                        elif 0 <= r < n:
                            out[i, r] += w * both
                            stay += w * x_only
                            out[i, r] += w * y_only
                        else:
                            stay += w * x_only
                        stay += w * (1.0 - both - x_only - y_only)
            out[i, j] = stay
    return out


def apart_probabilities(
    lattice,
    target,
    *,
    proposal_eps: float,
    lag: int,
    horizon: int,
    radius: int,
    uniforms: str = "common",
    mass: float = 1e-13,
) -> np.ndarray:
    """P(X_{L+t} ≠ Y_t) for t = 1, …, ``horizon``, from the exact law of Alg. 2's L-lag coupled pair.

    The pair of chains started at 0 (X runs ``lag`` iterations alone first, as :func:`isdp.mcmc.meeting_times`)
    on a rank-1 ``lattice``, cut to coordinates |w| ≤ ``radius``. With Alg. 2's common uniform the pair moves as
    one once met, so this is P(τ − L > t); with ``uniforms="independent"`` a met pair can part again.

    Parameters
    ----------
    lattice : IntegerLattice
        A lattice of dimension 1 (a ValueError otherwise).
    target : Target
        The target π (its ``log_density`` of lattice vectors).
    proposal_eps : float
        The DG proposal's ε.
    lag : int
        The lag L.
    horizon : int
        The number of coupled iterations after the lag.
    radius : int
        The box |w| ≤ ``radius`` of lattice coordinates the pair law is kept on.
    uniforms : str
        One of :data:`UNIFORMS`: ``"common"`` (Alg. 2) or ``"independent"`` (one uniform per chain).
    mass : float
        The DG tail mass left out of the proposals.

    Returns
    -------
    numpy.ndarray
        ``horizon`` values, P(X_{L+t} ≠ Y_t) for t = 1, …, ``horizon``: an upper bound, since mass dropped at the
        box's edge or in the DG tails counts as apart.

    Raises
    ------
    ValueError
        If the lattice is not of dimension 1, or ``uniforms`` is not one of :data:`UNIFORMS`.

    See Also
    --------
    isdp.mcmc.meeting_times : the same coupling, simulated.

    Notes
    -----
    With Alg. 2's common uniform, the value at t is P(τ − L > t): the terms of Biswas, Jacob &
    Vanetti's bound d_TV(π_t, π) ≤ Σ_{j≥1} P(τ − L > t + (j−1)L) are these values at t, t + L, …
    (the dropped mass only raises them), so the bound can be computed exactly on small lattices.

    Examples
    --------
    Two cells with one sum (a rank-1 lattice), lag 2:

    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp_papers.lattice_study.coupled_laws import apart_probabilities
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(2))
    >>> apart = apart_probabilities(lattice, generalized_laplace(1.0), proposal_eps=1.0, lag=2, horizon=5, radius=6)
    >>> apart.round(3).tolist()
    [0.07, 0.056, 0.045, 0.037, 0.03]
    """
    if lattice.dim != 1:
        raise ValueError(f"the exact pair law is written for rank-1 lattices, not dimension {lattice.dim}")
    if uniforms not in UNIFORMS:
        raise ValueError(f"uniforms must be one of {UNIFORMS}, not {uniforms!r}")
    a = np.exp(-proposal_eps)
    # P(|DG| > T) = 2 a^(T+1) / (1 + a) < mass; T ≥ 2 radius keeps every point where a cut tail would make the
    # residual too large (farther than T from one chain) outside the box, so the cut only ever drops mass
    T = max(int(np.ceil(np.log(mass * (1 + a) / 2) / -proposal_eps)), 2 * radius)
    pmf = DoubleGeometric(proposal_eps).pmf(np.arange(-T, T + 1))
    w = np.arange(-radius - T, radius + T + 1)
    logpi = target.log_density(w[:, None] * lattice.basis[:, 0])
    n = 2 * radius + 1
    P = np.zeros((n, n))
    P[radius, radius] = 1.0
    for _ in range(lag):  # the pair (X, X) under the common uniform is the single chain on the diagonal
        P = _pair_step(P, logpi, pmf, True)
    P = np.outer(P.diagonal(), np.eye(n)[radius])  # (X_L, Y_0 = 0)
    apart = np.empty(horizon)
    for t in range(horizon):
        P = _pair_step(P, logpi, pmf, uniforms == "common")
        apart[t] = 1.0 - np.trace(P)
    return apart
