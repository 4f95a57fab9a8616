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
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exact._exact_laws import sweep_transition_matrix
from ..lattice._integer_lattice import IntegerLattice


@dataclass(frozen=True)
class Law:
    """A law on integer vectors, truncated to a box.

    The audit's laws of noise and of outputs: finitely many points with their probabilities,
    normalised on the box, and a bound on the probability the box leaves out, which every
    comparison (:func:`hockey_stick`, :func:`total_variation`) adds back as slack.

    Parameters
    ----------
    points : numpy.ndarray of int64, shape (m, n)
        The support on the box, one integer vector per row (a point may repeat; the comparisons
        add up repeated points).
    probs : numpy.ndarray of float, shape (m,)
        The probability of each row of ``points``, summing to 1 on the box.
    outside : float
        A bound on the mass the box leaves out (for :func:`exact_route_noise`, relative to the
        mass inside); 0 when the law is exact.

    See Also
    --------
    exact_route_noise : The law of an exact route's noise.
    chain_noise : The law of the release chain's noise after t iterations.

    Examples
    --------
    A fair coin on {0, 1} shifted by 5, and its probabilities by point:

    >>> import numpy as np
    >>> from isdp.release import Law
    >>> coin = Law(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
    >>> coin.shifted([5]).points.tolist()
    [[5], [6]]
    >>> sorted(coin.as_dict().values())
    [0.5, 0.5]
    """

    points: np.ndarray
    probs: np.ndarray
    outside: float

    def shifted(self, x) -> Law:
        """The law of x + U for U of this law: the output law of a release of ``x``.

        Parameters
        ----------
        x : array_like of int, shape (n,)
            The table the noise is added to.

        Returns
        -------
        Law
            The points moved by ``x``; the same ``probs`` and ``outside``.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.release import Law
        >>> Law(np.array([[0, 0], [1, -1]]), np.array([0.75, 0.25]), 0.0).shifted([3, 4]).points.tolist()
        [[3, 4], [4, 3]]
        """
        return Law(self.points + np.asarray(x, dtype=np.int64), self.probs, self.outside)

    def as_dict(self) -> dict[bytes, float]:
        """The probabilities keyed by point, repeated points added up.

        Returns
        -------
        dict of bytes to float
            ``point.astype(int64).tobytes()`` → its probability on the box.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.release import Law
        >>> law = Law(np.array([[0], [1], [1]]), np.array([0.5, 0.25, 0.25]), 0.0)
        >>> {int(np.frombuffer(k, dtype=np.int64)[0]): v for k, v in law.as_dict().items()}
        {0: 0.5, 1: 0.5}
        """
        out: dict[bytes, float] = {}
        for point, p in zip(self.points, self.probs, strict=True):
            key = point.astype(np.int64).tobytes()
            out[key] = out.get(key, 0.0) + float(p)
        return out


def exact_route_noise(sampler, eps: Fraction, radius: int, sigma: Fraction | None = None,
                      accept: bool = True) -> Law:
    """The law of the exact route's noise, from the sampler's own construction.

    Enumerates the free cells' noise on the box |u_free|_∞ ≤ ``radius``, computes the solved cells
    from it and weighs each point by the proposal and the acceptance steps the sampler applies —
    not by the target formula — so the audit checks the sampler as built.

    Parameters
    ----------
    sampler : isdp.exact.ExactL1Sampler or isdp.exact.ExactSampler
        The exact sampler; an ``ExactSampler`` must have exactly one block.
    eps : fractions.Fraction or float
        ε per unit ℓ1 distance of the proposal's double geometric DG(ε); 1/σ for the Gaussian.
    radius : int
        Half-width of the box of free-cell noise: (2·radius + 1)^k points for k free cells.
    sigma : fractions.Fraction, float or None, default None
        With a σ, the generalized Gaussian's second acceptance step (pass ``eps = 1/sigma``).
    accept : bool, default True
        False for the free-cell route: the proposal itself, without the ℓ1 acceptance step.

    Returns
    -------
    Law
        The noise vectors (points of shape (m, n), n the sampler's cells) with their
        probabilities on the box; ``outside`` bounds the accepted mass beyond the box relative to
        the mass inside.

    Raises
    ------
    ValueError
        When an ``ExactSampler`` has more than one block.

    See Also
    --------
    isdp.exact.ExactL1Sampler.draw : The sampler whose law this is.
    max_privacy_loss, hockey_stick : Compare two shifted copies of the law.

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
    >>> from isdp.exact import ExactL1Sampler
    >>> from isdp.release import exact_route_noise, max_privacy_loss
    >>> sampler = ExactL1Sampler.build(np.array([[1, 1, 1]]))
    >>> noise = exact_route_noise(sampler, Fraction(1, 2), radius=30)
    >>> noise.points.shape, noise.outside < 1e-5
    ((3721, 3), True)
    >>> bool(np.all(noise.points.sum(axis=1) == 0))  # every noise vector keeps the total
    True
    >>> x, x2 = np.array([1, 0, 2]), np.array([0, 1, 2])
    >>> round(max_privacy_loss(noise.shifted(x), noise.shifted(x2)), 9)  # the stated ε, attained
    1.0
    """
    if hasattr(sampler, "parts"):  # an isdp.exact.ExactSampler: the audit lattices are one block
        if len(sampler.parts) != 1:
            raise ValueError(f"the audit enumerates one block; this sampler has {len(sampler.parts)}")
        sampler = sampler.parts[0][1]
    if hasattr(sampler, "grid"):  # Klein's sampler (isdp.exact.LatticeBlock): the Gaussian route's
        return _klein_noise(sampler, sigma, radius)
    eps, k = float(eps), len(sampler.free)
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
    return Law(u, w / w.sum(), min(1.0, tail / inside))


