"""E3 figures: the DAS audit slopes (Fig 8) and one state's noise against population (Fig 2)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp_papers.nhgis.counties import state_counties
from isdp_papers.plot_style import box_collection


def plot_das_slopes(reg: pd.DataFrame, alpha: float = 0.01, ax=None, title: str = ""):
    """Per-state slope of the DAS error on log(SF1) with a (1 − alpha) CI; significant states filled red.

    Returns the figure. ``reg`` is :func:`isdp_papers.e3_census_counties.audit.das_bias_regressions` output.
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
    ax.scatter(
        x[~sig],
        reg.loc[~sig, "slope"],
        facecolors="white",
        edgecolors="black",
        zorder=3,
        label=f"not significant (p ≥ {alpha:g})",
    )
    ax.scatter(x[sig], reg.loc[sig, "slope"], color="red", zorder=4, label=f"significant (p < {alpha:g})")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, reg["state_abbr"], rotation=90, fontsize=8)
    ax.set_ylabel("slope of (DAS − SF1) on log(SF1)")
    ax.set_title(title or f"{len(reg)} states, {int((reg['slope'] < 0).sum())} negative, {int(sig.sum())} significant")
    ax.legend(frameon=False, loc="upper left")
    return fig


def plot_state_noise(sf1, draws, das_error, one_draw, ax=None, title: str = ""):
    """ISDP Fig 2 / Fig 8 panel.

    Counties by increasing SF1 on the x-axis; box plots of the noise draws; one draw as blue squares; the DAS errors (dp
    − sf1) as red dots.
    """
    ax = ax or plt.gca()
    sf1 = np.asarray(sf1)
    order = np.argsort(sf1, kind="stable")
    flat = np.asarray(draws).reshape(-1, sf1.shape[0])[:, order]
    pos = np.arange(1, len(order) + 1)
    box_collection(
        ax, flat, pos, width=0.6, color="0.4", filled=False, lw=1.0, fliers=True, flier_size=1.5, flier_alpha=0.4
    )
    ax.scatter(pos, np.asarray(one_draw)[order], marker="s", s=10, color="tab:blue", zorder=3, label="one noise draw")
    ax.scatter(pos, np.asarray(das_error)[order], marker="o", s=10, color="red", zorder=4, label="DAS error (dp − sf1)")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlim(0, len(order) + 1)
    ax.set_xlabel("counties, by increasing 2010 SF1 population")
    ax.set_ylabel("noise")
    ax.set_title(title)
    ax.set_xticks([])
    return ax


def state_noise_panel(counties: pd.DataFrame, state: str, draws_path, rng: np.random.Generator, ax):
    """One state's :func:`plot_state_noise` panel from its stored draws.

    The one draw shown is picked with ``rng`` (one ``integers`` call per panel, so the panels' order fixes the draws
    shown).
    """
    from isdp.convergence import load_draws
    from isdp.lattice import sum_constraint

    group = state_counties(counties, state)
    flat = load_draws(draws_path, A=sum_constraint(len(group))).reshape(-1, len(group))
    one = flat[rng.integers(len(flat))]
    plot_state_noise(
        group["sf1_pop"],
        flat,
        group["dp_pop"] - group["sf1_pop"],
        one,
        ax=ax,
        title=f"{state}: {len(group)} counties, {len(flat)} draws",
    )
    return group


def plot_fig2(counties: pd.DataFrame, state: str, draws_path, rng: np.random.Generator, *, eps: float, vintage: str):
    """ISDP Fig 2: the headline state's noise per county (:func:`state_noise_panel`). Returns the figure."""
    from isdp_papers.nhgis.counties import STATE_NAMES

    fig, ax = plt.subplots(figsize=(14, 4.5))
    state_noise_panel(counties, state, draws_path, rng, ax)
    ax.set_title(
        f"{STATE_NAMES[state]}: ℓ1 generalized Laplace noise (ε = {eps}), state total invariant; "
        f"DAS errors from NHGIS v{vintage}"
    )
    ax.legend(frameon=False, loc="upper left")
    return fig


def plot_fig8(
    counties: pd.DataFrame,
    states,
    draws_paths: dict,
    rng: np.random.Generator,
    *,
    eps: float,
    vintage: str,
    headline: str,
):
    """Plot ISDP Fig 8: one :func:`state_noise_panel` per state of ``states``, two per row.

    ``states`` are the selected states but the headline one; a note when there is none. Returns the figure.
    """
    import math

    from isdp_papers.nhgis.counties import STATE_NAMES

    states = list(states)
    ncol = 2
    nrow = max(1, math.ceil(len(states) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(14, 3.2 * nrow), squeeze=False)
    for ax, state in zip(axes.flat, states, strict=False):
        state_noise_panel(counties, state, draws_paths[state], rng, ax)
    for ax in list(axes.flat)[len(states) :]:
        ax.axis("off")
    if not states:
        axes.flat[0].text(0.5, 0.5, f"no selected state besides {STATE_NAMES[headline]}", ha="center", va="center")
    else:
        axes.flat[0].legend(frameon=False, loc="upper left", fontsize=8)
    fig.suptitle(f"Fig 8: ℓ1 generalized Laplace noise (ε = {eps}) per county; DAS errors from NHGIS v{vintage}")
    fig.tight_layout()
    return fig


def plot_certificates(records: list[dict]):
    """Plot per state the 95 % upper confidence bound on d_TV(law of X_t, π) against the heat-bath sweep t.

    The bound is solid, its point estimate and the share of pairs not yet met (dotted) beside it; dot: t_cert (where the
    bound reaches the threshold), cross: the burn-in used. States with nothing to certify are listed in the title.
    """
    fig, ax = plt.subplots(figsize=(8, 4.5))
    skipped = []
    for rec in records:
        if not rec["curve_t"]:
            skipped.append(rec["state"])
            continue
        t = np.maximum(np.asarray(rec["curve_t"]), 1)
        (line,) = ax.step(t, rec["curve_bound"], where="post", label=f"{rec['state']} ({rec['counties']} counties)")
        ax.step(t, rec["curve_estimate"], where="post", color=line.get_color(), ls=":", lw=0.8)
        ax.plot(rec["t_cert"], rec["threshold"], "o", color=line.get_color())
        ax.plot(rec["burn_in"], rec["tv_bound_at_burn_in"], "x", color=line.get_color())
    threshold = next((r["threshold"] for r in records if r["curve_t"]), 0.01)
    level = next((r["confidence_level"] for r in records if r["curve_t"]), 0.95)
    ax.axhline(threshold, color="black", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=threshold)
    ax.set_ylim(0, 1)
    ax.set_xlabel("heat-bath sweep t")
    ax.set_ylabel("bound on TV(law of X_t, π)")
    certified = sum(bool(r["certified_at_burn_in"]) for r in records if r["curve_t"])
    title = (
        f"{level:.0%} upper confidence bound (solid) and point estimate (dotted); dot: t_cert, cross: burn-in; "
        f"certified at the burn-in: {certified} of {sum(1 for r in records if r['curve_t'])}"
    )
    ax.set_title(title + (f"; nothing to certify: {', '.join(skipped)}" if skipped else ""), fontsize=9)
    ax.legend(frameon=False, fontsize=7, ncol=2)
    return fig
