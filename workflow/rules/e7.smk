# E7 — two-bin histogram with its total kept: the congenial release M* vs L2 and L1 post-processing
# (Congenial DP §4 Example 4.1, Table 2; App. A-B; §3, §5.1; docs/experiments/e7.md).

E7 = config["e7"]
E7_LABELS = {
    "conditional": "M* (conditional on the total)",
    "l2": "f_L2 (L2 projection)",
    "l1": "f_L1 (β-combination, L1 projection)",
}

E7_CAT = register(
    "e7",
    "congenial vs post-processed two-bin histogram",
    [
        *figure("e7_variance"),
        *figure("e7_noise_laws"),
        *figure("e7_privacy"),
        "results/tables/e7_table2.csv",
        "results/tables/e7_privacy.csv",
        "results/tables/e7_simulation.csv",
        "results/tables/e7_conditioning.csv",
        "results/tables/e7_dg_quantile.csv",
    ],
    summary=dict(
        table2="results/tables/e7_table2.csv",
        privacy="results/tables/e7_privacy.csv",
        simulation="results/tables/e7_simulation.csv",
        noise="results/e7/noise.npz",
        conditioning="results/tables/e7_conditioning.csv",
        dg_quantile="results/tables/e7_dg_quantile.csv",
    ),
    notebook=dict(
        table2="results/tables/e7_table2.csv",
        privacy="results/tables/e7_privacy.csv",
        simulation="results/tables/e7_simulation.csv",
        noise="results/e7/noise.npz",
        conditioning="results/tables/e7_conditioning.csv",
        dg_quantile="results/tables/e7_dg_quantile.csv",
        figures=[
            *figure("e7_variance"),
            *figure("e7_noise_laws"),
            *figure("e7_privacy"),
        ],
    ),
    notebook_params=dict(
        x=E7["x"],
    ),
    items=paper_items(
        "results/tables/e7_table2.csv",
        "Congenial DP Table 2 (exact)",
        ("Congenial DP", "§4", "Table 2"),
    ),
    captions=dict(
        e7_table2=["Congenial DP Table 2"],
        e7_simulation=["CDP-E7-table2-simulation"],
        e7_conditioning=["CDP-E7-conditional-law"],
        e7_dg_quantile=["CDP-E7-dg-quantile"],
        e7_noise_laws=[
            "CDP-E7-l2-noise-mixture",
            "CDP-E7-signed-gamma-sum",
            "CDP-E7-l1-noise-law",
        ],
        e7_privacy=[
            "CDP-E7-privacy-*",
            "CDP-E7-gamma-example41",
        ],
    ),
)


rule e7_tables:
    output:
        table2=report(
            "results/tables/e7_table2.csv",
            caption="../report/e7_table2.rst",
            category=E7_CAT,
            labels=item_label("results/tables/e7_table2.csv"),
        ),
        privacy=report(
            "results/tables/e7_privacy.csv",
            caption="../report/e7_privacy.rst",
            category=E7_CAT,
            labels={"table": "privacy levels"},
        ),
        simulation=report(
            "results/tables/e7_simulation.csv",
            caption="../report/e7_simulation.rst",
            category=E7_CAT,
            labels={"table": "Table 2 (simulation)"},
        ),
        noise="results/e7/noise.npz",
        conditioning=report(
            "results/tables/e7_conditioning.csv",
            caption="../report/e7_conditioning.rst",
            category=E7_CAT,
            labels={"table": "M* law by conditioning"},
        ),
        dg_quantile=report(
            "results/tables/e7_dg_quantile.csv",
            caption="../report/e7_dg_quantile.rst",
            category=E7_CAT,
            labels={"table": "App. B quantile"},
        ),
    log:
        "results/logs/e7_tables.log",
    conda:
        ENV
    params:
        x=E7["x"],
        eps_grid=E7["eps_grid"],
        betas=E7["betas"],
        n_draws=E7["n_draws"],
        figure_eps=E7["figure_eps"],
        conditioning=E7["conditioning"],
        privacy=E7["privacy"],
        dg_check=E7["dg_check"],
        labels=E7_LABELS,
        seed=[SEED, "e7", "simulation"],
        step="isdp_papers.e7_congenial_histogram.steps.tables",
    script:
        STEP


rule e7_figures:
    input:
        registry=REGISTRY,
        table2="results/tables/e7_table2.csv",
        privacy="results/tables/e7_privacy.csv",
        simulation="results/tables/e7_simulation.csv",
        noise="results/e7/noise.npz",
    output:
        variance_pdf="results/figures/e7_variance.pdf",
        variance_png=report(
            "results/figures/e7_variance.png",
            caption="../report/e7_variance.rst",
            category=E7_CAT,
            labels={"figure": "Table 2: variance vs ε"},
        ),
        laws_pdf="results/figures/e7_noise_laws.pdf",
        laws_png=report(
            "results/figures/e7_noise_laws.png",
            caption="../report/e7_noise_laws.rst",
            category=E7_CAT,
            labels={"figure": "noise laws (4.7), (A.1)"},
        ),
        privacy_pdf="results/figures/e7_privacy.pdf",
        privacy_png=report(
            "results/figures/e7_privacy.png",
            caption="../report/e7_privacy_fig.rst",
            category=E7_CAT,
            labels={"figure": "privacy level vs β"},
        ),
    log:
        "results/logs/e7_figures.log",
    conda:
        ENV
    params:
        labels=E7_LABELS,
        step="isdp_papers.e7_congenial_histogram.steps.figures",
    script:
        STEP
