"""The unbiasedness check of retained noise draws, shared by the lattice experiments (E1, E2) and E3."""

from __future__ import annotations

import numpy as np
import pandas as pd


def unbiasedness_table(draws: np.ndarray, ess_bulk, cell_labels) -> pd.DataFrame:
    """Mean noise per cell with its Monte Carlo SE (SD / sqrt(bulk ESS)) and z = mean / SE."""
    flat = np.asarray(draws).reshape(-1, draws.shape[-1]).astype(float)
    mean = flat.mean(axis=0)
    sd = flat.std(axis=0, ddof=1)
    se = sd / np.sqrt(np.asarray(ess_bulk, dtype=float))
    # a cell with no noise at all (fixed by the invariants) is exactly unbiased: z = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mean / se, np.where(mean == 0, 0.0, np.inf))
    return pd.DataFrame({"cell": list(cell_labels), "mean": mean, "sd": sd, "ess_bulk": ess_bulk,
                         "mc_se": se, "z": z})
