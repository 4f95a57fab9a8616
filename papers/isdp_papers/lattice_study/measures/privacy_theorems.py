"""The generalized Laplace mechanism's privacy, measured exactly on small lattices.

ISDP Thm 10 (ℓ1 and ℓ2 targets), its reduction to the double geometric / discrete Gaussian with no invariant (§3.2–3.3,
Def 9, Eq. 8), Example 3 (one total: bounded DP), smooth DP (§2 footnote 1), the noise's independence of the data (§1,
§4), and App. E.4's comparisons (projected DG is still private; no unbiased non-negative mechanism).
"""

from __future__ import annotations

import itertools

import numpy as np

from isdp_papers.claims import Measurement, Run


def no_invariant_reduction(run: Run, paper, *, eps: float, sigma: float, radius: int, norm: str = "l1") -> Measurement:
    """ISDP §3.2–3.3.

    With no invariant the generalized Laplace mechanism (``norm``) is the double geometric mechanism and the generalized
    Gaussian the discrete Gaussian. Each mechanism's law on 2 free cells from its definition (Def 9, Eq. 8: ∝
    exp(−ε‖u‖), ∝ exp(−‖u‖₂²/2σ²) on Z², through :mod:`isdp.lattice`) against the product of the closed-form pmfs, on a
    box whose left-out mass is counted, and the real-valued output (§3.2 after Def 9: 'the original Laplace mechanism'):
    the density ∝ exp(−ε‖u‖) on R² against the product of Laplace(1/ε) densities, both on a midpoint grid of step
    1/(20ε) over |u|∞ ≤ 30/ε and normalised there. The value is the largest total variation distance of the three.
    Beside it, the release's exact route (:func:`isdp.privacy.exact_route_noise`) against the same closed forms: the
    sampler that draws these mechanisms.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.lattice import generalized_gaussian, generalized_laplace
    from isdp.privacy import TruncatedLaw, exact_route_noise

    k = np.arange(-radius, radius + 1)
    a = np.exp(-eps)
    dg = (1 - a) / (1 + a) * a ** np.abs(k)
    gauss = np.exp(-(k**2) / (2 * sigma**2))
    gauss /= np.exp(-(np.arange(-40 * int(sigma) - radius, 40 * int(sigma) + radius + 1) ** 2) / (2 * sigma**2)).sum()
    grid = np.array(np.meshgrid(k, k, indexing="ij")).reshape(2, -1).T

    def closed(pmf):
        joint = np.outer(pmf, pmf).ravel()
        return TruncatedLaw(grid, joint / joint.sum(), max(0.0, float(1 - joint.sum())))

    def defined(target, like):  # the definition's law on the box, its left-out mass taken from the closed form
        p = np.exp(target.log_density(grid.astype(float)))
        return TruncatedLaw(grid, p / p.sum(), like.outside)

    closed_l, closed_g = closed(dg), closed(gauss)
    tv_l = defined(generalized_laplace(eps, norm), closed_l).total_variation(closed_l)
    t = (np.arange(1200) + 0.5) / (20 * eps) - 30 / eps  # midpoints over |u| ≤ 30/ε
    plane = np.array(np.meshgrid(t, t, indexing="ij")).reshape(2, -1).T
    density = np.exp(generalized_laplace(eps, norm).log_density(plane))
    laplace = np.exp(-eps * np.abs(plane).sum(axis=1))  # Laplace(1/ε) in each coordinate, up to its constant
    tv_r = 0.5 * float(np.abs(density / density.sum() - laplace / laplace.sum()).sum())
    tv_g = defined(generalized_gaussian(sigma), closed_g).total_variation(closed_g)
    sampler = IntegerL1Sampler.build(np.zeros((0, 2), dtype=np.int64))
    route_l = exact_route_noise(sampler, Fraction(str(eps)), radius).total_variation(closed_l)
    route_g = exact_route_noise(sampler, 1 / Fraction(str(sigma)), radius, sigma=Fraction(str(sigma))).total_variation(
        closed_g
    )
    text = (
        f"the definitions' laws ({norm} generalized Laplace at ε = {eps:g}, generalized Gaussian at σ = "
        f"{sigma:g}; box |u|∞ ≤ {radius}): TV to the double geometric {tv_l:.1e}, to the discrete Gaussian "
        f"{tv_g:.1e}; the two closed forms are {closed_l.total_variation(closed_g):.2f} apart; with real "
        f"output, TV of the {norm} density to the product of Laplace densities {tv_r:.1e}"
    )
    return Measurement(
        max(tv_l, tv_g, tv_r),
        text,
        note=f"the release's exact route against the same closed forms: TV {route_l:.1e} (Laplace), "
        f"{route_g:.1e} (Gaussian)",
    )


def _neighbour_cases() -> dict:
    """Return the two small lattices of the Thm 10 audits.

    Name → (A, x, x' − x) for neighbouring tables with the same invariants (a total of 3 cells with one person moving; 2
    × 3 margins with two persons swapping).
    """
    from isdp.lattice import table_margins

    return {
        "a total of 3 cells, one person moves": (np.ones((1, 3), dtype=np.int64), [1, 0, 2], [-1, 1, 0]),
        "2 x 3 margins, two persons swap": (table_margins(2, 3), [2, 1, 3, 1, 2, 0], [1, -1, 0, -1, 1, 0]),
    }


def privacy_theorem(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP Thm 10 measured exactly.

    The largest privacy loss of the exact ℓ1 sampler's output law over ε‖x − x'‖₁, for neighbouring tables on two small
    lattices (a total of 3 cells, one person moving; 2 × 3 margins, two persons swapping), at the experiment's ε
    (:mod:`isdp.release`).
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import exact_route_noise

    eps = Fraction(str(run.config[exp]["eps"]))
    cases = _neighbour_cases()
    radius = int(np.ceil(30 / float(eps)))  # DG tail e^{-ε(radius+1)} below e^{-30} per free cell
    ratios, parts = [], []
    for name, (A, x, v) in cases.items():
        noise = exact_route_noise(IntegerL1Sampler.build(A), eps, radius)
        bound = float(eps) * np.abs(v).sum()
        p, q = noise.shifted(x), noise.shifted(np.add(x, v))
        loss = p.max_privacy_loss(q)
        excess = p.hockey_stick_bound(q, bound) - p.truncation_slack(q, bound)
        ratios.append(loss / bound)
        parts.append(f"{name}: largest loss {loss:.9f} against ε‖v‖₁ = {bound:g}, hockey-stick at it {excess:.1e}")
    return Measurement(
        max(ratios),
        f"largest privacy loss / ε‖x − x'‖₁ = {max(ratios):.9f} at ε = {eps} ({'; '.join(parts)})",
        note="exact enumeration of the sampler's law (no Monte Carlo); the ratio is 1 when the "
        "bound is attained (at y = x), as the proof's triangle inequality allows",
        n=len(cases),
    )


def privacy_theorem_l2(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP Thm 10 for the ℓ2 target, measured exactly.

    The generalized Laplace law ∝ exp(−ε‖u‖₂) on Λ(A) (:func:`isdp.exact.enumerate_target`; the law E1/E2's ℓ2 chains
    target), for neighbouring tables on the two small lattices of :func:`_neighbour_cases`, at the experiment's ε: the
    largest privacy loss over ε‖x − x'‖₂. The box |w|_∞ ≤ R in the lattice's coordinates holds every u with ‖u‖₂ ≤
    R·s_min(B), chosen ≥ 30/ε, so it holds every output whose probability passes
    :meth:`~isdp.privacy.TruncatedLaw.max_privacy_loss`'s floor; both laws are one law shifted, so the ratios are exact.
    """
    from isdp.exact import enumerate_target
    from isdp.lattice import IntegerLattice, generalized_laplace
    from isdp.privacy import TruncatedLaw

    eps = float(run.config[exp]["eps"])
    cases = _neighbour_cases()
    ratios, parts = [], []
    for name, (A, x, v) in cases.items():
        lattice = IntegerLattice.from_constraints(A)
        radius = int(np.ceil(30 / (eps * np.linalg.svd(lattice.basis.astype(float), compute_uv=False).min())))
        points, probs, _ = enumerate_target(lattice, generalized_laplace(eps, "l2"), radius)
        noise = TruncatedLaw(np.asarray(points, dtype=np.int64), probs, 0.0)
        bound = eps * float(np.linalg.norm(v))
        loss = noise.shifted(x).max_privacy_loss(noise.shifted(np.add(x, v)))
        ratios.append(loss / bound)
        parts.append(f"{name}: largest loss {loss:.9f} against ε‖v‖₂ = {bound:.6f} ({len(points)} points)")
    return Measurement(
        max(ratios),
        f"largest privacy loss / ε‖x − x'‖₂ = {max(ratios):.9f} at ε = {eps:g} ({'; '.join(parts)})",
        note="exact enumeration of the ℓ2 target law (no Monte Carlo); the ratio is 1 when the bound "
        "is attained (at y = x)",
        n=len(cases),
    )


