"""The lattice Λ(A) of E1's and E2's invariants and what it implies.

E1's constraint structure (ISDP §5), the basis spanning the whole integer kernel (Prop 8), lattice point counts in balls
(Lemma 11 / App. B Thm 17, Eq 12), sparser lattices under more invariants (§3.1), neighbours that do or do not keep the
invariants (§1, §2), and the lattice proposals' acceptance against invariant-blind ones (§1, §4).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.measure_helpers import fmt_list
from isdp_papers.problems import read_table_csv


def _experiment_problem(run: Run, exp: str):
    """E1's problem (the config's Venn constraints) or E2's (the margins of the committed table)."""
    if exp == "e1":
        from isdp_papers.e1_intersecting.problem import intersecting_constraints_problem

        return intersecting_constraints_problem(run.config["e1"]["x"], run.config["e1"]["records_per_region"])
    from isdp_papers.problems import contingency_table_problem

    return contingency_table_problem("e2", *read_table_csv(ec.committed(run, run.config["e2"]["table"])))


def constraint_structure(run: Run, paper) -> Measurement:
    """E1's invariants as built.

    Number of constraints and records, and whether every subset of the constraints shares a record (ISDP §5: "the
    intersection of all subsets ... nonempty").
    """
    import itertools

    from isdp_papers.problems import Problem

    path = run.path("e1/problem.json")
    A = ec.load(path, Problem.from_json, "problem file").A
    ec.check_values(A, str(path), "A", "count", hi=1)  # E1's constraints: which records each counts
    A = A.astype(bool)
    m, n = A.shape
    empty = [
        s
        for r in range(2, m + 1)
        for s in itertools.combinations(range(m), r)
        if not np.logical_and.reduce(A[list(s)]).any()
    ]
    value = {"constraints": int(m), "records": int(n), "all_intersections_nonempty": not empty}
    sizes = [
        int(np.logical_and.reduce(A[list(s)]).sum())
        for r in range(1, m + 1)
        for s in itertools.combinations(range(m), r)
    ]
    return Measurement(
        value,
        f"{m} constraints over {n} records; records in each subset's intersection "
        f"(singles, pairs, all): {fmt_list(sizes)}" + (f"; empty: {empty}" if empty else ""),
    )


@ec.reads_committed
def lattice_complete(run: Run, paper) -> Measurement:
    """ISDP Prop 8's "iff".

    The basis of each experiment's lattice spans every integer solution of A u = 0, not a sublattice. For E1 (the Venn
    constraints of the config), E2 (the margins of the committed table) and E3 (a sum over the counties of each state
    with at least 2 counties in the committed county file, on the config's draw basis): the index of the basis's lattice
    in Z^n ∩ ker A (:func:`.theory.kernel_index`; 1 = the whole kernel, 0 = not a basis of a full-dimensional part of
    the kernel). E3's value is the first index ≠ 1 over the states' sizes, else 1.
    """
    from isdp.lattice import IntegerLattice, sum_constraint, with_mixing_basis
    from isdp_papers.lattice_study.theory import kernel_index
    from isdp_papers.nhgis.counties import load_counties

    e1, e2 = _experiment_problem(run, "e1"), _experiment_problem(run, "e2")
    sizes = sorted(
        int(s)
        for s in set(load_counties(ec.committed(run, run.config["data"]["embedded"])).groupby("state_abbr").size())
        if s >= 2
    )
    draw_basis = run.config["e3"]["mcmc"]["draw_basis"]
    e3, checked = 1, 0
    for n in sizes:  # smallest first; the first index ≠ 1 decides
        basis = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(n)), draw_basis).basis
        e3, checked = kernel_index(sum_constraint(n), basis), checked + 1
        if e3 != 1:
            break
    lat1, lat2 = e1.lattice(), e2.lattice()
    value = {"e1_venn": kernel_index(e1.A, lat1.basis), "e2_margins": kernel_index(e2.A, lat2.basis), "e3_sum": e3}
    return Measurement(
        value,
        f"index in Z^n ∩ ker A of the basis's lattice: E1 Venn ({e1.A.shape[1]} records, "
        f"dimension {lat1.dim}) {value['e1_venn']}; E2 margins ({e2.A.shape[1]} cells, dimension "
        f"{lat2.dim}) {value['e2_margins']}; E3 sums of {sizes[0]}–{sizes[-1]} counties "
        f"({len(sizes)} sizes, {draw_basis} basis) {e3}" + ("" if e3 == 1 else f" at {sizes[checked - 1]} counties"),
        n=2 + checked,
    )


