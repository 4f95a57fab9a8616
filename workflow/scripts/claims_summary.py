"""One experiment's rows of the reproduction summary, evaluated from the claims registry."""
from isdp.experiments import claims
from isdp.experiments._workflow import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
rows = claims.evaluate(str(smk.input.registry), claims.Run(".", smk.config), experiment=smk.params.experiment)
claims.write_summary(rows, smk.output.summary)
log.info("%s: %s\n%s", smk.params.experiment, rows["status"].value_counts().to_dict(),
         rows[["id", "status", "reproduced_value"]].to_string())
