"""E5: the confidential 2x23 sex-by-age table (FODS-20 Table 1 top) and its invariants (1)-(3)."""
import numpy as np

from isdp.experiments.jobs import start
from isdp.experiments.problems import (
    Problem,
    index_set_from_complement,
    read_table_csv,
    sex_by_age_constraints,
)

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
values, rows, cols = read_table_csv(smk.input.table)
A, labels = sex_by_age_constraints(rows, cols, smk.params.voting_age_from)
n = values.size
index_set, complement = index_set_from_complement(smk.params.index_complement, n, key="e5.index_complement")
if len(complement) != A.shape[0]:
    raise ValueError(f"e5.index_complement: {len(complement)} indices for {A.shape[0]} equality constraints")
problem = Problem("e5", A, values.ravel(), tuple(f"{r}|{c}" for r in rows for c in cols), labels,
                  {"rows": rows, "cols": cols, "index_set": index_set, "index_complement": complement,
                   "voting_age_from": smk.params.voting_age_from})
log.info("E5: %d cells, invariants %s = %s; I^c (0-based) %s", n, labels, problem.invariants.tolist(), complement)
assert np.linalg.matrix_rank(A) == A.shape[0]
problem.to_json(smk.output.problem)