def doubling_exponent(run: Run, paper, *, k: int, norms: list[str]) -> Measurement:
    """ISDP Lemma 11 / App. B Eq 12's growth exponent.

    Doubling the radius multiplies the number of lattice points in a ball by 2^r, r = n − rank(A) the lattice's
    dimension. N(ρ) = #{u ∈ Λ(A) : ‖u‖ ≤ ρ} counted exactly (:func:`.theory.ball_counts`) at ρ = k and 2k on three small
    lattices (a total of 3 cells and 2 × 3 margins, r = 2; a total of 4 cells, r = 3), in each of ``norms``; the value
    is the largest |N(2k)/(2^r N(k)) − 1|.
    """
    from isdp.lattice import table_margins
    from isdp_papers.lattice_study.theory import ball_counts

    lattices = {
        "a total of 3 cells": np.ones((1, 3), dtype=np.int64),
        "2 × 3 margins": table_margins(2, 3),
        "a total of 4 cells": np.ones((1, 4), dtype=np.int64),
    }
    gaps, parts = [], []
    for name, A in lattices.items():
        r = A.shape[1] - int(np.linalg.matrix_rank(A))
        for norm in norms:
            small, big = ball_counts(A, [k, 2 * k], norm)
            gaps.append(abs(big / (2**r * small) - 1))
            parts.append(f"{name} ({norm}, r = {r}): N = {small}, {big}, ratio {big / small:.3f} against {2**r}")
    return Measurement(
        max(gaps), f"largest |N(2k)/(2^r N(k)) − 1| = {max(gaps):.3f} at k = {k} ({'; '.join(parts)})", n=len(gaps)
    )


def lattice_point_volume(run: Run, paper, *, radii: list[int], covolume: str = "gram") -> Measurement:
    """ISDP Lemma 11 / App. B Thm 17, Eq 12.

    The number of lattice points in a ball is approximated by its volume — in the lattice's coordinates w (u = B w), ‖B
    w‖₂ ≤ ρ is an ellipsoid of volume V_r ρ^r / √det(BᵀB), V_r the unit r-ball's volume. N(ρ) counted exactly
    (:func:`.theory.ball_counts`) on the three lattices of :func:`doubling_exponent`; the value is the largest
    |N(ρ)/volume − 1| over them and ``radii``. ``covolume`` "one" takes the lattice as Z^r (no √det): a wrong volume.
    """
    from math import gamma, pi

    from isdp.lattice import IntegerLattice, table_margins
    from isdp_papers.lattice_study.theory import ball_counts

    lattices = {
        "a total of 3 cells": np.ones((1, 3), dtype=np.int64),
        "2 × 3 margins": table_margins(2, 3),
        "a total of 4 cells": np.ones((1, 4), dtype=np.int64),
    }
    gaps, parts = [], []
    for name, A in lattices.items():
        B = IntegerLattice.from_constraints(A).basis.astype(float)
        r = B.shape[1]
        det = float(np.sqrt(np.linalg.det(B.T @ B))) if covolume == "gram" else 1.0
        counts = ball_counts(A, radii, "l2")
        ratios = [c / (pi ** (r / 2) / gamma(r / 2 + 1) * rho**r / det) for c, rho in zip(counts, radii, strict=True)]
        gaps += [abs(q - 1) for q in ratios]
        parts.append(f"{name} (r = {r}, √det(BᵀB) = {det:.4g}): N/volume " + ", ".join(f"{q:.4f}" for q in ratios))
    return Measurement(
        max(gaps),
        f"largest |N(ρ)/volume − 1| = {max(gaps):.4f} at ρ = {fmt_list(radii)} ({'; '.join(parts)})",
        n=len(gaps),
    )


