"""E7's steps (Congenial DP §4 Table 2, App. A-B).

What the rules in ``workflow/rules/e7.smk`` call — :func:`tables` (rule ``e7_tables``) and :func:`figures` (rule
``e7_figures``).
"""

import numpy as np
import pandas as pd

from isdp.files import write_table
from isdp_papers import claims
from isdp_papers.e7_congenial_histogram import study
from isdp_papers.jobs import Job

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").


def tables(job: Job) -> None:
    """Write the exact Table 2 and privacy levels of M*, f_L2 and f_L1.

    Monte Carlo releases at a fixed x; M*'s law by conditioning on a thin slab; the App. B DG sampler (see
    :mod:`.study`).

    Params: ``x``, ``eps_grid``, ``betas``, ``n_draws``, ``figure_eps`` (on ``eps_grid``),
    ``conditioning`` (``window``, ``n_accepted``), ``privacy`` (``t_max``, ``n_grid``), ``dg_check``
    (``eps``, ``n_draws``), ``labels``, ``seed``; outputs ``table2``, ``privacy``, ``simulation``,
    ``noise`` (npz), ``conditioning``, ``dg_quantile``.
    """
    p = job.params
    x = np.asarray(p.x, dtype=float)
    eps_grid, betas, fig_eps = p.eps_grid, p.betas, p.figure_eps
    if fig_eps not in eps_grid:
        raise ValueError(f"e7.figure_eps = {fig_eps} is not on e7.eps_grid {eps_grid}")
    seed = job.seed()

    table2 = study.table2_exact(x, eps_grid, p.labels)
    write_table(table2, job.output.table2)
    job.log.info("Table 2 (exact, x = %s):\n%s", x, table2.to_string())

    privacy = study.privacy_table(eps_grid, betas, t_max=p.privacy["t_max"], n_grid=p.privacy["n_grid"])
    write_table(privacy, job.output.privacy)
    job.log.info("privacy levels:\n%s", privacy.to_string())

    sim, noise = study.simulation_table(x, eps_grid, betas, p.n_draws, fig_eps, seed)
    write_table(sim, job.output.simulation)
    np.savez_compressed(job.output.noise, **noise)
    job.log.info("simulation:\n%s", sim.to_string())

    conditioning = study.conditioning_table(fig_eps, p.conditioning["window"], p.conditioning["n_accepted"], seed)
    write_table(conditioning, job.output.conditioning)
    job.log.info("conditioning check:\n%s", conditioning.to_string())

    dg = study.dg_quantile_table(p.dg_check["eps"], p.dg_check["n_draws"], seed)
    write_table(dg, job.output.dg_quantile)
    job.log.info("App. B quantile check:\n%s", dg.to_string())


def figures(job: Job) -> None:
    """Variance against ε (Table 2), the noise laws at ``figure_eps`` ((4.7), (A.1)) and the privacy levels (App. A).

    Params: ``labels``; inputs ``registry``, ``table2``, ``privacy``, ``simulation``, ``noise``;
    outputs ``variance_pdf``/``_png``, ``laws_pdf``/``_png``, ``privacy_pdf``/``_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e7_congenial_histogram.figures import (
        plot_e7_noise_laws,
        plot_e7_privacy,
        plot_e7_variance,
    )
    from isdp_papers.plot_style import save_figure

    registry = claims.load_registry(job.input.registry)
    sim = pd.read_csv(job.input.simulation)
    paper_coefs = {
        name: claims.paper_value(f"CDP-E7-table2-var-{mech}", registry)
        for name, mech in (("M*", "conditional"), ("f_L2", "l2"), ("f_L1", "l1"))
    }

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_e7_variance(sim, pd.read_csv(job.input.table2), job.params.labels, paper_coefs, axes)
    fig.suptitle(
        f"E7 (Congenial DP Table 2): Var(m1) of the three releases, {int(sim['n_draws'].iloc[0]):,} draws "
        "per point (±2 SE)",
        fontsize=10,
    )
    save_figure(fig, job.output.variance_pdf, job.output.variance_png)

    noise = np.load(job.input.noise)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_e7_noise_laws(noise, claims.paper_value("CDP-E7-l2-noise-mixture", registry)["components"], axes)
    fig.suptitle(f"E7: noise laws at ε = {float(noise['figure_eps']):g}, in units of 1/ε", fontsize=10)
    save_figure(fig, job.output.laws_pdf, job.output.laws_png)

    fig, ax = plt.subplots(figsize=(6, 4.2))
    plot_e7_privacy(pd.read_csv(job.input.privacy), ax)
    ax.set_title("E7 (Congenial DP App. A): attained privacy level of each release", fontsize=10)
    save_figure(fig, job.output.privacy_pdf, job.output.privacy_png)
    job.log.info("figures written")
