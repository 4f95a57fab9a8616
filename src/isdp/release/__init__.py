"""Release mode (`isdp release`): tables in, their invariants, the guarantee per person, the plan and the
run, the exact audit, the statement and the three files, all or none (docs/release.md).
"""

from ._constraints import (
    COEFFICIENT_LIMIT,
    FAMILIES,
    constraint_matrix,
    read_constraint_file,
)
from ._files import AUDIT_NOTE, write_release
from ._privacy import (
    LARGEST_GROUP,
    PERSON_L1,
    PERSON_L2,
    PERSON_SHIFT,
    TWO_PERSON_SHIFT,
    Guarantee,
    Neighbours,
    SmallestChange,
    gaussian_rho,
    gaussian_sigma,
    two_person_shift,
    unit_epsilon,
)
from ._privacy_audit import (
    Law,
    chain_noise,
    chain_noise_path,
    exact_route_noise,
    hockey_stick,
    max_privacy_loss,
    product,
    pushforward,
    total_variation,
    truncation_slack,
)
from ._release import MAX_PAIRS, MECHANISMS, NORMS, Plan, Progress, Release, Request, dry_run, make_release
from ._statement import privacy_statement, route_record
from ._tables import (
    LongTable,
    Table,
    TableSet,
    WideTable,
    load_table,
    read_long_table,
    read_table_csv,
    read_table_keys,
    read_wide_table,
)

__all__ = [
    "AUDIT_NOTE",
    "chain_noise",
    "chain_noise_path",
    "COEFFICIENT_LIMIT",
    "constraint_matrix",
    "dry_run",
    "exact_route_noise",
    "FAMILIES",
    "gaussian_rho",
    "gaussian_sigma",
    "Guarantee",
    "hockey_stick",
    "LARGEST_GROUP",
    "Law",
    "load_table",
    "LongTable",
    "make_release",
    "MAX_PAIRS",
    "max_privacy_loss",
    "MECHANISMS",
    "Neighbours",
    "NORMS",
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


def __getattr__(name: str):
    from .._deprecated import moved_attribute  # a name this module held before 0.3

    return moved_attribute(__name__, name)
