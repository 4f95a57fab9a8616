# Input data: NHGIS Privacy-Protected 2010 Census Demonstration Data, county level (docs/experiments/e3.md).
# `source: auto` tries the configured vintage and falls back, loudly, to the committed extract.

DATA = config["data"]


rule fetch:
    input:
        embedded=repo_file(DATA["embedded"]),
    output:
        csv="results/data/counties.csv",
        info="results/data/source.json",
    log:
        "results/logs/fetch.log",
    priority: PRIORITY["gate"]
    conda:
        ENV
    params:
        vintage=DATA["vintage"],
        source=DATA["source"],
        # download cache, deliberately not an output: it does not exist after a fallback,
        # and a zip placed there by hand (e.g. the paper's v20201116) is used without downloading
        dest_zip=f"results/data/nhgis_ppdd_{DATA['vintage']}_county.zip",
        timeout=DATA["timeout"],
        retries=DATA["retries"],
        backoff=DATA["backoff"],
        step="isdp_papers.nhgis.steps.fetch_step",
    script:
        STEP


# Any vintage's county zip -> the tidy, validated table (the same code made data/nhgis/'s extract).
# Place the zip at results/data/nhgis_ppdd_<V>_county.zip, then ask for results/data/counties_v<V>.csv.
rule extract:
    input:
        zip="results/data/nhgis_ppdd_{vintage}_county.zip",
    output:
        csv="results/data/counties_v{vintage}.csv",
    log:
        "results/logs/extract_v{vintage}.log",
    wildcard_constraints:
        vintage=r"\d{8}",
    conda:
        ENV
    params:
        vintage=lambda wc: wc.vintage,
        step="isdp_papers.nhgis.steps.extract_step",
    script:
        STEP
