# E5 — congenial sex×age table with the Metropolized independence sampler
# (Congenial DP §3 Table 1, Fig 1; App. C Figs 2–3; docs/experiments/e5.md).

E5 = config["e5"]
E5_THINS = list(E5["trace"]["thins"])
E5_METHODS = ["raw_dg_eps1", "raw_dg_eps1_nnl2", "mis_conditional", "raw_dg_eps05"]
E5_LABELS = {
    "raw_dg_eps1": f"(a) raw DG, ε = {E5['simulation']['eps_raw']}",
    "raw_dg_eps1_nnl2": "(b) (a) + NNL2 onto S*",
    "mis_conditional": f"(c) MIS conditional, ε₀ = {E5['simulation']['eps_mis']}",
    "raw_dg_eps05": f"(d) raw DG, ε = {E5['simulation']['eps_mis']}",
}

E5_CAT = register(
    "e5",
    "congenial sex×age table (MIS)",
    [
        *figure("e5_fig1_distances"),
        *figure("e5_fig2_acceptance"),
        *figure("e5_fig3_traces"),
        "results/tables/e5_fig1_distances.csv",
        "results/tables/e5_fig1_convergence.csv",
        "results/tables/e5_fig2_acceptance.csv",
        "results/tables/e5_trace_diagnostics.csv",
        "results/tables/e5_table1.csv",
        "results/tables/e5_table1.md",
    ],
    summary=dict(
        problem="results/e5/problem.json",
        acceptance="results/tables/e5_fig2_acceptance.csv",
        trace="results/tables/e5_trace_diagnostics.csv",
        draws=[f"results/e5/trace_thin{t}.nc" for t in E5_THINS],
        distances="results/tables/e5_fig1_distances.csv",
        convergence="results/tables/e5_fig1_convergence.csv",
        releases="results/e5/fig1_releases.npz",
        printed=repo_file(E5["paper_release"]),
        p12=repo_file("data/e5/p12_age_categories.csv"),  # CDP-E5-p12-categories
    ),
    notebook=dict(
        problem="results/e5/problem.json",
        acceptance="results/tables/e5_fig2_acceptance.csv",
        draws=[f"results/e5/trace_thin{t}.nc" for t in E5_THINS],
        table1="results/tables/e5_table1.csv",
        distances="results/tables/e5_fig1_distances.csv",
        convergence="results/tables/e5_fig1_convergence.csv",
        releases="results/e5/fig1_releases.npz",
        figures=[
            *figure("e5_fig1_distances"),
            *figure("e5_fig2_acceptance"),
            *figure("e5_fig3_traces"),
        ],
    ),
    notebook_params=dict(
        methods=E5_METHODS,
    ),
    items=[
        *paper_items(
            "results/tables/e5_table1.csv",
            "Congenial DP Table 1: the sex × age table and a release",
            ("Congenial DP", "§3", "Table 1"),
        ),
        *paper_items(
            "results/figures/e5_fig1_distances.png",
            "Congenial DP Fig 1: distances of four mechanisms",
            ("Congenial DP", "§3", "Fig 1"),
        ),
        *paper_items(
            "results/figures/e5_fig2_acceptance.png",
            "Congenial DP Fig 2: acceptance rate",
            ("Congenial DP", "App. C", "Fig 2"),
        ),
        *paper_items(
            "results/figures/e5_fig3_traces.png",
            "Congenial DP Fig 3: trace plots",
            ("Congenial DP", "App. C", "Fig 3"),
        ),
    ],
    captions=dict(
        e5_table1=["Congenial DP Table 1"],
        e5_fig1=["Congenial DP Fig 1"],
        e5_fig2=["Congenial DP Fig 2"],
        e5_fig3=["Congenial DP Fig 3"],
        e5_convergence=["CDP-E5-fig1-convergence"],
    ),
)


rule e5_problem:
    input:
        table=repo_file(E5["table"]),
    output:
        problem="results/e5/problem.json",
    log:
        "results/logs/e5_problem.log",
    priority: PRIORITY["gate"]
    conda:
        ENV
    params:
        voting_age_from=E5["voting_age_from"],
        index_complement=E5["index_complement"],
        step="isdp_papers.e5_congenial_mis.steps.problem",
    script:
        STEP


