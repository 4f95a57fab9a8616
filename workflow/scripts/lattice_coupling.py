"""L-lag coupling meeting times for one target at each configured lag."""
from isdp import generalized_laplace
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem
from isdp.experiments.lattice_study.studies import coupling_study, derive_seed

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
target = generalized_laplace(smk.params.eps, smk.wildcards.norm)
cfg = smk.params.coupling
meetings = coupling_study(problem.lattice(), target, lags=smk.params.target["lags"], n_pairs=cfg["n_pairs"],
                          proposal_eps=smk.params.target["proposal_eps"], seed=derive_seed(*smk.params.seed),
                          max_iter=cfg["max_iter"])
meetings.insert(0, "target", smk.wildcards.norm)
meetings.to_csv(smk.output.meetings, index=False, lineterminator="\n")
