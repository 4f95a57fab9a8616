"""E1: build the intersecting-constraints problem and draw Fig 3."""
import matplotlib.pyplot as plt

from isdp.experiments.jobs import start
from isdp.experiments.plotting import plot_venn_constraints, save_figure
from isdp.experiments.e1_intersecting.problem import intersecting_constraints_problem

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = intersecting_constraints_problem(smk.params.x, smk.params.records_per_region)
lattice = problem.lattice()
log.info("E1: %d records, %d constraints, rank %d, lattice dimension %d", problem.A.shape[1],
         problem.A.shape[0], lattice.rank, lattice.dim)
problem.to_json(smk.output.problem)
fig, ax = plt.subplots(figsize=(6, 5.5))
plot_venn_constraints(problem, ax)
ax.set_title(f"E1: 3 counting constraints over {problem.A.shape[1]} records (record: count)")
save_figure(fig, smk.output.fig_pdf, smk.output.fig_png)
