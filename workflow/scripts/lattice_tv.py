"""TV upper bound curves from the meeting times, the convergence table and the TV figure(s).

One output figure gets a panel per target; one figure per target otherwise (E2: Fig 1 and Fig 6).
"""
import matplotlib.pyplot as plt
import pandas as pd

from isdp.experiments.jobs import start
from isdp.experiments.plotting import NORM_LABELS, plot_tv_bounds, save_figure
from isdp.experiments.lattice_study.studies import convergence_by_lag, tv_curves

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
threshold = smk.params.threshold
norms = smk.params.norms
pdfs = [smk.output.fig_pdf] if isinstance(smk.output.fig_pdf, str) else list(smk.output.fig_pdf)
pngs = [smk.output.fig_png] if isinstance(smk.output.fig_png, str) else list(smk.output.fig_png)
panels = len(pdfs) == 1
if panels:
    fig, axes = plt.subplots(1, len(norms), figsize=(6 * len(norms), 4.2), squeeze=False)
    axes = list(axes[0])
else:
    figs, axes = zip(*(plt.subplots(figsize=(6.5, 4.2)) for _ in norms), strict=True)
curves, tables = [], []
for i, (ax, norm, path) in enumerate(zip(axes, norms, smk.input.meetings, strict=True)):
    meetings = pd.read_csv(path)
    table = convergence_by_lag(meetings, threshold)
    table.insert(0, "target", norm)
    c = tv_curves(meetings)
    c.insert(0, "target", norm)
    curves.append(c)
    tables.append(table)
    t_max = int(table["converged_at"].max() * 1.3) + 10
    plot_tv_bounds(c, ax, title=f"{smk.params.title}: {NORM_LABELS[norm]}, ε = {smk.params.eps:g}",
                   threshold=threshold, t_max=t_max, converged=dict(zip(table["lag"], table["converged_at"], strict=True)))
    log.info("%s convergence by lag:\n%s", norm, table.to_string())
    if not panels:
        save_figure(figs[i], pdfs[i], pngs[i])
if panels:
    save_figure(fig, pdfs[0], pngs[0])
pd.concat(curves).to_csv(smk.output.curves, index=False, lineterminator="\n")
pd.concat(tables).to_csv(smk.output.table, index=False, lineterminator="\n")
