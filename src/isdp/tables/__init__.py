"""Tables in and out of a release.

Wide and long CSV, Parquet files and datasets, their cell keys, and the invariant families and constraint files that say
which totals are held exactly (docs/release.md).

Examples
--------
>>> from isdp.tables import FAMILIES
>>> "total" in FAMILIES
True
"""

from ._constraints import COEFFICIENT_LIMIT, FAMILIES, constraint_matrix, read_constraint_file
from ._long_tables import LongTable, read_long_table
from ._tables import Table, TableSet, load_table, read_table_keys
from ._wide_tables import WideTable, read_table_csv, read_wide_table

__all__ = [
    "COEFFICIENT_LIMIT",
    "constraint_matrix",
    "FAMILIES",
    "load_table",
    "LongTable",
    "read_constraint_file",
    "read_long_table",
    "read_table_csv",
    "read_table_keys",
    "read_wide_table",
    "Table",
    "TableSet",
    "WideTable",
]
