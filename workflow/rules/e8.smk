# E8 — privacy accounting tables of the Swapping slides and the TopDown talk
# (permutation swapping's ε; zCDP -> (ε, δ) conversion; noise-variance tables; docs/experiments/e8.md).
# Deterministic: no random numbers, so no seeds.

E8 = config["e8"]
E8_PRINTED = {name: repo_file(path) for name, path in E8["printed"].items()}
E8_TDA_BUDGET = CLAIM_ARGS[
    "SWAP-E8-tda-epsilon"
]  # the printed ρ, δ and rounding, from the claims registry

E8_CAT = register(
    "e8",
    "privacy accounting (Swapping slides, TopDown talk)",
    [
        *figure("e8_swap_epsilon"),
        *figure("e8_tda_variance"),
        "results/tables/e8_swap_ma1940.csv",
        "results/tables/e8_swap_2020.csv",
        "results/tables/e8_swap_min.csv",
        "results/tables/e8_tda_conversion.csv",
        "results/tables/e8_tda_variance.csv",
        "results/tables/e8_dorm_bounds.csv",
    ],
    summary=dict(
        swap=[
            "results/tables/e8_swap_ma1940.csv",
            "results/tables/e8_swap_2020.csv",
            "results/tables/e8_swap_min.csv",
        ],
        curves="results/e8/swap_curves.csv",
        conversion="results/tables/e8_tda_conversion.csv",
        variance="results/tables/e8_tda_variance.csv",
        dorm=[
            "results/tables/e8_dorm_bounds.csv",
            "results/e8/dorm_feasible_totals.csv",
        ],
        printed=list(E8_PRINTED.values()),
        population=repo_file(config["data"]["embedded"]),
        housing=repo_file(
            "data/nhgis/county_housing_v20210608.csv"
        ),  # SWAP-E8-census2020-largest-strata
        gq_codes=repo_file("data/e8/census2010_gq_codes.csv"),  # TDA-E8-gq-codes
        histogram_support=repo_file(
            "data/nhgis/state_histogram_support_v20210608.csv"
        ),  # TDA-E8-problem-size
        three_way=repo_file(
            "data/e8/three_way_margins_deloera_onn.csv"
        ),  # TDA-E8-two-marginals-integer-gap
    ),
    notebook=dict(
        registry=REGISTRY,
        swap_ma1940="results/tables/e8_swap_ma1940.csv",
        swap_2020="results/tables/e8_swap_2020.csv",
        swap_min="results/tables/e8_swap_min.csv",
        curves="results/e8/swap_curves.csv",
        conversion="results/tables/e8_tda_conversion.csv",
        variance="results/tables/e8_tda_variance.csv",
        dorm_bounds="results/tables/e8_dorm_bounds.csv",
        dorm_feasible="results/e8/dorm_feasible_totals.csv",
        printed_counties=E8_PRINTED["ma1940_counties"],
        figures=[*figure("e8_swap_epsilon"), *figure("e8_tda_variance")],
    ),
    notebook_params=dict(
        tda=E8["tda"],
    ),
    items=[
        *paper_items(
            "results/figures/e8_swap_epsilon.png",
            "Swapping slides: ε against the swap rate",
            (
                "Swapping slides",
                "",
                "'Swapping satisfies DP, subject to its invariants', figure",
            ),
        ),
        *paper_items(
            "results/tables/e8_tda_conversion.csv",
            "Swapping slides: TopDown's ρ → ε",
            ("Swapping slides", "", "table 'Examples from the US Decennial Censuses'"),
        ),
        *paper_items(
            "results/tables/e8_swap_ma1940.csv",
            "Swapping slides: swap rate → ε, 1940 Massachusetts",
            (
                "Swapping slides",
                "",
                "'Numerical demonstration: 1940 Census full count data', table",
            ),
        ),
        *paper_items(
            "results/tables/e8_swap_2020.csv",
            "Swapping slides: swap rate → ε, 2020 what-if",
            ("Swapping slides", "", "table 'What if the 2020 Census used swapping?'"),
        ),
        *paper_items(
            "results/tables/e8_tda_variance.csv",
            "TopDown talk: noise variances",
            ("TopDown talk", "", "tables of the slides 'RDP/zCDP'"),
        ),
    ],
    captions=dict(
        e8_swap_epsilon=[
            "Swapping slides 'Swapping satisfies DP, subject to its invariants', figure"
        ],
        e8_swap_tables=[
            "Swapping slides 'Numerical demonstration: 1940 Census full count data', table",
            "Swapping slides table 'What if the 2020 Census used swapping?'",
        ],
        e8_swap_min=["SWAP-E8-min-epsilon", "SWAP-E8-two-rates"],
        e8_tda_conversion=["SWAP-E8-tda-epsilon"],
        e8_tda_variance=["TopDown talk tables of the slides 'RDP/zCDP'"],
        e8_dorm=["TDA-E8-dorm-*"],
    ),
)


