"""E5 Fig 2 (FODS-20 App. C): MIS acceptance rate against the proposal parameter ε̃."""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp import derive_seed, mis_sample
from isdp.experiments.jobs import start
from isdp.experiments.claims import paper_value
from isdp.experiments.plotting import save_figure
from isdp.experiments.problems import Problem

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
cfg = smk.params.acceptance
d = problem.x.size
rows = []
for eps_q in cfg["grid"]:
    res = mis_sample(problem.A, problem.invariants, problem.x, eps=smk.params.eps, proposal_eps=eps_q,
                     index_set=problem.meta["index_set"], n_chains=cfg["n_chains"], n_draws=0,
                     burn_in=cfg["n_iter"], B=np.eye(d), b=np.zeros(d),
                     seed=derive_seed(*smk.params.seed, eps_q))
    acc = res.acceptance
    rows.append({"proposal_eps": eps_q, "acceptance": acc.mean(),
                 "se": acc.std(ddof=1) / np.sqrt(len(acc)) if len(acc) > 1 else np.nan,
                 "infeasible": res.infeasible.mean(), "n_chains": len(acc), "proposals_per_chain": res.n_iterations,
                 "seconds": res.seconds})
    log.info("eps~ %.3f: acceptance %.4f (chains %s), infeasible %.3f, %.1f s", eps_q, acc.mean(),
             np.round(acc, 4).tolist(), res.infeasible.mean(), res.seconds)
table = pd.DataFrame(rows)
table["best"] = table["acceptance"] == table["acceptance"].max()
table.to_csv(smk.output.table, index=False, lineterminator="\n")

paper_eps = paper_value("CDP-E5-best-proposal", str(smk.input.registry))
paper_acc = paper_value("CDP-E5-acceptance", str(smk.input.registry))
fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(table["proposal_eps"], 100 * table["acceptance"], yerr=200 * table["se"].fillna(0), marker="o",
            capsize=3, label=f"this run ({cfg['n_chains']} chains x {cfg['n_iter']:,} proposals, ±2 SE)")
ax.plot([paper_eps], [100 * paper_acc], "r*", markersize=12, label=f"paper: ε̃ = {paper_eps}, {100 * paper_acc:.2f} %")
ax.axvline(smk.params.eps, color="grey", linestyle=":", label=f"ε = {smk.params.eps} (target)")
ax.set_xlabel("proposal parameter ε̃")
ax.set_ylabel("acceptance rate (%)")
ax.set_title("E5 Fig 2: MIS acceptance rate (sex × age table)")
ax.legend(fontsize=8)
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
