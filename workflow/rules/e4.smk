# E4 — generalized Laplace against projection-based mechanisms, county by county
# (ISDP App. "Comparison with projected discrete Laplace", Fig 10; docs/experiments/e4.md).
# Same states as E3 (its audit checkpoint), in E3's batches ({batch}, then {state} copied out; the
# helpers of e3_scheduling.smk, which e3.smk includes first): the generalized Laplace releases are E3's retained
# draws (reused, not resampled); per state the job draws the projected Laplace releases and runs one
# HiGHS simplex LP, one MILP and one interior-point LP per DG release
# (~4 + 7.5 + 5 ms at n = 102, ~8.5 + 12 + 8 ms at n = 254: about 17 s for Illinois and 29 s for
# Texas at 1000 releases).
E4 = config["e4"]

E4_CAT = register(
    "e4",
    "projection comparison",
    [
        "results/tables/e4_metrics.csv",
        "results/tables/e4_spread.csv",
        "results/tables/e4_runtime.csv",
        "results/tables/e4_county_spread.csv",
        *figure("e4_fig10_illinois"),
        *figure("e4_fig10_states"),
        *figure("e4_sd_ratio"),
        "results/tables/e4_state_overview.csv",
        *figure("e4_state_overview"),
    ],
    summary=dict(
        metrics="results/tables/e4_metrics.csv",
        spread="results/tables/e4_county_spread.csv",
        selected="results/tables/e3_selected_states.csv",
        selection="results/e3/selection.json",
        releases=e3_per_state("results/e4/releases_{state}.nc"),
        diagnostics=e3_per_state("results/e3/diagnostics_{state}.csv"),
        runs=e3_per_state("results/e3/run_{state}.json"),
    ),
    notebook=dict(
        counties=rules.fetch.output.csv,
        releases=e3_per_state("results/e4/releases_{state}.nc"),
        draws=e3_per_state("results/e3/draws_{state}.nc"),
        metrics="results/tables/e4_metrics.csv",
        spread="results/tables/e4_spread.csv",
        county_spread="results/tables/e4_county_spread.csv",
        runtime="results/tables/e4_runtime.csv",
        figures=[
            "results/figures/e4_fig10_illinois.png",
            "results/figures/e4_fig10_states.png",
            "results/figures/e4_sd_ratio.png",
        ],
    ),
    notebook_params=dict(
        states=e3_states,
        headline=E3["selection"]["always"][0],
        n_releases=E4["n_releases"],
    ),
    items=paper_items(
        "results/figures/e4_fig10_illinois.png",
        "ISDP Fig 10 and Subspace DP Fig 1 (right): Illinois",
        ("ISDP", "App. E.4", "Fig 10"),
        ("Subspace DP", "§1", "Fig 1 (right)"),
    ),
    captions=dict(
        e4_fig10=["ISDP Fig 10", "Subspace DP Fig 1 (right)"],
        e4_overlap=["ISDP-E4-overlap-*", "ISDP-E4-lp-concentration"],
        e4_metrics=[
            "ISDP-E4-unbiased",
            "ISDP-E4-integer-invariant",
            "ISDP-E4-mechanisms-flat",
            "ISDP-E4-lp-concentration",
        ],
    ),
)


rule e4_states:
    input:
        counties=rules.fetch.output.csv,
        draws=lambda wc: expand(
            "results/e3/draws_{state}.nc", state=wc.batch.split("+")
        ),
    output:
        batch=temp(directory("results/e4/batch_{batch}")),
    log:
        "results/logs/e4_states_{batch}.log",
    wildcard_constraints:
        batch=BATCH,
    priority: batch_priority(0)
    conda:
        ENV
    params:
        states=lambda wc: wc.batch.split("+"),
        eps=E3["eps"],
        sensitivity=E4["sensitivity"],
        n_releases=E4["n_releases"],
        seed=[SEED, "e4", "state"],
        step="isdp_papers.e4_projection_comparison.steps.states",
    script:
        STEP


localrules:
    e4_state,  # a copy: never worth a cluster job


