"""An exact privacy audit of the release routes on small lattices (docs/method.md §11, "The audit").

For two neighbouring tables x, x' (same invariants, one or two persons apart) the output law of
a route is computed exactly — from the sampler's own construction, not from the target formula —
on a box of lattice points, and compared with the guarantee the route states:

- the largest privacy loss max_y ln P(M(x) = y)/P(M(x') = y), which a pure ε route must keep
  at most ε (it is attained: the triangle inequality is tight along a lattice direction);
- the hockey-stick divergence Σ_y max(0, P(M(x) = y) − e^ε P(M(x') = y)), at most the stated δ.

Laws on a box are truncations: the mass outside is reported with each law and is what separates
a computed hockey-stick from the true one (it can only add that much).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ..exact import sweep_transition_matrix
from ..lattice import IntegerLattice
from ._laws import TruncatedLaw


def exact_route_noise(
    sampler, epsilon: Fraction, radius: int, sigma: Fraction | None = None, accept: bool = True
) -> TruncatedLaw:
    """Return the law of the exact route's noise, from the sampler's own construction.

    Enumerates the free cells' noise on the box |u_free|_∞ ≤ ``radius``, computes the solved cells
    from it and weighs each point by the proposal and the acceptance steps the sampler applies —
    not by the target formula — so the audit checks the sampler as built.

    Parameters
    ----------
    sampler : isdp.exact.IntegerL1Sampler or isdp.exact.ExactSampler
        The exact sampler; an ``ExactSampler`` must have exactly one block.
    epsilon : fractions.Fraction or float
        ε per unit ℓ1 distance of the proposal's double geometric DG(ε); 1/σ for the Gaussian.
    radius : int
        Half-width of the box of free-cell noise: (2·radius + 1)^k points for k free cells.
    sigma : fractions.Fraction, float or None, default None
        With a σ, the generalized Gaussian's second acceptance step (pass ``epsilon = 1/sigma``).
    accept : bool, default True
        False for the free-cell route: the proposal itself, without the ℓ1 acceptance step.

    Returns
    -------
    TruncatedLaw
        The noise vectors (points of shape (m, n), n the sampler's cells) with their
        probabilities on the box; ``outside`` bounds the accepted mass beyond the box relative to
        the mass inside.

    Raises
    ------
    ValueError
        When an ``ExactSampler`` has more than one block.

    See Also
    --------
    isdp.exact.IntegerL1Sampler.draw : The sampler whose law this is.
    TruncatedLaw.max_privacy_loss, TruncatedLaw.hockey_stick_bound : Compare two shifted copies of the law.

    Notes
    -----
    Free cells i.i.d. DG(ε), solved cells ``solve @ u_free``, acceptance exp(−ε Σ|u_solved|)
    and, with ``sigma``, the Gaussian step exp(−Σ(|u_i| − σ)²/2σ²), both over the cells in the
    norm (a derived table's are not); without ``accept``, the proposal itself (the free-cell
    route). ``outside`` bounds the accepted mass beyond the box by the free cells' DG tail
    (acceptance ≤ 1), relative to the mass inside (docs/method.md §11, "The audit").

    Examples
    --------
    The ℓ1 route under a total of three cells at ε = 1 per person (1/2 per unit ℓ1 distance);
    one person moves from the first cell to the second:

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import IntegerL1Sampler
    >>> from isdp.privacy import exact_route_noise
    >>> sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
    >>> noise = exact_route_noise(sampler, Fraction(1, 2), radius=30)
    >>> noise.points.shape, noise.outside < 1e-5
    ((3721, 3), True)
    >>> bool(np.all(noise.points.sum(axis=1) == 0))  # every noise vector keeps the total
    True
    >>> x, x2 = np.array([1, 0, 2]), np.array([0, 1, 2])
    >>> round(noise.shifted(x).max_privacy_loss(noise.shifted(x2)), 9)  # the stated ε, attained
    1.0
    """
    if hasattr(sampler, "parts"):  # an isdp.exact.ExactSampler: the audit lattices are one block
        if len(sampler.parts) != 1:
            raise ValueError(f"the audit enumerates one block; this sampler has {len(sampler.parts)}")
        sampler = sampler.parts[0][1]
    if hasattr(sampler, "grid"):  # Klein's sampler (isdp.exact.LatticeBlock): the Gaussian route's
        return _klein_noise(sampler, sigma, radius)
    eps, k = float(epsilon), len(sampler.free)
    free = np.array(list(itertools.product(range(-radius, radius + 1), repeat=k)), dtype=np.int64)
    u = np.zeros((len(free), sampler.A.shape[1]), dtype=np.int64)
    u[:, sampler.free] = free
    u[:, sampler.solved] = free @ sampler.solve.T
    normed = np.ones(sampler.A.shape[1], dtype=bool)
    normed[sampler.solved] = sampler.in_norm
    logw = -eps * np.abs(free).sum(axis=1) - accept * eps * np.abs(u[:, sampler.solved[sampler.in_norm]]).sum(axis=1)
    if sigma is not None:
        s = float(sigma)
        logw = logw - ((np.abs(u[:, normed]) - s) ** 2).sum(axis=1) / (2 * s * s)
    w = np.exp(logw - logw.max())
    r = np.exp(-eps)
    tail = dg_box_tail(eps, radius, k)  # P(some free cell beyond the box) under the proposal
    inside = float(w.sum() * np.exp(logw.max()) * ((1 - r) / (1 + r)) ** k)  # proposal mass accepted inside
    return TruncatedLaw(u, w / w.sum(), min(1.0, tail / inside))


def _klein_noise(block, sigma, radius: int) -> TruncatedLaw:
    """Return the law of Klein's sampler's accepted output on the box |z_k| ≤ ``radius`` of its basis coordinates.

    Computed from the pass's own centres (:meth:`isdp.exact.LatticeBlock.log_weight`).
    """
    if sigma is None:
        raise ValueError("Klein's sampler serves the Gaussian route only: give sigma")
    sigma2 = Fraction(sigma) ** 2
    shape = (block.dim,) if block.kind == "total" else (block.grid.shape[0] - 1, block.grid.shape[1] - 1)
    coords = np.array(list(itertools.product(range(-radius, radius + 1), repeat=block.dim)), dtype=np.int64)
    u = np.array([block.noise(z.reshape(shape)) for z in coords])
    logw = np.array([block.log_weight(z.reshape(shape), sigma2) for z in coords])
    w = np.exp(logw - logw.max())
    # mass beyond the box: ‖u‖² ≥ λ‖z‖² (λ the Gram matrix's least eigenvalue), a product bound per coordinate
    basis = np.array([block.noise(e.reshape(shape)) for e in np.eye(block.dim, dtype=np.int64)])
    lam = float(np.linalg.eigvalsh(basis @ basis.T).min())
    j = np.arange(1, 10 * radius + 50)
    one = 1 + 2 * np.exp(-lam * j**2 / (2 * float(sigma2))).sum()
    beyond = 2 * np.exp(-lam * j[j > radius] ** 2 / (2 * float(sigma2))).sum()
    # log_weight is −‖u‖²/2σ² itself, so the box's mass in the same units is w.sum()·e^{max}
    outside = block.dim * beyond * one ** (block.dim - 1) / float(w.sum() * np.exp(logw.max()))
    return TruncatedLaw(u, w / w.sum(), min(1.0, outside))


def dg_box_tail(epsilon: float, radius: int, k: int) -> float:
    """P(some of k i.i.d. double geometric DG(ε) cells lies beyond |u| ≤ radius): what a box leaves out.

    The ``outside`` of a :class:`TruncatedLaw` of DG noise enumerated on the box |u|_∞ ≤ ``radius``.

    Parameters
    ----------
    epsilon : float
        ε of the double geometric DG(ε), positive.
    radius : int
        Half-width of the box, ≥ 0.
    k : int
        The number of independent cells.

    Returns
    -------
    float
        1 − (1 − p)^k, p = 2 e^{−ε(radius + 1)}/(1 + e^{−ε}) the tail of one cell, computed without
        cancellation for tiny p.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy._audit import dg_box_tail
    >>> f"{dg_box_tail(0.5, 30, 2):.3e}"
    '4.620e-07'
    >>> a = np.exp(-1.0)
    >>> round(dg_box_tail(1.0, 5, 1), 12), round(float(2 * a**6 / (1 + a)), 12)  # one cell: 2 P(K > 5)
    (0.003624226086, 0.003624226086)
    """
    r = np.exp(-float(epsilon))
    return float(-np.expm1(k * np.log1p(-2 * r ** (radius + 1) / (1 + r))))  # 1 − (1 − p)^k, exact for tiny p


def chain_noise(lattice: IntegerLattice, target, proposal_epsilon: float, iterations: int, radius: int) -> TruncatedLaw:
    """Return the law of the release chain's noise after ``iterations`` iterations from u = 0, exactly.

    Propagates the point mass at u = 0 by the component-wise sampler's exact transition matrix on
    the box |w|_∞ ≤ ``radius`` of ``lattice``'s coordinates
    (:func:`isdp.exact.sweep_transition_matrix`).

    Parameters
    ----------
    lattice : isdp.lattice.IntegerLattice
        Λ(A) with the basis the chain moves along (the release chain uses a mixing basis,
        :mod:`isdp.lattice`).
    target : isdp.lattice.Target
        The chain's target law (:func:`isdp.lattice.generalized_laplace`,
        :func:`isdp.lattice.generalized_gaussian`).
    proposal_epsilon : float
        ε of the chain's double geometric jumps.
    iterations : int
        t, the number of iterations (sweeps over the basis) from u = 0.
    radius : int
        Half-width of the box of lattice coordinates: (2·radius + 1)^k states for a lattice of
        dimension k.

    Returns
    -------
    TruncatedLaw
        The noise vectors u = B w (shape (m, n)) and their probabilities after t iterations,
        normalised on the box; ``outside`` is the mass that left the box.

    See Also
    --------
    chain_noise_path : The same at several iterations in one pass (the public entry).

    Notes
    -----
    The chain is the Gibbs-within-Metropolis sampler of ISDP Algorithm 1 (docs/method.md §3),
    started at 0 as the release chain is; moves that leave the box are dropped rather than folded
    back, so ``outside`` is exactly the mass lost.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice
    >>> from isdp.lattice import generalized_laplace
    >>> from isdp.privacy._audit import chain_noise
    >>> lattice = IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64))
    >>> law = chain_noise(lattice, generalized_laplace(1.0), 1.0, 4, radius=8)
    >>> law.points.shape, law.outside < 1e-9
    ((289, 3), True)
    """
    return chain_noise_path(lattice, target, proposal_epsilon, [iterations], radius)[0]


def chain_noise_path(
    lattice: IntegerLattice, target, proposal_epsilon: float, iterations, radius: int
) -> list[TruncatedLaw]:
    """Return the laws of the release chain's noise after each of ``iterations`` iterations from u = 0, exactly.

    Propagates the point mass at u = 0 by the component-wise sampler's exact transition matrix on
    the box |w|_∞ ≤ ``radius`` of ``lattice``'s coordinates (:func:`isdp.exact.sweep_transition_matrix`),
    one matrix for every iteration count, in one pass.

    Parameters
    ----------
    lattice : isdp.lattice.IntegerLattice
        Λ(A) with the basis the chain moves along (the release chain uses a mixing basis,
        :mod:`isdp.lattice`).
    target : isdp.lattice.Target
        The chain's target law (:func:`isdp.lattice.generalized_laplace`,
        :func:`isdp.lattice.generalized_gaussian`).
    proposal_epsilon : float
        ε of the chain's double geometric jumps.
    iterations : iterable of int
        The iteration counts t at which the law is wanted, in any order, repeats allowed.
    radius : int
        Half-width of the box of lattice coordinates.

    Returns
    -------
    list of TruncatedLaw
        One law per entry of ``iterations``, in their order: the noise vectors u = B w (shape (m, n)) and
        their probabilities, normalised on the box; ``outside`` is the mass that left the box.

    See Also
    --------
    TruncatedLaw.total_variation : The distance of a law from the target.

    Notes
    -----
    The chain is the Gibbs-within-Metropolis sampler of ISDP Algorithm 1 (docs/method.md §3),
    started at 0 as the release chain is; moves that leave the box are dropped rather than folded
    back, so ``outside`` is exactly the mass lost.

    Examples
    --------
    The chain approaches its target: the total variation distance shrinks with t.

    >>> import numpy as np
    >>> from isdp.exact import enumerate_target
    >>> from isdp.lattice import IntegerLattice
    >>> from isdp.lattice import generalized_laplace
    >>> from isdp.privacy import TruncatedLaw, chain_noise_path
    >>> lattice = IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64))
    >>> target = generalized_laplace(1.0)
    >>> laws = chain_noise_path(lattice, target, 1.0, [1, 4, 16], radius=8)
    >>> points, probs, _ = enumerate_target(lattice, target, 8)
    >>> pi = TruncatedLaw(np.asarray(points, dtype=np.int64), probs, 0.0)
    >>> [round(law.total_variation(pi), 3) for law in laws]
    [0.426, 0.247, 0.037]
    """
    P, w, u = sweep_transition_matrix(lattice, target, proposal_epsilon, radius)
    dist = np.zeros(len(w))
    dist[np.flatnonzero(np.all(w == 0, axis=1))[0]] = 1.0
    PT = P.T.tocsr()
    laws, t_now = {}, 0
    for t in sorted(set(int(t) for t in iterations)):
        for _ in range(t - t_now):
            dist = PT @ dist
        t_now = t
        laws[t] = TruncatedLaw(np.asarray(u, dtype=np.int64), dist / dist.sum(), float(1.0 - dist.sum()))
    return [laws[int(t)] for t in iterations]
