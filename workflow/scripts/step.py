"""The one script every rule runs: call the step its params name (``params.step``), see
:mod:`isdp_papers.jobs`. Rules only wire files to steps; the logic lives in ``src/isdp``."""

from isdp_papers.jobs import run_step

run_step(snakemake)  # noqa: F821 (injected by Snakemake)
