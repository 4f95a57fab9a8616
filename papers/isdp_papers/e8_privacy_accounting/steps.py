"""E8's steps (Swapping slides, TopDown talk).

What the rules e8_swapping, e8_conversion, e8_variance and e8_dorm in ``workflow/rules/e8.smk`` call. Deterministic: no
seeds.
"""

import pandas as pd

from isdp.files import write_table
from isdp_papers.e8_privacy_accounting.implied import feasible_totals, implied_bounds
from isdp_papers.e8_privacy_accounting.tables import (
    conversion_order,
    conversion_table,
    swap_curves,
    swap_min_table,
    swap_table,
    variance_table,
)
from isdp_papers.jobs import Job

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").


def swapping(job: Job) -> None:
    """Recompute the swap-rate → ε tables, ε_b and the two rates per ε, the ε-vs-p curves and figure.

    Params: ``swapping`` (the config block: ``two_rate_offsets``, ``rate_grid``); inputs ``ma1940``,
    ``census2020`` (the printed tables); outputs ``ma1940``, ``census2020``, ``minima``, ``curves``,
    ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e8_privacy_accounting.figures import plot_swap_epsilon
    from isdp_papers.plot_style import save_figure

    cfg = job.params.swapping
    tables = {
        name: swap_table(pd.read_csv(path))
        for name, path in (("ma1940", job.input.ma1940), ("census2020", job.input.census2020))
    }
    write_table(tables["ma1940"], job.output.ma1940)
    write_table(tables["census2020"], job.output.census2020)
    for name, t in tables.items():
        job.log.info("%s: max |ε − printed| = %.4f over %d cells", name, t["gap"].abs().max(), len(t))

    b_values = sorted(set(tables["ma1940"]["b"]) | set(tables["census2020"]["b"]))
    minima = swap_min_table(b_values, cfg["two_rate_offsets"])
    write_table(minima, job.output.minima)

    curves = swap_curves(b_values, cfg["rate_grid"])
    write_table(curves, job.output.curves)

    printed = pd.concat([tables["ma1940"], tables["census2020"]])
    fig, ax = plt.subplots(figsize=(7.5, 5))
    plot_swap_epsilon(curves, printed, minima, ax, highlight=(tables["ma1940"]["b"].iloc[0], max(b_values)))
    ax.set_title("E8 (Swapping slides): permutation swapping's ε against the swap rate")
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)


def conversion(job: Job) -> None:
    """Convert the Swapping slides' TopDown row, a zCDP budget ρ, to ε at δ by every conversion.

    Params: ``budget`` (``rho``, ``delta``, ``rho_rounding``), ``methods``; output ``table``.
    """
    table = conversion_table(job.params.budget, job.params.methods)
    write_table(table, job.output.table)
    job.log.info("\n%s", table.to_string())


def variance(job: Job) -> None:
    """Recompute the TopDown talk's Laplace and Gaussian noise-variance tables under each zCDP conversion.

    Params: ``tda`` (the config block: ``conversion``, ``alternatives``, ``levels``, ``changed_cells``);
    input ``printed``; outputs ``table``, ``fig_pdf``, ``fig_png``.
    """
    from isdp_papers.e8_privacy_accounting.figures import plot_variance_tables
    from isdp_papers.plot_style import save_figure

    cfg = job.params.tda
    table = variance_table(pd.read_csv(job.input.printed), cfg["levels"], cfg["changed_cells"], conversion_order(cfg))
    write_table(table, job.output.table)
    job.log.info(
        "max |gap| per mechanism, conversion and δ:\n%s",
        table.groupby(["mechanism", "conversion", "delta"])["gap"].agg(lambda g: g.abs().max()).to_string(),
    )

    fig = plot_variance_tables(table, cfg["conversion"], cfg["levels"])[0, 0].figure
    fig.suptitle("E8 (TopDown talk): noise variance of identity queries, printed vs recomputed")
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)


def dorm(job: Job) -> None:
    """Write the TopDown talk's college-town example: feasible town-wide totals and their implied bounds.

    Params: ``dorm`` (``region_totals``, ``occupied``, ``types``, ``forms``); outputs ``feasible``, ``bounds``.
    """
    cfg = job.params.dorm
    totals = feasible_totals(cfg["region_totals"], cfg["occupied"], cfg["types"])
    write_table(totals, job.output.feasible)
    bounds = implied_bounds(totals, cfg["forms"])
    write_table(bounds, job.output.bounds)
    job.log.info("%d feasible totals; implied bounds:\n%s", len(totals), bounds.to_string())
