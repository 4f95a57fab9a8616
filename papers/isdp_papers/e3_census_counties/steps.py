"""E3's steps (ISDP §5 Fig 2, App. E.4 Fig 8; Subspace DP §1 Fig 1 left).

What the rules in ``workflow/rules/e3.smk`` call — the checkpoint ``e3_audit`` (:func:`audit`), ``e3_audit_report``
(:func:`audit_report`), ``e3_states`` (:func:`states`), ``e3_figures`` (:func:`figures`) and ``e3_tables``
(:func:`tables`) and ``e3_certificates`` (:func:`certificates`).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from isdp.convergence import save_draws
from isdp.files import write_json, write_table
from isdp_papers.e3_census_counties import audit as au
from isdp_papers.e3_census_counties import census
from isdp_papers.jobs import Job
from isdp_papers.nhgis.counties import load_counties, state_counties

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").


def audit(job: Job) -> None:
    """Run the DAS bias audit (per-state regressions of the DAS error on log SF1) and the state selection.

    Params: ``alpha``, ``min_counties``, ``n_target``, ``always``, ``override``; inputs ``counties``,
    ``info`` (the data source JSON); outputs ``regressions`` (CSV) and ``summary`` (JSON: audit counts,
    selected states, how they were selected, vintage, data source).
    """
    alpha = float(job.params.alpha)
    override = job.params.override or None
    counties = load_counties(job.input.counties)
    reg = au.das_bias_regressions(counties, min_counties=int(job.params.min_counties))
    write_table(reg, job.output.regressions, float_format="%.10g")
    states = au.select_states(
        reg,
        alpha=alpha,
        n_target=int(job.params.n_target),
        always=tuple(job.params.always),
        override=override,
        available=au.available_states(counties),
    )
    summary = au.selection_summary(
        counties, reg, states, alpha=alpha, override=override, data_source=json.loads(Path(job.input.info).read_text())
    )
    write_json(summary, job.output.summary)
    job.log.info("audit %s: selected %s", {k: v for k, v in summary.items() if k.startswith("n_")}, states)


def audit_report(job: Job) -> None:
    """Write the audit for the report.

    Data vintage, regression table, audit counts, selected states and the slope figure (Subspace DP Fig 1 left).

    Params: ``alpha``, ``always``; inputs ``regressions``, ``selection``, ``info``; outputs
    ``source``, ``table``, ``counts``, ``selected``, ``fig_pdf``, ``fig_png``.
    """
    from isdp_papers.e3_census_counties.figures import plot_das_slopes
    from isdp_papers.plot_style import save_figure

    alpha = float(job.params.alpha)
    info = json.loads(Path(job.input.info).read_text())
    selection = json.loads(Path(job.input.selection).read_text())
    vintage = info["vintage_used"]
    write_table(au.data_source_table(info), job.output.source)
    reg = au.audit_table(
        pd.read_csv(job.input.regressions, dtype={"state_fips": str}),
        selection["selected_states"],
        alpha=alpha,
        vintage=vintage,
    )
    write_table(reg, job.output.table, float_format="%.6g")
    counts = au.audit_counts_table(selection, alpha=alpha, vintage=vintage)
    write_table(counts, job.output.counts)
    selected = au.selected_states_table(reg, selection, alpha=alpha, always=job.params.always, vintage=vintage)
    write_table(selected, job.output.selected, float_format="%.6g")
    fig = plot_das_slopes(reg, alpha=alpha, title=f"DAS error vs log(SF1) slope per state, NHGIS v{vintage}")
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
    job.log.info("audit counts:\n%s\nselected: %s", counts.to_string(), selection["selected_states"])


#: the per-state files of E3, by name and suffix (``draws_IL.nc``)
STATE_FILES = {"draws": "nc", "diagnostics": "csv", "run": "json", "certificate": "json", "exact": "csv"}


def states(job: Job) -> None:
    """Run a batch of states, one after another in this job (see :func:`state`).

    Their files go to the directory ``output.batch`` under the names of the per-state results (``draws_IL.nc``, …), from
    which the rule ``e3_state`` copies them. One job per batch saves each state the start-up of a job (imports and numba
    loading, about 5 s); each state keeps its own seed, so the results do not depend on the batching.

    Params ``states`` (USPS codes), ``eps``, ``mcmc`` (the config block; both read once into
    :class:`.census.StateSettings`), ``seed`` (the base of every state's seed: :meth:`.Job.seed` of the
    state's code); inputs ``counties``, ``selection``.
    """
    counties = load_counties(job.input.counties)
    settings = census.StateSettings.from_config(job.params.eps, job.params.mcmc)
    out = Path(job.output.batch)
    out.mkdir(parents=True, exist_ok=True)
    for st in job.params.states:
        state(job, st, counties, settings, {name: out / f"{name}_{st}.{ext}" for name, ext in STATE_FILES.items()})


def state(job: Job, st: str, counties: pd.DataFrame, settings: census.StateSettings, output: dict) -> None:
    """Draw one state's ℓ1 generalized Laplace noise on its counties with the state total invariant.

    From over-dispersed chains on the certified basis — first the coupling certificate sets the burn-in, then R-hat must
    be below ``settings.r_hat_max``; fails naming the state when either gate fails.

    Writes ``output`` (paths by :data:`STATE_FILES` name): ``draws`` (netCDF of the retained draws,
    the certificate in its ``certificate_*`` attributes), ``diagnostics`` (per county), ``run`` (JSON
    summary), ``certificate`` (JSON: the certificate and its bound curve), ``exact`` (MCMC vs the exact
    sampler).
    """
    group = state_counties(counties, st, job.input.counties)
    seed = job.seed(st)
    run = census.run_state(len(group), settings, seed=seed, cell_names=list(group["gisjoin"]), label=st)
    record = census.certificate_record(run, st)
    save_draws(
        output["draws"],
        run.draws,
        list(group["gisjoin"]),
        {
            "state": st,
            "target": f"l1 generalized Laplace, eps={settings.eps}",
            "seed": seed,
            "vintage": group["vintage"].iloc[0],
            "burn_in": run.summary.burn_in,
            "retained_thin": run.summary.retained_thin,
            **census.certificate_attrs(record),
        },
    )
    write_table(census.diagnostics_table(run, st, group), output["diagnostics"])
    write_json(run.summary.as_row(), output["run"])
    write_json(record, output["certificate"])
    comparison = census.mcmc_vs_exact(run, group, settings.eps, seed, st)
    job.log.info("%s: certificate: %s\nMCMC vs exact:\n%s", st, record["status"], comparison.to_string())
    write_table(comparison, output["exact"])


def certificates(job: Job) -> None:
    """Write the coupling certificates of the selected states: a table and the figure of the bound curves.

    Params ``states``; inputs ``certificates`` (one JSON per state); outputs ``table``, ``fig_pdf``,
    ``fig_png``.
    """
    from isdp_papers.e3_census_counties.figures import plot_certificates
    from isdp_papers.plot_style import save_figure

    records = [json.loads(Path(p).read_text()) for p in job.input.certificates]
    table = pd.DataFrame([{k: r[k] for k in census.CERTIFICATE_COLUMNS} for r in records])
    write_table(table, job.output.table, float_format="%.6g")
    save_figure(plot_certificates(records), job.output.fig_pdf, job.output.fig_png)
    job.log.info("\n%s", table.to_string())


def figures(job: Job) -> None:
    """ISDP Fig 2 (the headline state) and Fig 8 (the other selected states): noise box plots per county.

    Params ``states``, ``headline``, ``eps``, ``seed`` (picks the one draw shown per state); inputs
    ``counties``, ``info``, ``draws`` (one per state); outputs ``fig2_pdf``, ``fig2_png``, ``fig8_pdf``,
    ``fig8_png``.
    """
    from isdp_papers.e3_census_counties.figures import plot_fig2, plot_fig8
    from isdp_papers.plot_style import save_figure

    counties = load_counties(job.input.counties)
    vintage = json.loads(Path(job.input.info).read_text())["vintage_used"]
    rng = np.random.default_rng(job.seed())
    eps = job.params.eps
    draws = dict(zip(job.params.states, job.input.draws, strict=True))
    head = job.params.headline
    fig = plot_fig2(counties, head, draws[head], rng, eps=eps, vintage=vintage)
    save_figure(fig, job.output.fig2_pdf, job.output.fig2_png)
    others = [s for s in job.params.states if s != head]
    fig = plot_fig8(counties, others, draws, rng, eps=eps, vintage=vintage, headline=head)
    save_figure(fig, job.output.fig8_pdf, job.output.fig8_png)
    job.log.info("figures: %s + %s", head, others)


def tables(job: Job) -> None:
    """E3's tables across the selected states: R-hat/ESS, non-negativity, MCMC vs exact, unbiasedness.

    Params ``states``, ``band`` (the noise band of the non-negativity share); inputs ``counties`` and,
    one per state, ``draws``, ``diagnostics``, ``runs``, ``exact``; outputs ``convergence``, ``nonneg``,
    ``exact``, ``unbiasedness``.
    """
    conv, nonneg, unb = census.state_tables(
        load_counties(job.input.counties),
        job.params.states,
        job.input.draws,
        job.input.diagnostics,
        job.input.runs,
        band=int(job.params.band),
    )
    write_table(conv, job.output.convergence, float_format="%.6g")
    write_table(nonneg, job.output.nonneg, float_format="%.6g")
    write_table(unb, job.output.unbiasedness, float_format="%.6g")
    exact = pd.concat([pd.read_csv(p) for p in job.input.exact], ignore_index=True)
    write_table(exact, job.output.exact, float_format="%.6g")
    job.log.info("\n%s\n%s\n%s", conv.to_string(), nonneg.to_string(), exact.to_string())
