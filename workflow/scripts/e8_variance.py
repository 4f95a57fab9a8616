"""E8, TopDown talk: the Laplace and Gaussian noise-variance tables recomputed under each zCDP conversion."""
import pandas as pd

from isdp.accounting import variance_table
from isdp.experiments.jobs import start
from isdp.experiments.plotting import plot_variance_tables, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
cfg = smk.params.tda
methods = [cfg["conversion"], *[m for m in cfg["alternatives"] if m != cfg["conversion"]]]
table = variance_table(pd.read_csv(smk.input.printed), cfg["levels"], cfg["changed_cells"], methods)
table.to_csv(smk.output.table, index=False, lineterminator="\n")
log.info("max |gap| per mechanism, conversion and δ:\n%s",
         table.groupby(["mechanism", "conversion", "delta"])["gap"].agg(lambda g: g.abs().max()).to_string())

fig = plot_variance_tables(table, cfg["conversion"], cfg["levels"])[0, 0].figure
fig.suptitle("E8 (TopDown talk): noise variance of identity queries, printed vs recomputed")
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
