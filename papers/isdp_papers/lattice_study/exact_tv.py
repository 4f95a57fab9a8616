"""The exact TV distance of the component-wise sampler from its target on a small lattice, over iterations.

The ground truth the coupling bounds (:mod:`.measures.coupling_bounds`) and the library's certificates are tested
against: the sweep's transition matrix on a box of lattice coordinates (:func:`isdp.exact.sweep_transition_matrix`)
propagated from the starting law, against the enumerated target (:func:`isdp.exact.enumerate_target`).
"""

from __future__ import annotations

import numpy as np

from isdp.exact import enumerate_target, sweep_transition_matrix
from isdp.lattice import IntegerLattice, Target


def exact_tv_curve(
    lattice: IntegerLattice, target: Target, proposal_eps: float, radius: int, start_points, start_probs, ts
) -> tuple[np.ndarray, np.ndarray]:
    """Exact d_TV(μ K^t, π) of the component-wise sampler on ``lattice`` (its basis) started from μ.

    The ground truth that coupling bounds and certificates are tested against. μ puts
    ``start_probs`` on the lattice vectors ``start_points`` (inside the box |w|_∞ ≤ radius of the
    lattice coordinates). The chain is propagated with :func:`isdp.exact.sweep_transition_matrix` on the box,
    which drops the mass of moves leaving it.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) on the basis the sampler sweeps.
    target : Target
        The target π.
    proposal_eps : float
        ε̃ of the double geometric pre-jumps.
    radius : int
        Half-width of the box of lattice coordinates; the box of twice the radius must fit
        the states :func:`isdp.exact.enumerate_target` enumerates.
    start_points : array_like of int
        Lattice vectors of the starting law, shape (s, n).
    start_probs : array_like of float
        Their probabilities, shape (s,), summing to 1.
    ts : array_like of int
        Iterations at which to report the distance (any order).

    Returns
    -------
    tv_box : numpy.ndarray
        float, shape (len(ts),): ½ Σ_box |μ P^t − π|, with π the untruncated target restricted to
        the box.
    tv_upper : numpy.ndarray
        float, shape (len(ts),): tv_box + δ_t + π(outside), an upper bound on the true TV.

    Raises
    ------
    ValueError
        If a start lies outside the box, or ``radius`` or ``proposal_eps`` is out of range.

    Notes
    -----
    δ_t, the mass dropped by t, is the probability that the chain has left the box (it bounds both
    the chain's mass outside and what it lacks inside); π(outside) is 1 − Z_box/Z_2box from the box
    of twice the radius (the mass beyond that is below double precision for the lattices this is
    meant for). docs/method.md §4, "The estimated curve".

    Examples
    --------
    Three cells with one sum, chains started at u = 0:

    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp_papers.lattice_study.exact_tv import exact_tv_curve
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> tv_box, tv_upper = exact_tv_curve(lattice, generalized_laplace(1.0), 1.0, 4, [np.zeros(3, dtype=int)],
    ...                                   [1.0], [0, 5, 20])
    >>> tv_upper.round(3).tolist()
    [0.521, 0.209, 0.022]
    """
    P, w, _ = sweep_transition_matrix(lattice, target, proposal_eps, radius)
    _, p_big, w_big = enumerate_target(lattice, target, 2 * radius)
    inside = np.all(np.abs(w_big) <= radius, axis=1)
    pi = p_big[inside]  # same order as w: both are itertools.product over the box
    pi_out = float(p_big[~inside].sum())
    mu = np.zeros(len(w))
    for point, prob in zip(np.asarray(start_points), np.asarray(start_probs, dtype=float), strict=True):
        wc = lattice.coordinates(point)
        if np.abs(wc).max() > radius:
            raise ValueError(f"start {point.tolist()} lies outside the box of radius {radius}")
        mu[np.ravel_multi_index(tuple(wc + radius), (2 * radius + 1,) * lattice.dim)] += prob
    ts = np.asarray(ts, dtype=np.int64)
    tv_box, tv_upper = np.empty(len(ts)), np.empty(len(ts))
    PT = P.T.tocsr()
    dist, t_now = mu.copy(), 0
    for i in np.argsort(ts):
        while t_now < ts[i]:
            dist = PT @ dist
            t_now += 1
        tv_box[i] = 0.5 * np.abs(dist - pi).sum()
        tv_upper[i] = tv_box[i] + (1.0 - dist.sum()) + pi_out
    return tv_box, tv_upper
