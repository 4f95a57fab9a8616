"""Release mode (`isdp release`): tables in, their invariants, the guarantee per person, the plan and the
run, the exact audit, the statement and the three files, all or none (docs/release.md).

Examples
--------
>>> from isdp.release import Request
>>> Request(norm="l1", epsilon="1").check() is None  # the options are consistent
True
"""

from .._deprecated import moved_attribute as _moved_attribute
from ._box_laws import (
    Law,
    aligned,
    hockey_stick,
    hockey_stick_divergence,
    max_loss,
    max_privacy_loss,
    product,
    pushforward,
    total_variation,
    truncation_slack,
)
from ._constraints import (
    COEFFICIENT_LIMIT,
    FAMILIES,
    constraint_matrix,
    read_constraint_file,
)
from ._dask_parts import DaskParts
from ._files import AUDIT_NOTE, write_release
from ._long_tables import LongTable, read_long_table
from ._neighbours import LARGEST_GROUP, TWO_PERSON_SHIFT, Neighbours, SmallestChange, two_person_shift
from ._partitioned_release import PART_CELLS, PartitionedRelease, release_partitioned
from ._plan import MECHANISMS, Plan, dry_run
from ._privacy import PERSON_L1, PERSON_L2, PERSON_SHIFT, Guarantee, gaussian_rho, gaussian_sigma, unit_epsilon
from ._privacy_audit import chain_noise, chain_noise_path, dg_box_tail, exact_route_noise
from ._release import Progress, Release, make_release
from ._request import MAX_PAIRS, NORMS, Request
from ._statement import privacy_statement, route_record
from ._tables import Table, TableSet, load_table, read_table_keys
from ._uncertainty import cell_uncertainty, noise_interval
from ._wide_tables import WideTable, read_table_csv, read_wide_table

__all__ = [
    "aligned",
    "AUDIT_NOTE",
    "cell_uncertainty",
    "chain_noise",
    "chain_noise_path",
    "COEFFICIENT_LIMIT",
    "constraint_matrix",
    "DaskParts",
    "dg_box_tail",
    "dry_run",
    "exact_route_noise",
    "FAMILIES",
    "gaussian_rho",
    "gaussian_sigma",
    "Guarantee",
    "hockey_stick",
    "hockey_stick_divergence",
    "LARGEST_GROUP",
    "Law",
    "load_table",
    "LongTable",
    "make_release",
    "max_loss",
    "MAX_PAIRS",
    "max_privacy_loss",
    "MECHANISMS",
    "Neighbours",
    "noise_interval",
    "NORMS",
    "PART_CELLS",
    "PartitionedRelease",
    "PERSON_L1",
    "PERSON_L2",
    "PERSON_SHIFT",
    "Plan",
    "privacy_statement",
    "product",
    "Progress",
    "pushforward",
    "read_constraint_file",
    "read_long_table",
    "read_table_csv",
    "read_table_keys",
    "read_wide_table",
    "Release",
    "release_partitioned",
    "Request",
    "route_record",
    "SmallestChange",
    "Table",
    "TableSet",
    "total_variation",
    "truncation_slack",
    "TWO_PERSON_SHIFT",
    "two_person_shift",
    "unit_epsilon",
    "WideTable",
    "write_release",
]


def __getattr__(name: str):  # a name this part held before 0.3 (isdp._deprecated)
    return _moved_attribute(__name__, name)
