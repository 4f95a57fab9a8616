"""E1 figures: the three intersecting constraints as a Venn diagram (Fig 3)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Circle


def plot_venn_constraints(problem, ax=None):
    """Fig 3 (ISDP App. E.2): the three counting constraints as circles, records in their regions."""
    ax = ax or plt.gca()
    centers = {0: (-0.55, 0.35), 1: (0.55, 0.35), 2: (0.0, -0.55)}
    for s, (cx, cy) in centers.items():
        ax.add_patch(Circle((cx, cy), 1.0, fill=False, lw=2, color=f"C{s}"))
        ax.text(
            cx + (cx * 1.2),
            cy + (0.95 if cy > 0 else -1.2),
            problem.constraint_labels[s],
            ha="center",
            fontsize=13,
            color=f"C{s}",
            weight="bold",
        )
    spots = {
        "1": (-1.0, 0.7),
        "2": (1.0, 0.7),
        "3": (0.0, -1.1),
        "12": (0.0, 0.85),
        "13": (-0.72, -0.45),
        "23": (0.72, -0.45),
        "123": (0.0, 0.02),
    }
    regions = problem.meta["region"]
    for region, (px, py) in spots.items():
        members = [i for i, r in enumerate(regions) if r == region]
        for off, i in enumerate(members):
            ax.text(
                px, py - 0.2 * off, f"{problem.cell_labels[i]}: {problem.x[i]}", ha="center", va="center", fontsize=9
            )
    ax.set_xlim(-2, 2)
    ax.set_ylim(-1.9, 1.7)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
