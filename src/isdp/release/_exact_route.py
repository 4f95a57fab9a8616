"""The exact routes' sampler of a plan, and what it refuses before any count is read.

The exact sampler of Λ(A) is built block by block, each distinct block's acceptance forecast on the way
(:func:`exact_sampler`); a block it cannot serve within the budget is refused with what would work. How far the
noise can reach is forecast from the invariants and ε alone: a plan whose noise could leave the 64-bit integers a
release is held in is refused before anything is drawn (docs/release.md, "Refusal").
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UncertifiableError
from ..exact import ExactSampler, IntegerL1Sampler, lattice_block
from ..mcmc import DoubleGeometric
from ..privacy import check_uncertainty
from ._request import Request

#: the refusal when some block's free cells are not its lattice's coordinates (no exact sampler applies)
NO_EXACT_SAMPLER = (
    "the free cells are not the lattice's coordinates (no set of cells whose values the invariants "
    "give in integers from the others), so the exact sampler does not apply: change the invariants, or "
    "run a study with --allow-chain --delta D --seed N --reproducible-not-for-publication"
)

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


def exact_sampler(A, req: Request, unit, derived: np.ndarray | None = None) -> tuple[ExactSampler | None, float]:
    """Return the exact sampler of Λ(A) for ``req``, each distinct block's acceptance forecast on the way.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        The invariants.
    req : Request
        The request (an ℓ1 or Gaussian norm).
    unit : fractions.Fraction
        From :func:`calibrate`.
    derived : numpy.ndarray of bool, optional
        The cells outside the norm.

    Returns
    -------
    exact : isdp.exact.ExactSampler or None
        None when some block has no integral solve.
    worst : float
        The lowest log acceptance forecast in any block (0 on the free-cell route).

    Raises
    ------
    isdp.errors.UncertifiableError
        A block whose forecast needs more than ``req.max_attempts`` proposals (without ``allow_chain``), or an
        ``req.uncertainty`` the route's laws cannot serve (:func:`isdp.privacy.check_uncertainty`).
    """
    gaussian = req.norm == "gaussian"
    worst = [0.0]

    def vet(sub: IntegerL1Sampler) -> None:
        if req.free_cells:
            return
        worst[0] = min(worst[0], sub.log_acceptance(1 / unit if gaussian else unit, unit if gaussian else None))
        if -worst[0] > math.log(req.max_attempts) and not req.allow_chain:
            raise UncertifiableError(_exact_refusal(req, unit, worst[0], sub))

    exact = ExactSampler.build(A, vet, derived, gaussian=gaussian)
    if exact is not None and req.uncertainty is not None:
        check_uncertainty(exact, req, unit, req.uncertainty)  # refused here, before anything is drawn
    return exact, worst[0]


def _exact_refusal(req: Request, unit, log_acceptance: float, block: IntegerL1Sampler) -> str:
    """Why the exact route cannot serve this request (its hardest block), and what would."""
    need = (
        "more than 10^300"
        if -log_acceptance > 690
        else f"about 10^{-log_acceptance / math.log(10):.0f}"
        if -log_acceptance > math.log(1e6)
        else f"about {math.exp(-log_acceptance):,.0f}"
    )
    options = []
    if -log_acceptance < math.log(1e9):  # within reach of a larger budget
        options.append(
            f"--max-attempts {math.ceil(3 * math.exp(-log_acceptance)):,} (three times the forecast; "
            "more time, the same law)"
        )
    if req.norm == "l1":
        ratio = block.variances(unit).max() / DoubleGeometric(float(unit)).variance()
        options.append(
            f"--free-cells (exact, the same epsilon per person, in linear time; its noise is not spread "
            f"evenly: a solved cell's variance is up to {ratio:,.0f} times a free cell's here)"
        )
        if lattice_block(block.A) is not None:
            options.append(
                "--norm gaussian --delta D (this block's invariants are a total or a table's two margins, "
                "which Klein's exact sampler draws in linear time with even noise; the guarantee becomes "
                "(epsilon, delta) per person)"
            )
    else:
        options += [
            "--norm l1 (its exact sampler accepts far more often than the Gaussian's), or --norm l1 --free-cells"
        ]
    options += [
        "fewer invariants (one margin, or totals over blocks of cells)",
        "a larger --epsilon",
        "a smaller table",
        "a study run with --allow-chain --delta D --seed N --reproducible-not-for-publication (a certified "
        "chain; about 6 x 6 cells with both margins at most)",
    ]
    return (
        f"the exact sampler would need {need} proposals for one draw of a block of {block.A.shape[1]:,} cells "
        f"(estimated from {IntegerL1Sampler.PILOT_PROPOSALS:,} proposals: a function of the invariants and epsilon, "
        f"never of the counts), beyond --max-attempts {req.max_attempts:,}: nothing is released. What would work: "
        + "; ".join(options)
    )
