"""County populations for the configured NHGIS vintage under the data policy (`isdp.experiments.nhgis.fetch_or_fallback`).

The download cache ``params.dest_zip`` is deliberately not a rule output: it does not exist after
a fallback, and a zip placed there by hand is used without downloading. Writes the tidy CSV of
the vintage actually used and a JSON saying which one and why (read by the report).
"""
import json
import logging
import sys
from pathlib import Path

from isdp.experiments._workflow import start
from isdp.experiments.nhgis import fetch_or_fallback

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
console = logging.StreamHandler(sys.__stderr__)  # the fallback warning must also reach the console
console.setLevel(logging.WARNING)
logging.getLogger().addHandler(console)
info = fetch_or_fallback(
    str(smk.params.vintage),
    smk.params.source,
    dest_zip=smk.params.dest_zip,
    embedded_csv=smk.input.embedded,
    out_csv=smk.output.csv,
    timeout=float(smk.params.timeout),
    retries=int(smk.params.retries),
    backoff=float(smk.params.backoff),
)
Path(smk.output.info).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
log.info("data source: %s", info)
