"""E5 Fig 1 (FODS-20 §3): box plots over the tables of the average L1 and L2 distances per method."""
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from isdp.experiments.jobs import start
from isdp.experiments.plotting import save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
dist = pd.read_csv(smk.input.distances)
labels = {k: v.replace(", ", "\n").replace(" + ", "\n+ ") for k, v in smk.params.labels.items()}  # wrapped
dist["label"] = dist["method"].map(labels)
order = [labels[m] for m in smk.params.methods]
fig, axes = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
for ax, col, name in zip(axes, ("avg_l1", "avg_l2"), ("L1", "L2"), strict=True):
    sns.boxplot(data=dist, x="label", y=col, order=order, ax=ax, color="#9ecae1")
    sns.stripplot(data=dist, x="label", y=col, order=order, ax=ax, color="k", size=3, alpha=0.6)
    ax.set_ylabel(f"average {name} distance")
    ax.set_xlabel("")
n_tables, n_rel = dist["table"].nunique(), int(dist["n_releases"].iloc[0])
axes[0].set_title(f"E5 Fig 1: {n_tables} confidential tables, {n_rel} releases each")
axes[1].tick_params(axis="x", labelsize=8)
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
summary = dist.groupby("method")[["avg_l1", "avg_l2"]].agg(["median", "mean", "min", "max"])
summary.columns = [f"{a}_{b}" for a, b in summary.columns]
summary = summary.loc[smk.params.methods].reset_index()
summary.insert(1, "label", summary["method"].map(smk.params.labels))
summary.to_csv(smk.output.table, index=False, lineterminator="\n")
log.info("\n%s", summary.to_string())
