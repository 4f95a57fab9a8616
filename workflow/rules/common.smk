# Shared definitions and the experiment registry. Functions and constants only; rules live in
# the per-experiment files, and each experiment's summary and notebook rules in report.smk.
#
# The experiments are the config's `eN` blocks: each has a rule file workflow/rules/eN.smk that
# calls register() once, and a review notebook notebooks/eN_*.py.ipynb. `rule all`, the
# reproduction summary, the report's categories, the notebook rules, the scorecard and the workflow
# tests all read EXPERIMENTS (written to results/tables/experiments.csv, with the documents' figures
# and tables each experiment reproduces).
import os
import re
from pathlib import Path

from isdp_papers.claims import load_registry

REPO = Path(workflow.basedir)


def repo_file(rel):
    """A committed file of the repository, as a rule's input or param: relative to the working
    directory when the run lies inside the repository, absolute otherwise. Snakemake records
    input paths and params per output, so an absolute path there would replan every job of a
    repository moved or copied together with its results (docs/reliability.md)."""
    path = REPO / rel
    inside = Path.cwd().resolve().is_relative_to(REPO.resolve())
    return os.path.relpath(path) if inside else str(path)


ENV = "../envs/isdp.yaml"  # every rule: the project's dependencies; isdp itself comes from src/ (Snakefile)
STEP = "../scripts/step.py"  # every rule's script: runs the isdp step named in its params (isdp_papers.jobs)
SEED = config["seed"]
REGISTRY = repo_file(
    "config/claims.yaml"
)  # the claims registry: paper values and criteria
CLAIM_ARGS = {
    c["id"]: c.get("args", {}) for c in load_registry(REGISTRY)
}  # validated at parse time
EXPERIMENT_IDS = sorted(
    (k for k in config if re.fullmatch(r"e\d+", k)), key=lambda k: int(k[1:])
)
EXPERIMENTS = (
    {}
)  # id -> {"title", "notebook", "outputs", "items", "captions"}, filled by register()
EXPERIMENT_RULES = {}  # id -> its summary and notebook rules' inputs and params
ITEM_LABELS = (
    {}
)  # output -> the report label of the document items it reproduces (register())
CAPTION_RESULTS = (
    {}
)  # caption fragment name -> the rows it states (register(); report.smk writes them)
REPORT_OUTPUTS = (
    []
)  # the scorecard and caption fragments (report.smk), asked for by `rule all`


def paper_items(output, label, *reproduces):
    """The document items ``output`` reproduces, for register(): ``reproduces`` are (document,
    section, item) triples — ``("ISDP", "§5", "Fig 1")``, ``("Subspace DP", "§1", "Fig 1 (left)")``, or
    on slides the item by its quoted title, ``("Swapping slides", "", "table 'What if …?'")`` — as the
    claims registry's locations name them (isdp_papers.scorecard.parse_location); ``label`` is the
    output's label in the report (item_label)."""
    return [
        {"document": d, "where": w, "item": i, "output": output, "label": label}
        for d, w, i in reproduces
    ]


def item_label(output):
    """The report label of an output that reproduces a document item ({"figure": …} or {"table": …})."""
    kind = "figure" if output.endswith((".png", ".pdf")) else "table"
    return {kind: ITEM_LABELS[output]}


def caption_result(name):
    """Where the result sentence of caption fragment ``name`` is written (an ``.. include::`` of the
    caption reads it when `snakemake --report` runs in the run directory)."""
    return f"results/report/captions/{name}.rst"


