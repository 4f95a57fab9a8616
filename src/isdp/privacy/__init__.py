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

from ._audit import chain_noise, chain_noise_path, dg_box_tail, exact_route_noise
from ._guarantee import PERSON_L1, PERSON_L2, PERSON_SHIFT, Guarantee, gaussian_rho, gaussian_sigma, unit_epsilon
from ._laws import (
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
from ._neighbours import LARGEST_GROUP, TWO_PERSON_SHIFT, Neighbours, SmallestChange, two_person_shift
from ._uncertainty import cell_uncertainty, noise_interval

__all__ = [
    "aligned",
    "cell_uncertainty",
    "chain_noise",
    "chain_noise_path",
    "dg_box_tail",
    "exact_route_noise",
    "gaussian_rho",
    "gaussian_sigma",
    "Guarantee",
    "hockey_stick",
    "hockey_stick_divergence",
    "LARGEST_GROUP",
    "Law",
    "max_loss",
    "max_privacy_loss",
    "Neighbours",
    "noise_interval",
    "PERSON_L1",
    "PERSON_L2",
    "PERSON_SHIFT",
    "product",
    "pushforward",
    "SmallestChange",
    "total_variation",
    "truncation_slack",
    "TWO_PERSON_SHIFT",
    "two_person_shift",
    "unit_epsilon",
]
