# E1 — intersecting counting constraints (ISDP §5, App. E.2, Figs 3–5; docs/experiments/e1.md).
# The pilot, coupling, draws and box plots are the shared rules of lattice.smk.

E1 = config["e1"]
NORMS_E1 = lattice_norms("e1")
E1_CAT = register(
    "e1",
    "intersecting constraints",
    [
        *figure("e1_fig3_constraints"),
        *figure("e1_fig4_tv_bound"),
        *figure("e1_fig5_boxplots"),
        "results/tables/e1_convergence.csv",
        "results/tables/e1_proposals.csv",
        "results/tables/e1_unbiasedness.csv",
    ],
    summary=dict(
        convergence="results/tables/e1_convergence.csv",
        unbiasedness="results/tables/e1_unbiasedness.csv",
        ess=expand("results/tables/e1_ess_{norm}.csv", norm=NORMS_E1),
        draws=expand("results/e1/draws_{norm}.nc", norm=NORMS_E1),
        meetings=expand(
            "results/e1/meeting_times_{norm}.csv", norm=NORMS_E1
        ),  # ISDP-E1-lag-tau-stable
        certificates=expand("results/e1/certificate_{norm}.json", norm=NORMS_E1),
        problem="results/e1/problem.json",
        lattices=[  # ISDP-E1-lattice-complete builds E2's and E3's lattices from their committed inputs
            repo_file(config["e2"]["table"]),
            repo_file(config["data"]["embedded"]),
        ],
    ),
    notebook=dict(
        problem="results/e1/problem.json",
        draws=expand("results/e1/draws_{norm}.nc", norm=NORMS_E1),
        meetings=expand("results/e1/meeting_times_{norm}.csv", norm=NORMS_E1),
        certificates=expand("results/e1/certificate_{norm}.json", norm=NORMS_E1),
        convergence="results/tables/e1_convergence.csv",
        figures=[
            *figure("e1_fig3_constraints"),
            *figure("e1_fig4_tv_bound"),
            *figure("e1_fig5_boxplots"),
        ],
    ),
    notebook_params=dict(
        norms=NORMS_E1,
        eps=E1["eps"],
    ),
    items=[
        *paper_items(
            "results/figures/e1_fig3_constraints.png",
            "ISDP Fig 3: the three constraints",
            ("ISDP", "App. E.2", "Fig 3"),
        ),
        *paper_items(
            "results/figures/e1_fig4_tv_bound.png",
            "ISDP Fig 4: TV bound",
            ("ISDP", "App. E.2", "Fig 4"),
        ),
        *paper_items(
            "results/figures/e1_fig5_boxplots.png",
            "ISDP Fig 5: noise box plots",
            ("ISDP", "App. E.2", "Fig 5"),
        ),
    ],
    captions=dict(
        e1_fig3=["ISDP Fig 3"],
        e1_fig4=["ISDP Fig 4"],
        e1_boxplots=["ISDP Fig 5"],
    ),
)


rule e1_problem:
    output:
        problem="results/e1/problem.json",
        fig_pdf="results/figures/e1_fig3_constraints.pdf",
        fig_png=report(
            "results/figures/e1_fig3_constraints.png",
            caption="../report/e1_fig3.rst",
            category=E1_CAT,
            labels=item_label("results/figures/e1_fig3_constraints.png"),
        ),
    log:
        "results/logs/e1_problem.log",
    priority: PRIORITY["e1_chain"]
    conda:
        ENV
    params:
        x=E1["x"],
        records_per_region=E1["records_per_region"],
        step="isdp_papers.e1_intersecting.steps.problem",
    script:
        STEP


rule e1_tv:
    input:
        meetings=expand("results/e1/meeting_times_{norm}.csv", norm=NORMS_E1),
        certificates=expand("results/e1/certificate_{norm}.json", norm=NORMS_E1),
    output:
        curves="results/e1/tv_curves.csv",
        table=report(
            "results/tables/e1_convergence.csv",
            caption="../report/e1_convergence.rst",
            category=E1_CAT,
            labels={"table": "convergence iterations"},
        ),
        fig_pdf="results/figures/e1_fig4_tv_bound.pdf",
        fig_png=report(
            "results/figures/e1_fig4_tv_bound.png",
            caption="../report/e1_fig4.rst",
            category=E1_CAT,
            labels=item_label("results/figures/e1_fig4_tv_bound.png"),
        ),
    log:
        "results/logs/e1_tv.log",
    priority: PRIORITY["e1_chain"]
    conda:
        ENV
    params:
        norms=NORMS_E1,
        eps=E1["eps"],
        threshold=E1["coupling"]["tv_threshold"],
        title="E1",
        step="isdp_papers.lattice_study.steps.tv_bounds",
    script:
        STEP
