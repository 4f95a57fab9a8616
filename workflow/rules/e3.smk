# E3 — 2010 Census county populations, state totals invariant
# (ISDP §5 Fig 2, App. E.4 Fig 8; Subspace DP §1 Fig 1 left; docs/experiments/e3.md).
# The states depend on the data (DAS bias audit), so the audit is a checkpoint and the per-state
# MCMC runs are aggregated through it. They run in batches of states (e3.state_jobs jobs, {batch}
# wildcard), each state's files then copied out of its batch ({state} wildcard); e3_scheduling.smk
# makes the batches, for E4's per-state jobs too (e4.smk, included after this file).
E3 = config["e3"]


include: "e3_scheduling.smk"


E3_CAT = register(
    "e3",
    "Census counties",
    [
        "results/tables/e3_data_source.csv",
        "results/tables/e3_das_audit.csv",
        "results/tables/e3_audit_counts.csv",
        "results/tables/e3_selected_states.csv",
        *figure("e3_das_slopes"),
        *figure("e3_fig2_illinois"),
        *figure("e3_fig8_states"),
        "results/tables/e3_convergence.csv",
        "results/tables/e3_nonnegativity.csv",
        "results/tables/e3_mcmc_vs_exact.csv",
        "results/tables/e3_unbiasedness.csv",
        "results/tables/e3_certificates.csv",
        *figure("e3_certificates"),
    ],
    summary=dict(
        info=rules.fetch.output.info,
        counties=rules.fetch.output.csv,
        selection="results/e3/selection.json",
        audit="results/tables/e3_das_audit.csv",
        convergence="results/tables/e3_convergence.csv",
        nonneg="results/tables/e3_nonnegativity.csv",
        exact="results/tables/e3_mcmc_vs_exact.csv",
        certificates="results/tables/e3_certificates.csv",
        draws=e3_per_state("results/e3/draws_{state}.nc"),
        diagnostics=e3_per_state("results/e3/diagnostics_{state}.csv"),
        embedded=repo_file(
            config["data"]["embedded"]
        ),  # ISDP-E3-discrete-gaussian-breaks-total: every state's county count
        housing=repo_file(
            "data/nhgis/county_housing_v20210608.csv"
        ),  # SDP-E3-housing-units-invariant and its same-fact rows
        group_quarters=repo_file(
            "data/nhgis/county_group_quarters_v20210608.csv"
        ),  # SDP-E3-gq-facilities-invariant and its same-fact rows
        histogram_cells=repo_file(
            "data/nhgis/county_histogram_cells_v20210608.csv"
        ),  # TDA-E3-nonnegative-integer-histogram, TDA-E3-sparse-histogram
        histogram_support=repo_file(
            "data/nhgis/state_histogram_support_v20210608.csv"
        ),  # TDA-E3-sparse-histogram (the nation, in its test)
    ),
    notebook=dict(
        counties=rules.fetch.output.csv,
        info=rules.fetch.output.info,
        selection="results/e3/selection.json",
        regressions="results/e3/das_regressions.csv",
        draws=e3_per_state("results/e3/draws_{state}.nc"),
        convergence="results/tables/e3_convergence.csv",
        nonneg="results/tables/e3_nonnegativity.csv",
        exact="results/tables/e3_mcmc_vs_exact.csv",
        certificates="results/tables/e3_certificates.csv",
        figures=[
            "results/figures/e3_certificates.png",
            "results/figures/e3_fig2_illinois.png",
            "results/figures/e3_fig8_states.png",
            "results/figures/e3_das_slopes.png",
        ],
    ),
    notebook_params=dict(
        states=e3_states,
        r_hat_max=E3["mcmc"]["r_hat_max"],
    ),
    items=[
        *paper_items(
            "results/figures/e3_fig2_illinois.png",
            "ISDP Fig 2: Illinois",
            ("ISDP", "§5", "Fig 2"),
        ),
        *paper_items(
            "results/figures/e3_fig8_states.png",
            "ISDP Fig 8: the other selected states",
            ("ISDP", "App. E.4", "Fig 8"),
        ),
        *paper_items(
            "results/figures/e3_das_slopes.png",
            "Subspace DP Fig 1 (left): DAS error slopes",
            ("Subspace DP", "§1", "Fig 1 (left)"),
        ),
    ],
    captions=dict(
        e3_fig2=["ISDP Fig 2"],
        e3_fig8=["ISDP Fig 8"],
        e3_das_slopes=["Subspace DP Fig 1 (left)"],
        e3_audit_counts=["SDP-E3-audit-*"],
        e3_nonnegativity=[
            "ISDP-E3-nonnegative",
            "ISDP-E3-noise-band",
            "ISDP-E3-no-truncation-probable",
        ],
        e3_exact=["ISDP-E3-exact-sampler"],
        e3_unbiasedness=["ISDP-E3-unbiased"],
        e3_convergence=["ISDP-E3-r-hat"],
        e3_certificates=["ISDP-E3-coupling-met"],
    ),
)


