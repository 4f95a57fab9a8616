"""E7 figures (Congenial DP §4 Table 2, (4.7), App. A): variance against ε, the noise laws, privacy levels."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp.experiments import claims
from isdp.experiments.jobs import start
from isdp.experiments.plotting import (
               plot_e7_noise_laws,
               plot_e7_privacy,
               plot_e7_variance,
               save_figure,
)

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
registry = claims.load_registry(smk.input.registry)
sim = pd.read_csv(smk.input.simulation)
paper_coefs = {name: claims.paper_value(f"CDP-E7-table2-var-{mech}", registry)
               for name, mech in (("M*", "conditional"), ("f_L2", "l2"), ("f_L1", "l1"))}

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
plot_e7_variance(sim, pd.read_csv(smk.input.table2), smk.params.labels, paper_coefs, axes)
fig.suptitle(f"E7 (Congenial DP Table 2): Var(m1) of the three releases, {int(sim['n_draws'].iloc[0]):,} draws "
             "per point (±2 SE)", fontsize=10)
save_figure(fig, smk.output.variance_pdf, smk.output.variance_png)

noise = np.load(smk.input.noise)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
plot_e7_noise_laws(noise, claims.paper_value("CDP-E7-l2-noise-mixture", registry)["components"], axes)
fig.suptitle(f"E7: noise laws at ε = {float(noise['figure_eps']):g}, in units of 1/ε", fontsize=10)
save_figure(fig, smk.output.laws_pdf, smk.output.laws_png)

fig, ax = plt.subplots(figsize=(6, 4.2))
plot_e7_privacy(pd.read_csv(smk.input.privacy), ax)
ax.set_title("E7 (Congenial DP App. A): attained privacy level of each release", fontsize=10)
save_figure(fig, smk.output.privacy_pdf, smk.output.privacy_png)
log.info("figures written")
