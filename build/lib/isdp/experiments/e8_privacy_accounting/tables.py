"""E8 tables built from :mod:`isdp.accounting`: ρ → ε under each zCDP conversion, and the ε-vs-swap-rate curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special

from isdp.accounting import swapping_epsilon, zcdp_to_dp


def conversion_order(tda: Mapping) -> list[str]:
    """The zCDP conversions to tabulate: the configured ``conversion`` first, then the other ``alternatives``."""
    return [tda["conversion"], *[m for m in tda["alternatives"] if m != tda["conversion"]]]


def conversion_table(budget: Mapping, methods: Sequence[str]) -> pd.DataFrame:
    """ε at δ of the budget ρ (``budget``: ``rho``, ``delta``, ``rho_rounding``) by each conversion, and
    at ρ ∓ the rounding of the printed ρ."""
    rho, delta, r = budget["rho"], budget["delta"], budget["rho_rounding"]
    rows = [{"conversion": m, "rho": rho, "delta": delta, "epsilon": zcdp_to_dp(rho, delta, m),
             "epsilon_rho_low": zcdp_to_dp(rho - r, delta, m), "epsilon_rho_high": zcdp_to_dp(rho + r, delta, m)}
            for m in methods]
    return pd.DataFrame(rows)


def swap_curves(b_values: Sequence[int], rate_grid: Mapping) -> pd.DataFrame:
    """Permutation swapping's ε on a grid of swap rates evenly spaced in log-odds
    (``rate_grid``: ``logit_range``, ``n``), one curve per largest stratum size b."""
    t = np.linspace(*rate_grid["logit_range"], rate_grid["n"])
    p = special.expit(t)
    return pd.DataFrame([{"b": b, "logit_swap_rate": ti, "swap_rate": pi, "epsilon": e}
                         for b in b_values for ti, pi, e in zip(t, p, swapping_epsilon(p, b), strict=True)])
