# Across experiments: each experiment's claims summary and review notebook, the reproduction
# summary, software versions, the registry itself (results/tables/experiments.csv, which the
# scorecard and the workflow tests read), the scorecard and the captions' result sentences. The HTML
# report is `snakemake --report`; it opens on the scorecard (workflow/report/workflow.rst).
VERDICTS = (
    "All verdicts: scorecard and summary"  # sorts first among the report's categories
)


# Rules `<exp>_summary` (the paper's claims against this run) and `<exp>_notebook` (the executed
# review notebook, whose checks table marks it done) of every experiment, with the inputs and
# notebook params its register() call gave (common.smk).
for exp, declared in EXPERIMENT_RULES.items():

    rule:
        name:
            f"{exp}_summary"
        input:
            **declared["summary"],
        output:
            summary=report(
                f"results/tables/summary/{exp}.csv",
                caption="../report/findings.rst",
                category=EXPERIMENTS[exp]["title"],
                labels={"table": "paper vs this run"},
            ),
        log:
            f"results/logs/{exp}_summary.log",
        priority: PRIORITY["e1_chain"] if exp == "e1" else 0
        conda:
            ENV
        params:
            experiment=exp.upper(),
            repo=repo_file("."),
            step="isdp_papers.reporting.claims_summary",
        script:
            STEP

    rule:
        name:
            f"{exp}_notebook"
        input:
            **declared["notebook"],
        output:
            checks=f"results/tables/{exp}_review_checks.csv",
        log:
            notebook=executed_notebook(exp),
            context=notebook_context(exp),
        benchmark:
            f"results/benchmarks/{exp}_notebook.tsv"
        priority: PRIORITY["e1_chain"] if exp == "e1" else 0
        conda:
            ENV
        params:
            **declared["notebook_params"],
            # the notebook directive is read when the job runs, after this loop has moved on:
            # it takes its path from the params, which are bound here
            notebook_path=notebook_source(exp),
        notebook:
            "{params.notebook_path}"


rule reproduction_summary:
    input:
        summaries=[f"results/tables/summary/{exp}.csv" for exp in EXPERIMENTS],
        registry=REGISTRY,
    output:
        table=report(
            "results/tables/reproduction_summary.csv",
            caption="../report/summary.rst",
            category=VERDICTS,
            labels={"table": "all claims"},
        ),
    log:
        "results/logs/reproduction_summary.log",
    conda:
        ENV
    params:
        experiments=list(EXPERIMENTS),
        step="isdp_papers.reporting.reproduction_summary",
    script:
        STEP


# The headline counts of README and report (claims apart from checks, each status with its causes),
# made from the reproduction summary; `make readme-numbers` copies the Markdown into README.md.
rule claim_counts:
    input:
        summary="results/tables/reproduction_summary.csv",
    output:
        table=report(
            "results/tables/claim_counts.csv",
            caption="../report/counts.rst",
            category=VERDICTS,
            labels={"table": "counts by kind, status and cause"},
        ),
        markdown="results/claim_counts.md",
    log:
        "results/logs/claim_counts.log",
    conda:
        ENV
    params:
        configfiles=[Path(f).name for f in workflow.configfiles],
        step="isdp_papers.reporting.claim_counts_table",
    script:
        STEP


rule software_versions:
    output:
        table=report(
            "results/tables/software_versions.csv",
            caption="../report/software.rst",
            category="Software",
            labels={"table": "software versions"},
        ),
    log:
        "results/logs/software_versions.log",
    conda:
        ENV
    params:
        step="isdp_papers.reporting.software_table",
    script:
        STEP


rule experiment_registry:
    output:
        table="results/tables/experiments.csv",
    log:
        "results/logs/experiment_registry.log",
    conda:
        ENV
    params:
        experiments=EXPERIMENTS,
        step="isdp_papers.scorecard.experiment_registry",
    script:
        STEP


# Every document's figures and tables (the registry's items) with the verdicts of the claims that
# speak of them: a standalone page, and the report's landing text (workflow/report/workflow.rst).
# Where E3 runs, the county data's source and vintage are stated at the top (`source`).
rule scorecard:
    input:
        **({"source": rules.fetch.output.info} if "e3" in EXPERIMENT_IDS else {}),
        summary="results/tables/reproduction_summary.csv",
        registry="results/tables/experiments.csv",
        reproductions=sorted(
            {i["output"] for e in EXPERIMENTS.values() for i in e["items"]}
        ),
        notebooks=[f"results/notebooks/{exp}_review.html" for exp in EXPERIMENTS],
    output:
        html=report(
            "results/scorecard.html",
            caption="../report/scorecard.rst",
            category=VERDICTS,
            labels={"page": "scorecard: every figure and table with its verdicts"},
        ),
        landing="results/report/scorecard.html",
    log:
        "results/logs/scorecard.log",
    conda:
        ENV
    params:
        step="isdp_papers.scorecard.scorecard",
    script:
        STEP


# The result sentence of each caption that states one (register(captions=…)): the verdicts and values
# of the rows it names, which the caption includes (`.. include:: results/report/captions/<name>.rst`).
rule report_captions:
    input:
        summary="results/tables/reproduction_summary.csv",
        registry="results/tables/experiments.csv",
    output:
        fragments=[caption_result(name) for name in CAPTION_RESULTS],
    log:
        "results/logs/report_captions.log",
    conda:
        ENV
    params:
        captions=CAPTION_RESULTS,
        step="isdp_papers.captions.caption_results",
    script:
        STEP


REPORT_OUTPUTS.extend(
    [
        "results/scorecard.html",
        "results/report/scorecard.html",
        *rules.report_captions.output.fragments,
    ]
)


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
        step="isdp_papers.reporting.notebook_html",
    script:
        STEP
