"""The exact law of Algorithm 2's L-lag coupled pair on a rank-1 lattice (ISDP §4, App. D.2: the coupled
chains "will couple in finite time with probability one").

On a lattice of rank 1 the pair (w_X, w_Y) of lattice coordinates is a Markov chain on Z², so its law after
t coupled iterations can be propagated exactly on a box [-K, K]². One iteration is
:func:`isdp.coupling._coupled_sweep` for one basis column: the proposals w_X + DG and w_Y + DG are maximally
coupled (equal at q with probability c(q) = min of the two pmfs; otherwise drawn independently from the two
residuals, whose supports are disjoint) and one uniform decides both Metropolis tests. Mass that a move takes
out of the box, and the DG tails cut where less than ``mass`` is left, is dropped, so 1 − P(X_t = Y_{t−L})
over-states the chance that the pair has not met."""

from __future__ import annotations

import numpy as np
from numba import njit

#: how the two Metropolis tests share randomness: Alg. 2's one uniform, or one uniform per chain
UNIFORMS = ("common", "independent")


@njit(cache=True)
def _tests(ax, ay, common):
    """P(both accept), P(only X accepts), P(only Y accepts) for acceptances ax, ay."""
    if common:
        return min(ax, ay), max(0.0, ax - ay), max(0.0, ay - ax)
    return ax * ay, ax * (1.0 - ay), (1.0 - ax) * ay


@njit(cache=True)
def _pair_step(P, logpi, pmf, common):
    """One coupled iteration applied to the pair law ``P`` (index w + K on both axes). ``logpi`` is the log
    target on [-K - T, K + T] (index w + K + T), ``pmf`` the DG proposal on [-T, T]."""
    n, T = P.shape[0], (pmf.shape[0] - 1) // 2
    out = np.zeros_like(P)

    def put(q, r, w):  # a move out of the box is dropped
        if 0 <= q < n and 0 <= r < n:
            out[q, r] += w

    for i in range(n):
        for j in range(n):
            mass = P[i, j]
            if mass == 0.0:
                continue
            li, lj = logpi[i + T], logpi[j + T]
            overlap = 0.0
            for q in range(max(i, j) - T, min(i, j) + T + 1):  # both propose q
                c = min(pmf[q - i + T], pmf[q - j + T])
                overlap += c
                both, x_only, y_only = _tests(min(1.0, np.exp(logpi[q + T] - li)),
                                              min(1.0, np.exp(logpi[q + T] - lj)), common)
                put(q, q, mass * c * both)
                put(q, j, mass * c * x_only)
                put(i, q, mass * c * y_only)
                out[i, j] += mass * c * (1.0 - both - x_only - y_only)
            rest = 1.0 - overlap
            if rest <= 1e-300:
                continue
            for q in range(i - T, i + T + 1):  # unequal proposals: independent residuals
                rx = pmf[q - i + T] - (min(pmf[q - i + T], pmf[q - j + T]) if abs(q - j) <= T else 0.0)
                if rx <= 0.0:
                    continue
                ax = min(1.0, np.exp(logpi[q + T] - li))
                for r in range(j - T, j + T + 1):
                    ry = pmf[r - j + T] - (min(pmf[r - i + T], pmf[r - j + T]) if abs(r - i) <= T else 0.0)
                    if ry <= 0.0:
                        continue
                    both, x_only, y_only = _tests(ax, min(1.0, np.exp(logpi[r + T] - lj)), common)
                    w = mass * rx * ry / rest
                    put(q, r, w * both)
                    put(q, j, w * x_only)
                    put(i, r, w * y_only)
                    out[i, j] += w * (1.0 - both - x_only - y_only)
    return out


def apart_probabilities(lattice, target, *, proposal_eps: float, lag: int, horizon: int, radius: int,
                        uniforms: str = "common", mass: float = 1e-13) -> np.ndarray:
    """P(X_{L+t} ≠ Y_t) for t = 1, …, ``horizon`` (an upper bound: dropped mass counts as apart), for the L-lag
    coupled pair of the chains started at 0 (X runs ``lag`` iterations alone first, as
    :func:`isdp.coupling.meeting_times`), on a rank-1 ``lattice`` cut to coordinates |w| ≤ ``radius``. With Alg. 2's
    common uniform the pair moves as one once met, so this is P(τ − L > t); with ``uniforms="independent"`` a met
    pair can part again."""
    from isdp.double_geometric import dg_pmf

    if lattice.dim != 1:
        raise ValueError(f"the exact pair law is written for rank-1 lattices, not dimension {lattice.dim}")
    if uniforms not in UNIFORMS:
        raise ValueError(f"uniforms must be one of {UNIFORMS}, not {uniforms!r}")
    a = np.exp(-proposal_eps)
    # P(|DG| > T) = 2 a^(T+1) / (1 + a) < mass; T ≥ 2 radius keeps every point where a cut tail would make the
    # residual too large (farther than T from one chain) outside the box, so the cut only ever drops mass
    T = max(int(np.ceil(np.log(mass * (1 + a) / 2) / -proposal_eps)), 2 * radius)
    pmf = dg_pmf(np.arange(-T, T + 1), proposal_eps)
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
