"""ISDP Fig 10-style figures: per-county error box plots of the five mechanisms (the headline state, then the
other selected states one panel each), and the per-county SD ratio to generalized Laplace."""
import json

import numpy as np

from isdp.experiments.jobs import start
from isdp.experiments.e4_projection_comparison.comparison import LABELS, METHODS, load_releases
from isdp.experiments.nhgis import STATE_NAMES
from isdp.experiments.plotting import METHOD_COLORS, plot_fig10, plt, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
vintage = json.loads(open(smk.input.info).read())["vintage_used"]
eps = smk.params.eps
rels = {s: load_releases(p) for s, p in zip(smk.params.states, smk.input.releases, strict=True)}
head = smk.params.headline


def title(rel):
    return f"{rel.state}: {len(rel.sf1)} counties, {rel.attrs['n_releases']} releases per method"


rel = rels[head]
fig, (ax, zoom) = plt.subplots(2, 1, figsize=(20, 10), sharex=True)
plot_fig10(rel, ax=ax, fliers=True)
ax.set_title(f"{STATE_NAMES[head]}: errors (release − SF1) of five mechanisms, ε = {eps}, Δ = 1, state total invariant; "
             f"DAS errors (red) from NHGIS v{vintage}")
plot_fig10(rel, ax=zoom, clip=1.5)
zoom.get_legend().remove()
zoom.set_title("the same, y-axis zoomed to ±1.5 × the 99th percentile of the generalized Laplace |errors| "
               "(outliers not drawn)")
save_figure(fig, smk.output.il_pdf, smk.output.il_png)

others = [s for s in smk.params.states if s != head]
fig, axes = plt.subplots(max(1, len(others)), 1, figsize=(20, 3.6 * max(1, len(others))), squeeze=False)
for ax, state in zip(axes[:, 0], others, strict=False):
    plot_fig10(rels[state], ax=ax, title=title(rels[state]), clip=2.5)
    if ax is not axes[0, 0]:
        ax.get_legend().remove()
if not others:
    axes[0, 0].text(0.5, 0.5, f"no selected state besides {STATE_NAMES[head]}", ha="center", va="center")
fig.suptitle(f"Fig 10 (other states): errors of five mechanisms per county (ε = {eps}); DAS errors from NHGIS "
             f"v{vintage}; whiskers 1.5 IQR, outliers not drawn; y-axis ±2.5 × the 99th percentile of the generalized Laplace "
             "|errors|, so the absorbing county's box runs off the axis", y=1.0)
fig.tight_layout()
save_figure(fig, smk.output.states_pdf, smk.output.states_png)

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
    ax.scatter(np.concatenate(xs), np.concatenate(ys), s=6, alpha=0.6, color=METHOD_COLORS[method], label=LABELS[method])
ax.axhline(1, color="black", lw=0.8)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("county 2010 SF1 population")
ax.set_ylabel("SD of errors / SD of generalized Laplace noise")
ax.set_title(f"Per-county spread relative to generalized Laplace, {len(rels)} states; points far above 1: the county "
             "that absorbs the simplex LP/MILP discrepancy (state code)")
ax.legend(frameon=False, markerscale=3)
save_figure(fig, smk.output.ratio_pdf, smk.output.ratio_png)
log.info("figures: %s + %s", head, others)
