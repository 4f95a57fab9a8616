"""The single chain's kernel, exactly on small lattices.

The lattices are :func:`_small_lattice`'s, which every exact coupling and kernel row enumerates on. The measures check
Eq. 11's jump unbiased and symmetric (ISDP §4), Alg. 1's sweep leaving π invariant, and the simultaneous update of App.
D.1.
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run


def _small_lattice(name: str):
    """Return the small lattices the exact coupling and kernel rows enumerate on, by name.

    A total of ``sum<n>`` cells, 2 × 3 margins, or E1's Venn construction with one record per region (7 records,
    dimension 4).
    """
    from isdp.lattice import IntegerLattice, sum_constraint, table_margins
    from isdp_papers.e1_intersecting.problem import intersecting_constraints_problem

    if name == "venn1":
        return intersecting_constraints_problem([1] * 7, 1).lattice()
    if name == "margins2x3":
        return IntegerLattice.from_constraints(table_margins(2, 3))
    if name.startswith("sum"):
        return IntegerLattice.from_constraints(sum_constraint(int(name[3:])))
    raise ValueError(f"unknown small lattice {name!r} (sum<n>, margins2x3, venn1)")


def jump_symmetric(
    run: Run, paper, *, lattices: list[str], laws: dict[str, dict], eps: float, reach: int
) -> Measurement:
    """ISDP §4 after Eq. 11.

    With z's coordinates unbiased and symmetric about 0, the jump v = V(0, z) is unbiased and symmetric and keeps the
    invariants. Exactly (``coupled_laws.jump_law``) on small lattices, for the double geometric DG(``eps``) cut at
    ±``reach`` (its tail mass left out, below 1e-12 of it) and each further finite law of ``laws``. The value is the
    largest of max_v |q(v) − q(−v)|, ‖Σ v q(v)‖∞ and max |A v| over the lattices and laws.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.lattice_study.coupled_laws import jump_law

    k = np.arange(-reach, reach + 1)
    named = {
        f"DG({eps:g})": dict(zip(k.tolist(), DoubleGeometric(eps).pmf(k).tolist(), strict=True)),
        **{name: {int(v): float(p) for v, p in law.items()} for name, law in laws.items()},
    }
    worst, parts = 0.0, []
    for name in lattices:
        lattice = _small_lattice(name)
        for law_name, pmf in named.items():
            q = jump_law(lattice, pmf)
            v = np.array(list(q))
            mass = np.array(list(q.values()))
            asym = max(abs(m - q.get(tuple(-x), 0.0)) for x, m in zip(v, mass, strict=True))
            mean = float(np.abs(mass @ v).max())
            off = int(np.abs(v @ np.asarray(lattice.A).T).max())  # the invariants moved by a jump
            parts.append(f"{name} {law_name}: asymmetry {asym:.1e}, |mean| {mean:.1e}, largest |A v| {off}")
            worst = max(worst, asym, mean, off)
    return Measurement(worst, "; ".join(parts), n=len(parts))


def kernel_stationary(run: Run, paper, *, cases: list[dict], proposal_eps: float) -> Measurement:
    """ISDP §4, Alg. 1: the Gibbs-within-Metropolis sweep leaves the target π invariant.

    On each small lattice and norm, the sweep's transition matrix on the box |w|_∞ ≤ R
    (:func:`isdp.exact.sweep_transition_matrix`, moves leaving the box dropped) and π, the untruncated target restricted
    to the box (normalised on the box of radius 2R): ‖π P − π‖₁. Each of the k component updates is the true kernel
    restricted to the box, so it loses at most the flux into the box from outside, at most π(outside); the value is the
    largest ‖π P − π‖₁ − k π(outside).
    """
    from isdp.exact import enumerate_target, sweep_transition_matrix
    from isdp.lattice import generalized_laplace

    excess, parts = [], []
    for case in cases:
        lattice, radius = _small_lattice(case["lattice"]), int(case["radius"])
        for norm in ("l1", "l2"):
            target = generalized_laplace(case["eps"], norm)
            P, _, _ = sweep_transition_matrix(lattice, target, proposal_eps, radius)
            _, p_big, w_big = enumerate_target(lattice, target, 2 * radius)
            inside = np.all(np.abs(w_big) <= radius, axis=1)
            pi, outside = p_big[inside], float(p_big[~inside].sum())  # same order: both enumerate the box alike
            gap = float(np.abs(P.T @ pi - pi).sum())
            moved = float(pi @ (1 - P.diagonal()))
            excess.append(gap - lattice.dim * outside)
            parts.append(
                f"{case['lattice']} {norm} (ε {case['eps']:g}, R {radius}): ‖πP − π‖₁ {gap:.1e}, allowance "
                f"{lattice.dim * outside:.1e}, moves per sweep {moved:.2f}"
            )
    return Measurement(
        max(excess),
        f"largest ‖πP − π‖₁ − k π(outside) = {max(excess):.1e} at proposal ε {proposal_eps:g} ({'; '.join(parts)})",
        n=len(excess),
    )


def joint_update_stationary(
    run: Run, paper, *, lattice: str, eps: float, proposal_eps: float, radius: int, tilt: float = 0.0
) -> Measurement:
    """ISDP §4 / App. D.1 ("these updates may also be performed simultaneously").

    The simultaneous update (all pre-jumps at once, one Metropolis test, as :mod:`isdp.mcmc` compiles it) leaves π
    invariant. Its exact transition matrix on a box (:func:`.dp_audits.joint_update_matrix`) for both norms' targets; π
    the untruncated target restricted to the box (normalised on the box of twice the radius). The value is the largest
    ‖πP − π‖₁ − 2π(outside) (the inflow the box misses and the outflow it keeps).
    """
    from isdp.exact import enumerate_target
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.dp_audits import joint_update_matrix

    lat = _small_lattice(lattice)
    excess, parts = [], []
    for norm in ("l1", "l2"):
        target = generalized_laplace(eps, norm)
        P, _ = joint_update_matrix(lat, target, proposal_eps, radius, tilt)
        _, p_big, w_big = enumerate_target(lat, target, 2 * radius)
        inside = np.all(np.abs(w_big) <= radius, axis=1)
        pi, outside = p_big[inside], float(p_big[~inside].sum())  # both enumerate the box in the same order
        gap = float(np.abs(pi @ P - pi).sum())
        excess.append(gap - 2 * outside)
        parts.append(
            f"{norm}: ‖πP − π‖₁ {gap:.1e}, allowance {2 * outside:.1e}, moves per step "
            f"{float(pi @ (1 - P.diagonal())):.2f}"
        )
    return Measurement(
        max(excess),
        f"largest ‖πP − π‖₁ − 2π(outside) = {max(excess):.1e} on {lattice} (ε {eps:g}, "
        f"proposal ε {proposal_eps:g}, R {radius}{f', tilt {tilt:g}' if tilt else ''}; "
        f"{'; '.join(parts)})",
        n=2,
    )
