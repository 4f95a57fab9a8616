"""Steps across experiments: each experiment's claims summary, the reproduction summary, the
software versions, the experiment registry table and the review notebooks rendered to HTML."""

from __future__ import annotations

import pandas as pd

from isdp.experiments import claims
from isdp.experiments.jobs import Job, write_table, write_text

PACKAGES = ("isdp", "numpy", "scipy", "numba", "llvmlite", "sympy", "pandas", "arviz", "xarray", "matplotlib",
            "seaborn", "snakemake", "qpsolvers", "clarabel")  # HiGHS ships inside SciPy


def software_versions() -> pd.DataFrame:
    """Python, platform and the versions of the packages the results depend on."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    rows = [("python", platform.python_version()), ("platform", f"{platform.system()} {platform.machine()}")]
    for name in PACKAGES:
        try:
            rows.append((name, version(name)))
        except PackageNotFoundError:
            rows.append((name, "not installed"))
    return pd.DataFrame(rows, columns=["software", "version"])


def claims_summary(job: Job) -> None:
    """One experiment's rows of the reproduction summary (``params.experiment``, e.g. ``E3``),
    evaluated from the registry ``input.registry``; committed inputs are read under ``params.repo``."""
    run = claims.Run(".", job.config, repo=job.params.repo)
    rows = claims.evaluate(str(job.input.registry), run, experiment=job.params.experiment)
    job.log.info("%s: %s\n%s", job.params.experiment, rows["status"].value_counts().to_dict(),
                 rows[["id", "status", "reproduced_value", "evidence"]].to_string())
    # an `error` fails the job before anything is written, unless the config asks to report it
    claims.check_errors(rows, job.config.get("claims", {}).get("on_error", "fail"))
    claims.write_summary(rows, job.output.summary)


def reproduction_summary(job: Job) -> None:
    """Every experiment's summary rows in one table, in registry order; the claims of experiments
    not configured (``params.experiments``) listed as ``not-run``."""
    df = claims.combine(job.input.summaries, job.output.table, registry=str(job.input.registry),
                        experiments=job.params.experiments)
    job.log.info("reproduction summary: %s", df["status"].value_counts().to_dict())


def software_table(job: Job) -> None:
    """The software versions behind this run's numbers, for the report."""
    table = software_versions()
    job.log.info("\n%s", table.to_string(index=False))
    write_table(table, job.output.table)


def experiment_registry(job: Job) -> None:
    """The workflow's experiment registry (``params.experiments``) as a table: experiment, report
    category, notebook, outputs (read by the workflow tests)."""
    rows = [{"experiment": exp, "title": entry["title"], "notebook": entry["notebook"],
             "outputs": ";".join(entry["outputs"])} for exp, entry in job.params.experiments.items()]
    write_table(pd.DataFrame(rows), job.output.table)


def notebook_html(job: Job) -> None:
    """An executed review notebook (``params.notebook``) rendered to HTML for the report."""
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.read(job.params.notebook, as_version=4)
    body, _ = HTMLExporter().from_notebook_node(notebook)
    write_text(body, job.output.html)
    job.log.info("%s -> %s (%d bytes)", job.params.notebook, job.output.html, len(body))
