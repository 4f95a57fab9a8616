"""The privacy mathematics of a release.

Who a person is and which changes the invariants admit (neighbours), the guarantee each route gives per person, the
exact audit on small lattices, laws of integer vectors and their divergences, and the error bars a reader puts on a
released cell (docs/method.md).

Examples
--------
>>> from fractions import Fraction
>>> from isdp.privacy import unit_epsilon
>>> unit_epsilon(Fraction(1), "l1")
Fraction(1, 2)
"""

from ._audit import chain_noise_path, dg_box_tail, exact_route_noise
from ._guarantee import Guarantee, gaussian_sigma, unit_epsilon
from ._laws import (
    TruncatedLaw,
    hockey_stick_bound,
    hockey_stick_divergence,
    max_privacy_loss,
    total_variation,
    truncation_slack,
)
from ._neighbours import TWO_PERSON_SHIFT, Neighbours, two_person_shift
from ._uncertainty import (
    UNCERTAINTY_COLUMNS,
    cell_uncertainty,
    check_uncertainty,
    join_draws,
    noise_interval,
    uncertainty_columns,
    uncertainty_record,
)

__all__ = [  # noqa: RUF022 (by topic: who a person is, the guarantee, the error bars, the audit and its laws)
    "Neighbours",
    "two_person_shift",
    "TWO_PERSON_SHIFT",
    "Guarantee",
    "unit_epsilon",
    "gaussian_sigma",
    "cell_uncertainty",
    "check_uncertainty",
    "noise_interval",
    "uncertainty_columns",
    "uncertainty_record",
    "join_draws",
    "UNCERTAINTY_COLUMNS",
    "exact_route_noise",
    "chain_noise_path",
    "dg_box_tail",
    "TruncatedLaw",
    "total_variation",
    "max_privacy_loss",
    "hockey_stick_bound",
    "hockey_stick_divergence",
    "truncation_slack",
]
