"""E4 figures: error spread per mechanism (Fig 10) and the per-state overview."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp_papers.plot_style import METHOD_COLORS, box_collection


def plot_fig10(rel, ax=None, title: str = "", fliers: bool = False, annotate: bool = True, clip: float | None = None):
    """ISDP Fig 10-style panel.

    Per-county box plots of the errors of the mechanisms side by side (hue = method), counties by increasing SF1
    population, DAS errors as red dots.

    The county that absorbs the (simplex) LP/MILP discrepancy is shaded and named (with its LP
    error SD); the interior-point LP spreads the discrepancy and has no such county.
    ``clip`` = c limits the y-axis to ±c × the 99th percentile of the generalized Laplace |errors|
    (so the other counties' boxes stay readable; the absorbing county's box then runs off the
    axis). Returns the Axes.
    """
    from matplotlib.patches import Patch

    from isdp_papers.e4_projection_comparison.comparison import (
        LABELS,
        METHODS,
        PROJECTIONS,
        concentration,
    )

    ax = ax or plt.gca()
    order = np.argsort(rel.sf1, kind="stable")
    n = len(order)
    methods = [m for m in METHODS if m in rel.releases]
    width = 0.8 / len(methods)
    pos0 = np.arange(1, n + 1)
    for j, method in enumerate(methods):
        e = rel.errors(method)[:, order]
        pos = pos0 - 0.4 + width * (j + 0.5)
        c = METHOD_COLORS[method]
        box_collection(ax, e, pos, width=width * 0.9, color=METHOD_COLORS[method], fliers=fliers)
    ax.scatter(pos0, (rel.dp - rel.sf1)[order], s=8, color="red", zorder=5)
    if clip is not None and METHODS[0] in rel.releases:
        q = clip * float(np.quantile(np.abs(rel.errors(METHODS[0])), 0.99))
        ax.set_ylim(-q, q)
    ax.axhline(0, color="black", lw=0.5)
    handles = [Patch(color=METHOD_COLORS[m], label=LABELS[m]) for m in methods]
    handles.append(plt.Line2D([], [], marker="o", ls="", color="red", markersize=4, label="DAS error (dp − sf1)"))
    if annotate and rel.noisy:
        y = rel.releases[PROJECTIONS[0]] if PROJECTIONS[0] in rel.noisy else next(iter(rel.releases.values()))
        m = rel.noisy.get(PROJECTIONS[0], next(iter(rel.noisy.values())))
        c = concentration(y, m)
        k = c["absorbing_county_index"]
        if k >= 0:
            xk = int(np.where(order == k)[0][0]) + 1
            ax.axvspan(xk - 0.5, xk + 0.5, color="0.85", zorder=0)
            sd = float(np.std(y[:, k] - rel.sf1[k], ddof=1))
            ax.annotate(
                f"{rel.names[k]}: absorbs the whole simplex LP/MILP discrepancy in "
                f"{c['single_county_share']:.0%} of releases\n(rank {xk} of {n} by population; "
                f"LP error SD {sd:.0f})",
                xy=(xk, ax.get_ylim()[1] * 0.9),
                xytext=(0.02 if xk > n / 2 else 0.55, 0.97),
                textcoords="axes fraction",
                va="top",
                fontsize=8,
                arrowprops={"arrowstyle": "->", "color": "0.3", "lw": 0.8},
            )
    ax.set_xlim(0.3, n + 0.7)
    ax.set_xticks([])
    ax.set_xlabel("counties, by increasing 2010 SF1 population")
    ax.set_ylabel("error (release − SF1)")
    ax.set_title(title)
    ax.legend(handles=handles, frameon=False, loc="lower left", fontsize=7, ncol=len(handles))
    return ax


def fig10_title(rel) -> str:
    """Return a Fig 10 panel's title: state, counties, releases per method."""
    return f"{rel.state}: {len(rel.sf1)} counties, {rel.attrs['n_releases']} releases per method"


def plot_fig10_headline(rel, *, eps: float, vintage: str):
    """ISDP Fig 10 for the headline state.

    :func:`plot_fig10` with outliers, and below it the same zoomed to ±1.5 × the 99th percentile of the generalized
    Laplace |errors|. Returns the figure.
    """
    from isdp_papers.nhgis.counties import STATE_NAMES

    fig, (ax, zoom) = plt.subplots(2, 1, figsize=(20, 10), sharex=True)
    plot_fig10(rel, ax=ax, fliers=True)
    ax.set_title(
        f"{STATE_NAMES[rel.state]}: errors (release − SF1) of five mechanisms, ε = {eps}, Δ = 1, state total "
        f"invariant; DAS errors (red) from NHGIS v{vintage}"
    )
    plot_fig10(rel, ax=zoom, clip=1.5)
    zoom.get_legend().remove()
    zoom.set_title(
        "the same, y-axis zoomed to ±1.5 × the 99th percentile of the generalized Laplace |errors| (outliers not drawn)"
    )
    return fig


