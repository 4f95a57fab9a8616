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
#: E4's mechanisms (keys of :data:`isdp.experiments.comparison.METHODS`, and the DAS)
METHOD_COLORS = {"generalized_laplace": "#1f77b4", "projected_laplace": "#2ca02c", "dg_l1_lp": "#ff7f0e",
                 "dg_l1_milp": "#9467bd", "dg_l1_lp_interior": "#17becf", "das": "red"}


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


def plot_fig10(rel, ax=None, title: str = "", fliers: bool = False, annotate: bool = True,
               clip: float | None = None):
    """ISDP Fig 10-style panel: per-county box plots of the errors of the mechanisms side by side
    (hue = method), counties by increasing SF1 population, DAS errors as red dots.

    The county that absorbs the (simplex) LP/MILP discrepancy is shaded and named (with its LP
    error SD); the interior-point LP spreads the discrepancy and has no such county.
    ``clip`` = c limits the y-axis to ±c × the 99th percentile of the generalized Laplace |errors|
    (so the other counties' boxes stay readable; the absorbing county's box then runs off the
    axis). Returns the Axes.
    """
    from matplotlib.patches import Patch

    from .comparison import LABELS, METHODS, PROJECTIONS, concentration

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
        ax.boxplot(e, positions=pos, widths=width * 0.9, whis=1.5, showfliers=fliers, manage_ticks=False,
                   patch_artist=True, boxprops={"facecolor": c, "edgecolor": c, "lw": 0.5},
                   medianprops={"color": "black", "lw": 0.5}, whiskerprops={"color": c, "lw": 0.5},
                   capprops={"color": c, "lw": 0.5}, flierprops={"markersize": 1, "markeredgecolor": c, "alpha": 0.3})
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
            ax.annotate(f"{rel.names[k]}: absorbs the whole simplex LP/MILP discrepancy in "
                        f"{c['single_county_share']:.0%} of releases\n(rank {xk} of {n} by population; "
                        f"LP error SD {sd:.0f})",
                        xy=(xk, ax.get_ylim()[1] * 0.9), xytext=(0.02 if xk > n / 2 else 0.55, 0.97),
                        textcoords="axes fraction", va="top", fontsize=8,
                        arrowprops={"arrowstyle": "->", "color": "0.3", "lw": 0.8})
    ax.set_xlim(0.3, n + 0.7)
    ax.set_xticks([])
    ax.set_xlabel("counties, by increasing 2010 SF1 population")
    ax.set_ylabel("error (release − SF1)")
    ax.set_title(title)
    ax.legend(handles=handles, frameon=False, loc="lower left", fontsize=7, ncol=len(handles))
    return ax


E7_COLORS = {"conditional": "#1b9e77", "l2": "#d95f02", "l1": "#7570b3"}


