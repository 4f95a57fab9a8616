"""The unbiasedness check of retained noise draws, shared by the lattice experiments (E1, E2) and E3."""

from __future__ import annotations

import numpy as np
import pandas as pd


def unbiasedness_table(draws: np.ndarray, ess_bulk, cell_labels, fixed=None) -> pd.DataFrame:
    """Mean noise per cell with its Monte Carlo SE (SD / sqrt(bulk ESS)) and z = mean / SE.

    ``fixed`` marks the cells the invariants fix (boolean, one per cell; default none): such a cell has no noise,
    is exactly unbiased, and gets z = 0. A cell the invariants do not fix but whose draws never vary has a mean
    with no standard error: draws no chain could make (all-zero noise once read as z = 0, unbiased), refused with
    a ValueError naming the cell.
    """
    flat = np.asarray(draws).reshape(-1, draws.shape[-1]).astype(float)
    mean = flat.mean(axis=0)
    sd = flat.std(axis=0, ddof=1)
    se = sd / np.sqrt(np.asarray(ess_bulk, dtype=float))
    fixed = np.zeros(flat.shape[1], dtype=bool) if fixed is None else np.asarray(fixed, dtype=bool)
    frozen = (sd == 0) & ~fixed
    if frozen.any():
        cell = list(cell_labels)[int(np.flatnonzero(frozen)[0])]
        raise ValueError(
            f"cell {cell}: the same value in all {len(flat):,} draws though the invariants do not fix "
            f"it ({int(frozen.sum())} such cells): its mean noise has no standard error"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mean / se, np.where(mean == 0, 0.0, np.inf))
    return pd.DataFrame({"cell": list(cell_labels), "mean": mean, "sd": sd, "ess_bulk": ess_bulk, "mc_se": se, "z": z})
