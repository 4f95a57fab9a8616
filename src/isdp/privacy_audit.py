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

from .exact_laws import sweep_transition_matrix
from .lattice import IntegerLattice


@dataclass(frozen=True)
class Law:
    """A law on integer vectors, truncated to a box: ``points`` (m × n), ``probs`` (m,) summing
    to 1 on the box, and ``outside``, a bound on the mass the box leaves out (0 when exact)."""

    points: np.ndarray
    probs: np.ndarray
    outside: float

    def shifted(self, x) -> Law:
        """The law of x + U."""
        return Law(self.points + np.asarray(x, dtype=np.int64), self.probs, self.outside)

    def as_dict(self) -> dict[bytes, float]:
        out: dict[bytes, float] = {}
        for point, p in zip(self.points, self.probs, strict=True):
            key = point.astype(np.int64).tobytes()
            out[key] = out.get(key, 0.0) + float(p)
        return out


def exact_route_noise(sampler, eps: Fraction, radius: int, sigma: Fraction | None = None,
                      accept: bool = True) -> Law:
    """The law of the exact route's noise, from its construction (:class:`isdp.exact_sampling.ExactL1Sampler`,
    or an :class:`isdp.exact_sampling.ExactSampler` of one block).

    Free cells i.i.d. DG(ε) on the box |u_free|_∞ ≤ radius, solved cells ``solve @ u_free``,
    acceptance exp(−ε Σ|u_solved|) and, with ``sigma``, the Gaussian step
    exp(−Σ(|u_i| − σ)²/2σ²), both over the cells in the norm (a derived table's are not);
    without ``accept``, the proposal itself (the free-cell route).
    ``outside`` bounds the accepted mass beyond the box by the free cells' DG tail (acceptance
    ≤ 1), relative to the mass inside.
    """
    if hasattr(sampler, "parts"):  # an isdp.exact_sampling.ExactSampler: the audit lattices are one block
        if len(sampler.parts) != 1:
            raise ValueError(f"the audit enumerates one block; this sampler has {len(sampler.parts)}")
        sampler = sampler.parts[0][1]
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


def dg_box_tail(eps: float, radius: int, k: int) -> float:
    """P(some of k i.i.d. double geometric DG(ε) cells lies beyond |u| ≤ radius): what a box leaves out."""
    r = np.exp(-float(eps))
    return float(-np.expm1(k * np.log1p(-2 * r ** (radius + 1) / (1 + r))))  # 1 − (1 − p)^k, exact for tiny p


def chain_noise(lattice: IntegerLattice, target, proposal_eps: float, iterations: int, radius: int) -> Law:
    """The law of the release chain's noise after ``iterations`` iterations from u = 0, exactly,
    on the box |w|_∞ ≤ radius of ``lattice``'s coordinates (:func:`isdp.exact_laws.sweep_transition_matrix`);
    ``outside`` is the mass that left the box."""
    return chain_noise_path(lattice, target, proposal_eps, [iterations], radius)[0]


def chain_noise_path(lattice: IntegerLattice, target, proposal_eps: float, iterations, radius: int) -> list[Law]:
    """:func:`chain_noise` at each of ``iterations`` (one transition matrix, one pass)."""
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
    """½ Σ |p − q| on the union of the boxes, plus both laws' mass outside them: an upper bound on the
    untruncated distance."""
    a, b = aligned(p, q)
    return float(0.5 * np.abs(a - b).sum() + p.outside + q.outside)


def product(p: Law, q: Law) -> Law:
    """The law of (Y, Z), Y ~ ``p`` and Z ~ ``q`` independent (two mechanisms run on the same data), as
    concatenated vectors; ``outside`` bounds the mass either box leaves out."""
    points = np.hstack([np.repeat(p.points, len(q.points), axis=0), np.tile(q.points, (len(p.points), 1))])
    return Law(points, np.outer(p.probs, q.probs).ravel(), min(1.0, p.outside + q.outside))


def pushforward(law: Law, f) -> Law:
    """The law of f(Y) for Y ~ ``law`` (a post-processing; ``outside`` is unchanged)."""
    images = np.array([f(point) for point in law.points], dtype=np.int64)
    return Law(images, law.probs, law.outside)


def aligned(p: Law, q: Law) -> tuple[np.ndarray, np.ndarray]:
    """The two laws' probabilities on the union of their points (repeated points added up): the arrays
    :func:`hockey_stick_divergence` and :func:`max_loss` compare."""
    points = np.vstack([p.points, q.points])
    _, index = np.unique(points, axis=0, return_inverse=True)
    index = index.ravel()
    m = index.max() + 1
    return (np.bincount(index[: len(p.points)], weights=p.probs, minlength=m),
            np.bincount(index[len(p.points):], weights=q.probs, minlength=m))


def max_loss(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """max ln a/b of two probability arrays on the same outputs, where both are at least ``floor``."""
    both = (a >= floor) & (b >= floor)
    return float(np.max(np.log(a[both]) - np.log(b[both])))


def max_privacy_loss(p: Law, q: Law, floor: float = 1e-12) -> float:
    """max ln p(y)/q(y) over the outputs where both are at least ``floor`` (away from the box edge)."""
    return max_loss(*aligned(p, q), floor)


def hockey_stick_divergence(a: np.ndarray, b: np.ndarray, eps: float) -> float:
    """Σ max(0, a − e^ε b) of two probability arrays on the same outputs: the largest P(B) − e^ε Q(B) over
    sets B, the smallest δ of (ε, δ) for this ordered pair (no truncation slack)."""
    return float(np.maximum(np.asarray(a, dtype=float) - np.exp(eps) * np.asarray(b, dtype=float), 0.0).sum())


def hockey_stick(p: Law, q: Law, eps: float) -> float:
    """:func:`hockey_stick_divergence` of the two laws on the union of their boxes, plus
    :func:`truncation_slack`: an upper bound on the untruncated divergence."""
    return hockey_stick_divergence(*aligned(p, q), eps) + truncation_slack(p, q, eps)


def truncation_slack(p: Law, q: Law, eps: float) -> float:
    """What the truncations can hide from a hockey-stick divergence: p's mass outside its box and
    e^ε times q's."""
    return float(p.outside + np.exp(eps) * q.outside)

__all__ = [
    "Law",
    "chain_noise",
    "chain_noise_path",
    "exact_route_noise",
    "hockey_stick",
    "max_privacy_loss",
    "product",
    "pushforward",
    "total_variation",
    "truncation_slack",
]
