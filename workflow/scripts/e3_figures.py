"""ISDP Fig 2 (the headline state, Illinois in the paper) and Fig 8 (the other selected states): noise box plots per county."""
import json
import math

import numpy as np

from isdp import derive_seed, load_draws
from isdp.experiments.jobs import start
from isdp.experiments.nhgis import STATE_NAMES, load_counties
from isdp.experiments.plotting import plot_state_noise, plt, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
counties = load_counties(smk.input.counties)
vintage = json.loads(open(smk.input.info).read())["vintage_used"]
rng = np.random.default_rng(derive_seed(*smk.params.seed))
eps = smk.params.eps


def panel(state, path, ax):
    group = counties[counties["state_abbr"] == state].sort_values("gisjoin")
    flat = load_draws(path).reshape(-1, len(group))
    one = flat[rng.integers(len(flat))]
    plot_state_noise(group["sf1_pop"], flat, group["dp_pop"] - group["sf1_pop"], one, ax=ax,
                     title=f"{state}: {len(group)} counties, {len(flat)} draws")
    return group


draws = dict(zip(smk.params.states, smk.input.draws, strict=True))
head = smk.params.headline
fig, ax = plt.subplots(figsize=(14, 4.5))
panel(head, draws[head], ax)
ax.set_title(f"{STATE_NAMES[head]}: ℓ1 generalized Laplace noise (ε = {eps}), state total invariant; "
             f"DAS errors from NHGIS v{vintage}")
ax.legend(frameon=False, loc="upper left")
save_figure(fig, smk.output.fig2_pdf, smk.output.fig2_png)

others = [s for s in smk.params.states if s != head]
ncol = 2
nrow = max(1, math.ceil(len(others) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(14, 3.2 * nrow), squeeze=False)
for ax, state in zip(axes.flat, others, strict=False):
    panel(state, draws[state], ax)
for ax in list(axes.flat)[len(others):]:
    ax.axis("off")
if not others:
    axes.flat[0].text(0.5, 0.5, f"no selected state besides {STATE_NAMES[head]}", ha="center", va="center")
else:
    axes.flat[0].legend(frameon=False, loc="upper left", fontsize=8)
fig.suptitle(f"Fig 8: ℓ1 generalized Laplace noise (ε = {eps}) per county; DAS errors from NHGIS v{vintage}")
fig.tight_layout()
save_figure(fig, smk.output.fig8_pdf, smk.output.fig8_png)
log.info("figures: %s + %s", head, others)
