"""Glue for the Snakemake scripts: logging to the rule's log file and thread settings."""

from __future__ import annotations

import logging
import sys


def start(smk) -> logging.Logger:
    """Send this job's logging (isdp's included) and warnings to ``smk.log[0]``; set numba threads."""
    handler = logging.FileHandler(smk.log[0], mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    sys.stderr = open(smk.log[0], "a")  # noqa: SIM115 — lives as long as the job
    try:
        import numba

        numba.set_num_threads(max(1, min(int(smk.threads), numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, AttributeError, ValueError):
        pass
    return logging.getLogger(f"isdp.workflow.{smk.rule}")