def _klein_noise(block, sigma, radius: int) -> Law:
    """The law of Klein's sampler's accepted output on the box |z_k| ≤ ``radius`` of its basis coordinates,
    computed from the pass's own centres (:meth:`isdp.exact.LatticeBlock.log_weight`)."""
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
    return Law(u, w / w.sum(), min(1.0, outside))


def dg_box_tail(eps: float, radius: int, k: int) -> float:
    """P(some of k i.i.d. double geometric DG(ε) cells lies beyond |u| ≤ radius): what a box leaves out.

    Examples
    --------
    >>> from isdp.release._privacy_audit import dg_box_tail
    >>> f"{dg_box_tail(0.5, 30, 2):.3e}"
    '4.620e-07'
    """
    r = np.exp(-float(eps))
    return float(-np.expm1(k * np.log1p(-2 * r ** (radius + 1) / (1 + r))))  # 1 − (1 − p)^k, exact for tiny p


def chain_noise(lattice: IntegerLattice, target, proposal_eps: float, iterations: int, radius: int) -> Law:
    """The law of the release chain's noise after ``iterations`` iterations from u = 0, exactly.

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
    proposal_eps : float
        ε of the chain's double geometric jumps.
    iterations : int
        t, the number of iterations (sweeps over the basis) from u = 0.
    radius : int
        Half-width of the box of lattice coordinates: (2·radius + 1)^k states for a lattice of
        dimension k.

    Returns
    -------
    Law
        The noise vectors u = B w (shape (m, n)) and their probabilities after t iterations,
        normalised on the box; ``outside`` is the mass that left the box.

    See Also
    --------
    chain_noise_path : The same at several iterations in one pass.
    total_variation : The distance of this law from the target.

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
    >>> from isdp.release import chain_noise
    >>> lattice = IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64))
    >>> law = chain_noise(lattice, generalized_laplace(1.0), 1.0, 4, radius=8)
    >>> law.points.shape, law.outside < 1e-9
    ((289, 3), True)
    """
    return chain_noise_path(lattice, target, proposal_eps, [iterations], radius)[0]


def chain_noise_path(lattice: IntegerLattice, target, proposal_eps: float, iterations, radius: int) -> list[Law]:
    """:func:`chain_noise` at each of ``iterations`` (one transition matrix, one pass).

    Parameters
    ----------
    lattice : isdp.lattice.IntegerLattice
        Λ(A) with the basis the chain moves along.
    target : isdp.lattice.Target
        The chain's target law.
    proposal_eps : float
        ε of the chain's double geometric jumps.
    iterations : iterable of int
        The iteration counts t at which the law is wanted, in any order, repeats allowed.
    radius : int
        Half-width of the box of lattice coordinates.

    Returns
    -------
    list of Law
        One law per entry of ``iterations``, in their order.

    See Also
    --------
    chain_noise : The law at one iteration count.

    Examples
    --------
    The chain approaches its target: the total variation distance shrinks with t.

    >>> import numpy as np
    >>> from isdp.exact import enumerate_target
    >>> from isdp.lattice import IntegerLattice
    >>> from isdp.lattice import generalized_laplace
    >>> from isdp.release import Law, chain_noise_path, total_variation
    >>> lattice = IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64))
    >>> target = generalized_laplace(1.0)
    >>> laws = chain_noise_path(lattice, target, 1.0, [1, 4, 16], radius=8)
    >>> points, probs, _ = enumerate_target(lattice, target, 8)
    >>> pi = Law(np.asarray(points, dtype=np.int64), probs, 0.0)
    >>> [round(total_variation(law, pi), 3) for law in laws]
    [0.426, 0.247, 0.037]
    """
    P, w, u = sweep_transition_matrix(lattice, target, proposal_eps, radius)
    dist = np.zeros(len(w))
    dist[np.flatnonzero(np.all(w == 0, axis=1))[0]] = 1.0
    PT = P.T.tocsr()
    laws, t_now = {}, 0
    for t in sorted(set(int(t) for t in iterations)):
        for _ in range(t - t_now):
            dist = PT @ dist
        t_now = t
        laws[t] = Law(np.asarray(u, dtype=np.int64), dist / dist.sum(), float(1.0 - dist.sum()))
    return [laws[int(t)] for t in iterations]


