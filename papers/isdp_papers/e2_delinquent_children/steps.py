"""E2's own steps (ISDP §5 Table 1, App. E.3 Tables 2–3).

What the rules in ``workflow/rules/e2.smk`` call (``e2_problem`` → :func:`problem`, ``e2_noise_tables`` →
:func:`noise_tables`, ``e2_validation`` → :func:`validation`). The pilot, coupling, TV bounds, draws, unbiasedness and
box plots are the shared steps of :mod:`isdp_papers.lattice_study.steps`.
"""

from isdp.convergence import load_draws
from isdp.files import write_table, write_text
from isdp.lattice import generalized_laplace
from isdp_papers.e2_delinquent_children.tables import confidential_markdown, noise_table
from isdp_papers.e2_delinquent_children.validation import mcmc_vs_exact
from isdp_papers.jobs import Job
from isdp_papers.problems import (
    Problem,
    contingency_table_problem,
    read_table_csv,
    with_margins,
)


def problem(job: Job) -> None:
    """Write the confidential 4x4 table (Table 2, margins computed from the cells) and its problem.

    Input ``table`` (the cells as CSV); outputs ``problem`` (JSON), ``csv`` and ``md`` (Table 2).
    """
    values, rows, cols = read_table_csv(job.input.table)
    prob = contingency_table_problem("e2", values, rows, cols)
    lattice = prob.lattice()
    job.log.info(
        "E2: %d cells, %d margins, rank %d, lattice dimension %d",
        prob.A.shape[1],
        prob.A.shape[0],
        lattice.rank,
        lattice.dim,
    )
    prob.to_json(job.output.problem)
    table = with_margins(values, rows, cols)
    write_table(table, job.output.csv, index=True)
    write_text(confidential_markdown(table), job.output.md)


def noise_tables(job: Job) -> None:
    """Tables 1 and 3: one retained noise draw per target, with its (zero) margins.

    Params: ``norms``; inputs ``problem``, ``draws`` (one file per norm); outputs ``csv`` and ``md``
    (one file per norm each).
    """
    prob = Problem.from_json(job.input.problem)
    for norm, path, csv, md in zip(
        job.params.norms, job.input.draws, job.outputs("csv"), job.outputs("md"), strict=True
    ):
        # the first retained draw of chain 0: after burn-in, fixed by the base seed (integer, on Λ(A), of the target)
        draw = load_draws(path, A=prob.A, target=generalized_laplace(job.config["e2"]["eps"], norm).label)[0, 0]
        table, markdown = noise_table(draw, prob, norm)
        write_table(table, csv, index=True)
        write_text(markdown, md)
        job.log.info("%s draw: l1 norm %d", norm, abs(draw).sum())


def validation(job: Job) -> None:
    """Compare the MCMC ℓ1 sampler with exact conditioned-DG sampling on a small table (beyond the paper).

    Params: ``validation`` (``rows``, ``cols``, ``eps``, ``n_samples``, ``burn_in``, ``proposal_eps``),
    ``seed``; output ``table``.
    """
    cfg = job.params.validation
    out = mcmc_vs_exact(
        cfg["rows"],
        cfg["cols"],
        cfg["eps"],
        cfg["n_samples"],
        cfg["burn_in"],
        cfg["proposal_eps"],
        exact_seed=job.seed("exact"),
        mcmc_seed=job.seed("mcmc"),
    )
    job.log.info("\n%s", out.to_string())
    write_table(out, job.output.table)
