"""DAS bias audit (Subspace DP §1, Fig 1 left) and the E3 state selection.

Writes the per-state regressions (CSV) and a JSON with the audit counts, the selected states,
whether they came from the rule or the config override, the vintage and the data source.
"""
import json
from pathlib import Path

from isdp.experiments.jobs import start
from isdp.experiments.e3_census_counties.audit import audit_counts, das_bias_regressions, select_states
from isdp.experiments.nhgis import load_counties

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
alpha = float(smk.params.alpha)
override = smk.params.override or None
counties = load_counties(smk.input.counties)
reg = das_bias_regressions(counties, min_counties=int(smk.params.min_counties))
reg.to_csv(smk.output.regressions, index=False, lineterminator="\n", float_format="%.10g")
available = list(counties.drop_duplicates("state_abbr").sort_values("state_fips")["state_abbr"])
states = select_states(reg, alpha=alpha, n_target=int(smk.params.n_target), always=tuple(smk.params.always),
                       override=override, available=available)
summary = {
    "vintage": counties["vintage"].iloc[0],
    "alpha": alpha,
    **audit_counts(reg, alpha=alpha),
    "selected_states": states,
    "selection": "all states" if override == "all" else "override" if override is not None else "rule",
    "data_source": json.loads(Path(smk.input.info).read_text()),
}
Path(smk.output.summary).write_text(json.dumps(summary, indent=2) + "\n")
log.info("audit %s: selected %s", {k: v for k, v in summary.items() if k.startswith("n_")}, states)