checkpoint e3_audit:
    input:
        counties=rules.fetch.output.csv,
        info=rules.fetch.output.info,
    output:
        regressions="results/e3/das_regressions.csv",
        summary="results/e3/selection.json",
    log:
        "results/logs/e3_audit.log",
    priority: PRIORITY["gate"]
    conda:
        ENV
    params:
        alpha=E3["audit"]["alpha"],
        min_counties=E3["audit"]["min_counties"],
        n_target=E3["selection"]["n_states"],
        always=E3["selection"]["always"],
        override=E3["selection"]["override"],
        step="isdp_papers.e3_census_counties.steps.audit",
    script:
        STEP


rule e3_audit_report:
    input:
        regressions="results/e3/das_regressions.csv",
        selection="results/e3/selection.json",
        info=rules.fetch.output.info,
    output:
        source=report(
            "results/tables/e3_data_source.csv",
            caption="../report/e3_data_source.rst",
            category=E3_CAT,
            labels={"table": "data vintage"},
        ),
        table=report(
            "results/tables/e3_das_audit.csv",
            caption="../report/e3_das_audit.rst",
            category=E3_CAT,
            labels={"table": "DAS bias audit"},
        ),
        counts=report(
            "results/tables/e3_audit_counts.csv",
            caption="../report/e3_audit_counts.rst",
            category=E3_CAT,
            labels={"table": "audit counts"},
        ),
        selected=report(
            "results/tables/e3_selected_states.csv",
            caption="../report/e3_selected.rst",
            category=E3_CAT,
            labels={"table": "selected states"},
        ),
        fig_pdf="results/figures/e3_das_slopes.pdf",
        fig_png=report(
            "results/figures/e3_das_slopes.png",
            caption="../report/e3_das_slopes.rst",
            category=E3_CAT,
            labels=item_label("results/figures/e3_das_slopes.png"),
        ),
    log:
        "results/logs/e3_audit_report.log",
    conda:
        ENV
    params:
        alpha=E3["audit"]["alpha"],
        always=E3["selection"]["always"],
        step="isdp_papers.e3_census_counties.steps.audit_report",
    script:
        STEP


rule e3_states:
    input:
        counties=rules.fetch.output.csv,
        selection="results/e3/selection.json",
    output:
        batch=temp(directory("results/e3/batch_{batch}")),
    log:
        "results/logs/e3_states_{batch}.log",
    wildcard_constraints:
        batch=BATCH,
    priority: batch_priority(100)
    conda:
        ENV
    params:
        states=lambda wc: wc.batch.split("+"),
        eps=E3["eps"],
        mcmc=E3["mcmc"],
        seed=[SEED, "e3", "state"],
        step="isdp_papers.e3_census_counties.steps.states",
    script:
        STEP


localrules:
    e3_state,  # a copy: never worth a cluster job