def total_variation(p: Law, q: Law) -> float:
    """An upper bound on the total variation distance between two truncated laws.

    Parameters
    ----------
    p, q : Law
        The two laws, on integer vectors of the same length.

    Returns
    -------
    float
        ½ Σ |p − q| on the union of the boxes, plus both laws' mass outside them: an upper bound
        on the untruncated distance.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release import Law, total_variation
    >>> p = Law(np.array([[0], [1]]), np.array([0.5, 0.5]), 0.0)
    >>> q = Law(np.array([[1], [2]]), np.array([0.5, 0.5]), 0.0)
    >>> total_variation(p, q), total_variation(p, p)
    (0.5, 0.0)
    """
    a, b = aligned(p, q)
    return float(0.5 * np.abs(a - b).sum() + p.outside + q.outside)


def product(p: Law, q: Law) -> Law:
    """The joint law of two independent laws: two mechanisms run on the same data.

    Parameters
    ----------
    p, q : Law
        The laws of Y and of Z, independent.

    Returns
    -------
    Law
        The law of (Y, Z) as concatenated vectors (shape (m_p·m_q, n_p + n_q)); ``outside``
        bounds the mass either box leaves out.

    Notes
    -----
    Privacy losses add under independent composition: the largest loss of the joint laws of two
    inputs is the sum of the two mechanisms' largest losses.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release import Law, product
    >>> p = Law(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
    >>> q = Law(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.01)
    >>> joint = product(p, q)
    >>> joint.points.tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    >>> [round(float(v), 4) for v in joint.probs], joint.outside
    ([0.125, 0.075, 0.05, 0.375, 0.225, 0.15], 0.01)
    """
    points = np.hstack([np.repeat(p.points, len(q.points), axis=0), np.tile(q.points, (len(p.points), 1))])
    return Law(points, np.outer(p.probs, q.probs).ravel(), min(1.0, p.outside + q.outside))


def pushforward(law: Law, f) -> Law:
    """The law of f(Y) for Y ~ ``law``: a post-processing of the release.

    Parameters
    ----------
    law : Law
        The law of Y.
    f : callable
        Maps one point (a 1-d int64 array) to an integer vector (of any fixed length).

    Returns
    -------
    Law
        The images f(y) with the probabilities of their points (images may repeat; the
        comparisons add them up); ``outside`` is unchanged.

    Examples
    --------
    Clipping a law at 1, then comparing two clipped laws: post-processing never increases the
    privacy loss.

    >>> import numpy as np
    >>> from isdp.release import Law, max_privacy_loss, pushforward
    >>> p = Law(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.0)
    >>> q = Law(np.array([[0], [1], [2]]), np.array([0.2, 0.3, 0.5]), 0.0)
    >>> clip = lambda y: np.minimum(y, 1)
    >>> pushforward(p, clip).points.tolist()
    [[0], [1], [1]]
    >>> round(max_privacy_loss(p, q), 4), round(max_privacy_loss(pushforward(p, clip), pushforward(q, clip)), 4)
    (0.9163, 0.9163)
    """
    images = np.array([f(point) for point in law.points], dtype=np.int64)
    return Law(images, law.probs, law.outside)


