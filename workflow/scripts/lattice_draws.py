"""Post-convergence draws for one target: burn-in = the slowest lag's convergence iteration."""
import pandas as pd

from isdp import derive_seed, generalized_laplace, save_draws
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem
from isdp.experiments.lattice_study.studies import retained_draws

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
norm = smk.wildcards.norm
problem = Problem.from_json(smk.input.problem)
convergence = pd.read_csv(smk.input.convergence)
burn_in = int(convergence.loc[convergence["target"] == norm, "converged_at"].max())
cfg = smk.params.draws
target = generalized_laplace(smk.params.eps, norm)
res, table, worst = retained_draws(problem.lattice(), target, n_draws=cfg["n_draws"], n_chains=cfg["n_chains"],
                                   burn_in=burn_in, thin=cfg["thin"], proposal_eps=smk.params.target["proposal_eps"],
                                   seed=derive_seed(*smk.params.seed), invariants_A=problem.A, label=norm)
log.info("%s: burn-in %d, thin %d, acceptance %s, %s", target.label, burn_in, cfg["thin"],
         res.acceptance.round(3).tolist(), worst)
save_draws(smk.output.draws, res.draws, problem.cell_labels,
           {"target": target.label, "burn_in": burn_in, "thin": cfg["thin"], "seed": res.seed,
            "proposal_eps": res.proposal_eps})
table.insert(0, "target", norm)
table["burn_in"] = burn_in
table["thin"] = cfg["thin"]
table["acceptance"] = float(res.acceptance.mean())
table.to_csv(smk.output.ess, index=False, lineterminator="\n")
