"""E4 tables across the selected states: metrics per state and method, spread ratios, solver cost, and the
spread per county and method."""
import json

import pandas as pd

from isdp.experiments.jobs import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
metrics = pd.concat([pd.read_csv(p, keep_default_na=False, na_values=[""]) for p in smk.input.metrics],
                    ignore_index=True)
metrics.to_csv(smk.output.metrics, index=False, lineterminator="\n", float_format="%.6g")
spread = pd.concat([pd.read_csv(p) for p in smk.input.spread], ignore_index=True)
spread.to_csv(smk.output.spread, index=False, lineterminator="\n", float_format="%.6g")
county = pd.concat([pd.read_csv(p, dtype={"county": str}) for p in smk.input.county_spread], ignore_index=True)
county.to_csv(smk.output.county_spread, index=False, lineterminator="\n", float_format="%.6g")
rows = []
for p in smk.input.runs:
    run = json.loads(open(p).read())
    for method, sec in run["seconds"].items():
        rows.append({"state": run["state"], "n_counties": run["n_counties"], "method": method,
                     "n_releases": run["n_releases"], "seconds": sec, "ms_per_release": run["ms_per_release"][method]})
runtime = pd.DataFrame(rows)
runtime.to_csv(smk.output.runtime, index=False, lineterminator="\n", float_format="%.6g")
widest = county.groupby(["state", "method"], sort=False)["sd_ratio"].max().unstack()
log.info("\n%s\n%s\n%s\nlargest per-county SD ratio:\n%s", metrics.to_string(), spread.to_string(),
         runtime.to_string(), widest.to_string())
