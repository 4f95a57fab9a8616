r"""Tables in and out of a release.

Wide and long CSV, Parquet files and datasets, their cell keys, and the invariant families and constraint files that say
which totals are held exactly (docs/release.md).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from isdp.tables import load_table
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = Path(tmp, "county_sex.csv")
...     _ = path.write_text("county,sex,count\nA,F,3\nA,M,4\nB,F,5\n")
...     table = load_table(path)
>>> table.x.tolist(), table.cell_labels
([3, 4, 5], ['A|F', 'A|M', 'B|F'])
"""

from ._constraints import constraint_matrix
from ._long_tables import LongTable
from ._partitions import PartitionLayout
from ._released_tables import read_released
from ._tables import Table, TableSet, load_table
from ._wide_tables import read_table_csv

__all__ = [
    "constraint_matrix",
    "load_table",
    "LongTable",
    "PartitionLayout",
    "read_released",
    "read_table_csv",
    "Table",
    "TableSet",
]