rule e3_state:
    input:
        batch=lambda wc: f"results/e3/batch_{batch_of(wc.state)}",
    output:
        draws="results/e3/draws_{state}.nc",
        diagnostics="results/e3/diagnostics_{state}.csv",
        run="results/e3/run_{state}.json",
        certificate="results/e3/certificate_{state}.json",
        exact="results/e3/exact_{state}.csv",
    log:
        "results/logs/e3_state_{state}.log",
    benchmark:
        "results/benchmarks/e3_state_{state}.tsv"
    wildcard_constraints:
        state="[A-Z]{2}",
    priority: PRIORITY["gate"]
    conda:
        ENV
    shell:
        COPY_FROM_BATCH


rule e3_figures:
    input:
        counties=rules.fetch.output.csv,
        info=rules.fetch.output.info,
        draws=e3_per_state("results/e3/draws_{state}.nc"),
    output:
        fig2_pdf="results/figures/e3_fig2_illinois.pdf",
        fig2_png=report(
            "results/figures/e3_fig2_illinois.png",
            caption="../report/e3_fig2.rst",
            category=E3_CAT,
            labels=item_label("results/figures/e3_fig2_illinois.png"),
        ),
        fig8_pdf="results/figures/e3_fig8_states.pdf",
        fig8_png=report(
            "results/figures/e3_fig8_states.png",
            caption="../report/e3_fig8.rst",
            category=E3_CAT,
            labels=item_label("results/figures/e3_fig8_states.png"),
        ),
    log:
        "results/logs/e3_figures.log",
    conda:
        ENV
    params:
        states=e3_states,
        headline=E3["selection"]["always"][0],
        eps=E3["eps"],
        seed=[SEED, "e3", "figures"],
        step="isdp_papers.e3_census_counties.steps.figures",
    script:
        STEP


rule e3_tables:
    input:
        counties=rules.fetch.output.csv,
        draws=e3_per_state("results/e3/draws_{state}.nc"),
        diagnostics=e3_per_state("results/e3/diagnostics_{state}.csv"),
        runs=e3_per_state("results/e3/run_{state}.json"),
        exact=e3_per_state("results/e3/exact_{state}.csv"),
    output:
        convergence=report(
            "results/tables/e3_convergence.csv",
            caption="../report/e3_convergence.rst",
            category=E3_CAT,
            labels={"table": "R-hat and ESS per state"},
        ),
        nonneg=report(
            "results/tables/e3_nonnegativity.csv",
            caption="../report/e3_nonnegativity.rst",
            category=E3_CAT,
            labels={"table": "non-negativity"},
        ),
        exact=report(
            "results/tables/e3_mcmc_vs_exact.csv",
            caption="../report/e3_exact.rst",
            category=E3_CAT,
            labels={"table": "MCMC vs exact sampler"},
        ),
        unbiasedness=report(
            "results/tables/e3_unbiasedness.csv",
            caption="../report/e3_unbiasedness.rst",
            category=E3_CAT,
            labels={"table": "unbiasedness"},
        ),
    log:
        "results/logs/e3_tables.log",
    conda:
        ENV
    params:
        states=e3_states,
        band=CLAIM_ARGS["ISDP-E3-noise-band"]["band"],
        may_be_empty=["exact"],  # a state of one county has no MCMC-vs-exact comparison
        step="isdp_papers.e3_census_counties.steps.tables",
    script:
        STEP


rule e3_certificates:
    input:
        certificates=e3_per_state("results/e3/certificate_{state}.json"),
    output:
        table=report(
            "results/tables/e3_certificates.csv",
            caption="../report/e3_certificates.rst",
            category=E3_CAT,
            labels={"table": "coupling certificates"},
        ),
        fig_pdf="results/figures/e3_certificates.pdf",
        fig_png=report(
            "results/figures/e3_certificates.png",
            caption="../report/e3_certificates_figure.rst",
            category=E3_CAT,
            labels={"figure": "coupling certificates"},
        ),
    log:
        "results/logs/e3_certificates.log",
    conda:
        ENV
    params:
        states=e3_states,
        step="isdp_papers.e3_census_counties.steps.certificates",
    script:
        STEP