def singleton_bounded_dp(
    run: Run, paper, *, cells: int, agents: int, eps: float, radius: int, distance: int = 2
) -> Measurement:
    """ISDP Example 3.

    With one counting constraint on the whole universe (the total), the equivalent pairs at the smallest nonzero ℓ1
    distance (``distance``, 2 for histograms) are exactly the bounded-DP neighbours (one agent's record changed), over
    every histogram of ``agents`` agents on ``cells`` cells; and the generalized Laplace mechanism's exact privacy loss
    on such a pair (the release's exact ℓ1 route at ``eps`` under the total), in the text: bounded DP at 2ε. The value:
    whether the two sets of pairs are the same.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.lattice import sum_constraint
    from isdp.privacy import exact_route_noise

    hists = [np.array(h) for h in itertools.product(range(agents + 1), repeat=cells) if sum(h) == agents]
    equivalent = {
        (tuple(a), tuple(b)) for a in hists for b in hists if np.abs(a - b).sum() == distance
    }  # same total, hence equivalent under the singleton
    bounded = set()
    for a in hists:
        for i in range(cells):
            for j in range(cells):
                if i != j and a[i] > 0:  # one agent moves from cell i to cell j
                    b = a.copy()
                    b[i] -= 1
                    b[j] += 1
                    bounded.add((tuple(a), tuple(b)))
    noise = exact_route_noise(IntegerL1Sampler.build(sum_constraint(cells)), Fraction(str(eps)), radius)
    a, b = hists[0], next(np.array(q) for p, q in sorted(bounded) if p == tuple(hists[0]))
    ratio = noise.shifted(a).max_privacy_loss(noise.shifted(b)) / (eps * np.abs(a - b).sum())
    value = {"same_pairs": equivalent == bounded}
    return Measurement(
        value,
        f"{len(hists)} histograms of {agents} agents on {cells} cells: {len(equivalent)} "
        f"ordered equivalent pairs at ℓ1 distance {distance}, {len(bounded)} bounded-DP "
        f"neighbour pairs ({'the same set' if value['same_pairs'] else 'NOT the same set'}); "
        f"the exact ℓ1 route at ε = {eps:g} loses {ratio:.6f} × ε·‖x − x'‖₁ = "
        f"{ratio * eps * np.abs(a - b).sum():.4f} on a neighbour pair",
    )


def smooth_dp_equivalence(run: Run, paper, *, eps: float, norm: str, span: int, radius: int) -> Measurement:
    r"""Measure ISDP §2 footnote 1, pure case: a mechanism ε-DP on neighbours is ε·d(x, x')-smooth DP.

    The neighbours have d(x, x') = 1.

    Two mechanisms on 3 free cells, their laws on the cube {−R..R}³ from their formulas: double geometric noise (∝
    e^{−ε‖u‖₁}) and the ℓ2 generalized Laplace (∝ e^{−ε‖u‖₂}). For each, ε₁ = its largest privacy loss over the
    neighbours (the unit vectors, at distance 1 in ℓ1 and ℓ2 alike), and the largest loss over ε₁·d(v) for every v in
    {−span..span}³ \ {0}, d the ``norm``; the value is the largest over both mechanisms (1: smooth DP at ε₁ per unit of
    d).
    """
    from isdp_papers.lattice_study.dp_audits import log_ratio_on_grid

    grid = np.array(np.meshgrid(*[np.arange(-radius, radius + 1)] * 3, indexing="ij"))
    mechanisms = {
        "double geometric": -eps * np.abs(grid).sum(axis=0),
        "ℓ2 generalized Laplace": -eps * np.sqrt((grid * grid).sum(axis=0)),
    }
    dist = (lambda v: np.abs(v).sum()) if norm == "l1" else (lambda v: np.sqrt((v * v).sum()))
    shifts = [np.array(v) for v in itertools.product(range(-span, span + 1), repeat=3) if any(v)]
    worst, parts = 0.0, []
    for name, logp in mechanisms.items():
        eps1 = max(log_ratio_on_grid(logp, v) for s in (1, -1) for v in np.eye(3, dtype=np.int64) * s)
        ratios = [log_ratio_on_grid(logp, v) / (eps1 * dist(v)) for v in shifts]
        i = int(np.argmax(ratios))
        worst = max(worst, ratios[i])
        at = tuple(int(c) for c in shifts[i])
        parts.append(f"{name}: ε₁ = {eps1:.6f}, largest loss/(ε₁ d) {ratios[i]:.6f} at v = {at}")
    return Measurement(
        worst,
        f"largest privacy loss / (ε₁ ‖x − x'‖_{norm[1]}) = {worst:.6f} over {len(shifts)} shifts ({'; '.join(parts)})",
        n=2 * len(shifts),
    )


def release_data_independence(run: Run, paper, *, seeds: list[int], nonnegative: bool = False) -> Measurement:
    """ISDP §1, §4: the noise keeps "statistical independence between the confidential data and the privacy errors".

    The project's release (:func:`isdp.release.make_release`, the exact ℓ1 route at E2's ε per person, all margins
    invariant) of E2's committed table x and of x' = x turned by 180° (another table with the same invariant structure),
    with the same seed, for each of ``seeds``: the largest |(y − x) − (y' − x')|. ``nonnegative`` adds the release's
    --nonnegative post-processing (the integer ℓ1 projection onto s ≥ 0).
    """
    import csv
    import tempfile
    from pathlib import Path

    from isdp.release import Request, make_release
    from isdp.tables import constraint_matrix, load_table
    from isdp_papers.evidence_checks import committed

    table = load_table(committed(run, run.config["e2"]["table"]))
    A, labels = constraint_matrix(table, ["all-margins"])
    eps = str(run.config["e2"]["eps"])
    gaps = []
    with tempfile.TemporaryDirectory() as tmp:  # a release reads its table from a file (the audit hashes it)
        path = Path(tmp) / "turned.csv"
        with path.open("w", newline="") as fh:
            csv.writer(fh).writerows(table.with_cells(table.x[::-1]))
        other = load_table(path)
        for seed in seeds:
            req = Request(norm="l1", epsilon=eps, nonnegative=nonnegative, seed=int(seed))
            errors = [make_release(t, A, labels, req).values - t.x for t in (table, other)]
            gaps.append(int(np.abs(errors[0] - errors[1]).max()))
    return Measurement(
        max(gaps),
        f"largest |error(x) − error(x')| = {max(gaps)} over {len(seeds)} seeds ("
        + ", ".join(f"seed {s}: {g}" for s, g in zip(seeds, gaps, strict=True))
        + f"); E2's table and the table turned by 180°, all margins kept, exact ℓ1 route at "
        f"ε = {eps} per person" + (", --nonnegative" if nonnegative else ""),
        n=2 * len(seeds),
    )


def _dg_box_tail(epsilon: float, radius: int, k: int) -> float:
    """P(some of k i.i.d. DG(ε) cells lies beyond |u| ≤ radius): 1 − (1 − p)^k, p = 2e^{−ε(radius+1)}/(1 + e^{−ε})."""
    r = np.exp(-float(epsilon))
    return float(-np.expm1(k * np.log1p(-2 * r ** (radius + 1) / (1 + r))))  # exact for tiny p


def projection_privacy(run: Run, paper, *, eps: float, radius: int, reads_data: bool = False) -> Measurement:
    """ISDP App. E.4 (comparison with projected DG).

    Double geometric noise at ε per cell, then the integer ℓ1 projection onto the public total
    (:class:`isdp.baselines.L1Projector`, the MILP of Fig 10), "still private" as a post-processing. On 3 cells, x = (2,
    1, 0) and x' = (1, 2, 0) (one person moving; ‖x − x'‖₁ = 2): the projection is solved once for every noisy m in the
    union of the two boxes |m − x|_∞, |m − x'|_∞ ≤ R, and the output laws summed from the DG pmf. The value is the
    hockey-stick divergence at ε‖x − x'‖₁ on the boxes less its truncation slack (≤ 0 when private). ``reads_data``
    replaces the projection by one that reads x: the discrepancy put on x's largest cell.
    """
    from isdp.baselines import L1Projector
    from isdp.mcmc import DoubleGeometric
    from isdp.privacy import TruncatedLaw

    x, xp = np.array([2, 1, 0]), np.array([1, 2, 0])
    total = int(x.sum())
    lo, hi = np.minimum(x, xp) - radius, np.maximum(x, xp) + radius
    m = np.array(list(itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi, strict=True)])), dtype=np.int64)
    projector = L1Projector(np.ones((1, 3)), "integer")

    b = np.array([float(total)])
    solved = None if reads_data else np.array([projector(mi.astype(float), b) for mi in m], dtype=np.int64)

    def project(data):
        if solved is not None:  # reads only m and the public total: one solve per noisy table serves both laws
            return solved
        y = m.copy()
        y[:, int(np.argmax(data))] += total - m.sum(axis=1)
        return y

    laws = []
    for data in (x, xp):
        inside = np.all(np.abs(m - data) <= radius, axis=1)
        probs = np.prod(DoubleGeometric(eps).pmf(m[inside] - data), axis=1)
        laws.append(TruncatedLaw(project(data)[inside], probs / probs.sum(), _dg_box_tail(eps, radius, 3)))
    budget = eps * float(np.abs(x - xp).sum())
    slack = laws[0].truncation_slack(laws[1], budget)
    raw = laws[0].hockey_stick_bound(laws[1], budget) - slack
    return Measurement(
        raw - slack,
        f"hockey-stick at ε‖x − x'‖₁ = {budget:g} on the boxes {raw:.2e} (truncation "
        f"slack {slack:.1e}); {len(m)} noisy tables projected" + (" (projection reads x)" if reads_data else ""),
        n=len(m),
    )


def nonnegative_unbiased_lp(
    run: Run, paper, *, total: int, eps: list[float], nonnegative: bool, margin: int
) -> Measurement:
    """ISDP App. E.4 ("when non-negativity is enforced, bias is theoretically unavoidable").

    Whether an unbiased ε-DP mechanism for two counts under their total exists, with non-negative releases or (without
    ``nonnegative``) releases within ``margin`` of the range (:func:`.dp_audits.unbiased_dp_exists`), per ε.
    """
    from isdp_papers.lattice_study.dp_audits import unbiased_dp_exists

    exists = {f"eps {e:g}": unbiased_dp_exists(total, float(e), nonnegative, margin) for e in eps}
    space = f"y in {{0..{total}}}" if nonnegative else f"y in {{−{margin}..{total + margin}}}"
    return Measurement(
        exists,
        f"an unbiased ε-DP mechanism for (x, {total} − x) with {space}: "
        + ", ".join(f"{k}: {'feasible' if v else 'infeasible'}" for k, v in exists.items())
        + " (HiGHS)",
        n=len(exists),
    )
