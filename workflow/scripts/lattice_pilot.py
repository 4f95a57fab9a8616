"""Pilot runs over a grid of proposal ε for one target: acceptance and MSJD per value."""
from isdp import derive_seed, generalized_laplace, tune_proposal
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
pilot = smk.params.pilot
problem = Problem.from_json(smk.input.problem)
target = generalized_laplace(smk.params.eps, smk.wildcards.norm)
table, chosen = tune_proposal(problem.lattice(), target, pilot["grid"], n_chains=pilot["n_chains"],
                              n_iter=pilot["n_iter"], seed=derive_seed(*smk.params.seed),
                              acceptance_range=tuple(pilot["acceptance_range"]))
table.insert(0, "target", smk.wildcards.norm)
log.info("%s pilot: chosen proposal eps %g\n%s", target.label, chosen, table.to_string())
table.to_csv(smk.output.table, index=False, lineterminator="\n")
