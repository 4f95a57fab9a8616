"""TV upper bound curves from the meeting times, the convergence table and the TV figure."""
import matplotlib.pyplot as plt
import pandas as pd

from isdp._workflow import start
from isdp.plotting import NORM_LABELS, plot_tv_bounds, save_figure
from isdp.studies import convergence_by_lag, tv_curves

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
threshold = smk.params.threshold
norms = smk.params.norms
fig, axes = plt.subplots(1, len(norms), figsize=(6 * len(norms), 4.2), squeeze=False)
curves, tables = [], []
for ax, norm, path in zip(axes[0], norms, smk.input.meetings, strict=True):
    meetings = pd.read_csv(path)
    table = convergence_by_lag(meetings, threshold)
    table.insert(0, "target", norm)
    c = tv_curves(meetings)
    c.insert(0, "target", norm)
    curves.append(c)
    tables.append(table)
    t_max = int(table["converged_at"].max() * 1.3) + 10
    plot_tv_bounds(c, ax, title=f"{smk.params.title}: {NORM_LABELS[norm]}, ε = {smk.params.eps:g}",
                   threshold=threshold, t_max=t_max)
    log.info("%s convergence by lag:\n%s", norm, table.to_string())
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
pd.concat(curves).to_csv(smk.output.curves, index=False, lineterminator="\n")
pd.concat(tables).to_csv(smk.output.table, index=False, lineterminator="\n")
