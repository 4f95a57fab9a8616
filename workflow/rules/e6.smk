# E6 — projected Gaussian mechanism on the spatio-temporal query
# (Subspace DP §5.2, with its §3–§5.1 claims that need no data; docs/experiments/e6.md).

E6 = config["e6"]

E6_CAT = register(
    "e6",
    "spatio-temporal projected Gaussian",
    [
        *figure("e6_error_sd"),
        "results/tables/e6_readings.csv",
        "results/tables/e6_mechanism.csv",
    ],
    summary=dict(
        readings="results/tables/e6_readings.csv",
        info="results/e6/info.json",
        cells="results/e6/cells.csv",
    ),
    notebook=dict(
        registry=REGISTRY,
        readings="results/tables/e6_readings.csv",
        mechanism="results/tables/e6_mechanism.csv",
        studies="results/e6/studies.csv",
        repetitions="results/e6/repetitions.csv",
        cells="results/e6/cells.csv",
        info="results/e6/info.json",
        figures=figure("e6_error_sd"),
    ),
    notebook_params=dict(
        e6=E6,
    ),
    captions=dict(
        e6_readings=[
            "SDP-E6-median",
            "SDP-E6-q05",
            "SDP-E6-q95",
            "SDP-E6-reading-*",
        ],
        e6_mechanism=[
            "SDP-E6-unbiased",
            "SDP-E6-invariants",
            "SDP-E6-total-error",
            "SDP-E6-conditioning",
            "SDP-E6-data-independence",
        ],
    ),
)


rule e6_studies:
    input:
        registry=REGISTRY,
    output:
        readings=report(
            "results/tables/e6_readings.csv",
            caption="../report/e6_readings.rst",
            category=E6_CAT,
            labels={"table": "error statistics, three readings"},
        ),
        mechanism=report(
            "results/tables/e6_mechanism.csv",
            caption="../report/e6_mechanism.rst",
            category=E6_CAT,
            labels={"table": "mechanism checks"},
        ),
        studies="results/e6/studies.csv",
        repetitions="results/e6/repetitions.csv",
        cells="results/e6/cells.csv",
        info="results/e6/info.json",
        fig_pdf="results/figures/e6_error_sd.pdf",
        fig_png=report(
            "results/figures/e6_error_sd.png",
            caption="../report/e6_error_sd.rst",
            category=E6_CAT,
            labels={"figure": "error SD and variance"},
        ),
    log:
        "results/logs/e6_studies.log",
    priority: PRIORITY["e6_studies"]
    conda:
        ENV
    params:
        e6=E6,
        seed=[SEED, "e6", "studies"],
        step="isdp_papers.e6_spatiotemporal_gaussian.steps.studies",
    script:
        STEP
