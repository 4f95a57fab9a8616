"""The software versions behind this run's numbers, for the report."""
from isdp.experiments._workflow import start
from isdp.experiments.summary import software_versions

log = start(snakemake)  # noqa: F821
table = software_versions()
log.info("\n%s", table.to_string(index=False))
table.to_csv(snakemake.output.table, index=False, lineterminator="\n")  # noqa: F821