def plot_e7_variance(sim: pd.DataFrame, table2: pd.DataFrame, labels: dict, paper_coefs: dict, axes):
    """Congenial DP Table 2: Var(m1) against ε (left, log-log) and ε² Var(m1) (right), exact lines and
    simulated points (±2 SE); f_L1's exact range over β shaded, the paper's printed coefficients dashed."""
    from matplotlib.ticker import FixedLocator, NullLocator

    t2 = table2.set_index("mechanism")
    eps = np.sort(sim["eps"].unique())
    fine = np.geomspace(eps.min() / 1.3, eps.max() * 1.3, 100)
    lo, hi = t2.loc["l1", "var_coef_low"], t2.loc["l1", "var_coef_high"]
    axes[0].fill_between(fine, lo / fine**2, hi / fine**2, color=E7_COLORS["l1"], alpha=0.12, lw=0)
    axes[1].axhspan(lo, hi, color=E7_COLORS["l1"], alpha=0.12, lw=0, label="f_L1 exact range over β ∈ [0, 1]")
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
        axes[0].plot(fine, coef / fine**2, color=E7_COLORS[mech], ls=ls, lw=1)
        axes[0].errorbar(g["eps"] * shift, g["var_m1"], yerr=2 * g["se_var_m1"], fmt=marker, ms=4,
                         color=E7_COLORS[mech], mfc="white" if beta is not None else None, label=label)
        axes[1].axhline(coef, color=E7_COLORS[mech], ls=ls, lw=1)
        axes[1].errorbar(g["eps"] * shift, g["var_coef"], yerr=2 * g["se_var_coef"], fmt=marker, ms=4,
                         color=E7_COLORS[mech], mfc="white" if beta is not None else None)
    printed = {}
    for name, coef in paper_coefs.items():
        for c in np.atleast_1d(coef):
            printed.setdefault(float(c), []).append(name)
    for c, names in printed.items():
        axes[1].axhline(c, color="0.3", ls="--", lw=0.7)
        axes[1].annotate(f"paper ({', '.join(names)}): {c:g}", (1.0, c), xycoords=("axes fraction", "data"),
                         xytext=(-2, 2), textcoords="offset points", fontsize=7, ha="right", va="bottom", color="0.3")
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
    """Left: f_L2 noise (units of 1/ε) over the exact density (A.2), the paper's mixture (4.7) and its
    weighted parts. Right: f_L1 noise for each β over (A.1)."""
    from . import congenial as cg

    t = np.linspace(-x_max, x_max, 801)
    bins = np.linspace(-x_max, x_max, 81)
    ax = axes[0]
    ax.hist(noise["l2"][list(noise["eps"]).index(noise["figure_eps"])], bins=bins, density=True,
            color=E7_COLORS["l2"], alpha=0.35, label="f_L2 draws")
    ax.plot(t, cg.noise_pdf(t, "l2", 1.0), color=E7_COLORS["l2"], lw=2, label="exact (A.2): Lap + Lap")
    ax.plot(t, cg.mixture(t, mixture_components), color="k", ls="--", lw=1, label="paper's mixture (4.7)")
    for c in mixture_components:
        ax.plot(t, cg.mixture(t, [c]), color="0.4", ls=":", lw=1)
    ax.plot(t, cg.noise_pdf(t, "conditional", 1.0), color=E7_COLORS["conditional"], lw=1,
            label="M*: Lap(1/ε)")
    ax.set_title("f_L2 noise; dotted: the weighted mixture parts", fontsize=9)
    ax = axes[1]
    cmap = plt.get_cmap("viridis")
    betas = noise["betas"]
    for i, (b, draws) in enumerate(zip(betas, noise["l1"], strict=True)):
        color = cmap(i / max(len(betas) - 1, 1))
        ax.hist(draws, bins=bins, density=True, histtype="step", color=color, lw=0.8)
        ax.plot(t, cg.noise_pdf(t, "l1", 1.0, float(b)), color=color, lw=1.5, label=f"β = {b:g}")
    ax.set_title("f_L1 noise: draws (steps) and (A.1) (lines)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("ε · (m1 − s1)")
        ax.set_ylabel("density")
        ax.legend(frameon=False, fontsize=7)
    return axes


def plot_e7_privacy(privacy: pd.DataFrame, ax=None):
    """Attained privacy level / ε against β: f_L1's closed form ε/(2 max(β, 1 − β)) (line), the numerical
    worst-case log likelihood ratio at each ε (markers), f_L2 and M* at level ε."""
    from . import congenial as cg

    ax = ax or plt.gca()
    b = np.linspace(0, 1, 401)
    ax.plot(b, [cg.l1_privacy_level(1.0, v) for v in b], color=E7_COLORS["l1"], lw=1.5,
            label="f_L1: ε / (2 max(β, 1 − β))")
    l1 = privacy[privacy["mechanism"] == "l1"]
    for i, (eps, g) in enumerate(l1.groupby("eps")):
        ax.plot(g["beta"], g["level_over_eps"], ls="", marker="os^Dv<>"[i % 7], ms=5, mfc="none",
                color=plt.get_cmap("tab10")(i), label=f"numerical, ε = {eps:g}")
    for mech, beta in (("conditional", None), ("l2", 0.5)):
        v = privacy.loc[privacy["mechanism"] == mech, "level_over_eps"]
        if beta is None:
            ax.axhline(v.min(), color=E7_COLORS[mech], lw=1, ls="--", label=f"M*: numerical {v.min():.4f} ε")
        else:
            ax.plot([beta], [v.min()], marker="*", ms=10, color=E7_COLORS[mech], ls="",
                    label=f"f_L2: numerical {v.min():.4f} ε")
    ax.set_xlabel("β")
    ax.set_ylabel("attained level / ε")
    ax.set_ylim(0.4, 1.05)
    ax.legend(frameon=False, fontsize=7, loc="lower center")
    return ax


def plot_swap_epsilon(curves: pd.DataFrame, printed: pd.DataFrame, minima: pd.DataFrame, ax=None,
                      highlight=()):
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
        ax.plot(g["logit_swap_rate"], g["epsilon"], color=c, lw=2.2 if bold else 1, alpha=1 if bold else 0.6,
                label=f"b = {b:,}")
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
    top = ax.secondary_xaxis("top", functions=(lambda t: expit(np.asarray(t, dtype=float)),
                                              lambda p: logit(np.clip(np.asarray(p, dtype=float), 1e-300, 1 - 1e-16))))
    ticks = {1e-4: "1e-4", 1e-2: "0.01", 0.5: "0.5", 1 - 1e-4: "1−1e-4", 1 - 1e-8: "1−1e-8"}
    top.set_xticks(list(ticks), labels=list(ticks.values()))
    top.set_xlabel("swap rate p")
    ax.scatter([], [], color="grey", edgecolor="black", s=28, label="printed in the slides")
    ax.scatter([], [], color="grey", marker="x", s=24, label="the other swap rate with that ε")
    ax.scatter([], [], facecolor="white", edgecolor="grey", s=28, label="smallest ε_b = ln(b + 1)/2")
    ax.legend(fontsize=7, frameon=False, loc="upper center", ncol=2)
    return ax


def plot_variance_tables(table: pd.DataFrame, conversion: str, levels: int, unit: float = 0.1, axes=None):
    """The talk's noise-variance tables: printed cells (markers) and each conversion's variances (lines)
    per δ on the top row; on the bottom row this run's minus the printed value in units of the last
    printed digit (``unit``) for the Laplace rows and the Gaussian rows of ``conversion`` and of
    integer orders, with the ±0.5 rounding band. ``levels`` labels the per-level budget split."""
    deltas = sorted(table["delta"].unique())
    if axes is None:
        _, axes = plt.subplots(2, len(deltas), figsize=(4.3 * len(deltas), 6.5), sharex=True,
                               gridspec_kw={"height_ratios": [2, 1]}, squeeze=False)
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
            top.plot(g["epsilon"], g["variance"], color="C3", ls=styles.get(m, "-"), lw=1.2,
                     label=f"Gaussian, {m}")
        printed = gau.drop_duplicates("epsilon")
        top.scatter(printed["epsilon"], printed["printed"], color="C3", edgecolor="black", zorder=5,
                    label="printed in the talk")
        top.set_yscale("log")
        top.set_title(f"δ = {d:.0e}")
        for (mech, m), c, mk in ((("laplace", None), "C0", "o"), (("gaussian", conversion), "C3", "s"),
                                 (("gaussian", "integer-orders"), "C1", "^")):
            g = t[(t["mechanism"] == mech) & ((t["conversion"] == m) if m else True)]
            bottom.plot(g["epsilon"], g["gap"] / unit, marker=mk, color=c, lw=0.8,
                        label="Laplace" if mech == "laplace" else f"Gaussian, {m}")
        bottom.axhspan(-0.5, 0.5, color="0.9", zorder=0)
        bottom.axhline(0, color="black", lw=0.5)
        bottom.set_xlabel("ε (total)")
        if j == 0:
            top.set_ylabel("noise variance per identity query")
            bottom.set_ylabel(f"this run − printed\n(units of {unit:g})")
    axes[0, 0].legend(fontsize=7, frameon=False)
    axes[1, -1].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1))
    return axes


