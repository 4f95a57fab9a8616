"""Snakemake glue: county populations for the configured NHGIS vintage, under the data policy.

input:  embedded  committed extract (data/nhgis/county_population_v20210608.csv)
output: csv       tidy county CSV of the vintage actually used
        info      JSON from ``isdp.nhgis.fetch_or_fallback`` (vintage_requested, vintage_used,
                  source_used, reason, url, sha256), read by the report
params: vintage, source ("auto" | "nhgis" | "embedded"), dest_zip (download cache, deliberately
        not a rule output: it does not exist after a fallback, and a zip placed there by hand is
        used without downloading), optional timeout, retries, backoff, url, sha256
log:    one file (warnings, e.g. the fallback, also go to stderr)
"""

import json
import logging
from pathlib import Path

from isdp.nhgis import fetch_or_fallback


def main(smk) -> None:
    logging.basicConfig(
        filename=smk.log[0], level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    console = logging.StreamHandler()  # the fallback warning must also reach the console
    console.setLevel(logging.WARNING)
    logging.getLogger().addHandler(console)
    try:
        info = fetch_or_fallback(
            str(smk.params.vintage),
            smk.params.source,
            dest_zip=smk.params.dest_zip,
            embedded_csv=smk.input.embedded,
            out_csv=smk.output.csv,
            timeout=float(smk.params.get("timeout", 60.0)),
            retries=int(smk.params.get("retries", 3)),
            backoff=float(smk.params.get("backoff", 2.0)),
            url=smk.params.get("url"),
            expected_sha256=smk.params.get("sha256"),
        )
        Path(smk.output.info).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    except Exception:
        logging.getLogger("isdp.nhgis").exception("nhgis_fetch failed")
        raise


main(snakemake)  # noqa: F821 -- injected by Snakemake's script directive
