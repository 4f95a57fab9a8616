# The reproduction summary across experiments (the HTML report itself is `snakemake --report`).


rule reproduction_summary:
    input:
        summaries=["results/tables/summary/e1.csv", "results/tables/summary/e2.csv", "results/tables/summary/e3.csv", "results/tables/summary/e4.csv", "results/tables/summary/e5.csv", "results/tables/summary/e6.csv", "results/tables/summary/e7.csv", "results/tables/summary/e8.csv"],
    output:
        table=report("results/tables/reproduction_summary.csv", caption="../report/summary.rst", category="Reproduction summary", labels={"table": "all claims"}),
    log:
        "results/logs/reproduction_summary.log",
    conda:
        ENV
    script:
        "../scripts/reproduction_summary.py"


rule software_versions:
    output:
        table=report("results/tables/software_versions.csv", caption="../report/software.rst", category="Reproduction summary", labels={"table": "software versions"}),
    log:
        "results/logs/software_versions.log",
    conda:
        ENV
    script:
        "../scripts/software_versions.py"
