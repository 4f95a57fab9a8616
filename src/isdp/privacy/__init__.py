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

from ._audit import chain_noise_path, exact_route_noise
from ._guarantee import Guarantee, gaussian_sigma, unit_epsilon
from ._laws import TruncatedLaw
from ._neighbours import Neighbours
from ._query_laws import query_uncertainty
from ._uncertainty import UNCERTAINTY_COLUMNS, cell_uncertainty, check_uncertainty, noise_interval, uncertainty_record

__all__ = [  # noqa: RUF022 (by topic: who a person is, the guarantee, the error bars, the audit and its laws)
    "Neighbours",
    "Guarantee",
    "unit_epsilon",
    "gaussian_sigma",
    "cell_uncertainty",
    "query_uncertainty",
    "check_uncertainty",
    "noise_interval",
    "uncertainty_record",
    "UNCERTAINTY_COLUMNS",
    "exact_route_noise",
    "chain_noise_path",
    "TruncatedLaw",
]