rule e4_state:
    input:
        batch=lambda wc: f"results/e4/batch_{batch_of(wc.state)}",
    output:
        releases="results/e4/releases_{state}.nc",
        metrics="results/e4/metrics_{state}.csv",
        spread="results/e4/spread_{state}.csv",
        county_spread="results/e4/county_spread_{state}.csv",
        run="results/e4/run_{state}.json",
    log:
        "results/logs/e4_state_{state}.log",
    benchmark:
        "results/benchmarks/e4_state_{state}.tsv"
    wildcard_constraints:
        state="[A-Z]{2}",
    priority: PRIORITY["gate"]
    conda:
        ENV
    shell:
        COPY_FROM_BATCH


rule e4_tables:
    input:
        metrics=e3_per_state("results/e4/metrics_{state}.csv"),
        spread=e3_per_state("results/e4/spread_{state}.csv"),
        county_spread=e3_per_state("results/e4/county_spread_{state}.csv"),
        runs=e3_per_state("results/e4/run_{state}.json"),
    output:
        metrics=report(
            "results/tables/e4_metrics.csv",
            caption="../report/e4_metrics.rst",
            category=E4_CAT,
            labels={"table": "metrics per state and method"},
        ),
        spread=report(
            "results/tables/e4_spread.csv",
            caption="../report/e4_spread.rst",
            category=E4_CAT,
            labels={"table": "spread relative to generalized Laplace"},
        ),
        runtime=report(
            "results/tables/e4_runtime.csv",
            caption="../report/e4_runtime.rst",
            category=E4_CAT,
            labels={"table": "solver cost"},
        ),
        county_spread=report(
            "results/tables/e4_county_spread.csv",
            caption="../report/e4_county_spread.rst",
            category=E4_CAT,
            labels={"table": "spread per county and method"},
        ),
    log:
        "results/logs/e4_tables.log",
    conda:
        ENV
    params:
        step="isdp_papers.e4_projection_comparison.steps.tables",
    script:
        STEP


rule e4_figures:
    input:
        releases=e3_per_state("results/e4/releases_{state}.nc"),
        info=rules.fetch.output.info,
    output:
        il_pdf="results/figures/e4_fig10_illinois.pdf",
        il_png=report(
            "results/figures/e4_fig10_illinois.png",
            caption="../report/e4_fig10.rst",
            category=E4_CAT,
            labels=item_label("results/figures/e4_fig10_illinois.png"),
        ),
        states_pdf="results/figures/e4_fig10_states.pdf",
        states_png=report(
            "results/figures/e4_fig10_states.png",
            caption="../report/e4_fig10_states.rst",
            category=E4_CAT,
            labels={"figure": "Fig 10's layout, the other selected states"},
        ),
        ratio_pdf="results/figures/e4_sd_ratio.pdf",
        ratio_png=report(
            "results/figures/e4_sd_ratio.png",
            caption="../report/e4_sd_ratio.rst",
            category=E4_CAT,
            labels={"figure": "per-county SD ratio"},
        ),
    log:
        "results/logs/e4_figures.log",
    conda:
        ENV
    params:
        states=e3_states,
        headline=E3["selection"]["always"][0],
        eps=E3["eps"],
        step="isdp_papers.e4_projection_comparison.steps.figures",
    script:
        STEP


rule e4_overview:
    input:
        counties=rules.fetch.output.csv,
        selection="results/e3/selection.json",
        regressions="results/e3/das_regressions.csv",
        noise="results/tables/e3_unbiasedness.csv",
        metrics="results/tables/e4_metrics.csv",
    output:
        table=report(
            "results/tables/e4_state_overview.csv",
            caption="../report/e4_state_overview.rst",
            category=E4_CAT,
            labels={"table": "per state: size, noise, DAS audit, mechanism errors"},
        ),
        fig_pdf="results/figures/e4_state_overview.pdf",
        fig_png=report(
            "results/figures/e4_state_overview.png",
            caption="../report/e4_state_overview.rst",
            category=E4_CAT,
            labels={"figure": "across states"},
        ),
    log:
        "results/logs/e4_overview.log",
    conda:
        ENV
    params:
        alpha=config["e3"]["audit"]["alpha"],
        eps=config["e3"]["eps"],
        step="isdp_papers.e4_projection_comparison.steps.overview",
    script:
        STEP
