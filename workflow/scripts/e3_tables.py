"""E3 tables across the selected states: R-hat/ESS, non-negativity, MCMC vs exact, unbiasedness."""
import json

import numpy as np
import pandas as pd

from isdp import load_draws
from isdp.experiments.jobs import start
from isdp.experiments.e3_census_counties.census import nonnegativity
from isdp.experiments.nhgis import load_counties
from isdp.experiments.lattice_study.studies import unbiasedness_table

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
counties = load_counties(smk.input.counties)
band = int(smk.params.band)
conv, nonneg, unb = [], [], []
for state, draws_path, diag_path, run_path in zip(smk.params.states, smk.input.draws, smk.input.diagnostics,
                                                  smk.input.runs, strict=True):
    group = counties[counties["state_abbr"] == state].sort_values("gisjoin")
    run = json.loads(open(run_path).read())
    diag = pd.read_csv(diag_path)
    conv.append({k: run[k] for k in ("state", "n_counties", "n_chains", "max_r_hat", "worst_county", "min_ess_bulk",
                                     "min_ess_tail", "min_ess_bulk_retained", "n_retained", "diagnostic_draws_per_chain",
                                     "burn_in", "thin", "retained_thin", "overdispersion_factor", "overdispersion_iter",
                                     "start_l1_mean", "acceptance", "proposal_eps")})
    draws = load_draws(draws_path)
    nonneg.append({"state": state, **nonnegativity(group["sf1_pop"].to_numpy(), draws, band=band),
                   "vintage": group["vintage"].iloc[0]})
    t = unbiasedness_table(draws, diag["ess_bulk_retained"].to_numpy(), list(group["gisjoin"]))
    unb.append({"state": state, "n_counties": len(group), "max_abs_z": float(np.abs(t["z"]).max()),
                "mean_abs_z": float(np.abs(t["z"]).mean()), "max_abs_mean": float(np.abs(t["mean"]).max()),
                "mean_sd": float(t["sd"].mean())})
pd.DataFrame(conv).to_csv(smk.output.convergence, index=False, lineterminator="\n", float_format="%.6g")
pd.DataFrame(nonneg).to_csv(smk.output.nonneg, index=False, lineterminator="\n", float_format="%.6g")
pd.DataFrame(unb).to_csv(smk.output.unbiasedness, index=False, lineterminator="\n", float_format="%.6g")
exact = pd.concat([pd.read_csv(p) for p in smk.input.exact], ignore_index=True)
exact.to_csv(smk.output.exact, index=False, lineterminator="\n", float_format="%.6g")
log.info("\n%s\n%s\n%s", pd.DataFrame(conv).to_string(), pd.DataFrame(nonneg).to_string(), exact.to_string())
