"""Tables in and out of a release.

Wide and long CSV, Parquet files and datasets, their cell keys, and the invariant families and constraint files that say
which totals are held exactly (docs/release.md).

Examples
--------
>>> from isdp.tables import is_dataset
>>> is_dataset("released/"), is_dataset("released.parquet")  # a trailing / names a Parquet dataset
(True, False)
"""

from ._constraints import constraint_matrix
from ._long_tables import LongTable
from ._parquet_tables import (
    DATASET_FILE,
    DATASET_FILE_PATTERN,
    is_dataset,
    is_parquet,
    table_files,
    table_rows,
    write_parquet,
)
from ._partitions import PartitionLayout, partition_layout, read_part
from ._tables import Table, TableSet, load_table
from ._wide_tables import read_table_csv

__all__ = [
    "DATASET_FILE",
    "DATASET_FILE_PATTERN",
    "is_dataset",
    "is_parquet",
    "PartitionLayout",
    "partition_layout",
    "read_part",
    "table_files",
    "table_rows",
    "write_parquet",
    "constraint_matrix",
    "load_table",
    "LongTable",
    "read_table_csv",
    "Table",
    "TableSet",
]
