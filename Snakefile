# isdp: reproduce the experiments of "Integer Subspace Differential Privacy" (AAAI-23)
# and the papers around it. Entry point: `snakemake --cores all` (paper fidelity), or
# `--configfile config/ci.yaml` for the small CI profile. See README.md.
import os
import sys

from snakemake.utils import min_version, validate

from isdp.experiments._workflow import check_config_values

min_version("9.0")



envvars:
    "PATH",


# Notebook jobs call jupyter-nbconvert: find it beside the running interpreter, even when the
# environment is not activated (e.g. `.venv/bin/snakemake` called by its path).
search_path = os.environ["PATH"]
os.environ.update(PATH=os.path.dirname(sys.executable) + os.pathsep + search_path)


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"))
check_config_values(config)


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/e1.smk"
include: "workflow/rules/e2.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/e3.smk"
include: "workflow/rules/e4.smk"
include: "workflow/rules/e5.smk"
include: "workflow/rules/e6.smk"
include: "workflow/rules/e7.smk"
include: "workflow/rules/e8.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        E1_OUTPUTS,
        E2_OUTPUTS,
        E3_OUTPUTS,
        E4_OUTPUTS,
        E5_OUTPUTS,
        E6_OUTPUTS,
        E7_OUTPUTS,
        E8_OUTPUTS,
        "results/tables/reproduction_summary.csv",
        "results/tables/software_versions.csv",
    default_target: True
