"""E3, one state: ℓ1 generalized Laplace noise on its counties with the state total invariant.

Over-dispersed chains, burn-in, R-hat < threshold for every county (the job fails otherwise,
naming the state and county), the retained draws as netCDF, and the MCMC vs exact comparison.
"""
import json
from pathlib import Path

from isdp import derive_seed, save_draws
from isdp.exact import sample_sum_constraint_l1
from isdp.experiments.jobs import start
from isdp.experiments.e3_census_counties.census import compare_with_exact, run_state
from isdp.experiments.nhgis import load_counties

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
state = smk.wildcards.state
counties = load_counties(smk.input.counties)
group = counties[counties["state_abbr"] == state].sort_values("gisjoin")
if group.empty:
    raise ValueError(f"state {state}: no counties in {smk.input.counties}")
cfg = smk.params.mcmc
seed = derive_seed(*smk.params.seed)
run = run_state(len(group), smk.params.eps, n_chains=cfg["n_chains"], n_draws=cfg["n_draws"],
                draws_per_chain=cfg["draws_per_chain"], thin=cfg["thin"], burn_in=cfg["burn_in"],
                proposal_eps=cfg["proposal_eps"], overdispersion=cfg["overdispersion"], seed=seed,
                cell_names=list(group["gisjoin"]), label=state, r_hat_max=cfg["r_hat_max"])
save_draws(smk.output.draws, run.draws, list(group["gisjoin"]),
           {"state": state, "target": f"l1 generalized Laplace, eps={smk.params.eps}", "seed": seed,
            "vintage": group["vintage"].iloc[0], **{k: run.summary[k] for k in ("burn_in", "retained_thin")}})
diag = run.diagnostics.rename(columns={"cell": "gisjoin"})
diag.insert(0, "state", state)
diag = diag.merge(group[["gisjoin", "name", "sf1_pop", "dp_pop"]], on="gisjoin")
diag.to_csv(smk.output.diagnostics, index=False, lineterminator="\n")
Path(smk.output.run).write_text(json.dumps(run.summary, indent=2) + "\n")

flat = run.draws.reshape(-1, len(group))
exact = (sample_sum_constraint_l1(len(group), smk.params.eps, len(flat), derive_seed(seed, "exact"))
         if len(group) > 1 else flat)  # one county: the point mass at 0 is the exact law
comparison = compare_with_exact(flat, exact, group["sf1_pop"].to_numpy())
comparison.insert(0, "state", state)
log.info("MCMC vs exact:\n%s", comparison.to_string())
comparison.to_csv(smk.output.exact, index=False, lineterminator="\n")
