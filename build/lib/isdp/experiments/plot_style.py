"""Figures of the papers, rebuilt (matplotlib + seaborn). Each function draws on a given Axes."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NORM_LABELS = {"l1": "ℓ1 target", "l2": "ℓ2 target"}
PALETTE = {"l1": "#1f77b4", "l2": "#ff7f0e"}
#: E4's mechanisms (keys of :data:`isdp.experiments.comparison.METHODS`, and the DAS)
METHOD_COLORS = {"generalized_laplace": "#1f77b4", "projected_laplace": "#2ca02c", "dg_l1_lp": "#ff7f0e",
                 "dg_l1_milp": "#9467bd", "dg_l1_lp_interior": "#17becf", "das": "red"}


def save_figure(fig, *paths) -> None:
    """Save one figure to each path (format from the suffix), with fixed metadata for reproducible files."""
    for p in paths:
        p = Path(p)
        meta = {"CreationDate": None} if p.suffix == ".pdf" else {"Software": None}
        fig.savefig(p, bbox_inches="tight", dpi=150, metadata=meta)
    plt.close(fig)


