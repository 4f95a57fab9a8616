"""Per-cell box plots of the retained draws for every target."""
import matplotlib.pyplot as plt

from isdp import load_draws
from isdp.experiments.jobs import start
from isdp.experiments.plotting import plot_noise_boxplots, save_figure
from isdp.experiments.problems import Problem

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
draws = {norm: load_draws(path) for norm, path in zip(smk.params.norms, smk.input.draws, strict=True)}
n = sum(d.shape[0] * d.shape[1] for d in draws.values()) // len(draws)
fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(problem.cell_labels)), 4.5))
plot_noise_boxplots(draws, problem.cell_labels, ax)
ax.set_title(f"{problem.name.upper()}: {n} noise draws per cell after convergence")
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