def register(
    exp,
    title,
    outputs,
    *,
    summary,
    notebook,
    notebook_params,
    items=(),
    captions=None,
):
    """Enter an experiment in the registry and declare its summary and review-notebook rules;
    returns its report category ("E1 <title>").

    Of the rules ``<exp>_summary`` and ``<exp>_notebook``, which report.smk defines alike for every
    experiment, only these differ: ``summary``, the summary's inputs besides the claims registry;
    ``notebook``, the notebook's inputs besides the summary; ``notebook_params``, what the notebook
    reads from its params. Adds the experiment's summary rows, review checks and rendered review
    notebook to its outputs and finds its notebook.

    ``items`` (paper_items) are the documents' figures and tables the outputs reproduce, in the
    document's order: the scorecard lists them with the verdicts of the claims that speak of them, and
    their outputs take their report labels from here (item_label). ``captions`` maps a caption
    fragment's name to the rows its result sentence states: document items (``"ISDP Fig 2"``) or claim
    ids (``"SDP-E3-audit-*"``, glob patterns); report.smk writes each to caption_result(name).
    """
    notebooks = sorted((REPO / "notebooks").glob(f"{exp}_*.py.ipynb"))
    if len(notebooks) != 1:
        raise ValueError(
            f"{exp}: expected one review notebook notebooks/{exp}_*.py.ipynb, found {len(notebooks)}"
        )
    items = [dict(i) for i in items]
    for item in items:
        if item["output"] not in outputs:
            raise ValueError(
                f"{exp}: item {item['item']} names {item['output']}, not an output"
            )
        if ITEM_LABELS.setdefault(item["output"], item["label"]) != item["label"]:
            raise ValueError(f"{exp}: {item['output']} has two labels")
    CAPTION_RESULTS.update(captions or {})
    EXPERIMENTS[exp] = {
        "title": f"{exp.upper()} {title}",
        "notebook": notebooks[0].name.removesuffix(".py.ipynb"),
        "outputs": [
            *outputs,
            f"results/tables/summary/{exp}.csv",
            f"results/tables/{exp}_review_checks.csv",
            f"results/notebooks/{exp}_review.html",
        ],
        "items": items,
    }
    EXPERIMENT_RULES[exp] = {
        "summary": {"registry": REGISTRY, **summary},
        "notebook": {**notebook, "summary": f"results/tables/summary/{exp}.csv"},
        "notebook_params": notebook_params,
    }
    return EXPERIMENTS[exp]["title"]


def notebook_source(exp):
    """The review notebook's path as the notebook directive wants it (relative to workflow/rules/)."""
    return f"../../notebooks/{EXPERIMENTS[exp]['notebook']}.py.ipynb"


def executed_notebook(exp):
    """Where the workflow keeps the executed copy (logged by the notebook job)."""
    return f"results/notebooks/{EXPERIMENTS[exp]['notebook']}.ipynb"


def notebook_context(exp):
    """The notebook's saved context, written beside the executed copy (isdp_papers.notebook)
    so the notebook can be reopened standalone against this run."""
    return f"results/notebooks/{EXPERIMENTS[exp]['notebook']}.context.json"


def figure(stem):
    """PDF and PNG paths of one figure."""
    return [f"results/figures/{stem}.pdf", f"results/figures/{stem}.png"]


def all_outputs():
    """Every experiment's registered outputs, then the scorecard and the caption fragments."""
    return [
        *(path for exp in EXPERIMENTS.values() for path in exp["outputs"]),
        *REPORT_OUTPUTS,
    ]


def lattice_category(wildcards):
    """Report category of a job of the shared E1/E2 rules (lattice.smk)."""
    return EXPERIMENTS[wildcards.exp]["title"]


def lattice_norms(exp):
    """The targets (l1, l2) configured for a lattice experiment."""
    return list(config[exp]["targets"])


# Scheduling (docs/performance.md): every job runs on one thread, so that on a small machine two
# jobs share the cores instead of one job holding both through its single-threaded start-up, and
# the long jobs carry priorities so they start first while the short ones fill the gaps.
PRIORITY = {
    "gate": 1000,  # short jobs that long ones wait for: data, audit, E5's problem, per-state copies
    "e5_simulation": 500,
    "e5_acceptance": 400,
    "e6_studies": 300,
    "e2_validation": 200,
    # E1's steps are short, but they form a chain that ends on its claims summary (~40 s): run last, it is the
    # run's serial tail; started early, it fills the gaps between the long jobs
    "e1_chain": 150,
}


def lattice_priority(wildcards):
    """Priority of a shared E1/E2 step (lattice.smk): E1's chain starts early."""
    return PRIORITY["e1_chain"] if wildcards.exp == "e1" else 0
