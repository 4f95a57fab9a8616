"""Figures of the papers, rebuilt (matplotlib + seaborn). Each function draws on a given Axes."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402

NORM_LABELS = {"l1": "ℓ1 target", "l2": "ℓ2 target"}
PALETTE = {"l1": "#1f77b4", "l2": "#ff7f0e"}


def save_figure(fig, *paths) -> None:
    """Save one figure to each path (format from the suffix), with fixed metadata for reproducible files."""
    for p in paths:
        p = Path(p)
        meta = {"CreationDate": None} if p.suffix == ".pdf" else {"Software": None}
        fig.savefig(p, bbox_inches="tight", dpi=150, metadata=meta)
    plt.close(fig)


def plot_venn_constraints(problem, ax=None):
    """Fig 3 (ISDP App. E.2): the three counting constraints as circles, records in their regions."""
    ax = ax or plt.gca()
    centers = {0: (-0.55, 0.35), 1: (0.55, 0.35), 2: (0.0, -0.55)}
    for s, (cx, cy) in centers.items():
        ax.add_patch(Circle((cx, cy), 1.0, fill=False, lw=2, color=f"C{s}"))
        ax.text(cx + (cx * 1.2), cy + (0.95 if cy > 0 else -1.2), problem.constraint_labels[s],
                ha="center", fontsize=13, color=f"C{s}", weight="bold")
    spots = {"1": (-1.0, 0.7), "2": (1.0, 0.7), "3": (0.0, -1.1), "12": (0.0, 0.85),
             "13": (-0.72, -0.45), "23": (0.72, -0.45), "123": (0.0, 0.02)}
    regions = problem.meta["region"]
    for region, (px, py) in spots.items():
        members = [i for i, r in enumerate(regions) if r == region]
        for off, i in enumerate(members):
            ax.text(px, py - 0.2 * off, f"{problem.cell_labels[i]}: {problem.x[i]}", ha="center",
                    va="center", fontsize=9)
    ax.set_xlim(-2, 2)
    ax.set_ylim(-1.9, 1.7)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def plot_tv_bounds(curves: pd.DataFrame, ax=None, title: str = "", threshold: float = 0.01, t_max=None,
                   converged=None):
    """TV upper bound vs iteration, one line per lag, with a ±2 SE band and the threshold line.

    ``converged`` (lag → iteration) adds "< threshold at t = …" to each lag's legend entry.
    """
    ax = ax or plt.gca()
    converged = converged or {}
    for i, (lag, g) in enumerate(curves.groupby("lag")):
        g = g if t_max is None else g[g["iteration"] <= t_max]
        label = f"L = {lag}" + (f": < {threshold:g} from t = {converged[lag]}" if lag in converged else "")
        ax.plot(g["iteration"], g["tv_bound"], color=f"C{i}", label=label)
        ax.fill_between(g["iteration"], np.maximum(g["tv_bound"] - 2 * g["se"], 0), g["tv_bound"] + 2 * g["se"],
                        color=f"C{i}", alpha=0.2, lw=0)
    ax.axhline(threshold, color="grey", ls="--", lw=1, label=f"{threshold:g}")
    ax.set_xlabel("iteration t")
    ax.set_ylabel("estimated upper bound on $d_{TV}(\\pi_t, \\pi)$")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False)
    return ax


def plot_noise_boxplots(draws: dict, cell_labels, ax=None, order=None):
    """Per-cell box plots of noise draws, one colour per target norm (ISDP Figs 5 and 7)."""
    ax = ax or plt.gca()
    frames = []
    for norm, d in draws.items():
        d = np.asarray(d).reshape(-1, len(cell_labels))
        frames.append(pd.DataFrame({"cell": np.tile(np.asarray(cell_labels), d.shape[0]),
                                    "noise": d.ravel(), "target": NORM_LABELS.get(norm, norm)}))
    df = pd.concat(frames, ignore_index=True)
    sns.boxplot(data=df, x="cell", y="noise", hue="target", ax=ax, order=order, whis=1.5, fliersize=2,
                palette=[PALETTE.get(n, "C2") for n in draws])
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("")
    ax.set_ylabel("noise")
    crowded = len(cell_labels) * max(len(str(c)) for c in cell_labels) > 80
    ax.tick_params(axis="x", rotation=90 if crowded else 0)
    return ax