rule e5_acceptance:
    input:
        problem="results/e5/problem.json",
        registry=REGISTRY,
    output:
        table=report(
            "results/tables/e5_fig2_acceptance.csv",
            caption="../report/e5_fig2.rst",
            category=E5_CAT,
            labels={"table": "Fig 2 stationary acceptance (exact starts)"},
        ),
        fig_pdf="results/figures/e5_fig2_acceptance.pdf",
        fig_png=report(
            "results/figures/e5_fig2_acceptance.png",
            caption="../report/e5_fig2.rst",
            category=E5_CAT,
            labels=item_label("results/figures/e5_fig2_acceptance.png"),
        ),
    log:
        "results/logs/e5_acceptance.log",
    priority: PRIORITY["e5_acceptance"]
    conda:
        ENV
    params:
        eps=E5["eps"],
        acceptance=E5["acceptance"],
        seed=[SEED, "e5", "acceptance"],
        step="isdp_papers.e5_congenial_mis.steps.acceptance",
    script:
        STEP


rule e5_trace:
    input:
        problem="results/e5/problem.json",
    output:
        draws=[f"results/e5/trace_thin{t}.nc" for t in E5_THINS],
        table=report(
            "results/tables/e5_trace_diagnostics.csv",
            caption="../report/e5_fig3.rst",
            category=E5_CAT,
            labels={"table": "Fig 3 trace diagnostics"},
        ),
        fig_pdf="results/figures/e5_fig3_traces.pdf",
        fig_png=report(
            "results/figures/e5_fig3_traces.png",
            caption="../report/e5_fig3.rst",
            category=E5_CAT,
            labels=item_label("results/figures/e5_fig3_traces.png"),
        ),
    log:
        "results/logs/e5_trace.log",
    conda:
        ENV
    params:
        eps=E5["eps"],
        proposal_eps=E5["proposal_eps"],
        trace=E5["trace"],
        certificate=E5["certificate"],
        seed=[SEED, "e5", "trace"],
        step="isdp_papers.e5_congenial_mis.steps.trace",
    script:
        STEP


rule e5_table1:
    input:
        problem="results/e5/problem.json",
        draws=f"results/e5/trace_thin{E5_THINS[-1]}.nc",
        paper_release=repo_file(E5["paper_release"]),
    output:
        csv=report(
            "results/tables/e5_table1.csv",
            caption="../report/e5_table1.rst",
            category=E5_CAT,
            labels=item_label("results/tables/e5_table1.csv"),
        ),
        md="results/tables/e5_table1.md",
    log:
        "results/logs/e5_table1.log",
    conda:
        ENV
    params:
        eps=E5["eps"],
        proposal_eps=E5["proposal_eps"],
        step="isdp_papers.e5_congenial_mis.steps.table1",
    script:
        STEP


rule e5_simulation:
    input:
        problem="results/e5/problem.json",
    output:
        distances="results/e5/fig1_distances.csv",
        convergence=report(
            "results/tables/e5_fig1_convergence.csv",
            caption="../report/e5_convergence.rst",
            category=E5_CAT,
            labels={"table": "Fig 1 MIS convergence"},
        ),
        releases="results/e5/fig1_releases.npz",
    log:
        "results/logs/e5_simulation.log",
    priority: PRIORITY["e5_simulation"]
    conda:
        ENV
    params:
        simulation=E5["simulation"],
        certificate=E5["certificate"],
        proposal_eps=E5["proposal_eps"],
        methods=E5_METHODS,
        seed=[SEED, "e5", "simulation"],
        step="isdp_papers.e5_congenial_mis.steps.simulation",
    script:
        STEP


rule e5_fig1:
    input:
        distances="results/e5/fig1_distances.csv",
    output:
        table=report(
            "results/tables/e5_fig1_distances.csv",
            caption="../report/e5_fig1.rst",
            category=E5_CAT,
            labels={"table": "Fig 1 distances"},
        ),
        fig_pdf="results/figures/e5_fig1_distances.pdf",
        fig_png=report(
            "results/figures/e5_fig1_distances.png",
            caption="../report/e5_fig1.rst",
            category=E5_CAT,
            labels=item_label("results/figures/e5_fig1_distances.png"),
        ),
    log:
        "results/logs/e5_fig1.log",
    conda:
        ENV
    params:
        methods=E5_METHODS,
        labels=E5_LABELS,
        step="isdp_papers.e5_congenial_mis.steps.fig1",
    script:
        STEP
