"""E2 Tables 1 and 3: one retained noise draw per target, with its (zero) margins."""
import numpy as np

from isdp import check_release, load_draws
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem, with_margins

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
rows, cols = problem.meta["rows"], problem.meta["cols"]
titles = {"l1": "Table 1 (ISDP §5): one ℓ1 generalized Laplace noise draw after convergence",
          "l2": "Table 3 (ISDP App. E.3): one ℓ2 generalized Laplace noise draw after convergence"}
for norm, path, csv, md in zip(smk.params.norms, smk.input.draws, smk.output.csv, smk.output.md, strict=True):
    draw = load_draws(path)[0, 0]  # the first retained draw of chain 0: after burn-in, fixed by the base seed
    check_release(draw, problem.A, np.zeros(problem.A.shape[0], dtype=np.int64), what=f"{norm} noise table")
    table = with_margins(draw, rows, cols)
    assert (table["Total"] == 0).all() and (table.loc["Total"] == 0).all()
    table.to_csv(csv, lineterminator="\n")
    with open(md, "w") as fh:
        fh.write(f"{titles[norm]}\n\n{table.to_markdown()}\n\n"
                 f"‖u‖₁ = {int(np.abs(draw).sum())}, ‖u‖₂ = {np.sqrt((draw**2).sum()):.2f}\n")
    log.info("%s draw: l1 norm %d", norm, np.abs(draw).sum())
