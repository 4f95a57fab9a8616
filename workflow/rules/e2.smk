# E2 — delinquent children, 4×4 table with all margins invariant
# (ISDP §5 Table 1, Fig 1; App. E.3 Tables 2–3, Figs 6–7; docs/experiments/e2.md).
# The pilot, coupling, draws and box plots are the shared rules of lattice.smk.

E2 = config["e2"]
NORMS_E2 = lattice_norms("e2")
E2_TV_FIGS = {"l1": "e2_fig1_tv_bound_l1", "l2": "e2_fig6_tv_bound_l2"}
E2_DRAW_TABLES = {"l1": "e2_table1_l1_draw", "l2": "e2_table3_l2_draw"}
# The document items per norm, the TV figure then the noise-draw table: ISDP §5 shows ℓ1 (Fig 1,
# Table 1), App. E.3 ℓ2 (Fig 6, Table 3).
E2_NORM_ITEMS = {
    norm: [
        *paper_items(
            f"results/figures/{E2_TV_FIGS[norm]}.png",
            f"ISDP {fig}: TV bound, {name}",
            ("ISDP", where, fig),
        ),
        *paper_items(
            f"results/tables/{E2_DRAW_TABLES[norm]}.csv",
            f"ISDP {table}: a noise draw, {name}",
            ("ISDP", where, table),
        ),
    ]
    for norm, where, fig, table, name in (
        ("l1", "§5", "Fig 1", "Table 1", "ℓ1"),
        ("l2", "App. E.3", "Fig 6", "Table 3", "ℓ2"),
    )
}

E2_CAT = register(
    "e2",
    "delinquent-children table",
    [
        "results/tables/e2_table2_confidential.csv",
        *[f for n in NORMS_E2 for f in figure(E2_TV_FIGS[n])],
        *figure("e2_fig7_boxplots"),
        *[
            f"results/tables/{E2_DRAW_TABLES[n]}.{ext}"
            for n in NORMS_E2
            for ext in ("csv", "md")
        ],
        "results/tables/e2_convergence.csv",
        "results/tables/e2_proposals.csv",
        "results/tables/e2_unbiasedness.csv",
        "results/tables/e2_validation.csv",
    ],
    summary=dict(
        problem="results/e2/problem.json",
        margins="results/tables/e2_table2_confidential.csv",
        convergence="results/tables/e2_convergence.csv",
        unbiasedness="results/tables/e2_unbiasedness.csv",
        validation="results/tables/e2_validation.csv",
        draws=expand("results/e2/draws_{norm}.nc", norm=NORMS_E2),
        meetings=expand(
            "results/e2/meeting_times_{norm}.csv", norm=NORMS_E2
        ),  # ISDP-E2-lag-tau-stable
        certificates=expand("results/e2/certificate_{norm}.json", norm=NORMS_E2),
        ess=expand("results/tables/e2_ess_{norm}.csv", norm=NORMS_E2),
        printed=[
            repo_file("data/e2/paper_table1_l1_draw.csv"),
            repo_file("data/e2/paper_table3_l2_draw.csv"),
        ],
        table=repo_file(E2["table"]),  # ISDP-E2-data-independence releases it
    ),
    notebook=dict(
        problem="results/e2/problem.json",
        draws=expand("results/e2/draws_{norm}.nc", norm=NORMS_E2),
        convergence="results/tables/e2_convergence.csv",
        validation="results/tables/e2_validation.csv",
        tables=[f"results/tables/{E2_DRAW_TABLES[n]}.csv" for n in NORMS_E2],
        figures=[
            *figure("e2_fig1_tv_bound_l1"),
            *figure("e2_fig6_tv_bound_l2"),
            *figure("e2_fig7_boxplots"),
        ],
    ),
    notebook_params=dict(
        norms=NORMS_E2,
        eps=E2["eps"],
    ),
    items=[
        *(E2_NORM_ITEMS["l1"] if "l1" in NORMS_E2 else []),
        *paper_items(
            "results/tables/e2_table2_confidential.csv",
            "ISDP Table 2: the confidential table",
            ("ISDP", "App. E.3", "Table 2"),
        ),
        *(E2_NORM_ITEMS["l2"] if "l2" in NORMS_E2 else []),
        *paper_items(
            "results/figures/e2_fig7_boxplots.png",
            "ISDP Fig 7: noise box plots",
            ("ISDP", "App. E.3", "Fig 7"),
        ),
    ],
    captions=dict(
        e2_table2=["ISDP Table 2"],
        e2_tv=[f"ISDP {E2_NORM_ITEMS[n][0]['item']}" for n in NORMS_E2],
        e2_noise_tables=[f"ISDP {E2_NORM_ITEMS[n][1]['item']}" for n in NORMS_E2],
        e2_boxplots=["ISDP Fig 7"],
        e2_validation=["ISDP-E2-exact-conditioning"],
    ),
)


