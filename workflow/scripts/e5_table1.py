"""E5 Table 1 (FODS-20 §3): the confidential table and one constrained release, with the invariant margins."""
import numpy as np
import pandas as pd

from isdp import check_release, load_draws
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem, read_table_csv

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
rows, cols = problem.meta["rows"], problem.meta["cols"]
first_voting = cols.index(problem.meta["voting_age_from"])
draws = load_draws(smk.input.draws)
release = draws[0, -1]  # the last retained state of chain 1: after burn-in, fixed by the base seed
check_release(release, problem.A, problem.invariants, what="E5 Table 1 release")
assert release.min() >= 0
paper_release = read_table_csv(smk.input.paper_release)[0].ravel()


def block(name, s):
    t = pd.DataFrame(np.asarray(s).reshape(2, -1), index=rows, columns=cols)
    t.loc["Total"] = t.sum(axis=0)
    t["Total"] = t.sum(axis=1)
    t["under 18"] = t[cols[:first_voting]].sum(axis=1)
    t["voting age"] = t[cols[first_voting:]].sum(axis=1)
    t.index = pd.MultiIndex.from_product([[name], t.index], names=["table", "sex"])
    return t


table = pd.concat([block("confidential", problem.x), block("release (this run)", release),
                   block("release (paper)", paper_release)])
for name in table.index.get_level_values(0).unique():  # the invariant margins agree exactly in every block
    t = table.loc[name]
    assert t.loc[rows[0], "Total"] == problem.invariants[1] and t.loc["Total", "Total"] == problem.invariants[0]
    assert t.loc["Total", "voting age"] == problem.invariants[2]
table.to_csv(smk.output.csv, lineterminator="\n")
md = table.astype(str)
for name in md.index.get_level_values(0).unique():  # bold the invariants, as the paper does
    for r, c in ((rows[0], "Total"), (rows[1], "Total"), ("Total", "Total"), ("Total", "under 18"),
                 ("Total", "voting age")):
        md.loc[(name, r), c] = f"**{md.loc[(name, r), c]}**"
dist = np.abs(release - problem.x).sum()
with open(smk.output.md, "w") as fh:
    fh.write("Table 1 (FODS-20 §3): confidential sex × age table and constrained releases "
             f"(ε = {smk.params.eps}, ε̃ = {smk.params.proposal_eps}); invariants in bold\n\n")
    fh.write(md.reset_index().to_markdown(index=False) + "\n\n")
    fh.write(f"L1 distance to the confidential table: this run {int(dist)}, "
             f"paper {int(np.abs(paper_release - problem.x).sum())}\n")
log.info("release L1 distance %d", dist)
