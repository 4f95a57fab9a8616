"""E8 tables built from the accounting (:mod:`.accounting`).

The printed swap-rate → ε tables and ε_b recomputed, ρ → ε under each zCDP conversion, the ε-vs-swap-rate curves, and
the TopDown talk's noise-variance tables with the per-level variances they need.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import optimize, special

from isdp_papers.e8_privacy_accounting.accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    swapping_epsilon,
    swapping_epsilon_from_log_odds,
    swapping_min_epsilon,
    zcdp_to_dp,
)

LOG_ODDS_BOUND = 40.0  # the swap-rate searches run over logit p in ±this: ε exceeds any budget of interest there


def conversion_order(tda: Mapping) -> list[str]:
    """Return the zCDP conversions to tabulate: the configured ``conversion`` first, then the other ``alternatives``."""
    return [tda["conversion"], *[m for m in tda["alternatives"] if m != tda["conversion"]]]


def conversion_table(budget: Mapping, methods: Sequence[str]) -> pd.DataFrame:
    """Return ε at δ of the budget ρ by each conversion, and at ρ ∓ the rounding of the printed ρ.

    ``budget`` holds ``rho``, ``delta`` and ``rho_rounding``.
    """
    rho, delta, r = budget["rho"], budget["delta"], budget["rho_rounding"]
    rows = [
        {
            "conversion": m,
            "rho": rho,
            "delta": delta,
            "epsilon": zcdp_to_dp(rho, delta, m),
            "epsilon_rho_low": zcdp_to_dp(rho - r, delta, m),
            "epsilon_rho_high": zcdp_to_dp(rho + r, delta, m),
        }
        for m in methods
    ]
    return pd.DataFrame(rows)


def swap_curves(b_values: Sequence[int], rate_grid: Mapping) -> pd.DataFrame:
    """Return permutation swapping's ε on a grid of swap rates evenly spaced in log-odds.

    ``rate_grid`` holds ``logit_range`` and ``n``; one curve per largest stratum size b.
    """
    t = np.linspace(*rate_grid["logit_range"], rate_grid["n"])
    p = special.expit(t)
    return pd.DataFrame(
        [
            {"b": b, "logit_swap_rate": ti, "swap_rate": pi, "epsilon": e}
            for b in b_values
            for ti, pi, e in zip(t, p, swapping_epsilon(p, b), strict=True)
        ]
    )


def per_level_laplace_variance(eps: float, levels: int, sensitivity: float) -> float:
    """Variance 2 (Δ₁ · levels / ε)² of Laplace noise when ε is split equally across ``levels``.

    ``sensitivity`` is the ℓ1 sensitivity Δ₁ of the query at one level (basic composition).
    """
    if eps <= 0 or levels < 1 or sensitivity <= 0:
        raise ValueError("ε, levels and the sensitivity must be positive")
    return 2 * (sensitivity * levels / eps) ** 2


def per_level_gaussian_variance(
    eps: float, delta: float, levels: int, sensitivity: float, method: str = "standard"
) -> float:
    """Variance of Gaussian noise when (ε, δ)-DP is met through zCDP split equally across ``levels``.

    The total ρ = ``dp_to_zcdp(eps, delta, method)`` composes additively, so each level gets ρ/levels,
    and a Gaussian with ℓ2 sensitivity Δ₂ (``sensitivity``) and variance σ² is Δ₂²/(2σ²)-zCDP:
    σ² = levels · Δ₂² / (2ρ).
    """
    if levels < 1 or sensitivity <= 0:
        raise ValueError("levels and the sensitivity must be positive")
    return levels * sensitivity**2 / (2 * dp_to_zcdp(eps, delta, method))


def swap_table(printed: pd.DataFrame) -> pd.DataFrame:
    """Reproduce a printed swap-rate → ε table (columns ``b``, ``swap_rate``, ``epsilon``).

    Returns the input with ``epsilon_printed`` (renamed), ``epsilon`` (this formula, unrounded),
    ``gap`` (this − printed), ``other_swap_rate`` (the second rate with the same ε) and its complement.
    """
    out = printed.rename(columns={"epsilon": "epsilon_printed"}).copy()
    out["epsilon"] = swapping_epsilon(out["swap_rate"].to_numpy(), out["b"].to_numpy())
    out["gap"] = out["epsilon"] - out["epsilon_printed"]
    # the other swap rate with the same budget: ε is V-shaped in t = logit p, with ε = t on the right
    # branch and ε = ln(b + 1) − t on the left one
    t = special.logit(out["swap_rate"].to_numpy())
    t_other = np.where(t <= 0.5 * np.log1p(out["b"].to_numpy()), out["epsilon"], np.log1p(out["b"]) - out["epsilon"])
    out["other_swap_rate"] = special.expit(t_other)
    out["other_swap_rate_complement"] = special.expit(-t_other)  # 1 − other rate, exact when it is near 1
    return out


def swap_rate_roots(eps: float, b: int, n_grid: int = 4001) -> np.ndarray:
    """Return the log-odds logit p of every swap rate with budget ``eps``, found numerically.

    Independent of the closed form of ``swap_rates_for_epsilon`` (in :mod:`.accounting`): brackets the
    sign changes of ε − ``eps`` on a grid uniform in logit p over ±``LOG_ODDS_BOUND``, with the
    numerically found minimiser added so that two roots closer than the grid step are still
    separated, and refines each with Brent's method. Log-odds keep rates near 1 distinct.
    """
    t_min = optimize.minimize_scalar(
        lambda u: swapping_epsilon_from_log_odds(u, b),
        bounds=(-LOG_ODDS_BOUND, LOG_ODDS_BOUND),
        method="bounded",
        options={"xatol": 1e-12},
    ).x
    t = np.sort(np.append(np.linspace(-LOG_ODDS_BOUND, LOG_ODDS_BOUND, n_grid), t_min))
    f = swapping_epsilon_from_log_odds(t, b) - eps
    roots = [
        optimize.brentq(lambda u: swapping_epsilon_from_log_odds(u, b) - eps, t[i], t[i + 1], xtol=1e-13)
        for i in np.flatnonzero(np.sign(f[:-1]) != np.sign(f[1:]))
    ]
    return np.array(roots)


def swap_min_table(b_values, eps_offsets=()) -> pd.DataFrame:
    """Per largest stratum size b.

    ε_b and p* in closed form and by numerical minimisation, and, for each ε = ε_b + ``eps_offsets[k]``, the number of
    swap rates found numerically (``n_rates_k``) and their largest log-odds distance from the closed-form pair
    (``log_odds_gap_k``).
    """
    rows = []
    for b in sorted({int(v) for v in b_values}):
        eps_b, p_star = swapping_min_epsilon(b)
        res = optimize.minimize_scalar(
            lambda u, b=b: swapping_epsilon_from_log_odds(u, b),
            bounds=(-LOG_ODDS_BOUND, LOG_ODDS_BOUND),
            method="bounded",
            options={"xatol": 1e-10},
        )
        row = {
            "b": b,
            "ln_b_plus_1": math.log1p(b),
            "min_epsilon": eps_b,
            "argmin_swap_rate": p_star,
            "min_epsilon_numeric": float(res.fun),
            "argmin_swap_rate_numeric": float(special.expit(res.x)),
        }
        for k, off in enumerate(eps_offsets):
            roots = swap_rate_roots(eps_b + off, b)
            closed = [math.log1p(b) - eps_b - off, eps_b + off]  # logit of swap_rates_for_epsilon's pair
            row |= {
                f"offset_{k}": off,
                f"n_rates_{k}": len(roots),
                f"log_odds_gap_{k}": float(np.max(np.abs(roots - closed))) if len(roots) == 2 else np.inf,
            }
        rows.append(row)
    return pd.DataFrame(rows)


def variance_table(printed: pd.DataFrame, levels: int, changed_cells: int, methods=CONVERSIONS) -> pd.DataFrame:
    """Reproduce the talk's noise-variance tables under each zCDP conversion of ``methods``.

    The columns are ``delta``, ``epsilon``, ``laplace_variance`` and ``gaussian_variance``.

    A neighbouring database changes one record, i.e. ``changed_cells`` identity-query cells by one
    each: ℓ1 sensitivity ``changed_cells``, ℓ2 sensitivity √``changed_cells``. Returns one row per
    printed (δ, ε) and mechanism (``laplace``; ``gaussian`` per conversion) with the printed value,
    this value and the gap.
    """
    rows = []
    for r in printed.itertuples(index=False):
        rows.append(
            {
                "delta": r.delta,
                "epsilon": r.epsilon,
                "mechanism": "laplace",
                "conversion": "basic composition",
                "printed": r.laplace_variance,
                "variance": per_level_laplace_variance(r.epsilon, levels, changed_cells),
            }
        )
        for m in methods:
            rows.append(
                {
                    "delta": r.delta,
                    "epsilon": r.epsilon,
                    "mechanism": "gaussian",
                    "conversion": m,
                    "printed": r.gaussian_variance,
                    "variance": per_level_gaussian_variance(r.epsilon, r.delta, levels, math.sqrt(changed_cells), m),
                }
            )
    out = pd.DataFrame(rows)
    out["gap"] = out["variance"] - out["printed"]
    return out