def plot_fig10_states(rels: dict, states, *, eps: float, vintage: str, headline: str):
    """Fig 10 for the other states.

    One :func:`plot_fig10` panel per state of ``states`` (y-axis ±2.5 × the 99th percentile of the generalized Laplace
    |errors|), the legend on the first; a note when there is none. ``rels`` maps state to its releases. Returns the
    figure.
    """
    from isdp_papers.nhgis.counties import STATE_NAMES

    states = list(states)
    fig, axes = plt.subplots(max(1, len(states)), 1, figsize=(20, 3.6 * max(1, len(states))), squeeze=False)
    for ax, state in zip(axes[:, 0], states, strict=False):
        plot_fig10(rels[state], ax=ax, title=fig10_title(rels[state]), clip=2.5)
        if ax is not axes[0, 0]:
            ax.get_legend().remove()
    if not states:
        axes[0, 0].text(0.5, 0.5, f"no selected state besides {STATE_NAMES[headline]}", ha="center", va="center")
    fig.suptitle(
        f"Fig 10 (other states): errors of five mechanisms per county (ε = {eps}); DAS errors from NHGIS "
        f"v{vintage}; whiskers 1.5 IQR, outliers not drawn; y-axis ±2.5 × the 99th percentile of the "
        "generalized Laplace |errors|, so the absorbing county's box runs off the axis",
        y=1.0,
    )
    fig.tight_layout()
    return fig


def plot_sd_ratio(rels: dict):
    """Per county of every state in ``rels``.

    Each mechanism's error SD over the generalized Laplace one, against SF1 population (log-log); a state's largest
    ratio above 3 is labelled with its code. Returns the figure.
    """
    from isdp_papers.e4_projection_comparison.comparison import LABELS, METHODS

    fig, ax = plt.subplots(figsize=(11, 5))
    for method in METHODS[1:]:
        xs, ys = [], []
        for state, r in rels.items():
            ref = r.errors(METHODS[0]).std(axis=0, ddof=1)
            ratio = r.errors(method).std(axis=0, ddof=1) / ref
            xs.append(r.sf1)
            ys.append(ratio)
            k = int(np.argmax(ratio))
            if ratio[k] > 3:
                ax.annotate(state, (r.sf1[k], ratio[k]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.scatter(
            np.concatenate(xs), np.concatenate(ys), s=6, alpha=0.6, color=METHOD_COLORS[method], label=LABELS[method]
        )
    ax.axhline(1, color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("county 2010 SF1 population")
    ax.set_ylabel("SD of errors / SD of generalized Laplace noise")
    ax.set_title(
        f"Per-county spread relative to generalized Laplace, {len(rels)} states; points far above 1: the "
        "county that absorbs the simplex LP/MILP discrepancy (state code)"
    )
    ax.legend(frameon=False, markerscale=3)
    return fig


def plot_state_overview(overview: pd.DataFrame, labels: dict, alpha: float = 0.01, axes=None):
    """Across states.

    Each mechanism's error SD against the number of counties, and the DAS audit slope per state with ±2 SE (filled where
    p < ``alpha``). Returns the two Axes.
    """
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(15, 5.5))
    ax, audit = axes
    for column in (c for c in overview.columns if c.startswith("sd_")):
        method = column.removeprefix("sd_")
        ax.scatter(
            overview["n_counties"],
            overview[column],
            s=14,
            alpha=0.8,
            color=METHOD_COLORS.get(method, "grey"),
            label=labels.get(method, method),
        )
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("counties in the state (log scale)")
    ax.set_ylabel("SD of county errors (release − SF1)")
    ax.legend(frameon=False, fontsize=8)
    rows = overview.dropna(subset=["das_slope"]).sort_values("das_slope").reset_index(drop=True)
    significant = rows["das_slope_p"] < alpha
    audit.errorbar(rows.index, rows["das_slope"], yerr=2 * rows["das_slope_stderr"], fmt="none", ecolor="grey", lw=0.8)
    audit.scatter(
        rows.index,
        rows["das_slope"],
        s=18,
        color=np.where(significant, "red", "white"),
        edgecolor="red",
        zorder=3,
        label=f"p < {alpha:g} filled",
    )
    audit.axhline(0, color="black", lw=0.6)
    audit.set_xticks(rows.index, rows["state"], rotation=90, fontsize=7)
    audit.set_ylabel("DAS error slope on log SF1 (±2 SE)")
    audit.legend(frameon=False, fontsize=8)
    return axes
