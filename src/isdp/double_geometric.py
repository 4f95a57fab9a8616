"""The double geometric (discrete Laplace) law and the maximal coupling of two shifted copies.

DG(ε), ``ε > 0``: ``P(k) = (1-a)/(1+a) · a^|k|`` on the integers with ``a = exp(-ε)``. It is the
ℓ1 generalized Laplace on ``Z`` and the proposal law of the samplers. Every function here, like
SciPy's ``dlaplace`` (which the pmf, cdf and variance delegate to), takes ε: the one
parametrisation of the double geometric in isdp (``a`` appears only inside formulas).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._rng import dg_draw, dg_table, seed_states, uniform_pos


def _check_eps(eps: float) -> float:
    eps = float(eps)
    if not 0.0 < eps < np.inf:
        raise ValueError(f"double geometric eps must be positive and finite, got {eps}")
    return eps


def _law(eps: float):
    """SciPy's discrete Laplace with parameter ε: the same law."""
    from scipy import stats  # here, not at the top: SciPy's statistics cost a job 0.5 s to import

    return stats.dlaplace(_check_eps(eps))


def dg_logpmf(k, eps: float) -> np.ndarray:
    """log P(K = k) for K ~ DG(ε)."""
    return _law(eps).logpmf(k)


def dg_pmf(k, eps: float) -> np.ndarray:
    """P(K = k) for K ~ DG(ε)."""
    return _law(eps).pmf(k)


def dg_cdf(k, eps: float) -> np.ndarray:
    """P(K <= k) for K ~ DG(ε)."""
    return _law(eps).cdf(k)


def dg_variance(eps: float) -> float:
    """Var K = 2a / (1-a)^2, a = exp(-ε)."""
    return float(_law(eps).var())


def dg_rvs(eps: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact DG(ε) draws as the difference of two i.i.d. Geometric(1 - exp(-ε)) variables (int64)."""
    a = np.exp(-_check_eps(eps))
    return (rng.geometric(1 - a, size) - rng.geometric(1 - a, size)).astype(np.int64)


@njit(cache=True)
def _dg_fill(states, dg, out):
    per_stream = out.shape[1]
    for i in range(out.shape[0]):
        for j in range(per_stream):
            out[i, j] = dg_draw(states[i], dg)


def dg_rvs_compiled(eps: float, size: int, seed: int, max_table_bits: int = 11) -> np.ndarray:
    """DG(ε) draws from the compiled sampler the MCMC kernels use (for testing it).

    A small ``max_table_bits`` sends more draws through the sampler's exact tail fallback.
    """
    out = np.empty((1, int(size)), dtype=np.int64)
    _dg_fill(seed_states(seed, 1), dg_table(_check_eps(eps), max_table_bits), out)
    return out[0]


@njit  # not inlined, as _rng.dg_draw: cold compile time, no speed gained
def maximal_coupling_dg(s, mean_x, mean_y, dg):
    """Draw (X, Y), X ~ mean_x + DG(ε), Y ~ mean_y + DG(ε), with P(X = Y) = 1 - TV.

    The rejection construction of Thorisson / Jacob et al.: draw X from p; keep Y = X with
    probability min(1, q(X)/p(X)); otherwise draw Y from q until it lands where q > p. For
    shifted DGs, log q(z) - log p(z) = (|z - mean_y| - |z - mean_x|) log a.
    """
    log_a = dg[3]
    x = mean_x + dg_draw(s, dg)
    if np.log(uniform_pos(s)) <= (abs(x - mean_y) - abs(x - mean_x)) * log_a:
        return x, x
    while True:
        y = mean_y + dg_draw(s, dg)
        if np.log(uniform_pos(s)) > (abs(y - mean_x) - abs(y - mean_y)) * log_a:
            return x, y


@njit(cache=True)
def _coupling_fill(state, mean_x, mean_y, dg, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = maximal_coupling_dg(state, mean_x, mean_y, dg)


def maximal_coupling_rvs(mean_x: int, mean_y: int, eps: float, size: int, seed: int) -> np.ndarray:
    """``size`` pairs from the maximal coupling of ``mean_x + DG(ε)`` and ``mean_y + DG(ε)``."""
    out = np.empty((int(size), 2), dtype=np.int64)
    _coupling_fill(seed_states(seed, 1)[0], int(mean_x), int(mean_y), dg_table(_check_eps(eps)), out)
    return out


def dg_tv_shift(shift: int, eps: float) -> float:
    """TV distance between DG(ε) and shift + DG(ε): ``1 - P(X = Y)`` under maximal coupling."""
    eps = _check_eps(eps)
    d = abs(int(shift))
    if d == 0:
        return 0.0
    reach = d + int(np.ceil(np.log(1e-18) / -eps))  # beyond it both tails are < 1e-18
    ks = np.arange(-reach, reach + 1)
    return float(1.0 - np.minimum(dg_pmf(ks, eps), dg_pmf(ks - d, eps)).sum())
