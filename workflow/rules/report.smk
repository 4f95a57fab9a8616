# Across experiments: the reproduction summary, software versions, and the registry itself
# (results/tables/experiments.csv, which the workflow tests read). The HTML report is
# `snakemake --report`.


rule reproduction_summary:
    input:
        summaries=[f"results/tables/summary/{exp}.csv" for exp in EXPERIMENTS],
    output:
        table=report(
            "results/tables/reproduction_summary.csv",
            caption="../report/summary.rst",
            category="Reproduction summary",
            labels={"table": "all claims"},
        ),
    log:
        "results/logs/reproduction_summary.log",
    conda:
        ENV
    script:
        "../scripts/reproduction_summary.py"


rule software_versions:
    output:
        table=report(
            "results/tables/software_versions.csv",
            caption="../report/software.rst",
            category="Reproduction summary",
            labels={"table": "software versions"},
        ),
    log:
        "results/logs/software_versions.log",
    conda:
        ENV
    script:
        "../scripts/software_versions.py"


rule experiment_registry:
    output:
        table="results/tables/experiments.csv",
    log:
        "results/logs/experiment_registry.log",
    conda:
        ENV
    params:
        experiments=EXPERIMENTS,
    script:
        "../scripts/experiment_registry.py"


# The review notebook of each experiment, executed by its notebook rule (whose checks table
# marks it done), rendered to HTML for the report.
rule notebook_html:
    input:
        checks="results/tables/{exp}_review_checks.csv",
    output:
        html=report(
            "results/notebooks/{exp}_review.html",
            caption="../report/notebook.rst",
            category=lambda wildcards: EXPERIMENTS[wildcards.exp]["title"],
            labels={"notebook": "review notebook (executed)"},
        ),
    log:
        "results/logs/{exp}_notebook_html.log",
    wildcard_constraints:
        exp=r"e\d+",
    conda:
        ENV
    params:
        notebook=lambda wildcards: executed_notebook(wildcards.exp),
    script:
        "../scripts/notebook_html.py"
