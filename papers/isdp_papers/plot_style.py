"""Figures of the papers, rebuilt (matplotlib + seaborn). Each function draws on a given Axes."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NORM_LABELS = {"l1": "ℓ1 target", "l2": "ℓ2 target"}
PALETTE = {"l1": "#1f77b4", "l2": "#ff7f0e"}
#: E4's mechanisms (keys of :data:`isdp_papers.e4_projection_comparison.comparison.METHODS`, and the DAS)
METHOD_COLORS = {
    "generalized_laplace": "#1f77b4",
    "projected_laplace": "#2ca02c",
    "dg_l1_lp": "#ff7f0e",
    "dg_l1_milp": "#9467bd",
    "dg_l1_lp_interior": "#17becf",
    "das": "red",
}


def save_figure(fig, *paths) -> None:
    """Save one figure to each path (format from the suffix), with fixed metadata for reproducible files."""
    for p in paths:
        p = Path(p)
        meta = {"CreationDate": None} if p.suffix == ".pdf" else {"Software": None}
        fig.savefig(p, bbox_inches="tight", dpi=150, metadata=meta)
    plt.close(fig)


def _segments(x0, y0, x1, y1):
    return np.stack([np.column_stack([x0, y0]), np.column_stack([x1, y1])], axis=1)


def box_collection(
    ax,
    data,
    positions,
    *,
    width: float,
    color,
    median_color="black",
    lw: float = 0.5,
    filled: bool = True,
    whis: float = 1.5,
    fliers: bool = False,
    flier_size: float = 1.0,
    flier_alpha: float = 0.3,
):
    """Draw box plots of the columns of ``data`` at ``positions``, as four collections.

    They are drawn as Matplotlib's ``boxplot`` draws them (quartiles, median, whiskers to the furthest point within
    ``whis`` × IQR, caps at half the box width, points beyond as fliers), but as four collections instead of six artists
    per box.

    The census figures draw thousands of boxes (counties × mechanisms); one artist per line made
    drawing them take over a minute. The statistics are Matplotlib's own (``cbook.boxplot_stats``).
    """
    from matplotlib import cbook
    from matplotlib.collections import LineCollection, PolyCollection

    stats = cbook.boxplot_stats(np.asarray(data), whis=whis)
    x = np.asarray(positions, dtype=float)
    half = width / 2
    q1, q3 = np.array([s["q1"] for s in stats]), np.array([s["q3"] for s in stats])
    med = np.array([s["med"] for s in stats])
    lo, hi = np.array([s["whislo"] for s in stats]), np.array([s["whishi"] for s in stats])
    boxes = np.stack(
        [
            np.column_stack([x - half, q1]),
            np.column_stack([x + half, q1]),
            np.column_stack([x + half, q3]),
            np.column_stack([x - half, q3]),
        ],
        axis=1,
    )
    ax.add_collection(PolyCollection(boxes, facecolors=color if filled else "none", edgecolors=color, linewidths=lw))
    seg = _segments
    cap = width / 4
    whiskers = np.concatenate(
        [seg(x, q1, x, lo), seg(x, q3, x, hi), seg(x - cap, lo, x + cap, lo), seg(x - cap, hi, x + cap, hi)]
    )
    ax.add_collection(LineCollection(whiskers, colors=color, linewidths=lw))
    ax.add_collection(LineCollection(seg(x - half, med, x + half, med), colors=median_color, linewidths=lw))
    if fliers:
        fx = np.concatenate([np.full(len(s["fliers"]), xi) for s, xi in zip(stats, x, strict=True)])
        fy = np.concatenate([s["fliers"] for s in stats])
        ax.scatter(fx, fy, s=flier_size, color=color, alpha=flier_alpha, linewidths=0)
    ax.autoscale_view()
