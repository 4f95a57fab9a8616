"""E5 Fig 3 (FODS-20 App. C): MIS trace plots of cell 2 (in I) and cell 1 (not in I) at the chosen ε̃.

One run per thinning: thin 1 is Algorithm 1's output at every iteration (10,000 draws = 10,000
proposals); a larger thin keeps every thin-th state (about one accepted move per retained draw).
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp import convergence_table, derive_seed, mis_sample, save_draws, summarize_convergence
from isdp.experiments.jobs import start
from isdp.experiments.plotting import save_figure
from isdp.experiments.problems import Problem

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
cfg = smk.params.trace
d = problem.x.size
cells = [1, 0]  # the paper's cells 2 and 1 (0-based), the first in I, the second not
assert cells[0] in problem.meta["index_set"] and cells[1] not in problem.meta["index_set"]
rows = []
fig, axes = plt.subplots(2, len(cfg["thins"]), figsize=(5.5 * len(cfg["thins"]), 5), squeeze=False, sharey="row")
for j, (thin, out) in enumerate(zip(cfg["thins"], smk.output.draws, strict=True)):
    res = mis_sample(problem.A, problem.invariants, problem.x, eps=smk.params.eps, proposal_eps=smk.params.proposal_eps,
                     index_set=problem.meta["index_set"], n_chains=cfg["n_chains"], n_draws=cfg["n_draws"],
                     burn_in=cfg["burn_in"], thin=thin, B=np.eye(d), b=np.zeros(d),
                     seed=derive_seed(*smk.params.seed, thin))
    save_draws(out, res.draws, problem.cell_labels,
               {"what": "MIS states s (releases), not noise", "eps": res.eps, "proposal_eps": res.proposal_eps,
                "burn_in": res.burn_in, "thin": thin, "seed": res.seed, "acceptance": float(res.acceptance.mean())})
    summary = summarize_convergence(convergence_table(res.draws - problem.x))
    moves = (np.diff(res.draws, axis=1) != 0).any(axis=2).mean()
    rows.append({"thin": thin, "n_chains": cfg["n_chains"], "n_draws": cfg["n_draws"], "burn_in": cfg["burn_in"],
                 "proposals_per_chain": res.n_iterations, "acceptance": float(res.acceptance.mean()),
                 "share_draws_changed": float(moves), **summary, "seconds": res.seconds})
    log.info("thin %d: acceptance %s, %.1f s, %s", thin, np.round(res.acceptance, 4).tolist(), res.seconds, summary)
    for i, cell in enumerate(cells):
        ax = axes[i, j]
        ax.plot(res.draws[0, :, cell], lw=0.6)
        ax.axhline(problem.x[cell], color="red", lw=0.8, ls="--", label="confidential value")
        where = "in I" if cell in problem.meta["index_set"] else "not in I"
        ax.set_title(f"cell {cell + 1} ({problem.cell_labels[cell]}, {where}); thin {thin}", fontsize=9)
        ax.set_xlabel("draw" if thin > 1 else "iteration")
        if j == 0:
            ax.set_ylabel("released count")
axes[0, 0].legend(fontsize=8)
fig.suptitle(f"E5 Fig 3: MIS traces, {cfg['n_draws']:,} draws, ε = {smk.params.eps}, ε̃ = {smk.params.proposal_eps} "
             f"(chain 1 of {cfg['n_chains']})", fontsize=10)
fig.tight_layout()
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
pd.DataFrame(rows).to_csv(smk.output.table, index=False, lineterminator="\n")