rule e8_swapping:
    input:
        ma1940=E8_PRINTED["swap_ma1940"],
        census2020=E8_PRINTED["swap_2020"],
    output:
        ma1940=report(
            "results/tables/e8_swap_ma1940.csv",
            caption="../report/e8_swap_tables.rst",
            category=E8_CAT,
            labels=item_label("results/tables/e8_swap_ma1940.csv"),
        ),
        census2020=report(
            "results/tables/e8_swap_2020.csv",
            caption="../report/e8_swap_tables.rst",
            category=E8_CAT,
            labels=item_label("results/tables/e8_swap_2020.csv"),
        ),
        minima=report(
            "results/tables/e8_swap_min.csv",
            caption="../report/e8_swap_min.rst",
            category=E8_CAT,
            labels={"table": "smallest ε and the two swap rates"},
        ),
        curves="results/e8/swap_curves.csv",
        fig_pdf="results/figures/e8_swap_epsilon.pdf",
        fig_png=report(
            "results/figures/e8_swap_epsilon.png",
            caption="../report/e8_swap_epsilon.rst",
            category=E8_CAT,
            labels=item_label("results/figures/e8_swap_epsilon.png"),
        ),
    log:
        "results/logs/e8_swapping.log",
    conda:
        ENV
    params:
        swapping=E8["swapping"],
        step="isdp_papers.e8_privacy_accounting.steps.swapping",
    script:
        STEP


rule e8_conversion:
    output:
        table=report(
            "results/tables/e8_tda_conversion.csv",
            caption="../report/e8_tda_conversion.rst",
            category=E8_CAT,
            labels=item_label("results/tables/e8_tda_conversion.csv"),
        ),
    log:
        "results/logs/e8_conversion.log",
    conda:
        ENV
    params:
        budget=E8_TDA_BUDGET,
        methods=[
            E8["tda"]["conversion"],
            *[m for m in E8["tda"]["alternatives"] if m != E8["tda"]["conversion"]],
        ],
        step="isdp_papers.e8_privacy_accounting.steps.conversion",
    script:
        STEP


rule e8_variance:
    input:
        printed=E8_PRINTED["tda_variance"],
    output:
        table=report(
            "results/tables/e8_tda_variance.csv",
            caption="../report/e8_tda_variance.rst",
            category=E8_CAT,
            labels=item_label("results/tables/e8_tda_variance.csv"),
        ),
        fig_pdf="results/figures/e8_tda_variance.pdf",
        fig_png=report(
            "results/figures/e8_tda_variance.png",
            caption="../report/e8_tda_variance.rst",
            category=E8_CAT,
            labels={"figure": "noise variances"},
        ),
    log:
        "results/logs/e8_variance.log",
    conda:
        ENV
    params:
        tda=E8["tda"],
        step="isdp_papers.e8_privacy_accounting.steps.variance",
    script:
        STEP


rule e8_dorm:
    output:
        feasible="results/e8/dorm_feasible_totals.csv",
        bounds=report(
            "results/tables/e8_dorm_bounds.csv",
            caption="../report/e8_dorm.rst",
            category=E8_CAT,
            labels={"table": "dorm example: implied bounds"},
        ),
    log:
        "results/logs/e8_dorm.log",
    conda:
        ENV
    params:
        dorm=E8["dorm"],
        step="isdp_papers.e8_privacy_accounting.steps.dorm",
    script:
        STEP
