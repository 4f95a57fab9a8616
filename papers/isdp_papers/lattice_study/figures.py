"""Figures E1 and E2 share: TV-bound curves of the coupled chains and noise box plots."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from isdp_papers.plot_style import NORM_LABELS, PALETTE


def plot_tv_bounds(
    curves: pd.DataFrame,
    ax=None,
    title: str = "",
    threshold: float = 0.01,
    t_max=None,
    converged=None,
    certificate=None,
):
    """TV upper bound vs iteration, one line per lag, with a ±2 SE band and the threshold line.

    ``converged`` (lag → iteration) adds "< threshold at t = …" to each lag's legend entry.
    ``certificate`` (a record of the ``lattice_certificate`` step: ``curve_t``, ``curve_bound``,
    ``summary``) adds its 95 % upper confidence bound as a black step line and its t_cert.
    """
    ax = ax or plt.gca()
    converged = converged or {}
    for i, (lag, g) in enumerate(curves.groupby("lag")):
        g = g if t_max is None else g[g["iteration"] <= t_max]
        label = f"L = {lag}" + (f": < {threshold:g} from t = {converged[lag]}" if lag in converged else "")
        ax.plot(g["iteration"], g["tv_bound"], color=f"C{i}", label=label)
        ax.fill_between(
            g["iteration"],
            np.maximum(g["tv_bound"] - 2 * g["se"], 0),
            g["tv_bound"] + 2 * g["se"],
            color=f"C{i}",
            alpha=0.2,
            lw=0,
        )
    if certificate is not None:
        summary = certificate["summary"]
        ax.step(
            certificate["curve_t"],
            np.minimum(certificate["curve_bound"], 1.0),
            where="post",
            color="black",
            lw=1.2,
            label=(
                f"{summary['confidence_level']:.0%} confidence bound, {summary['pairs']} pairs "
                f"(L = {summary['lag']}): ≤ {threshold:g} from t = {summary['t_cert']}"
            ),
        )
    ax.axhline(threshold, color="grey", ls="--", lw=1, label=f"{threshold:g}")
    ax.set_xlabel("iteration t")
    ax.set_ylabel("upper bound on $d_{TV}(\\pi_t, \\pi)$")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, fontsize=8, loc="upper right")
    return ax


def plot_noise_boxplots(draws: dict, cell_labels, ax=None, order=None):
    """Per-cell box plots of noise draws, one colour per target norm (ISDP Figs 5 and 7)."""
    ax = ax or plt.gca()
    frames = []
    for norm, d in draws.items():
        d = np.asarray(d).reshape(-1, len(cell_labels))
        frames.append(
            pd.DataFrame(
                {
                    "cell": np.tile(np.asarray(cell_labels), d.shape[0]),
                    "noise": d.ravel(),
                    "target": NORM_LABELS.get(norm, norm),
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    sns.boxplot(
        data=df,
        x="cell",
        y="noise",
        hue="target",
        ax=ax,
        order=order,
        whis=1.5,
        fliersize=2,
        palette=[PALETTE.get(n, "C2") for n in draws],
    )
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("")
    ax.set_ylabel("noise")
    crowded = len(cell_labels) * max(len(str(c)) for c in cell_labels) > 80
    ax.tick_params(axis="x", rotation=90 if crowded else 0)
    return ax
