"""E3 DAS bias audit for the report: the regression table, the audit counts, the selected
states, the data vintage, and the slope figure (Subspace DP §1 Fig 1 left)."""
import json

import pandas as pd

from isdp.experiments.jobs import start
from isdp.experiments.nhgis import PAPER_VINTAGE
from isdp.experiments.plotting import plot_das_slopes, save_figure

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
alpha = float(smk.params.alpha)
info = json.loads(open(smk.input.info).read())
selection = json.loads(open(smk.input.selection).read())
vintage = info["vintage_used"]

pd.DataFrame([{"vintage_requested": info["vintage_requested"], "vintage_used": vintage,
               "paper_vintage": PAPER_VINTAGE, "source_used": info["source_used"], "reason": info["reason"],
               "url": info["url"] or "", "sha256": info["sha256"]}]).to_csv(smk.output.source, index=False,
                                                                             lineterminator="\n")
reg = pd.read_csv(smk.input.regressions, dtype={"state_fips": str})
reg["significant"] = reg["p_value"] < alpha
reg["selected"] = reg["state_abbr"].isin(selection["selected_states"])
reg["vintage"] = vintage
reg.to_csv(smk.output.table, index=False, lineterminator="\n", float_format="%.6g")

# the paper's counts and the verdicts are in the reproduction summary (claims SDP-E3-audit-*)
counts = pd.DataFrame([
    {"quantity": "regressions (states with > 5 counties)", "this_run": selection["n_regressions"]},
    {"quantity": "negative slopes", "this_run": selection["n_negative"]},
    {"quantity": f"significant slopes (p < {alpha:g})", "this_run": selection["n_significant"]},
    {"quantity": f"significant negative slopes (p < {alpha:g})", "this_run": selection["n_significant_negative"]},
])
counts["vintage"] = vintage
counts.to_csv(smk.output.counts, index=False, lineterminator="\n")

states = selection["selected_states"]
sel = reg.set_index("state_abbr").reindex(states)
always = set(smk.params.always)
sel["reason"] = ["override" if selection["selection"] == "override" else
                 "significant" if (r.slope < 0 and r.p_value < alpha) else
                 "always shown" if s in always else "filler (next smallest p among negative slopes)"
                 for s, r in sel.iterrows()]
sel = sel.reset_index()[["state_abbr", "state_fips", "n_counties", "slope", "stderr", "p_value", "reason"]]
sel["vintage"] = vintage
sel.to_csv(smk.output.selected, index=False, lineterminator="\n", float_format="%.6g")

fig = plot_das_slopes(reg, alpha=alpha, title=f"DAS error vs log(SF1) slope per state, NHGIS v{vintage}")
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
log.info("audit counts:\n%s\nselected: %s", counts.to_string(), states)
