"""The Double Geometric mechanism as Congenial DP prints it.

The pmf (1.3), ``a = exp(−ε/∇)``, and its attained level (Def 1.2); App. B's CDF and quantile function, with the checks
that the quantile inverts the CDF and that draws through it follow DG(ε) (chi-square).
"""

from __future__ import annotations

import numpy as np

from isdp.mcmc import DoubleGeometric


def dg_logpmf_printed(u, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """Log of (1.3) as printed: ``(1 − a)/(1 + a) · a^|u|`` with ``a = exp(−ε/∇(s))``."""
    a = np.exp(-eps / sensitivity)
    return np.log((1.0 - a) / (1.0 + a)) + np.abs(np.asarray(u, dtype=float)) * np.log(a)


def dg_level(eps: float, sensitivity: int, reach: int = 50) -> float:
    """Return the attained level of the Double Geometric mechanism (1.3) on an integer query of sensitivity ``∇``.

    ``max log p(u) − log p(u + δ)`` over shifts ``δ = 1..∇`` and ``|u| ≤ reach`` (for a discrete additive law the
    supremum over sets is attained at a point; the ratio is constant for ``u ≥ 0``, so any reach ≥ ∇ is exact).
    """
    u = np.arange(-reach, reach + 1)
    return float(
        max(
            (dg_logpmf_printed(u, eps, sensitivity) - dg_logpmf_printed(u + d, eps, sensitivity)).max()
            for d in range(1, sensitivity + 1)
        )
    )


def dg_cdf_printed(u, eps: float) -> np.ndarray:
    """Return the DG CDF as printed in Congenial DP App. B.

    ``a^{−u}/(1 + a)`` for ``u ≤ 0``, ``1 − a^{u+1}/(1 + a)`` for ``u > 0``, ``a = exp(−ε)``.
    """
    u = np.asarray(u, dtype=float)
    a = float(np.exp(-eps))
    with np.errstate(over="ignore"):
        return np.where(u <= 0, a ** (-u) / (1.0 + a), 1.0 - a ** (u + 1.0) / (1.0 + a))


def dg_quantile(v, eps: float) -> np.ndarray:
    """Return the quantile function of DG(ε) as printed in Congenial DP App. B, with ``a = exp(−ε)``.

    ``⌈(−log v − log(1 + a)) / log a⌉`` for ``v ≤ 1/(1 + a)``, else ``⌊(log(1 − v) + log(1 + a)) / log a⌋``.
    """
    v = np.asarray(v, dtype=float)
    a = float(np.exp(-eps))
    la, l1a = np.log(a), np.log1p(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.ceil((-np.log(v) - l1a) / la)
        right = np.floor((np.log1p(-v) + l1a) / la)
    return np.where(v <= 1.0 / (1.0 + a), left, right).astype(np.int64)


def dg_inverse_check(v, eps: float) -> np.ndarray:
    """Return True where ``q = dg_quantile(v)`` is the generalized inverse: ``F(q − 1) < v ≤ F(q)``."""
    v = np.asarray(v, dtype=float)
    q = dg_quantile(v, eps)
    return (DoubleGeometric(eps).cdf(q - 1) < v) & (v <= DoubleGeometric(eps).cdf(q))


def dg_chisquare(draws, eps: float, min_expected: float = 5.0) -> tuple[float, int, float]:
    """Chi-square goodness of fit of integer draws to DG(ε): ``(statistic, degrees of freedom, p)``.

    Cells ``k`` for ``|k| ≤ m`` and the two tails beyond, ``m`` the largest value for which the cell
    ``k = m`` and the tail ``k > m`` each expect at least ``min_expected`` draws.
    """
    from scipy import stats

    draws = np.asarray(draws)
    n = draws.size
    a = float(np.exp(-eps))

    def enough(m):  # P(K = m) = (1 − a)/(1 + a) a^m, P(K > m) = a^(m+1) / (1 + a)
        return n * min((1 - a) * a**m, a ** (m + 1)) / (1 + a) >= min_expected

    m = 0
    while enough(m + 1):
        m += 1
    ks = np.arange(-m, m + 1)
    expected = n * np.diff(np.concatenate([[0.0], DoubleGeometric(eps).cdf(np.concatenate([[-m - 1], ks])), [1.0]]))
    observed = np.array([(draws < -m).sum(), *[(draws == k).sum() for k in ks], (draws > m).sum()])
    res = stats.chisquare(observed, expected)
    return float(res.statistic), len(observed) - 1, float(res.pvalue)
