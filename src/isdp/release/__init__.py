"""Release mode (`isdp release`).

The request, the plan, the run, the checks and the statement, and the three files written all or none, for a whole
table, part by part or on Dask (docs/release.md).

Examples
--------
>>> from isdp.release import Request
>>> Request(norm="l1", epsilon="1").check() is None  # the options are consistent
True
"""

from ._dask_parts import DaskParts
from ._files import check_inputs, check_layouts, check_outputs, write_release
from ._partitioned_release import PartitionedRelease, release_partitioned
from ._plan import Plan, dry_run
from ._release import Release, make_release
from ._request import Request

__all__ = [
    "check_inputs",
    "check_layouts",
    "check_outputs",
    "DaskParts",
    "dry_run",
    "make_release",
    "PartitionedRelease",
    "Plan",
    "Release",
    "release_partitioned",
    "Request",
    "write_release",
]