def plot_state_overview(overview: pd.DataFrame, labels: dict, alpha: float = 0.01, axes=None):
    """Across states: each mechanism's error SD against the number of counties, and the DAS audit
    slope per state with ±2 SE (filled where p < ``alpha``). Returns the two Axes."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(15, 5.5))
    ax, audit = axes
    for column in (c for c in overview.columns if c.startswith("sd_")):
        method = column.removeprefix("sd_")
        ax.scatter(overview["n_counties"], overview[column], s=14, alpha=0.8,
                   color=METHOD_COLORS.get(method, "grey"), label=labels.get(method, method))
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("counties in the state (log scale)")
    ax.set_ylabel("SD of county errors (release − SF1)")
    ax.legend(frameon=False, fontsize=8)
    rows = overview.dropna(subset=["das_slope"]).sort_values("das_slope").reset_index(drop=True)
    significant = rows["das_slope_p"] < alpha
    audit.errorbar(rows.index, rows["das_slope"], yerr=2 * rows["das_slope_stderr"], fmt="none",
                   ecolor="grey", lw=0.8)
    audit.scatter(rows.index, rows["das_slope"], s=18, color=np.where(significant, "red", "white"),
                  edgecolor="red", zorder=3, label=f"p < {alpha:g} filled")
    audit.axhline(0, color="black", lw=0.6)
    audit.set_xticks(rows.index, rows["state"], rotation=90, fontsize=7)
    audit.set_ylabel("DAS error slope on log SF1 (±2 SE)")
    audit.legend(frameon=False, fontsize=8)
    return axes
