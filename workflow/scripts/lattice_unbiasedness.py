"""Mean noise per cell and target with its Monte Carlo standard error (the unbiasedness table)."""
import pandas as pd

from isdp import load_draws
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem
from isdp.experiments.lattice_study.studies import unbiasedness_table

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
tables = []
for norm, path, ess_path in zip(smk.params.norms, smk.input.draws, smk.input.ess, strict=True):
    ess = pd.read_csv(ess_path)["ess_bulk"].to_numpy()
    table = unbiasedness_table(load_draws(path), ess, problem.cell_labels)
    table.insert(0, "target", norm)
    tables.append(table)
pd.concat(tables).to_csv(smk.output.unbiasedness, index=False, lineterminator="\n")
