"""E5's figures (Congenial DP Fig 1; App. C Figs 2–3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import seaborn as sns


def plot_acceptance(table: pd.DataFrame, paper_eps: float, paper_acc: float, eps: float, cfg: Mapping, ax):
    """Fig 2: acceptance rate (%) against ε̃ with ±2 SE, the paper's point and the target ε.

    The legend says where the chains started (the table's ``start`` column).
    """
    start = ", ".join(table["start"].unique())
    ax.errorbar(
        table["proposal_eps"],
        100 * table["acceptance"],
        yerr=200 * table["se"].fillna(0),
        marker="o",
        capsize=3,
        label=f"this run ({cfg['n_chains']} chains x {cfg['n_iter']:,} proposals,\nstarted at {start}; ±2 SE)",
    )
    ax.plot(
        [paper_eps], [100 * paper_acc], "r*", markersize=12, label=f"paper: ε̃ = {paper_eps}, {100 * paper_acc:.2f} %"
    )
    ax.axvline(eps, color="grey", linestyle=":", label=f"ε = {eps} (target)")
    ax.set_xlabel("proposal parameter ε̃")
    ax.set_ylabel("acceptance rate (%)")
    ax.set_title("E5 Fig 2: stationary MIS acceptance rate (sex × age table)")
    ax.legend(fontsize=8)
    return ax


def plot_trace(ax, draws, problem, cell: int, thin: int, first_column: bool):
    """Fig 3: one cell's trace in chain 1 of ``draws`` (chains × draws × cells), the confidential value dashed."""
    ax.plot(draws[0, :, cell], lw=0.6)
    ax.axhline(problem.x[cell], color="red", lw=0.8, ls="--", label="confidential value")
    where = "in I" if cell in problem.meta["index_set"] else "not in I"
    ax.set_title(f"cell {cell + 1} ({problem.cell_labels[cell]}, {where}); thin {thin}", fontsize=9)
    ax.set_xlabel("draw" if thin > 1 else "iteration")
    if first_column:
        ax.set_ylabel("released count")
    return ax


def plot_distances(dist: pd.DataFrame, methods: Sequence[str], labels: Mapping[str, str], axes):
    """Fig 1: box plots (with points) over the tables of each method's average L1 and L2 distances.

    ``labels`` are wrapped onto lines.
    """
    labels = {k: v.replace(", ", "\n").replace(" + ", "\n+ ") for k, v in labels.items()}
    dist = dist.assign(label=dist["method"].map(labels))
    order = [labels[m] for m in methods]
    for ax, col, name in zip(axes, ("avg_l1", "avg_l2"), ("L1", "L2"), strict=True):
        sns.boxplot(data=dist, x="label", y=col, order=order, ax=ax, color="#9ecae1")
        # the points jittered from a fixed stream (seaborn's stripplot draws from NumPy's global one): every run draws
        # the same figure
        x = dist["label"].map({label: k for k, label in enumerate(order)}).to_numpy(float)
        x += np.random.default_rng(0).uniform(-0.2, 0.2, len(x))
        ax.scatter(x, dist[col], color="k", s=9, alpha=0.6, zorder=3)
        ax.set_ylabel(f"average {name} distance")
        ax.set_xlabel("")
    n_tables, n_rel = dist["table"].nunique(), int(dist["n_releases"].iloc[0])
    axes[0].set_title(f"E5 Fig 1: {n_tables} confidential tables, {n_rel} releases each")
    axes[1].tick_params(axis="x", labelsize=8)
    return axes
