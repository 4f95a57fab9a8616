# Shared definitions and the experiment registry. Functions and constants only; rules live in
# the per-experiment files.
#
# The experiments are the config's `eN` blocks: each has a rule file workflow/rules/eN.smk that
# calls register() once, and a review notebook notebooks/eN_*.py.ipynb. `rule all`, the
# reproduction summary, the report's categories, the notebook rules and the workflow tests all
# read EXPERIMENTS (written to results/tables/experiments.csv for the tests).
import csv
import json
import os
import re
from pathlib import Path

from isdp.experiments.claims import load_registry
from isdp.experiments.jobs import balanced_batches

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
STEP = "../scripts/step.py"  # every rule's script: runs the isdp step named in its params (isdp.experiments.jobs)
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
EXPERIMENTS = {}  # id -> {"title", "notebook", "outputs"}, filled by register()


def register(exp, title, outputs):
    """Enter an experiment in the registry; returns its report category ("E1 <title>").

    Adds the experiment's summary rows, review checks and rendered review notebook to its outputs
    and finds its notebook.
    """
    notebooks = sorted((REPO / "notebooks").glob(f"{exp}_*.py.ipynb"))
    if len(notebooks) != 1:
        raise ValueError(
            f"{exp}: expected one review notebook notebooks/{exp}_*.py.ipynb, found {len(notebooks)}"
        )
    EXPERIMENTS[exp] = {
        "title": f"{exp.upper()} {title}",
        "notebook": notebooks[0].name.removesuffix(".py.ipynb"),
        "outputs": [
            *outputs,
            f"results/tables/summary/{exp}.csv",
            f"results/tables/{exp}_review_checks.csv",
            f"results/notebooks/{exp}_review.html",
        ],
    }
    return EXPERIMENTS[exp]["title"]


def notebook_source(exp):
    """The review notebook's path as the notebook directive wants it (relative to workflow/rules/)."""
    return f"../../notebooks/{EXPERIMENTS[exp]['notebook']}.py.ipynb"


def executed_notebook(exp):
    """Where the workflow keeps the executed copy (logged by the notebook job)."""
    return f"results/notebooks/{EXPERIMENTS[exp]['notebook']}.ipynb"


def notebook_context(exp):
    """The notebook's saved context, written beside the executed copy (isdp.experiments.notebook)
    so the notebook can be reopened standalone against this run."""
    return f"results/notebooks/{EXPERIMENTS[exp]['notebook']}.context.json"


def figure(stem):
    """PDF and PNG paths of one figure."""
    return [f"results/figures/{stem}.pdf", f"results/figures/{stem}.png"]


def all_outputs():
    return [path for exp in EXPERIMENTS.values() for path in exp["outputs"]]


def lattice_category(wildcards):
    """Report category of a job of the shared E1/E2 rules (lattice.smk)."""
    return EXPERIMENTS[wildcards.exp]["title"]


def lattice_norms(exp):
    """The targets (l1, l2) configured for a lattice experiment."""
    return list(config[exp]["targets"])


# E3: the selected states depend on the data (DAS audit checkpoint in e3.smk).
def e3_states(wildcards=None):
    """The selected states (USPS codes), read from the audit checkpoint's output."""
    with open(checkpoints.e3_audit.get().output.summary) as fh:
        return json.load(fh)["selected_states"]


def e3_per_state(pattern):
    """Input function: ``pattern`` expanded over the selected states."""
    return lambda wildcards: expand(pattern, state=e3_states())


# Scheduling (docs/performance.md): every job runs on one thread, so that on a small machine two
# jobs share the cores instead of one job holding both through its single-threaded start-up, and
# the long jobs carry priorities so they start first while the short ones fill the gaps.
PRIORITY = {
    "gate": 1000,  # short jobs that long ones wait for: data, audit, E5's problem, per-state copies
    "e5_simulation": 500,
    "e5_acceptance": 400,
    "e6_studies": 300,
    "e2_validation": 200,
}
_COUNTIES_PER_STATE = {}


def counties_in(state):
    """Counties of ``state`` in the county table: known once `fetch` has run, as it has whenever the
    audit checkpoint lists states; 0 (no preference) while the table is being rebuilt.
    """
    if not _COUNTIES_PER_STATE:
        if not os.path.exists("results/data/counties.csv"):
            return 0
        with open("results/data/counties.csv", newline="") as fh:
            for row in csv.DictReader(fh):
                key = row["state_abbr"]
                _COUNTIES_PER_STATE[key] = _COUNTIES_PER_STATE.get(key, 0) + 1
    return _COUNTIES_PER_STATE.get(state, 0)


def state_batches():
    """The selected states split into ``e3.state_jobs`` batches (null: one job per state), each named
    by its states joined with "+" (``TX``, ``CA+AL+DC``).

    A state's cost grows faster than its county count (its over-dispersed starts, certificate and
    solves), so the batches balance the squared county counts; a state's seed does not depend on
    its batch.
    """
    states = e3_states()
    weights = {st: counties_in(st) ** 2 for st in states}
    return ["+".join(b) for b in balanced_batches(states, weights, E3["state_jobs"])]


# A batch's name: its states' USPS codes joined with "+".
BATCH = r"[A-Z]{2}(\+[A-Z]{2})*"
# The per-state rules copy a state's files out of its batch directory (a temp() output, removed once
# every state is copied), so every consumer keeps reading per-state files.
COPY_FROM_BATCH = (
    'for f in {output}; do cp "{input.batch}/$(basename "$f")" "$f"; done > {log} 2>&1'
)


def batch_of(state):
    """The batch (see :func:`state_batches`) that computes ``state``."""
    return next(b for b in state_batches() if state in b.split("+"))


def batch_priority(base):
    """Priority of a batch job: the batch holding the largest state (longest certification and
    solves) first."""
    return lambda wildcards: base + max(
        counties_in(st) for st in wildcards.batch.split("+")
    )
