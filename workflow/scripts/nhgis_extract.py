"""Tidy, validated county CSV from an NHGIS county zip (`isdp.experiments.nhgis.extract`); nothing is written if a check fails."""
from isdp.experiments._workflow import start
from isdp.experiments.nhgis import extract

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
extract(smk.input.zip, smk.output.csv, vintage=str(smk.params.vintage))
log.info("extracted %s -> %s", smk.input.zip, smk.output.csv)
