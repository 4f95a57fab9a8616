"""The double geometric (discrete Laplace) law and the maximal coupling of two shifted copies.

DG(a), ``0 < a < 1``: ``P(k) = (1-a)/(1+a) · a^|k|`` on the integers. It is the ℓ1 generalized
Laplace on ``Z`` with ``a = exp(-ε)`` (SciPy's ``dlaplace`` with parameter ε, which the pmf,
cdf and variance here delegate to) and the proposal law of the samplers.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy import stats

from ._rng import dg_table, double_geometric, seed_states, uniform_pos


def _check_a(a: float) -> float:
    a = float(a)
    if not 0.0 < a < 1.0:
        raise ValueError(f"double geometric parameter a must lie in (0, 1), got {a}")
    return a


def _law(a: float):
    """SciPy's discrete Laplace with a = exp(-eps): the same law."""
    return stats.dlaplace(-np.log(_check_a(a)))


def dg_logpmf(k, a: float) -> np.ndarray:
    """log P(K = k) for K ~ DG(a)."""
    return _law(a).logpmf(k)


def dg_pmf(k, a: float) -> np.ndarray:
    """P(K = k) for K ~ DG(a)."""
    return _law(a).pmf(k)


def dg_cdf(k, a: float) -> np.ndarray:
    """P(K <= k) for K ~ DG(a)."""
    return _law(a).cdf(k)


def dg_variance(a: float) -> float:
    """Var K = 2a / (1-a)^2."""
    return float(_law(a).var())


def dg_rvs(a: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact DG(a) draws as the difference of two i.i.d. geometric variables (int64)."""
    a = _check_a(a)
    return (rng.geometric(1 - a, size) - rng.geometric(1 - a, size)).astype(np.int64)


@njit(cache=True)
def _dg_fill(states, dg, out):
    per_stream = out.shape[1]
    for i in range(out.shape[0]):
        for j in range(per_stream):
            out[i, j] = double_geometric(states[i], dg)


def dg_rvs_compiled(a: float, size: int, seed: int, max_table_bits: int = 11) -> np.ndarray:
    """DG(a) draws from the compiled sampler the MCMC kernels use (for testing it).

    A small ``max_table_bits`` sends more draws through the sampler's exact tail fallback.
    """
    a = _check_a(a)
    out = np.empty((1, int(size)), dtype=np.int64)
    _dg_fill(seed_states(seed, 1), dg_table(a, max_table_bits), out)
    return out[0]


@njit(inline="always")
def maximal_coupling_dg(s, mean_x, mean_y, dg):
    """Draw (X, Y), X ~ mean_x + DG(a), Y ~ mean_y + DG(a), with P(X = Y) = 1 - TV.

    The rejection construction of Thorisson / Jacob et al.: draw X from p; keep Y = X with
    probability min(1, q(X)/p(X)); otherwise draw Y from q until it lands where q > p. For
    shifted DGs, log q(z) - log p(z) = (|z - mean_y| - |z - mean_x|) log a.
    """
    log_a = dg[3]
    x = mean_x + double_geometric(s, dg)
    if np.log(uniform_pos(s)) <= (abs(x - mean_y) - abs(x - mean_x)) * log_a:
        return x, x
    while True:
        y = mean_y + double_geometric(s, dg)
        if np.log(uniform_pos(s)) > (abs(y - mean_x) - abs(y - mean_y)) * log_a:
            return x, y


@njit(cache=True)
def _coupling_fill(state, mean_x, mean_y, dg, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = maximal_coupling_dg(state, mean_x, mean_y, dg)


def maximal_coupling_rvs(mean_x: int, mean_y: int, a: float, size: int, seed: int) -> np.ndarray:
    """``size`` pairs from the maximal coupling of ``mean_x + DG(a)`` and ``mean_y + DG(a)``."""
    a = _check_a(a)
    out = np.empty((int(size), 2), dtype=np.int64)
    _coupling_fill(seed_states(seed, 1)[0], int(mean_x), int(mean_y), dg_table(a), out)
    return out


def dg_tv_shift(shift: int, a: float) -> float:
    """TV distance between DG(a) and shift + DG(a): ``1 - P(X = Y)`` under maximal coupling."""
    a = _check_a(a)
    d = abs(int(shift))
    if d == 0:
        return 0.0
    reach = d + int(np.ceil(np.log(1e-18) / np.log(a)))  # beyond it both tails are < 1e-18
    ks = np.arange(-reach, reach + 1)
    return float(1.0 - np.minimum(dg_pmf(ks, a), dg_pmf(ks - d, a)).sum())
