"""The one script every rule runs: the step its params name (``params.step``), see :mod:`isdp_papers.jobs`.
Rules only wire files to steps; the logic lives in ``src/isdp``. The step runs in a process forked from the
workflow's step server when one takes it, else in this one (:mod:`isdp_papers.step_server`)."""

from isdp_papers.step_server import run

run(snakemake)  # noqa: F821 (injected by Snakemake)
