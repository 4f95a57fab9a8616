"""E7 figures: Table 2's variances against ε, the noise laws and the privacy levels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

COLORS = {"conditional": "#1b9e77", "l2": "#d95f02", "l1": "#7570b3"}


def plot_e7_variance(sim: pd.DataFrame, table2: pd.DataFrame, labels: dict, paper_coefs: dict, axes):
    """Congenial DP Table 2.

    Var(m1) against ε (left, log-log) and ε² Var(m1) (right), exact lines and simulated points (±2 SE); f_L1's exact
    range over β shaded, the paper's printed coefficients dashed.
    """
    from matplotlib.ticker import FixedLocator, NullLocator

    t2 = table2.set_index("mechanism")
    eps = np.sort(sim["eps"].unique())
    fine = np.geomspace(eps.min() / 1.3, eps.max() * 1.3, 100)
    lo, hi = t2.loc["l1", "var_coef_low"], t2.loc["l1", "var_coef_high"]
    axes[0].fill_between(fine, lo / fine**2, hi / fine**2, color=COLORS["l1"], alpha=0.12, lw=0)
    axes[1].axhspan(lo, hi, color=COLORS["l1"], alpha=0.12, lw=0, label="f_L1 exact range over β ∈ [0, 1]")
    l1 = sim[sim["mechanism"] == "l1"]
    betas = np.sort(l1["beta"].unique())
    offsets = dict(zip(betas, np.linspace(-0.03, 0.03, len(betas)), strict=True))
    groups = [(m, None, "o", sim[sim["mechanism"] == m]) for m in ("conditional", "l2")]
    groups += [("l1", b, "sv^D<>p"[i % 7], l1[l1["beta"] == b]) for i, b in enumerate(betas)]
    for mech, beta, marker, g in groups:
        coef = float(g["exact_var_m1"].iloc[0] * g["eps"].iloc[0] ** 2)
        label = labels[mech] if beta is None else f"f_L1, β = {beta:g}"
        ls = "-" if beta is None else ":"
        shift = 1.0 if beta is None else 10 ** offsets[beta]  # spread the β markers along the log axis
        axes[0].plot(fine, coef / fine**2, color=COLORS[mech], ls=ls, lw=1)
        axes[0].errorbar(
            g["eps"] * shift,
            g["var_m1"],
            yerr=2 * g["se_var_m1"],
            fmt=marker,
            ms=4,
            color=COLORS[mech],
            mfc="white" if beta is not None else None,
            label=label,
        )
        axes[1].axhline(coef, color=COLORS[mech], ls=ls, lw=1)
        axes[1].errorbar(
            g["eps"] * shift,
            g["var_coef"],
            yerr=2 * g["se_var_coef"],
            fmt=marker,
            ms=4,
            color=COLORS[mech],
            mfc="white" if beta is not None else None,
        )
    printed = {}
    for name, coef in paper_coefs.items():
        for c in np.atleast_1d(coef):
            printed.setdefault(float(c), []).append(name)
    for c, names in printed.items():
        axes[1].axhline(c, color="0.3", ls="--", lw=0.7)
        axes[1].annotate(
            f"paper ({', '.join(names)}): {c:g}",
            (1.0, c),
            xycoords=("axes fraction", "data"),
            xytext=(-2, 2),
            textcoords="offset points",
            fontsize=7,
            ha="right",
            va="bottom",
            color="0.3",
        )
    for ax in axes:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(eps))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([f"{e:g}" for e in eps])
        ax.set_xlabel("ε")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("Var(m1)")
    axes[1].set_ylabel("ε² · Var(m1)")
    axes[0].legend(frameon=False, fontsize=7)
    axes[1].legend(frameon=False, fontsize=7, loc="center left")
    return axes


def plot_e7_noise_laws(noise, mixture_components, axes, x_max: float = 8.0):
    """Plot the noise laws of f_L2 (left) and f_L1 (right).

    Left: f_L2 noise (units of 1/ε) over the exact density (A.2), the paper's mixture (4.7) and its weighted parts.
    Right: f_L1 noise for each β over (A.1).
    """
    from isdp_papers.e7_congenial_histogram import noise_laws as nl

    t = np.linspace(-x_max, x_max, 801)
    bins = np.linspace(-x_max, x_max, 81)
    ax = axes[0]
    ax.hist(
        noise["l2"][list(noise["eps"]).index(noise["figure_eps"])],
        bins=bins,
        density=True,
        color=COLORS["l2"],
        alpha=0.35,
        label="f_L2 draws",
    )
    ax.plot(t, nl.noise_pdf(t, "l2", 1.0), color=COLORS["l2"], lw=2, label="exact (A.2): Lap + Lap")
    ax.plot(t, nl.mixture(t, mixture_components), color="k", ls="--", lw=1, label="paper's mixture (4.7)")
    for c in mixture_components:
        ax.plot(t, nl.mixture(t, [c]), color="0.4", ls=":", lw=1)
    ax.plot(t, nl.noise_pdf(t, "conditional", 1.0), color=COLORS["conditional"], lw=1, label="M*: Lap(1/ε)")
    ax.set_title("f_L2 noise; dotted: the weighted mixture parts", fontsize=9)
    ax = axes[1]
    cmap = plt.get_cmap("viridis")
    betas = noise["betas"]
    for i, (b, draws) in enumerate(zip(betas, noise["l1"], strict=True)):
        color = cmap(i / max(len(betas) - 1, 1))
        ax.hist(draws, bins=bins, density=True, histtype="step", color=color, lw=0.8)
        ax.plot(t, nl.noise_pdf(t, "l1", 1.0, float(b)), color=color, lw=1.5, label=f"β = {b:g}")
    ax.set_title("f_L1 noise: draws (steps) and (A.1) (lines)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("ε · (m1 − s1)")
        ax.set_ylabel("density")
        ax.legend(frameon=False, fontsize=7)
    return axes


def plot_e7_privacy(privacy: pd.DataFrame, ax=None):
    """Attained privacy level / ε against β.

    F_L1's closed form ε/(2 max(β, 1 − β)) (line), the numerical worst-case log likelihood ratio at each ε (markers),
    f_L2 and M* at level ε.
    """
    from isdp_papers.e7_congenial_histogram import privacy_levels as pl

    ax = ax or plt.gca()
    b = np.linspace(0, 1, 401)
    ax.plot(
        b, [pl.l1_privacy_level(1.0, v) for v in b], color=COLORS["l1"], lw=1.5, label="f_L1: ε / (2 max(β, 1 − β))"
    )
    l1 = privacy[privacy["mechanism"] == "l1"]
    for i, (eps, g) in enumerate(l1.groupby("eps")):
        ax.plot(
            g["beta"],
            g["level_over_eps"],
            ls="",
            marker="os^Dv<>"[i % 7],
            ms=5,
            mfc="none",
            color=plt.get_cmap("tab10")(i),
            label=f"numerical, ε = {eps:g}",
        )
    for mech, beta in (("conditional", None), ("l2", 0.5)):
        v = privacy.loc[privacy["mechanism"] == mech, "level_over_eps"]
        if beta is None:
            ax.axhline(v.min(), color=COLORS[mech], lw=1, ls="--", label=f"M*: numerical {v.min():.4f} ε")
        else:
            ax.plot(
                [beta],
                [v.min()],
                marker="*",
                ms=10,
                color=COLORS[mech],
                ls="",
                label=f"f_L2: numerical {v.min():.4f} ε",
            )
    ax.set_xlabel("β")
    ax.set_ylabel("attained level / ε")
    ax.set_ylim(0.4, 1.05)
    ax.legend(frameon=False, fontsize=7, loc="lower center")
    return ax