rule e2_problem:
    input:
        table=repo_file(E2["table"]),
    output:
        problem="results/e2/problem.json",
        csv=report(
            "results/tables/e2_table2_confidential.csv",
            caption="../report/e2_table2.rst",
            category=E2_CAT,
            labels=item_label("results/tables/e2_table2_confidential.csv"),
        ),
        md="results/tables/e2_table2_confidential.md",
    log:
        "results/logs/e2_problem.log",
    conda:
        ENV
    params:
        step="isdp_papers.e2_delinquent_children.steps.problem",
    script:
        STEP


rule e2_tv:
    input:
        meetings=expand("results/e2/meeting_times_{norm}.csv", norm=NORMS_E2),
        certificates=expand("results/e2/certificate_{norm}.json", norm=NORMS_E2),
    output:
        curves="results/e2/tv_curves.csv",
        table=report(
            "results/tables/e2_convergence.csv",
            caption="../report/e2_convergence.rst",
            category=E2_CAT,
            labels={"table": "convergence iterations"},
        ),
        fig_pdf=[f"results/figures/{E2_TV_FIGS[n]}.pdf" for n in NORMS_E2],
        # one report entry per norm, each with its own label (a labels function would be given the
        # wildcards, not the path, and label both files alike)
        fig_png=[
            report(
                f"results/figures/{E2_TV_FIGS[n]}.png",
                caption="../report/e2_tv.rst",
                category=E2_CAT,
                labels=item_label(f"results/figures/{E2_TV_FIGS[n]}.png"),
            )
            for n in NORMS_E2
        ],
    log:
        "results/logs/e2_tv.log",
    conda:
        ENV
    params:
        norms=NORMS_E2,
        eps=E2["eps"],
        threshold=E2["coupling"]["tv_threshold"],
        title="E2",
        step="isdp_papers.lattice_study.steps.tv_bounds",
    script:
        STEP


rule e2_noise_tables:
    input:
        problem="results/e2/problem.json",
        draws=expand("results/e2/draws_{norm}.nc", norm=NORMS_E2),
    output:
        csv=[
            report(
                f"results/tables/{E2_DRAW_TABLES[n]}.csv",
                caption="../report/e2_noise_tables.rst",
                category=E2_CAT,
                labels=item_label(f"results/tables/{E2_DRAW_TABLES[n]}.csv"),
            )
            for n in NORMS_E2
        ],
        md=[f"results/tables/{E2_DRAW_TABLES[n]}.md" for n in NORMS_E2],
    log:
        "results/logs/e2_noise_tables.log",
    conda:
        ENV
    params:
        norms=NORMS_E2,
        step="isdp_papers.e2_delinquent_children.steps.noise_tables",
    script:
        STEP


rule e2_validation:
    output:
        table=report(
            "results/tables/e2_validation.csv",
            caption="../report/e2_validation.rst",
            category=E2_CAT,
            labels={"table": "MCMC vs exact conditioning"},
        ),
    log:
        "results/logs/e2_validation.log",
    priority: PRIORITY["e2_validation"]
    conda:
        ENV
    params:
        validation=E2["validation"],
        seed=[SEED, "e2", "validation"],
        step="isdp_papers.e2_delinquent_children.steps.validation",
    script:
        STEP
