"""Concatenate the per-experiment summary rows into results/tables/reproduction_summary.csv."""
from isdp.experiments._workflow import start
from isdp.experiments.claims import combine

log = start(snakemake)  # noqa: F821
df = combine(snakemake.input.summaries, snakemake.output.table)  # noqa: F821
log.info("reproduction summary: %s", df["status"].value_counts().to_dict())
