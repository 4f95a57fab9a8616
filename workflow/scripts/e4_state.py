"""E4, one state: the five mechanisms' releases (generalized Laplace = E3's retained draws), their
metrics, spread ratios and per-county spread. Fails loudly when a method breaks what it guarantees by construction
(integer methods: integer-valued with the state total exact; real methods: total to 1e-6)."""
import json
from pathlib import Path

import numpy as np

from isdp import derive_seed, load_draws
from isdp.experiments.jobs import start
from isdp.experiments.e4_projection_comparison.comparison import (
    INTEGER_BY_CONSTRUCTION,
    METHODS,
    county_spread,
    metrics_table,
    releases_for_state,
    save_releases,
    spread_ratios,
)
from isdp.experiments.nhgis import load_counties
from isdp.lattice import InvariantError

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
state = smk.wildcards.state
counties = load_counties(smk.input.counties)
group = counties[counties["state_abbr"] == state].sort_values("gisjoin")  # E3's column order
if group.empty:
    raise ValueError(f"state {state}: no counties in {smk.input.counties}")
gl = load_draws(smk.input.draws)
n_releases = int(smk.params.n_releases)
seed = derive_seed(*smk.params.seed)
rel = releases_for_state(state, group["sf1_pop"].to_numpy(), group["dp_pop"].to_numpy(), gl, eps=smk.params.eps,
                         n_releases=n_releases, seed=seed, sensitivity=smk.params.sensitivity,
                         counties=list(group["gisjoin"]), names=list(group["name"]))
metrics = metrics_table(rel)
for _, row in metrics[metrics["method"].isin(METHODS)].iterrows():
    by_construction = INTEGER_BY_CONSTRUCTION[row["method"]]
    if row["invariant_exact"] != "yes" or (by_construction and row["integer_valued"] != "yes"):
        raise InvariantError(f"{state} {row['method']}: integer_valued={row['integer_valued']}, invariant_exact="
                             f"{row['invariant_exact']} (max residual {row['invariant_max_residual']:.3g})")
save_releases(smk.output.releases, rel)
metrics.to_csv(smk.output.metrics, index=False, lineterminator="\n", float_format="%.6g")
spread = spread_ratios(rel)
spread.to_csv(smk.output.spread, index=False, lineterminator="\n", float_format="%.6g")
county_spread(rel).to_csv(smk.output.county_spread, index=False, lineterminator="\n", float_format="%.6g")
run = {"state": state, "n_counties": len(group), "n_releases": n_releases, "seed": seed,
       "seconds": rel.seconds,
       "ms_per_release": {k: 1000 * v / n_releases for k, v in rel.seconds.items()},
       "e3_draws_available": int(np.asarray(gl).reshape(-1, len(group)).shape[0])}
Path(smk.output.run).write_text(json.dumps(run, indent=2) + "\n")
log.info("%s\n%s\n%s", json.dumps(run), metrics.to_string(), spread.to_string())
