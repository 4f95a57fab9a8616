"""The workflow steps of the county data (``workflow/rules/data.smk``).

:func:`fetch_step` (rule ``fetch``, the county file E3, E4 and the claims rows read) and :func:`extract_step` (rule
``extract``, any vintage's zip to its tidy CSV).
"""

from __future__ import annotations

import logging
import sys

from isdp.files import write_json
from isdp_papers.evidence_checks import verify_setting
from isdp_papers.nhgis.counties import extract
from isdp_papers.nhgis.fallback import fetch_or_fallback


def fetch_step(job) -> None:
    """County populations of the configured vintage under the data policy (:func:`fetch_or_fallback`).

    ``params.dest_zip`` (the download cache) is deliberately not a rule output: it does not exist
    after a fallback, and a zip placed there by hand is used without downloading. Writes the tidy
    CSV of the vintage actually used and a JSON saying which one and why (read by the report). The committed
    extract is used only if its SHA-256 is the one its PROVENANCE.md publishes, unless the config sets
    ``data: {verify_committed: false}`` (then the JSON's ``reason`` says it was used unverified).
    """
    console = logging.StreamHandler(sys.__stderr__)  # the fallback warning must also reach the console
    console.setLevel(logging.WARNING)
    logging.getLogger().addHandler(console)
    p = job.params
    info = fetch_or_fallback(
        str(p.vintage),
        p.source,
        dest_zip=p.dest_zip,
        embedded_csv=job.input.embedded,
        out_csv=job.output.csv,
        timeout=float(p.timeout),
        retries=int(p.retries),
        backoff=float(p.backoff),
        verify_committed=verify_setting(job.config),
    )
    write_json(info, job.output.info, sort_keys=True)
    job.log.info("data source: %s", info)


def extract_step(job) -> None:
    """Tidy, validated county CSV from an NHGIS county zip (:func:`extract`); nothing is written if a check fails."""
    extract(job.input.zip, job.output.csv, vintage=str(job.params.vintage))
    job.log.info("extracted %s -> %s", job.input.zip, job.output.csv)
