"""E4's steps (ISDP App. "Comparison with projected discrete Laplace", Fig 10).

What the rules in ``workflow/rules/e4.smk`` call — ``e4_states`` (:func:`states`), ``e4_tables`` (:func:`tables`),
``e4_figures`` (:func:`figures`) and ``e4_overview`` (:func:`overview`).
"""

import json
from pathlib import Path

import pandas as pd

from isdp.convergence import load_draws
from isdp.files import write_json, write_table
from isdp.lattice import sum_constraint
from isdp_papers.e4_projection_comparison import comparison as cmp
from isdp_papers.jobs import Job
from isdp_papers.nhgis.counties import STATE_NAMES, load_counties, state_counties

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").

#: the per-state files of E4, by name and suffix (``releases_IL.nc``)
STATE_FILES = {"releases": "nc", "metrics": "csv", "spread": "csv", "county_spread": "csv", "run": "json"}


def states(job: Job) -> None:
    """Run a batch of states, one after another in this job (see :func:`state`).

    Their files go to the directory ``output.batch`` under the names of the per-state results (``releases_IL.nc``, …),
    from which the rule ``e4_state`` copies them; each state keeps its own seed.

    Params ``states`` (USPS codes), ``eps``, ``sensitivity``, ``n_releases``, ``seed`` (the base of
    every state's seed); inputs ``counties`` and ``draws`` (E3's, one per state, in the order of
    ``states``).
    """
    counties = load_counties(job.input.counties)
    out = Path(job.output.batch)
    out.mkdir(parents=True, exist_ok=True)
    for st, draws in zip(job.params.states, job.input.draws, strict=True):
        state(job, st, counties, draws, {name: out / f"{name}_{st}.{ext}" for name, ext in STATE_FILES.items()})


def state(job: Job, st: str, counties: pd.DataFrame, draws, output: dict) -> None:
    """Release one state by the five mechanisms and write their metrics, spread ratios and per-county spread.

    The generalized Laplace releases are E3's retained draws ``draws``. Fails loudly when a method breaks what it
    guarantees by construction (:func:`.comparison.check_guarantees`).

    Writes ``output`` (paths by :data:`STATE_FILES` name): ``releases`` (netCDF), ``metrics``,
    ``spread``, ``county_spread``, ``run`` (JSON, with the solver times).
    """
    group = state_counties(counties, st, job.input.counties)  # E3's column order
    gl = load_draws(draws, A=sum_constraint(len(group)))  # integer noise keeping the state total
    n_releases = int(job.params.n_releases)
    seed = job.seed(st)
    rel = cmp.releases_for_state(
        st,
        group["sf1_pop"].to_numpy(),
        group["dp_pop"].to_numpy(),
        gl,
        eps=job.params.eps,
        n_releases=n_releases,
        seed=seed,
        sensitivity=job.params.sensitivity,
        counties=list(group["gisjoin"]),
        names=list(group["name"]),
    )
    metrics = cmp.metrics_table(rel)
    cmp.check_guarantees(st, metrics)
    cmp.save_releases(output["releases"], rel)
    write_table(metrics, output["metrics"], float_format="%.6g")
    spread = cmp.spread_ratios(rel)
    write_table(spread, output["spread"], float_format="%.6g")
    write_table(cmp.county_spread(rel), output["county_spread"], float_format="%.6g")
    run = cmp.run_record(rel, n_releases=n_releases, seed=seed, gl_noise=gl)
    write_json(run, output["run"])
    job.log.info("%s: %s\n%s\n%s", st, json.dumps(run), metrics.to_string(), spread.to_string())


