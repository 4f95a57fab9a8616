"""The generalized Gaussian mechanism, measured exactly on its release route.

Unbiased and sub-Gaussian (ISDP Thm 15 (9), (10) / Prop 18), not pure DP (§4), and its smooth-DP δ growing with the
distance (§2 footnote).
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run


def gaussian_unbiased(run: Run, paper, *, sigma: float, radius: int) -> Measurement:
    """ISDP Thm 15 (9): the generalized Gaussian noise is unbiased.

    The release's exact Gaussian route, its law from its construction (:func:`isdp.privacy.exact_route_noise`) on two
    small lattices with invariants (a total of 3 cells; 2 × 3 margins), each cell's mean; the value is the largest |E
    u_i| in units of σ.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.lattice import table_margins
    from isdp.privacy import exact_route_noise

    sig = Fraction(str(sigma))
    worst, parts = 0.0, []
    for name, A in (("a total of 3 cells", np.ones((1, 3), dtype=np.int64)), ("2 × 3 margins", table_margins(2, 3))):
        law = exact_route_noise(IntegerL1Sampler.build(A), 1 / sig, radius, sigma=sig)
        bias = float(np.abs(law.probs @ law.points).max()) / sigma
        worst = max(worst, bias)
        parts.append(
            f"{name}: largest |E u_i| / σ {bias:.1e} (cell SD {np.sqrt(law.probs @ law.points**2).max():.2f}, "
            f"mass outside the box ≤ {law.outside:.0e})"
        )
    return Measurement(worst, f"largest |E u_i| / σ = {worst:.1e} at σ = {sigma:g} ({'; '.join(parts)})", n=2)


def gaussian_subgaussian(
    run: Run, paper, *, sigma: float, radius: int, max_lambda_sigma: float, steps: int
) -> Measurement:
    """ISDP Thm 15 (10) / Prop 18 in a constant-free form.

    The generalized Gaussian noise is sub-Gaussian with variance proxy σ², E exp⟨λ, u⟩ ≤ exp(σ²‖λ‖²/2) for every λ. For
    the centred lattice Gaussian this holds exactly: completing the square, E e^⟨λ,u⟩ = e^{σ²‖λ‖²/2} ρ(Λ − σ²λ)/ρ(Λ),
    and ρ(Λ − c) ≤ ρ(Λ) by Poisson summation. The release's exact Gaussian route (ℓ1 proposals at ε = 1/σ, then the
    Gaussian step: a law ∝ exp(−‖u‖²/2σ²) on Λ(A), centred at 0), its law from its construction on two lattices (a total
    of 3 cells; 2 × 3 margins), λ on a grid of ker A with ‖λ‖ ≤ ``max_lambda_sigma``/σ. The value is the largest ln E
    e^⟨λ,u⟩ − σ²‖λ‖²/2; the box can raise it by at most its left-out mass (reported).
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.lattice import table_margins
    from isdp.privacy import exact_route_noise
    from isdp_papers.lattice_study.theory import kernel_grid, subgaussian_excess

    sig = Fraction(str(sigma))
    worst, count, parts = -np.inf, 0, []
    for name, A in (("a total of 3 cells", np.ones((1, 3), dtype=np.int64)), ("2 × 3 margins", table_margins(2, 3))):
        law = exact_route_noise(IntegerL1Sampler.build(A), 1 / sig, radius, sigma=sig)
        lambdas = kernel_grid(A, max_lambda_sigma / sigma, steps)
        excess = subgaussian_excess(law, lambdas, sigma)
        worst, count = max(worst, float(excess.max())), count + len(lambdas)
        far = np.linalg.norm(lambdas, axis=1) >= max_lambda_sigma / sigma * (1 - 1e-9)
        parts.append(
            f"{name}: largest {excess.max():.1e}, at ‖λ‖σ = {max_lambda_sigma:g} from {excess[far].min():.1e} "
            f"to {excess[far].max():.1e} ({len(lambdas)} λ; mass outside the box ≤ {law.outside:.0e})"
        )
    return Measurement(
        worst,
        f"largest ln E e^⟨λ,u⟩ − σ²‖λ‖²/2 = {worst:.1e} at σ = {sigma:g} ({'; '.join(parts)})",
        note="exact enumeration; the bound is attained up to rounding (ρ(Λ − c)/ρ(Λ) differs from 1 "
        "by about e^(−2π²σ²λ₁(Λ*)²), far below double precision at this σ)",
        n=count,
    )


def gaussian_not_pure(run: Run, paper, *, sigma: float, radii: list[int]) -> Measurement:
    """ISDP §4 ("a discrete Gaussian mechanism only provides (ε,δ)-DP").

    The generalized Gaussian is not pure DP — its privacy loss ln P(M(x) = y)/P(M(x') = y) = (‖y − x'‖² − ‖y − x‖²)/2σ²
    is linear in y, so its largest value over the outputs grows without bound with the output box. The release's exact
    Gaussian route on a total of 3 cells, one person moving, its law enumerated on the box |u_free|_∞ ≤ R (both laws
    normalised on the same box, so each ratio is exact); the value per R is the largest loss over the box, rounded to
    1e-9 (the precision of the enumeration) so that a loss that stops growing reads as equal.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import exact_route_noise

    sig = Fraction(str(sigma))
    sampler, x, v = IntegerL1Sampler.build(np.ones((1, 3), dtype=np.int64)), np.array([1, 0, 2]), np.array([-1, 1, 0])
    losses = {}
    for radius in radii:
        law = exact_route_noise(sampler, 1 / sig, radius, sigma=sig)
        losses[f"R{radius}"] = round(law.shifted(x).max_privacy_loss(law.shifted(x + v), floor=np.finfo(float).tiny), 9)
    return Measurement(
        losses,
        "largest privacy loss over the output box |u_free|_∞ ≤ R, one person moving, σ = "
        f"{sigma:g}: " + ", ".join(f"R = {r}: {losses[f'R{r}']:.3f}" for r in radii),
        n=len(radii),
    )


def smooth_delta_grows(run: Run, paper, *, sigma: float, eps: float, distances: list[int], radius: int) -> Measurement:
    """ISDP §2 footnote: for approximate smooth DP the error term of the Gaussian mechanism grows with the distance.

    The discrete Gaussian on Z (the release's Gaussian route with no invariant), x and x' = x + d: the smallest δ with
    P(M(x) ∈ S) ≤ e^{εd} P(M(x') ∈ S) + δ for all S, the hockey-stick divergence at εd, on the box (its truncation
    slack, reported, taken off), rounded to 1e-9 (so a δ that stays at 0 reads as equal).
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import exact_route_noise

    sig = Fraction(str(sigma))
    law = exact_route_noise(IntegerL1Sampler.build(np.zeros((0, 1), dtype=np.int64)), 1 / sig, radius, sigma=sig)
    deltas, slack = {}, 0.0
    for d in distances:
        p, q = law, law.shifted([d])
        slack = max(slack, p.truncation_slack(q, eps * d))
        deltas[f"d{d}"] = round(p.hockey_stick_bound(q, eps * d) - p.truncation_slack(q, eps * d), 9)
    return Measurement(
        deltas,
        f"δ(d) at ε d, ε = {eps:g}, σ = {sigma:g}: "
        + ", ".join(f"d = {d}: {deltas[f'd{d}']:.4f}" for d in distances)
        + f" (truncation slack ≤ {slack:.0e})",
        n=len(distances),
    )
