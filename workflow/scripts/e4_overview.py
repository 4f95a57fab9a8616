"""Across the selected states (all of them in the national run): one row per state with its size,
E3's noise SD, the DAS audit slope and every mechanism's error SD; and the figure."""
import json

import matplotlib.pyplot as plt
import pandas as pd

from isdp.experiments.jobs import start
from isdp.experiments.e4_projection_comparison.comparison import LABELS, state_overview
from isdp.experiments.nhgis import STATE_NAMES, load_counties
from isdp.experiments.plotting import plot_state_overview, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
states = json.loads(open(smk.input.selection).read())["selected_states"]
overview = state_overview(load_counties(smk.input.counties), pd.read_csv(smk.input.regressions),
                          pd.read_csv(smk.input.noise), pd.read_csv(smk.input.metrics), states)
overview.insert(1, "name", overview["state"].map(STATE_NAMES))
overview.to_csv(smk.output.table, index=False, lineterminator="\n", float_format="%.6g")
fig, axes = plt.subplots(1, 2, figsize=(16, 5.5), gridspec_kw={"width_ratios": [1, 1.4]})
plot_state_overview(overview, LABELS, alpha=smk.params.alpha, axes=axes)
fig.suptitle(f"{len(overview)} states, {int(overview['n_counties'].sum())} counties: mechanism errors and the "
             f"DAS audit (ε = {smk.params.eps})")
fig.tight_layout()
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
log.info("\n%s", overview.to_string())
