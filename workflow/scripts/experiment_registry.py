"""The workflow's experiment registry as a table: experiment, report category, notebook, outputs."""

import pandas as pd

from isdp.experiments._workflow import start

smk = snakemake  # noqa: F821 (injected by Snakemake)
start(smk)
rows = [{"experiment": exp, "title": entry["title"], "notebook": entry["notebook"], "outputs": ";".join(entry["outputs"])}
        for exp, entry in smk.params.experiments.items()]
pd.DataFrame(rows).to_csv(smk.output.table, index=False)
