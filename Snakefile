# isdp: reproduce the experiments of "Integer Subspace Differential Privacy" (AAAI-23)
# and the papers around it. Entry point: `snakemake --cores all` (paper fidelity), or
# `--configfile config/ci.yaml` (overrides only) for the small CI profile. See README.md and
# docs/architecture.md.
import os
import sys

from snakemake.utils import min_version, validate

min_version("9.0")


envvars:
    "PATH",


# Jobs import isdp from this checkout's src/ (also inside a per-rule conda environment, which
# holds only the dependencies), and notebook jobs call jupyter-nbconvert: find it beside the
# running interpreter, even when the environment is not activated (`.venv/bin/snakemake`).
src = os.path.join(workflow.basedir, "src")
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
)
# Review notebooks run on the kernel spec in workflow/jupyter: ipykernel's own, with the kernel's
# log at ERROR. At WARNING the kernel prints, for every notebook, that its local channel to
# papermill is not encrypted, and papermill has no setting for the transport or its encryption.
jupyter = os.path.join(workflow.basedir, "workflow", "jupyter")
os.environ.update(
    JUPYTER_PATH=os.pathsep.join(
        p for p in (jupyter, os.environ.get("JUPYTER_PATH")) if p
    )
)
search_path = os.environ["PATH"]
os.environ.update(PATH=os.path.dirname(sys.executable) + os.pathsep + search_path)
sys.path.insert(0, src)

from isdp_papers.config import check_config_values


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(
    config, os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml")
)
check_config_values(config)


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/lattice.smk"


for experiment in EXPERIMENT_IDS:

    include: f"workflow/rules/{experiment}.smk"


include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
        "results/tables/reproduction_summary.csv",
        "results/tables/claim_counts.csv",
        "results/tables/software_versions.csv",
        "results/tables/experiments.csv",


onstart:
    # Jobs run on this machine start in processes forked from a step server that has their libraries loaded
    # (isdp_papers.step_server; docs/performance.md, "Job start-up").
    from isdp_papers.step_server import start

    if start(workflow) is None:
        # ArviZ 0.x (Python 3.11) writes a once-a-day stamp file on import (write, then rename); two jobs importing
        # it first on a new day race on that rename and one fails. Importing it here, before any job starts, writes
        # it once (the step server imports it before it takes a job). ArviZ 1.x (arviz-base, arviz-stats) writes none.
        from importlib.metadata import PackageNotFoundError, version

        try:
            if version("arviz").startswith("0."):
                import arviz
        except PackageNotFoundError:
            pass
