"""E8 figures: swap rate against ε and the TopDown variance tables."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns


def plot_swap_epsilon(curves: pd.DataFrame, printed: pd.DataFrame, minima: pd.DataFrame, ax=None, highlight=()):
    """Permutation swapping's ε against the log-odds ln o of the swap rate, one curve per largest stratum size b.

    ``curves`` has columns ``b, logit_swap_rate, epsilon``; ``printed`` the documents' cells (``b,
    swap_rate, epsilon_printed``, drawn as markers, each joined by a dotted line to the second swap
    rate with the same ε); ``minima`` the smallest budget per b (``b, min_epsilon``, open circles:
    the vertex of each V lies on ε = ln o). Curves whose b is in ``highlight`` are drawn bold. The
    top axis labels the swap rates themselves.
    """
    from scipy.special import expit, logit

    ax = ax or plt.gca()
    bs = sorted(curves["b"].unique())
    colors = sns.color_palette("viridis", len(bs))
    for b, c in zip(bs, colors, strict=True):
        g = curves[curves["b"] == b]
        bold = b in highlight
        ax.plot(
            g["logit_swap_rate"],
            g["epsilon"],
            color=c,
            lw=2.2 if bold else 1,
            alpha=1 if bold else 0.6,
            label=f"b = {b:,}",
        )
        p = printed[printed["b"] == b]
        t = logit(p["swap_rate"].to_numpy())
        ax.scatter(t, p["epsilon_printed"], color=c, edgecolor="black", s=28, zorder=5)
        if bold:  # the second swap rate of each printed budget: ε = ln o on the right branch
            for ti, e in zip(t, p["epsilon_printed"], strict=True):
                ax.plot([ti, e], [e, e], color=c, ls=":", lw=0.8)
                ax.scatter([e], [e], color=c, marker="x", s=24, zorder=5)
        m = minima[minima["b"] == b].iloc[0]
        ax.scatter([m["min_epsilon"]], [m["min_epsilon"]], facecolor="white", edgecolor=c, s=28, zorder=5)
    ax.axvline(0.0, color="grey", ls=":", lw=0.8)
    ax.set_xlabel("log-odds of the swap rate, ln o = ln(p / (1 − p))")
    ax.set_ylabel("ε (privacy-loss budget)")
    top = ax.secondary_xaxis(
        "top",
        functions=(
            lambda t: expit(np.asarray(t, dtype=float)),
            lambda p: logit(np.clip(np.asarray(p, dtype=float), 1e-300, 1 - 1e-16)),
        ),
    )
    ticks = {1e-4: "1e-4", 1e-2: "0.01", 0.5: "0.5", 1 - 1e-4: "1−1e-4", 1 - 1e-8: "1−1e-8"}
    top.set_xticks(list(ticks), labels=list(ticks.values()))
    top.set_xlabel("swap rate p")
    ax.scatter([], [], color="grey", edgecolor="black", s=28, label="printed in the slides")
    ax.scatter([], [], color="grey", marker="x", s=24, label="the other swap rate with that ε")
    ax.scatter([], [], facecolor="white", edgecolor="grey", s=28, label="smallest ε_b = ln(b + 1)/2")
    ax.legend(fontsize=7, frameon=False, loc="upper center", ncol=2)
    return ax


def plot_variance_tables(table: pd.DataFrame, conversion: str, levels: int, unit: float = 0.1, axes=None):
    """Return the talk's noise-variance tables.

    Printed cells (markers) and each conversion's variances (lines) per δ on the top row; on the bottom row this run's
    minus the printed value in units of the last printed digit (``unit``) for the Laplace rows and the Gaussian rows of
    ``conversion`` and of integer orders, with the ±0.5 rounding band. ``levels`` labels the per-level budget split.
    """
    deltas = sorted(table["delta"].unique())
    if axes is None:
        _, axes = plt.subplots(
            2,
            len(deltas),
            figsize=(4.3 * len(deltas), 6.5),
            sharex=True,
            gridspec_kw={"height_ratios": [2, 1]},
            squeeze=False,
        )
        for ax in axes[1, 1:]:
            ax.sharey(axes[1, 0])
    styles = {"standard": "-", "integer-orders": "--", "cks": "-.", "gaussian-exact": ":"}
    for j, d in enumerate(deltas):
        top, bottom = axes[0, j], axes[1, j]
        t = table[table["delta"] == d]
        lap = t[t["mechanism"] == "laplace"]
        top.plot(lap["epsilon"], lap["variance"], color="C0", label=f"Laplace (ε/{levels} per level)")
        top.scatter(lap["epsilon"], lap["printed"], color="C0", edgecolor="black", zorder=5)
        gau = t[t["mechanism"] == "gaussian"]
        for m, g in gau.groupby("conversion", sort=False):
            top.plot(g["epsilon"], g["variance"], color="C3", ls=styles.get(m, "-"), lw=1.2, label=f"Gaussian, {m}")
        printed = gau.drop_duplicates("epsilon")
        top.scatter(
            printed["epsilon"], printed["printed"], color="C3", edgecolor="black", zorder=5, label="printed in the talk"
        )
        top.set_yscale("log")
        top.set_title(f"δ = {d:.0e}")
        for (mech, m), c, mk in (
            (("laplace", None), "C0", "o"),
            (("gaussian", conversion), "C3", "s"),
            (("gaussian", "integer-orders"), "C1", "^"),
        ):
            g = t[(t["mechanism"] == mech) & ((t["conversion"] == m) if m else True)]
            bottom.plot(
                g["epsilon"],
                g["gap"] / unit,
                marker=mk,
                color=c,
                lw=0.8,
                label="Laplace" if mech == "laplace" else f"Gaussian, {m}",
            )
        bottom.axhspan(-0.5, 0.5, color="0.9", zorder=0)
        bottom.axhline(0, color="black", lw=0.5)
        bottom.set_xlabel("ε (total)")
        if j == 0:
            top.set_ylabel("noise variance per identity query")
            bottom.set_ylabel(f"this run − printed\n(units of {unit:g})")
    axes[0, 0].legend(fontsize=7, frameon=False)
    axes[1, -1].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1))
    return axes