def sparser(run: Run, paper, *, quantity: str, tol: float) -> Measurement:
    """Measure ISDP §3.1: "as we impose more counting invariants, the lattice becomes sparser".

    ISDP §3.1: "as we impose more counting invariants, the lattice becomes sparser, making it harder to find a feasible
    solution". E1's constraints (config) imposed one at a time, A_k its first k rows (k = 0…3): per k the lattice's
    dimension n − rank(A_k) (``quantity`` "dimension") or the exact probability that i.i.d. DG noise at E1's ε keeps A_k
    u = 0 (``quantity`` "probability"; :func:`.theory.iid_invariant_probability` with error at most ``tol``, rounded to
    5 significant digits so that a constraint that changes nothing reads as equal).
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.e1_intersecting.problem import intersecting_constraints_problem
    from isdp_papers.lattice_study.theory import iid_invariant_probability

    A = intersecting_constraints_problem(run.config["e1"]["x"], run.config["e1"]["records_per_region"]).A
    eps = float(run.config["e1"]["eps"])
    support = np.arange(-int(np.ceil(45 / eps)), int(np.ceil(45 / eps)) + 1)  # DG mass beyond it below e^-45
    steps = range(A.shape[0] + 1)
    dims = {f"k{k}": A.shape[1] - (int(np.linalg.matrix_rank(A[:k])) if k else 0) for k in steps}
    text = (
        f"E1's {A.shape[1]} records, constraints imposed one at a time (k = 0…{A.shape[0]}): lattice dimension "
        + ", ".join(f"{d}" for d in dims.values())
    )
    if quantity == "dimension":
        return Measurement(dims, text, n=len(steps))
    exact = [iid_invariant_probability(A[:k], DoubleGeometric(eps).pmf(support), tol) for k in steps]
    probs = {f"k{k}": float(f"{p:.5g}") for k, (p, _, _) in zip(steps, exact, strict=True)}
    return Measurement(
        probs,
        text
        + f"; P(i.i.d. DG at ε = {eps:g} keeps them) "
        + ", ".join(f"{p:.5g}" for p in probs.values())
        + f" (exact, error ≤ {max(b for _, b, _ in exact):.0e})",
        n=len(steps),
    )


@ec.reads_committed
def neighbour_invariant_kinds(run: Run, paper) -> Measurement:
    """ISDP §1 / §2.

    Neighbouring datasets (one person's record changed) "may or may not meet the same invariants". For each of the
    paper's invariant systems — E1's three intersecting constraints over 14 records, E2's table margins, E3's state
    totals over the committed county file — every one-person move from a populated cell a to another cell b keeps the
    invariants exactly when A's columns a and b are equal. The value is the number of systems with moves of both kinds;
    the text gives each system's counts.
    """
    from isdp_papers.nhgis.counties import load_counties

    counties = load_counties(ec.committed(run, run.config["data"]["embedded"]))
    state = pd.factorize(counties["state_abbr"])[0]
    systems = {exp: (problem.A, problem.x) for exp in ("e1", "e2") for problem in [_experiment_problem(run, exp)]}
    systems["e3"] = (state[None, :] == np.arange(state.max() + 1)[:, None], counties["sf1_pop"].to_numpy())
    both, parts = 0, []
    for exp, (A, x) in systems.items():
        _, group = np.unique(np.asarray(A).T, axis=0, return_inverse=True)  # cells with equal columns
        group, populated = group.ravel(), np.asarray(x) > 0
        size = np.bincount(group)
        keep = int((size[group[populated]] - 1).sum())  # moves to another cell of the same column
        moves = int(populated.sum() * (len(group) - 1))
        both += keep > 0 and moves - keep > 0
        parts.append(f"{exp}: {keep:,} of {moves:,} one-person moves keep the invariants")
    return Measurement(
        both,
        f"{both} of {len(systems)} invariant systems have neighbours of both kinds (" + "; ".join(parts) + ")",
        n=len(systems),
    )


@ec.reads_committed
def lattice_proposal_efficiency(
    run: Run, paper, *, exp: str, invariants: int, blind_eps: float | None = None
) -> Measurement:
    """ISDP §1/§4: proposals that satisfy the invariants keep a reasonable acceptance rate.

    Per target of ``exp`` (E1's or E2's), the run's acceptance rate of the lattice proposals (the chains' per-component
    rate, in the ESS table) against the best any invariant-blind proposal at the same scale can do: i.i.d. DG noise at
    the target's proposal ε on every cell (``blind_eps`` replaces it) is accepted only if it lands on the lattice, P(A z
    = 0) (:func:`.theory.iid_invariant_probability`, exact) for the first ``invariants`` rows of A only: a larger
    probability than for all of them, so a bound in the blind proposal's favour (and a 2-D rather than a 3-D grid). The
    value is the smallest ratio.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.lattice_study.theory import iid_invariant_probability

    A = _experiment_problem(run, exp).A
    ratios, parts = [], []
    for norm, target in run.config[exp]["targets"].items():
        eps = float(target["proposal_eps"] if blind_eps is None else blind_eps)
        support = np.arange(-int(np.ceil(45 / eps)), int(np.ceil(45 / eps)) + 1)  # DG mass beyond it below e^-45
        landing = iid_invariant_probability(A[:invariants], DoubleGeometric(eps).pmf(support), 1e-12)[0]
        ess = ec.table(run, f"{exp}_ess_{norm}", probability=["acceptance"])
        if ess["acceptance"].nunique() != 1:  # the chains' rate, repeated on every cell's row
            raise ec.EvidenceError(f"{run.path(f'tables/{exp}_ess_{norm}.csv')}: the acceptance differs between rows")
        accepted = float(ess["acceptance"].iloc[0])
        ratios.append(accepted / landing)
        parts.append(
            f"{norm}: lattice proposals accepted {accepted:.3f}, blind DG(ε = {eps:g}) meets the first "
            f"{invariants} invariants with probability {landing:.3g}: "
            f"ratio {accepted / landing:,.0f}"
        )
    return Measurement(min(ratios), f"{exp.upper()}: " + "; ".join(parts))
