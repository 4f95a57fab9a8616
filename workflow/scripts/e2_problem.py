"""E2: the confidential 4x4 table (Table 2, margins computed from the cells) and its problem."""
from isdp.experiments.jobs import start
from isdp.experiments.problems import contingency_table_problem, read_table_csv, with_margins

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
values, rows, cols = read_table_csv(smk.input.table)
problem = contingency_table_problem("e2", values, rows, cols)
lattice = problem.lattice()
log.info("E2: %d cells, %d margins, rank %d, lattice dimension %d", problem.A.shape[1], problem.A.shape[0],
         lattice.rank, lattice.dim)
problem.to_json(smk.output.problem)
table = with_margins(values, rows, cols)
table.to_csv(smk.output.csv, lineterminator="\n")
with open(smk.output.md, "w") as fh:
    fh.write("Table 2 (ISDP App. E.3): confidential table, margins computed from the cells\n\n")
    fh.write(table.to_markdown() + "\n")
