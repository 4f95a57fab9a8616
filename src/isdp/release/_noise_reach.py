"""How far a release's noise can reach, forecast from the invariants and ε alone.

A plan whose noise could leave the 64-bit integers a release is held in is refused before anything is drawn
(docs/release.md, "Refusal").
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UncertifiableError
from ..exact._block_sampler import ExactSampler
from ..exact._integer_l1_sampler import IntegerL1Sampler

#: the most a cell's noise may reach: counts and invariants lie within ±2**53, so x + u stays within int64
NOISE_LIMIT = 2**62
#: the largest chance, forecast from the invariants and ε alone, that some cell's noise exceeds
#: :data:`NOISE_LIMIT`; a plan above it is refused, so that randomness never decides whether a release succeeds
OVERFLOW_RISK = 2.0**-64


def refuse_noise_beyond_int64(exact: ExactSampler, req, unit, log_acceptance: float) -> None:
    """Refuse a plan whose noise could leave int64, before anything is drawn.

    A solved cell's noise is Σ_j X_ij z_j over the free cells' DG draws z, so it exceeds the limit only
    if some |z_j| reaches K = ⌊limit / max_i Σ_j |X_ij|⌋ + 1, which a DG(ε) draw does with probability
    2r^K/(1 + r) ≤ 2e^(−εK); the union over the free cells and blocks bounds the proposal's risk, and
    rejection raises it by at most the forecast 1/P(accept). Klein's blocks are not bounded here: their
    noise has the Gaussian's tails at a σ below 10^11, so it stays far inside the limit.
    """
    eps = float(1 / unit if req.norm == "gaussian" else unit)
    shared: dict[int, list] = {}
    for _, sub in exact.parts:
        if isinstance(sub, IntegerL1Sampler):
            shared.setdefault(id(sub), [sub, 0])[1] += 1
    for sub, count in shared.values():
        spread = max(1.0, float(np.abs(sub.solve.astype(float)).sum(axis=1).max(initial=0.0)))
        reach = math.floor(NOISE_LIMIT / spread) + 1
        log_risk = math.log(2 * count * max(1, len(sub.free))) - eps * reach
        if not req.free_cells:
            log_risk -= log_acceptance
        if log_risk > math.log(OVERFLOW_RISK):
            raise UncertifiableError(
                f"at epsilon {req.epsilon} the noise could exceed the 64-bit integers a release is held in: a cell "
                f"solved from the others carries up to {spread:,.0f} times a free cell's noise, whose scale is "
                f"{1 / eps:,.3g}, and 2**62 is within reach (a chance above 2**-64 per release, from the "
                "invariants and epsilon alone): nothing is drawn. Use a larger --epsilon, or invariants with "
                "smaller coefficients"
            )
