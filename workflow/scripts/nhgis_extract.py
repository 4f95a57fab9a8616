"""Snakemake glue: tidy, validated county CSV from an NHGIS county zip.

input:  zip     an ``nhgis_ppdd_<V>_county.zip``
output: csv     tidy county CSV (``isdp.nhgis.extract``)
params: optional vintage (else inferred from the file name)
log:    one file
"""

import logging

from isdp.nhgis import extract


def main(smk) -> None:
    logging.basicConfig(
        filename=smk.log[0], level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        vintage = smk.params.get("vintage")
        extract(smk.input.zip, smk.output.csv, vintage=None if vintage is None else str(vintage))
    except Exception:
        logging.getLogger("isdp.nhgis").exception("nhgis_extract failed")
        raise


main(snakemake)  # noqa: F821 -- injected by Snakemake's script directive
