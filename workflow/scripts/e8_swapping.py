"""E8, Swapping slides: the swap-rate → ε tables recomputed, ε_b and the two rates per ε, the ε-vs-p figure."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import special

from isdp.accounting import swap_min_table, swap_table, swapping_epsilon
from isdp.experiments.jobs import start
from isdp.experiments.plotting import plot_swap_epsilon, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
cfg = smk.params.swapping
tables = {name: swap_table(pd.read_csv(path)) for name, path in
          (("ma1940", smk.input.ma1940), ("census2020", smk.input.census2020))}
tables["ma1940"].to_csv(smk.output.ma1940, index=False, lineterminator="\n")
tables["census2020"].to_csv(smk.output.census2020, index=False, lineterminator="\n")
for name, t in tables.items():
    log.info("%s: max |ε − printed| = %.4f over %d cells", name, t["gap"].abs().max(), len(t))

b_values = sorted(set(tables["ma1940"]["b"]) | set(tables["census2020"]["b"]))
minima = swap_min_table(b_values, cfg["two_rate_offsets"])
minima.to_csv(smk.output.minima, index=False, lineterminator="\n")

t = np.linspace(*cfg["rate_grid"]["logit_range"], cfg["rate_grid"]["n"])
p = special.expit(t)
curves = pd.DataFrame([{"b": b, "logit_swap_rate": ti, "swap_rate": pi, "epsilon": e}
                       for b in b_values for ti, pi, e in zip(t, p, swapping_epsilon(p, b), strict=True)])
curves.to_csv(smk.output.curves, index=False, lineterminator="\n")

printed = pd.concat([tables["ma1940"], tables["census2020"]])
fig, ax = plt.subplots(figsize=(7.5, 5))
plot_swap_epsilon(curves, printed, minima, ax, highlight=(tables["ma1940"]["b"].iloc[0], max(b_values)))
ax.set_title("E8 (Swapping slides): permutation swapping's ε against the swap rate")
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