def aligned(p: Law, q: Law) -> tuple[np.ndarray, np.ndarray]:
    """The two laws' probabilities on the union of their points (repeated points added up): the arrays
    :func:`hockey_stick_divergence` and :func:`max_loss` compare."""
    points = np.vstack([p.points, q.points])
    # the rows' ranks among the distinct rows in lexicographic order: np.unique(points, axis=0,
    # return_inverse=True)'s index, 6 times faster (it sorts the rows as structured records)
    order = np.lexsort(points.T[::-1])
    ordered = points[order]
    new = np.ones(len(points), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    index = np.empty(len(points), dtype=np.int64)
    index[order] = np.cumsum(new) - 1
    m = index.max() + 1
    return (np.bincount(index[: len(p.points)], weights=p.probs, minlength=m),
            np.bincount(index[len(p.points):], weights=q.probs, minlength=m))


def max_loss(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """max ln a/b of two probability arrays on the same outputs, where both are at least ``floor``."""
    both = (a >= floor) & (b >= floor)
    return float(np.max(np.log(a[both]) - np.log(b[both])))


def max_privacy_loss(p: Law, q: Law, floor: float = 1e-12) -> float:
    """The largest privacy loss max ln p(y)/q(y) of two output laws.

    Parameters
    ----------
    p, q : Law
        The output laws of a mechanism on two neighbouring inputs (the same noise law shifted by
        x and x', :meth:`Law.shifted`).
    floor : float, default 1e-12
        Outputs where either probability is below ``floor`` are left out, which keeps the
        comparison away from the box edge, where truncation distorts the ratio.

    Returns
    -------
    float
        The largest ln p(y)/q(y) over the outputs where both are at least ``floor``: at most ε for a pure
        ε guarantee of this pair.

    Raises
    ------
    ValueError
        When no output has both probabilities at least ``floor``.

    See Also
    --------
    hockey_stick : The δ of (ε, δ) for this ordered pair.

    Notes
    -----
    For the exact ℓ1 route the bound exp(ε‖v‖) of ISDP Thm 10 is attained at y = x, so the loss
    equals the stated ε for a change the invariants absorb (docs/method.md §11).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release import Law, max_privacy_loss
    >>> p = Law(np.array([[0], [1]]), np.array([0.75, 0.25]), 0.0)
    >>> q = Law(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
    >>> round(max_privacy_loss(p, q), 6)  # ln 3
    1.098612
    """
    return max_loss(*aligned(p, q), floor)


def hockey_stick_divergence(a: np.ndarray, b: np.ndarray, eps: float) -> float:
    """Σ max(0, a − e^ε b) of two probability arrays on the same outputs: the largest P(B) − e^ε Q(B) over
    sets B, the smallest δ of (ε, δ) for this ordered pair (no truncation slack).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release._privacy_audit import hockey_stick_divergence
    >>> hockey_stick_divergence(np.array([0.75, 0.25]), np.array([0.25, 0.75]), 0.0)
    0.5
    """
    return float(np.maximum(np.asarray(a, dtype=float) - np.exp(eps) * np.asarray(b, dtype=float), 0.0).sum())


def hockey_stick(p: Law, q: Law, eps: float) -> float:
    """An upper bound on the hockey-stick divergence of two truncated laws: the δ of (ε, δ).

    Parameters
    ----------
    p, q : Law
        The output laws on two neighbouring inputs, in this order.
    eps : float
        The ε at which δ is measured.

    Returns
    -------
    float
        Σ_y max(0, p(y) − e^ε q(y)) on the union of the boxes (the largest P(B) − e^ε Q(B) over
        sets B), plus :func:`truncation_slack`: an upper bound on the untruncated divergence, so
        the pair meets (ε, δ) for every δ at least this.

    See Also
    --------
    truncation_slack : The part of the bound the truncation contributes.
    max_privacy_loss : The ε of a pure guarantee for the pair.

    Examples
    --------
    The exact ℓ1 route under a total of three cells, one person moving, at ε = 1 per person: the
    divergence at the stated ε is 0 up to the truncation's slack, and clearly positive at half of it.

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactL1Sampler
    >>> from isdp.release import exact_route_noise, hockey_stick, truncation_slack
    >>> noise = exact_route_noise(ExactL1Sampler.build(np.array([[1, 1, 1]])), Fraction(1, 2), radius=30)
    >>> p, q = noise.shifted([1, 0, 2]), noise.shifted([0, 1, 2])
    >>> hockey_stick(p, q, 1.0) - truncation_slack(p, q, 1.0) < 1e-10
    True
    >>> round(hockey_stick(p, q, 0.5), 2)
    0.21
    """
    return hockey_stick_divergence(*aligned(p, q), eps) + truncation_slack(p, q, eps)


def truncation_slack(p: Law, q: Law, eps: float) -> float:
    """What the truncations can hide from a hockey-stick divergence.

    Parameters
    ----------
    p, q : Law
        The two laws, in the order :func:`hockey_stick` takes them.
    eps : float
        The ε of the divergence.

    Returns
    -------
    float
        ``p.outside + exp(eps) * q.outside``: p's mass outside its box and e^ε times q's.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release import Law, truncation_slack
    >>> p = Law(np.array([[0]]), np.array([1.0]), 0.001)
    >>> round(truncation_slack(p, p, 0.0), 6)
    0.002
    """
    return float(p.outside + np.exp(eps) * q.outside)