def tables(job: Job) -> None:
    """E4's tables across the selected states.

    Metrics per state and method, spread ratios, solver cost (:func:`.comparison.runtime_table`) and the spread per
    county and method.

    Inputs, one per state: ``metrics``, ``spread``, ``county_spread``, ``runs``; outputs ``metrics``,
    ``spread``, ``runtime``, ``county_spread``.
    """
    metrics = pd.concat(
        [pd.read_csv(p, keep_default_na=False, na_values=[""]) for p in job.input.metrics], ignore_index=True
    )
    write_table(metrics, job.output.metrics, float_format="%.6g")
    spread = pd.concat([pd.read_csv(p) for p in job.input.spread], ignore_index=True)
    write_table(spread, job.output.spread, float_format="%.6g")
    county = pd.concat([pd.read_csv(p, dtype={"county": str}) for p in job.input.county_spread], ignore_index=True)
    write_table(county, job.output.county_spread, float_format="%.6g")
    runtime = cmp.runtime_table(json.loads(Path(p).read_text()) for p in job.input.runs)
    write_table(runtime, job.output.runtime, float_format="%.6g")
    widest = county.groupby(["state", "method"], sort=False)["sd_ratio"].max().unstack()
    job.log.info(
        "\n%s\n%s\n%s\nlargest per-county SD ratio:\n%s",
        metrics.to_string(),
        spread.to_string(),
        runtime.to_string(),
        widest.to_string(),
    )


def figures(job: Job) -> None:
    """ISDP Fig 10-style figures.

    The headline state's per-county error box plots of the five mechanisms, the other selected states one panel each,
    and the per-county SD ratio to generalized Laplace.

    Params ``states``, ``headline``, ``eps``; inputs ``releases`` (one per state), ``info``; outputs
    ``il_pdf``, ``il_png``, ``states_pdf``, ``states_png``, ``ratio_pdf``, ``ratio_png``.
    """
    from isdp_papers.e4_projection_comparison.figures import (
        plot_fig10_headline,
        plot_fig10_states,
        plot_sd_ratio,
    )
    from isdp_papers.plot_style import save_figure

    vintage = json.loads(Path(job.input.info).read_text())["vintage_used"]
    eps = job.params.eps
    rels = {s: cmp.load_releases(p) for s, p in zip(job.params.states, job.input.releases, strict=True)}
    head = job.params.headline
    save_figure(plot_fig10_headline(rels[head], eps=eps, vintage=vintage), job.output.il_pdf, job.output.il_png)
    others = [s for s in job.params.states if s != head]
    save_figure(
        plot_fig10_states(rels, others, eps=eps, vintage=vintage, headline=head),
        job.output.states_pdf,
        job.output.states_png,
    )
    save_figure(plot_sd_ratio(rels), job.output.ratio_pdf, job.output.ratio_png)
    job.log.info("figures: %s + %s", head, others)


def overview(job: Job) -> None:
    """Across the selected states (all of them in the national run).

    One row per state with its size, E3's noise SD, the DAS audit slope and every mechanism's error SD
    (:func:`.comparison.state_overview`); and the figure.

    Params ``alpha``, ``eps``; inputs ``counties``, ``selection``, ``regressions``, ``noise`` (E3's
    unbiasedness table), ``metrics``; outputs ``table``, ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e4_projection_comparison.figures import plot_state_overview
    from isdp_papers.plot_style import save_figure

    states = json.loads(Path(job.input.selection).read_text())["selected_states"]
    table = cmp.state_overview(
        load_counties(job.input.counties),
        pd.read_csv(job.input.regressions),
        pd.read_csv(job.input.noise),
        pd.read_csv(job.input.metrics),
        states,
    )
    table.insert(1, "name", table["state"].map(STATE_NAMES))
    write_table(table, job.output.table, float_format="%.6g")
    fig, axes = plt.subplots(1, 2, figsize=(16, 5.5), gridspec_kw={"width_ratios": [1, 1.4]})
    plot_state_overview(table, cmp.LABELS, alpha=job.params.alpha, axes=axes)
    fig.suptitle(
        f"{len(table)} states, {int(table['n_counties'].sum())} counties: mechanism errors and the "
        f"DAS audit (ε = {job.params.eps})"
    )
    fig.tight_layout()
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
    job.log.info("\n%s", table.to_string())
