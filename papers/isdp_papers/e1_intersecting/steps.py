"""E1's own step (ISDP §5, App. E.2).

What rule ``e1_problem`` in ``workflow/rules/e1.smk`` calls. The pilot, coupling, TV bounds, draws, unbiasedness and box
plots are the shared steps of :mod:`isdp_papers.lattice_study.steps`.
"""

import matplotlib.pyplot as plt

from isdp_papers.e1_intersecting.figures import plot_venn_constraints
from isdp_papers.e1_intersecting.problem import intersecting_constraints_problem
from isdp_papers.jobs import Job
from isdp_papers.plot_style import save_figure


def problem(job: Job) -> None:
    """Write the intersecting-constraints problem and Fig 3 (its constraints as a Venn diagram).

    Params: ``x`` (the records' counts), ``records_per_region``; outputs ``problem`` (JSON),
    ``fig_pdf``, ``fig_png``.
    """
    prob = intersecting_constraints_problem(job.params.x, job.params.records_per_region)
    lattice = prob.lattice()
    job.log.info(
        "E1: %d records, %d constraints, rank %d, lattice dimension %d",
        prob.A.shape[1],
        prob.A.shape[0],
        lattice.rank,
        lattice.dim,
    )
    prob.to_json(job.output.problem)
    fig, ax = plt.subplots(figsize=(6, 5.5))
    plot_venn_constraints(prob, ax)
    ax.set_title(f"E1: 3 counting constraints over {prob.A.shape[1]} records (record: count)")
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
