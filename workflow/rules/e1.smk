# E1 — intersecting counting constraints (ISDP §5, App. E.2, Figs 3–5; docs/experiments/e1.md).

E1 = config["e1"]

E1_OUTPUTS = [
    *figure("e1_fig3_constraints"),
    *figure("e1_fig4_tv_bound"),
    *figure("e1_fig5_boxplots"),
    "results/tables/e1_convergence.csv",
    "results/tables/e1_proposals.csv",
    "results/tables/e1_unbiasedness.csv",
    "results/tables/summary/e1.csv",
    "results/tables/e1_review_checks.csv",
]


rule e1_problem:
    output:
        problem="results/e1/problem.json",
        fig_pdf=report("results/figures/e1_fig3_constraints.pdf", caption="../report/e1_fig3.rst", category="E1 intersecting constraints", labels={"figure": "Fig 3 (PDF)"}),
        fig_png="results/figures/e1_fig3_constraints.png",
    params:
        x=E1["x"],
        records_per_region=E1["records_per_region"],
    log:
        "results/logs/e1_problem.log",
    conda:
        ENV
    script:
        "../scripts/e1_problem.py"


rule e1_pilot:
    input:
        problem="results/e1/problem.json",
    output:
        table="results/tables/e1_pilot_{norm}.csv",
    params:
        eps=E1["eps"],
        pilot=E1["pilot"],
        seed=lambda wc: [SEED, "e1", "pilot", wc.norm],
    wildcard_constraints:
        norm="l1|l2",
    threads: 2
    log:
        "results/logs/e1_pilot_{norm}.log",
    conda:
        ENV
    script:
        "../scripts/lattice_pilot.py"


rule e1_proposals:
    input:
        pilots=expand("results/tables/e1_pilot_{norm}.csv", norm=NORMS_E1),
    output:
        table=report("results/tables/e1_proposals.csv", caption="../report/proposals.rst", category="E1 intersecting constraints", labels={"table": "tuned proposals"}),
    params:
        norms=NORMS_E1,
        targets=E1["targets"],
        acceptance_range=E1["pilot"]["acceptance_range"],
    log:
        "results/logs/e1_proposals.log",
    conda:
        ENV
    script:
        "../scripts/lattice_proposals.py"


rule e1_coupling:
    input:
        problem="results/e1/problem.json",
    output:
        meetings="results/e1/meeting_times_{norm}.csv",
    params:
        eps=E1["eps"],
        target=lambda wc: E1["targets"][wc.norm],
        coupling=E1["coupling"],
        seed=lambda wc: [SEED, "e1", "coupling", wc.norm],
    wildcard_constraints:
        norm="l1|l2",
    threads: 2
    log:
        "results/logs/e1_coupling_{norm}.log",
    conda:
        ENV
    script:
        "../scripts/lattice_coupling.py"


rule e1_tv:
    input:
        meetings=expand("results/e1/meeting_times_{norm}.csv", norm=NORMS_E1),
    output:
        curves="results/e1/tv_curves.csv",
        table=report("results/tables/e1_convergence.csv", caption="../report/e1_convergence.rst", category="E1 intersecting constraints", labels={"table": "convergence iterations"}),
        fig_pdf="results/figures/e1_fig4_tv_bound.pdf",
        fig_png=report("results/figures/e1_fig4_tv_bound.png", caption="../report/e1_fig4.rst", category="E1 intersecting constraints", labels={"figure": "Fig 4"}),
    params:
        norms=NORMS_E1,
        eps=E1["eps"],
        threshold=E1["coupling"]["tv_threshold"],
        title="E1",
    log:
        "results/logs/e1_tv.log",
    conda:
        ENV
    script:
        "../scripts/lattice_tv.py"


rule e1_draws:
    input:
        problem="results/e1/problem.json",
        convergence="results/tables/e1_convergence.csv",
    output:
        draws="results/e1/draws_{norm}.nc",
        ess="results/tables/e1_ess_{norm}.csv",
    params:
        eps=E1["eps"],
        target=lambda wc: E1["targets"][wc.norm],
        draws=E1["draws"],
        seed=lambda wc: [SEED, "e1", "draws", wc.norm],
    wildcard_constraints:
        norm="l1|l2",
    threads: 2
    log:
        "results/logs/e1_draws_{norm}.log",
    conda:
        ENV
    script:
        "../scripts/lattice_draws.py"


rule e1_boxplots:
    input:
        problem="results/e1/problem.json",
        draws=expand("results/e1/draws_{norm}.nc", norm=NORMS_E1),
        ess=expand("results/tables/e1_ess_{norm}.csv", norm=NORMS_E1),
    output:
        unbiasedness=report("results/tables/e1_unbiasedness.csv", caption="../report/unbiasedness.rst", category="E1 intersecting constraints", labels={"table": "unbiasedness"}),
        fig_pdf="results/figures/e1_fig5_boxplots.pdf",
        fig_png=report("results/figures/e1_fig5_boxplots.png", caption="../report/e1_fig5.rst", category="E1 intersecting constraints", labels={"figure": "Fig 5"}),
    params:
        norms=NORMS_E1,
    log:
        "results/logs/e1_boxplots.log",
    conda:
        ENV
    script:
        "../scripts/lattice_boxplots.py"


rule e1_summary:
    input:
        registry=REGISTRY,
        convergence="results/tables/e1_convergence.csv",
        unbiasedness="results/tables/e1_unbiasedness.csv",
        ess=expand("results/tables/e1_ess_{norm}.csv", norm=NORMS_E1),
        draws=expand("results/e1/draws_{norm}.nc", norm=NORMS_E1),
        problem="results/e1/problem.json",
    output:
        summary=report("results/tables/summary/e1.csv", caption="../report/findings.rst", category="E1 intersecting constraints", labels={"table": "paper vs this run"}),
    params:
        experiment="E1",
    log:
        "results/logs/e1_summary.log",
    conda:
        ENV
    script:
        "../scripts/claims_summary.py"

rule e1_notebook:
    input:
        problem="results/e1/problem.json",
        draws=expand("results/e1/draws_{norm}.nc", norm=NORMS_E1),
        meetings=expand("results/e1/meeting_times_{norm}.csv", norm=NORMS_E1),
        convergence="results/tables/e1_convergence.csv",
        figures=[*figure("e1_fig3_constraints"), *figure("e1_fig4_tv_bound"), *figure("e1_fig5_boxplots")],
        summary="results/tables/summary/e1.csv",
    output:
        checks="results/tables/e1_review_checks.csv",
    params:
        norms=NORMS_E1,
        eps=E1["eps"],
    log:
        notebook="results/notebooks/e1_intersecting.ipynb",
    conda:
        ENV
    notebook:
        "../../notebooks/e1_intersecting.py.ipynb"
