"""E3 figures: the DAS audit slopes (Fig 8) and one state's noise against population (Fig 2)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def plot_das_slopes(reg: pd.DataFrame, alpha: float = 0.01, ax=None, title: str = ""):
    """Per-state slope of the DAS error on log(SF1) with a (1 − alpha) CI; significant states filled red.

    Returns the figure. ``reg`` is :func:`isdp.experiments.audit.das_bias_regressions` output.
    """
    from scipy import stats

    reg = reg.sort_values("slope").reset_index(drop=True)
    if ax is None:
        fig, ax = plt.subplots(figsize=(12, 4))
    else:
        fig = ax.figure
    half = stats.t.ppf(1 - alpha / 2, reg["n_counties"] - 2) * reg["stderr"]
    sig = reg["p_value"] < alpha
    x = np.arange(len(reg))
    ax.errorbar(x, reg["slope"], yerr=half, fmt="none", ecolor="grey", lw=1)
    ax.scatter(x[~sig], reg.loc[~sig, "slope"], facecolors="white", edgecolors="black", zorder=3,
               label=f"not significant (p ≥ {alpha:g})")
    ax.scatter(x[sig], reg.loc[sig, "slope"], color="red", zorder=4, label=f"significant (p < {alpha:g})")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, reg["state_abbr"], rotation=90, fontsize=8)
    ax.set_ylabel("slope of (DAS − SF1) on log(SF1)")
    ax.set_title(title or f"{len(reg)} states, {int((reg['slope'] < 0).sum())} negative, {int(sig.sum())} significant")
    ax.legend(frameon=False, loc="upper left")
    return fig


def plot_state_noise(sf1, draws, das_error, one_draw, ax=None, title: str = ""):
    """ISDP Fig 2 / Fig 8 panel: counties by increasing SF1 on the x-axis; box plots of the noise
    draws; one draw as blue squares; the DAS errors (dp − sf1) as red dots."""
    ax = ax or plt.gca()
    sf1 = np.asarray(sf1)
    order = np.argsort(sf1, kind="stable")
    flat = np.asarray(draws).reshape(-1, sf1.shape[0])[:, order]
    pos = np.arange(1, len(order) + 1)
    ax.boxplot(flat, positions=pos, widths=0.6, whis=1.5, showfliers=True, manage_ticks=False,
               flierprops={"markersize": 1.5, "alpha": 0.4}, medianprops={"color": "black"},
               boxprops={"color": "0.4"}, whiskerprops={"color": "0.4"}, capprops={"color": "0.4"})
    ax.scatter(pos, np.asarray(one_draw)[order], marker="s", s=10, color="tab:blue", zorder=3, label="one noise draw")
    ax.scatter(pos, np.asarray(das_error)[order], marker="o", s=10, color="red", zorder=4, label="DAS error (dp − sf1)")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlim(0, len(order) + 1)
    ax.set_xlabel("counties, by increasing 2010 SF1 population")
    ax.set_ylabel("noise")
    ax.set_title(title)
    ax.set_xticks([])
    return ax
