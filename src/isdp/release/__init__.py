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
from ._files import AUDIT_NOTE, check_inputs, check_layouts, check_outputs, write_release
from ._partitioned_release import PART_CELLS, PartitionedRelease, release_partitioned
from ._plan import MECHANISMS, Plan, dry_run
from ._release import Progress, Release, make_release
from ._request import MAX_PAIRS, NORMS, Request
from ._statement import privacy_statement, route_record

__all__ = [
    "AUDIT_NOTE",
    "check_inputs",
    "check_layouts",
    "check_outputs",
    "DaskParts",
    "dry_run",
    "make_release",
    "MAX_PAIRS",
    "MECHANISMS",
    "NORMS",
    "PART_CELLS",
    "PartitionedRelease",
    "Plan",
    "privacy_statement",
    "Progress",
    "Release",
    "release_partitioned",
    "Request",
    "route_record",
    "write_release",
]
