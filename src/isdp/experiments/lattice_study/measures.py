"""Measures of the two lattice experiments, E1 (intersecting constraints) and E2 (4×4 margins).

Both share one set of outputs: ``results/<exp>/...`` and ``results/tables/<exp>_*.csv``; the
``exp`` argument ("e1" or "e2") picks the experiment.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from isdp.draws_io import draws_attrs, load_draws
from isdp.experiments.claims import Measurement, Run
from isdp.experiments.measure_helpers import draws_keep_invariants, fmt_list, max_abs_z
from isdp.experiments.problems import read_table_csv


def tv_bound_crossing_iteration(run: Run, paper, *, exp: str, norm: str) -> Measurement:
    """The iteration at which the L-lag TV bound first drops below the threshold, per lag; the value is
    the latest over the lags."""
    g = run.table(f"{exp}_convergence").query("target == @norm")
    its = g["converged_at"].astype(int)
    return Measurement(int(its.max()), f"{int(its.max())} (lags {fmt_list(g['lag'])}: {fmt_list(its)}; "
                                       f"{int(g['pairs'].iloc[0])} pairs)")


def lag_spread(run: Run, paper, *, exp: str, norm: str) -> Measurement:
    """max/min over lags of the convergence iteration: the bound's stability across lags."""
    g = run.table(f"{exp}_convergence").query("target == @norm")
    its = g["converged_at"].astype(int)
    spread = its.max() / max(its.min(), 1)
    return Measurement(float(spread), f"max/min convergence iteration across lags {fmt_list(g['lag'])} = "
                                      f"{spread:.2f} ({fmt_list(its)})")


def unbiased_z(run: Run, paper, *, exp: str) -> Measurement:
    """z = mean / MC SE (ESS-based) of every cell and target."""
    unb = run.table(f"{exp}_unbiasedness")
    return max_abs_z(unb["z"], "cell-target pairs (SE from the bulk ESS)")


def l1_tail_rate(run: Run, paper, *, exp: str, quantile: float) -> Measurement:
    """ISDP Thm 12 (7): the exponential rate of the ℓ1 draws' norm above its ``quantile``, fitted in the family
    k^{r−1} e^{−λk} (:func:`~isdp.experiments.lattice_study.tails.tail_rate`), over ε: 1 for a sub-exponential
    tail of rate ε. The SE counts the draws at the norm's ESS across chains (ArviZ)."""
    import arviz as az

    from isdp.experiments.lattice_study.tails import tail_rate
    from isdp.experiments.problems import Problem
    from isdp.lattice import as_integer_matrix

    A = as_integer_matrix(Problem.from_json(run.path(f"{exp}/problem.json")).A)
    rank = A.shape[1] - int(np.linalg.matrix_rank(A))
    norms = np.abs(load_draws(run.path(f"{exp}/draws_l1.nc"))).sum(axis=2)  # (chains, draws)
    ess = float(az.ess(norms.astype(float)))
    eps = float(run.config[exp]["eps"])
    fit = tail_rate(norms, rank, int(np.quantile(norms, quantile)), ess_fraction=min(1.0, ess / norms.size))
    return Measurement(fit.rate / eps, f"λ̂/ε = {fit.rate / eps:.3f} ± {fit.se / eps:.3f} (λ̂ = {fit.rate:.4f}, ε = "
                                       f"{eps:g}; rank {rank}, norms ≥ {fit.threshold} in steps of {fit.step}: "
                                       f"{fit.n_tail} of {norms.size} draws, ESS of the norm {ess:.0f})",
                       se=fit.se / eps, n=int(norms.size))


def invariants_exact(run: Run, paper, *, exp: str) -> Measurement:
    """Every stored draw of every target is integer with A u = 0."""
    norms = list(run.config[exp]["targets"])
    return draws_keep_invariants(run, f"{exp}/problem.json", [f"{exp}/draws_{n}.nc" for n in norms])


def design_counts(run: Run, paper, *, exp: str, pairs: bool) -> Measurement:
    """The run's design as its outputs show it: retained draws per target (the draws files) and, with
    ``pairs``, coupled pairs per lag (the convergence table; a list when the lags differ)."""
    value = {}
    for norm in run.config[exp]["targets"]:
        chains, per_chain = load_draws(run.path(f"{exp}/draws_{norm}.nc")).shape[:2]
        value[f"{norm} draws"] = int(chains * per_chain)
        if pairs:
            n = sorted(set(run.table(f"{exp}_convergence").query("target == @norm")["pairs"].astype(int)))
            value[f"{norm} pairs per lag"] = n[0] if len(n) == 1 else n
    return Measurement(value, ", ".join(f"{k} {v}" for k, v in value.items()))


def retained_share(run: Run, paper, *, exp: str) -> Measurement:
    """The share of sampler iterations kept as draws, 1/thin, from the draws files' own record of the thinning."""
    thins = sorted({int(draws_attrs(run.path(f"{exp}/draws_{n}.nc"))["thin"]) for n in run.config[exp]["targets"]})
    if len(thins) != 1:
        raise ValueError(f"{exp}'s targets were thinned differently ({thins}); the row needs one design")
    return Measurement(1.0 / thins[0], f"1 in {thins[0]:,} iterations kept ({100 / thins[0]:g} %)")


def min_ess(run: Run, paper, *, exp: str) -> Measurement:
    """The smallest bulk ESS over cells and targets of the retained draws."""
    ess = pd.concat(run.table(f"{exp}_ess_{n}") for n in run.config[exp]["targets"])
    n = int(run.config[exp]["draws"]["n_draws"])
    return Measurement(float(ess["ess_bulk"].min()),
                       f"min bulk ESS {ess['ess_bulk'].min():.0f} of {n} retained draws per target")


def margins_from_cells(run: Run, paper, *, exp: str) -> Measurement:
    """Row and column totals and the grand total of the confidential table, from its cells."""
    t = run.table(f"{exp}_table2_confidential", index_col=0)
    cells = t.drop(index="Total", columns="Total")
    rows, cols = cells.sum(axis=1).astype(int).tolist(), cells.sum(axis=0).astype(int).tolist()
    total = int(cells.to_numpy().sum())
    return Measurement({"rows": rows, "cols": cols, "total": total},
                       f"rows {'/'.join(map(str, rows))}, cols {'/'.join(map(str, cols))}, total {total}")


def _norm(u, norm: str) -> np.ndarray:
    """‖u‖₁ or ‖u‖₂ of each row of ``u`` (``norm`` "l1" or "l2")."""
    u = np.asarray(u, dtype=float)
    return np.abs(u).sum(axis=-1) if norm == "l1" else np.sqrt((u * u).sum(axis=-1))


def _printed_and_drawn(run: Run, exp: str, norm: str, file: str) -> tuple[np.ndarray, np.ndarray]:
    """A printed noise table (any sign) flattened, and this run's ``norm``-target draws of ``exp``, one per row."""
    d = load_draws(run.path(f"{exp}/draws_{norm}.nc"))
    printed = read_table_csv(run.data(file), counts=False)[0].ravel().astype(float)
    return printed, d.reshape(-1, d.shape[-1]).astype(float)


def printed_draw_quantile(run: Run, paper, *, exp: str, norm: str, file: str) -> Measurement:
    """Quantile of the paper's printed noise draw's norm in this run's law of that norm."""
    printed, flat = _printed_and_drawn(run, exp, norm, file)
    stat, mine = _norm(flat, norm), float(_norm(printed, norm))
    q = float((stat < mine).mean() + 0.5 * (stat == mine).mean())
    lo, hi = np.percentile(stat, [2.5, 97.5])
    return Measurement(q, f"printed draw ‖u‖ = {mine:.4g} at quantile {q:.2f} of this run's law "
                          f"(mean {stat.mean():.1f}, 95 % range [{lo:.0f}, {hi:.0f}], {stat.size} draws)")


def validation_p(run: Run, paper, *, exp: str) -> Measurement:
    """p-values of the chi-square tests of MCMC against exact rejection sampling."""
    val = run.table(f"{exp}_validation")
    text = (f"{val['table'].iloc[0]} table, ε {val['eps'].iloc[0]}: p = "
            + ", ".join(f"{s} {p:.3f}" for s, p in zip(val["statistic"], val["p_value"], strict=True)))
    return Measurement(val["p_value"].to_numpy(), text)


def constraint_structure(run: Run, paper) -> Measurement:
    """E1's invariants as built: number of constraints and records, and whether every subset of
    the constraints shares a record (ISDP §5: "the intersection of all subsets ... nonempty")."""
    import itertools

    from isdp.experiments.problems import Problem

    A = Problem.from_json(run.path("e1/problem.json")).A.astype(bool)
    m, n = A.shape
    empty = [s for r in range(2, m + 1) for s in itertools.combinations(range(m), r)
             if not np.logical_and.reduce(A[list(s)]).any()]
    value = {"constraints": int(m), "records": int(n), "all_intersections_nonempty": not empty}
    sizes = [int(np.logical_and.reduce(A[list(s)]).sum()) for r in range(1, m + 1)
             for s in itertools.combinations(range(m), r)]
    return Measurement(value, f"{m} constraints over {n} records; records in each subset's intersection "
                              f"(singles, pairs, all): {fmt_list(sizes)}"
                              + (f"; empty: {empty}" if empty else ""))


def printed_draw_margins(run: Run, paper, *, file: str) -> Measurement:
    """The paper's printed noise table: integer, with every row and column summing to zero."""
    printed = read_table_csv(run.data(file), counts=False)[0]
    integer = bool(np.all(np.asarray(printed) == np.round(printed)))
    rows, cols = printed.sum(axis=1), printed.sum(axis=0)
    value = {"integer": integer, "zero_row_totals": bool(np.all(rows == 0)),
             "zero_column_totals": bool(np.all(cols == 0))}
    return Measurement(value, f"{printed.shape[0]}×{printed.shape[1]} printed cells, integer: {integer}; row totals "
                              f"{fmt_list(rows)}; column totals {fmt_list(cols)}")


def _stopped_chain(eps: float, proposal_eps: float, radius: int, iterations: list[int]):
    """ISDP §4's stopped chain, exactly: a total of 3 cells, x = (1, 0, 2) and one person moving (v = (−1, 1, 0));
    the chain started at u = 0 and propagated by its transition matrix (:func:`isdp.privacy_audit.chain_noise_path`).
    Returns x, v, the target's budget ε‖v‖₁, the target law π on the box and the chain's law at each iteration."""
    from isdp.bases import with_mixing_basis
    from isdp.exact_laws import enumerate_target
    from isdp.lattice import IntegerLattice
    from isdp.privacy_audit import Law, chain_noise_path
    from isdp.targets import generalized_laplace

    A, x, v = np.ones((1, 3), dtype=np.int64), np.array([1, 0, 2]), np.array([-1, 1, 0])
    lattice = with_mixing_basis(IntegerLattice.from_constraints(A))
    target = generalized_laplace(eps)
    points, probs, _ = enumerate_target(lattice, target, radius)
    pi = Law(np.asarray(points, dtype=np.int64), probs, 0.0)
    laws = chain_noise_path(lattice, target, proposal_eps, iterations, radius)
    return x, v, eps * np.abs(v).sum(), pi, list(zip(iterations, laws, strict=True))


def tv_absorption(run: Run, paper, *, eps: float, proposal_eps: float, radius: int,
                  iterations: list[int]) -> Measurement:
    """ISDP §4, measured exactly: the chain's noise after t iterations, at TV distance η_t from the generalized
    Laplace law, releases x + u with hockey-stick divergence δ_t(ε‖x − x'‖₁) at most η_t (1 + e^{ε‖x − x'‖₁})
    — the TV bound absorbed as an additive δ, on :func:`_stopped_chain`. The value is the largest δ_t over its
    bound; the text gives each t's largest privacy loss and the (ε, δ) per person that E3's certificate implies."""
    from isdp.privacy_audit import hockey_stick, max_privacy_loss, total_variation

    x, v, budget, pi, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    ratios, parts = [], []
    for t, law in laws:
        eta = total_variation(law, pi)
        delta = hockey_stick(law.shifted(x), law.shifted(x + v), budget)
        ratios.append(delta / (eta * (1 + np.exp(budget))))
        loss = max_privacy_loss(law.shifted(x), law.shifted(x + v))
        parts.append(f"t = {t}: η {eta:.2e}, δ {delta:.2e}, largest loss {loss:.3f}")
    e3 = run.config["e3"]
    eta3, eps3 = float(e3["mcmc"]["certificate"]["threshold"]), 2 * float(e3["eps"])  # a person moving county: 2 counts
    return Measurement(max(ratios), f"largest δ_t / (η_t (1 + e^ε‖v‖)) = {max(ratios):.3f} at ε = {eps:g}, ε‖v‖₁ = "
                                    f"{budget:g} ({'; '.join(parts)}). E3's certificate (95 % upper bound η ≤ {eta3:g} "
                                    f"at the burn-in) implies per person ε = {eps3:g}, δ = η (1 + e^ε) ≤ "
                                    f"{eta3 * (1 + np.exp(eps3)):.4f}, at 95 % confidence (a statistical statement)",
                       n=len(ratios))


def iterations_delta_tradeoff(run: Run, paper, *, eps: float, proposal_eps: float, radius: int,
                              iterations: list[int]) -> Measurement:
    """ISDP §4's trade-off between iterations and the extra δ, exactly on :func:`_stopped_chain`: the δ the chain
    stopped after t iterations needs at the target's ε‖x − x'‖₁ (its hockey-stick divergence between neighbours)
    for each t of ``iterations``. The value is the largest ratio δ_{t'}/δ_t of consecutive ones: below 1 when
    every further iteration budget buys a smaller δ."""
    from isdp.privacy_audit import hockey_stick

    x, v, budget, _, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    deltas = [hockey_stick(law.shifted(x), law.shifted(x + v), budget) for _, law in laws]
    ratios = [later / earlier for earlier, later in itertools.pairwise(deltas)]
    return Measurement(max(ratios), "δ needed at ε‖x − x'‖₁ = " + f"{budget:g} after t iterations: "
                       + ", ".join(f"t = {t}: {d:.2e}" for (t, _), d in zip(laws, deltas, strict=True))
                       + f"; consecutive ratios {', '.join(f'{r:.3f}' for r in ratios)}", n=len(ratios))


def stopped_chain_loss(run: Run, paper, *, eps: float, proposal_eps: float, radius: int,
                       iterations: list[int]) -> Measurement:
    """ISDP §4 ("the MCMC sampler may fail to converge … in finite time, thus incur additional cost to privacy"),
    exactly on :func:`_stopped_chain`: the largest privacy loss ln P(x + u_t = y) / P(x' + u_t = y) of the chain
    stopped after t iterations, over the target's ε‖x − x'‖₁. The value is the smallest ratio over ``iterations``:
    above 1 when every stopped chain costs more than the target law it approximates."""
    from isdp.privacy_audit import max_privacy_loss

    x, v, budget, pi, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    ratios = {t: max_privacy_loss(law.shifted(x), law.shifted(x + v)) / budget for t, law in laws}
    exact = max_privacy_loss(pi.shifted(x), pi.shifted(x + v)) / budget
    return Measurement(
        min(ratios.values()),
        "largest loss / (ε‖x − x'‖₁) of the chain stopped at t = "
        + ", ".join(f"{t}: {r:.4f}" for t, r in ratios.items())
        + f" (ε = {eps:g}, proposal ε {proposal_eps:g}, started at u = 0); the target law itself: {exact:.4f}",
        n=len(ratios),
    )


def no_invariant_reduction(run: Run, paper, *, eps: float, sigma: float, radius: int, norm: str = "l1") -> Measurement:
    """ISDP §3.2–3.3: with no invariant the generalized Laplace mechanism (``norm``) is the double geometric
    mechanism and the generalized Gaussian the discrete Gaussian. Each mechanism's law on 2 free cells from its
    definition (Def 9, Eq. 8: ∝ exp(−ε‖u‖), ∝ exp(−‖u‖₂²/2σ²) on Z², through :mod:`isdp.targets`) against the
    product of the closed-form pmfs, on a box whose left-out mass is counted, and the real-valued output (§3.2 after
    Def 9: 'the original Laplace mechanism'): the density ∝ exp(−ε‖u‖) on R² against the product of Laplace(1/ε)
    densities, both on a midpoint grid of step 1/(20ε) over |u|∞ ≤ 30/ε and normalised there. The value is the
    largest total variation distance of the three. Beside it, the release's exact route
    (:func:`isdp.privacy_audit.exact_route_noise`) against the same closed forms: the sampler that draws these
    mechanisms."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import Law, exact_route_noise, total_variation
    from isdp.targets import generalized_gaussian, generalized_laplace

    k = np.arange(-radius, radius + 1)
    a = np.exp(-eps)
    dg = (1 - a) / (1 + a) * a ** np.abs(k)
    gauss = np.exp(-(k**2) / (2 * sigma**2))
    gauss /= np.exp(-(np.arange(-40 * int(sigma) - radius, 40 * int(sigma) + radius + 1) ** 2) / (2 * sigma**2)).sum()
    grid = np.array(np.meshgrid(k, k, indexing="ij")).reshape(2, -1).T

    def closed(pmf):
        joint = np.outer(pmf, pmf).ravel()
        return Law(grid, joint / joint.sum(), max(0.0, float(1 - joint.sum())))

    def defined(target, like):  # the definition's law on the box, its left-out mass taken from the closed form
        p = np.exp(target.log_density(grid.astype(float)))
        return Law(grid, p / p.sum(), like.outside)

    closed_l, closed_g = closed(dg), closed(gauss)
    tv_l = total_variation(defined(generalized_laplace(eps, norm), closed_l), closed_l)
    t = (np.arange(1200) + 0.5) / (20 * eps) - 30 / eps  # midpoints over |u| ≤ 30/ε
    plane = np.array(np.meshgrid(t, t, indexing="ij")).reshape(2, -1).T
    density = np.exp(generalized_laplace(eps, norm).log_density(plane))
    laplace = np.exp(-eps * np.abs(plane).sum(axis=1))  # Laplace(1/ε) in each coordinate, up to its constant
    tv_r = 0.5 * float(np.abs(density / density.sum() - laplace / laplace.sum()).sum())
    tv_g = total_variation(defined(generalized_gaussian(sigma), closed_g), closed_g)
    sampler = ExactL1Sampler.build(np.zeros((0, 2), dtype=np.int64))
    route_l = total_variation(exact_route_noise(sampler, Fraction(str(eps)), radius), closed_l)
    route_g = total_variation(exact_route_noise(sampler, 1 / Fraction(str(sigma)), radius,
                                                sigma=Fraction(str(sigma))), closed_g)
    text = (f"the definitions' laws ({norm} generalized Laplace at ε = {eps:g}, generalized Gaussian at σ = "
            f"{sigma:g}; box |u|∞ ≤ {radius}): TV to the double geometric {tv_l:.1e}, to the discrete Gaussian "
            f"{tv_g:.1e}; the two closed forms are {total_variation(closed_l, closed_g):.2f} apart; with real "
            f"output, TV of the {norm} density to the product of Laplace densities {tv_r:.1e}")
    return Measurement(max(tv_l, tv_g, tv_r), text,
                       note=f"the release's exact route against the same closed forms: TV {route_l:.1e} (Laplace), "
                            f"{route_g:.1e} (Gaussian)")


def gaussian_unbiased(run: Run, paper, *, sigma: float, radius: int) -> Measurement:
    """ISDP Thm 15 (9): the generalized Gaussian noise is unbiased. The release's exact Gaussian route, its law
    from its construction (:func:`isdp.privacy_audit.exact_route_noise`) on two small lattices with invariants (a
    total of 3 cells; 2 × 3 margins), each cell's mean; the value is the largest |E u_i| in units of σ."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.lattice import table_margins
    from isdp.privacy_audit import exact_route_noise

    sig = Fraction(str(sigma))
    worst, parts = 0.0, []
    for name, A in (("a total of 3 cells", np.ones((1, 3), dtype=np.int64)), ("2 × 3 margins", table_margins(2, 3))):
        law = exact_route_noise(ExactL1Sampler.build(A), 1 / sig, radius, sigma=sig)
        bias = float(np.abs(law.probs @ law.points).max()) / sigma
        worst = max(worst, bias)
        parts.append(f"{name}: largest |E u_i| / σ {bias:.1e} (cell SD {np.sqrt(law.probs @ law.points**2).max():.2f}, "
                     f"mass outside the box ≤ {law.outside:.0e})")
    return Measurement(worst, f"largest |E u_i| / σ = {worst:.1e} at σ = {sigma:g} ({'; '.join(parts)})", n=2)


def composition_post_processing(run: Run, paper, *, eps: list[float], radius: int) -> Measurement:
    """ISDP Props 6–7 measured exactly: on a total of 2 cells with one person moving, the largest privacy loss
    of two independent exact ℓ1 releases at ε₁ and ε₂ together (composition) and of post-processings of one
    release (its first cell; its cells clamped at 0), each over its stated budget ε‖x − x'‖₁ — (ε₁ + ε₂)
    and ε₁. The value is the largest ratio."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import exact_route_noise, max_privacy_loss, product, pushforward

    A, x, v = np.ones((1, 2), dtype=np.int64), np.array([1, 2]), np.array([1, -1])
    d = float(np.abs(v).sum())
    e1, e2 = (Fraction(str(e)) for e in eps)
    sampler = ExactL1Sampler.build(A)
    n1, n2 = (exact_route_noise(sampler, e, radius) for e in (e1, e2))
    pairs = {"both releases": (product(n1.shifted(x), n2.shifted(x)), product(n1.shifted(x + v), n2.shifted(x + v)),
                               float(e1 + e2)),
             "the first's first cell": (pushforward(n1.shifted(x), lambda y: y[:1]),
                                        pushforward(n1.shifted(x + v), lambda y: y[:1]), float(e1)),
             "the first clamped at 0": (pushforward(n1.shifted(x), lambda y: np.maximum(y, 0)),
                                        pushforward(n1.shifted(x + v), lambda y: np.maximum(y, 0)), float(e1))}
    ratios, parts = [], []
    for name, (p, q, budget) in pairs.items():
        loss = max(max_privacy_loss(p, q), max_privacy_loss(q, p))
        ratios.append(loss / (budget * d))
        parts.append(f"{name}: largest loss {loss:.6f} against {budget:g} × {d:g}")
    return Measurement(max(ratios), f"largest loss / budget = {max(ratios):.6f} ({'; '.join(parts)})", n=len(ratios))


def _neighbour_cases() -> dict:
    """The two small lattices of the Thm 10 audits: name → (A, x, x' − x) for neighbouring tables with the same
    invariants (a total of 3 cells with one person moving; 2 × 3 margins with two persons swapping)."""
    from isdp.lattice import table_margins

    return {"a total of 3 cells, one person moves": (np.ones((1, 3), dtype=np.int64), [1, 0, 2], [-1, 1, 0]),
            "2 x 3 margins, two persons swap": (table_margins(2, 3), [2, 1, 3, 1, 2, 0], [1, -1, 0, -1, 1, 0])}


def privacy_theorem(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP Thm 10 measured exactly: the largest privacy loss of the exact ℓ1 sampler's output law
    over ε‖x − x'‖₁, for neighbouring tables on two small lattices (a total of 3 cells, one person
    moving; 2 × 3 margins, two persons swapping), at the experiment's ε (:mod:`isdp.privacy_audit`)."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import (
        exact_route_noise,
        hockey_stick,
        max_privacy_loss,
        truncation_slack,
    )

    eps = Fraction(str(run.config[exp]["eps"]))
    cases = _neighbour_cases()
    radius = int(np.ceil(30 / float(eps)))  # DG tail e^{-ε(radius+1)} below e^{-30} per free cell
    ratios, parts = [], []
    for name, (A, x, v) in cases.items():
        noise = exact_route_noise(ExactL1Sampler.build(A), eps, radius)
        bound = float(eps) * np.abs(v).sum()
        p, q = noise.shifted(x), noise.shifted(np.add(x, v))
        loss = max_privacy_loss(p, q)
        excess = hockey_stick(p, q, bound) - truncation_slack(p, q, bound)
        ratios.append(loss / bound)
        parts.append(f"{name}: largest loss {loss:.9f} against ε‖v‖₁ = {bound:g}, hockey-stick at it {excess:.1e}")
    return Measurement(max(ratios), f"largest privacy loss / ε‖x − x'‖₁ = {max(ratios):.9f} at ε = {eps} "
                                    f"({'; '.join(parts)})",
                       note="exact enumeration of the sampler's law (no Monte Carlo); the ratio is 1 when the "
                            "bound is attained (at y = x), as the proof's triangle inequality allows", n=len(cases))


def gaussian_subgaussian(run: Run, paper, *, sigma: float, radius: int, max_lambda_sigma: float,
                         steps: int) -> Measurement:
    """ISDP Thm 15 (10) / Prop 18 in a constant-free form: the generalized Gaussian noise is sub-Gaussian with
    variance proxy σ², E exp⟨λ, u⟩ ≤ exp(σ²‖λ‖²/2) for every λ. For the centred lattice Gaussian this holds
    exactly: completing the square, E e^⟨λ,u⟩ = e^{σ²‖λ‖²/2} ρ(Λ − σ²λ)/ρ(Λ), and ρ(Λ − c) ≤ ρ(Λ) by Poisson
    summation. The release's exact Gaussian route (ℓ1 proposals at ε = 1/σ, then the Gaussian step: a law
    ∝ exp(−‖u‖²/2σ²) on Λ(A), centred at 0), its law from its construction on two lattices (a total of 3 cells;
    2 × 3 margins), λ on a grid of ker A with ‖λ‖ ≤ ``max_lambda_sigma``/σ. The value is the largest
    ln E e^⟨λ,u⟩ − σ²‖λ‖²/2; the box can raise it by at most its left-out mass (reported)."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.experiments.lattice_study.theory import kernel_grid, subgaussian_excess
    from isdp.lattice import table_margins
    from isdp.privacy_audit import exact_route_noise

    sig = Fraction(str(sigma))
    worst, count, parts = -np.inf, 0, []
    for name, A in (("a total of 3 cells", np.ones((1, 3), dtype=np.int64)), ("2 × 3 margins", table_margins(2, 3))):
        law = exact_route_noise(ExactL1Sampler.build(A), 1 / sig, radius, sigma=sig)
        lambdas = kernel_grid(A, max_lambda_sigma / sigma, steps)
        excess = subgaussian_excess(law, lambdas, sigma)
        worst, count = max(worst, float(excess.max())), count + len(lambdas)
        far = np.linalg.norm(lambdas, axis=1) >= max_lambda_sigma / sigma * (1 - 1e-9)
        parts.append(f"{name}: largest {excess.max():.1e}, at ‖λ‖σ = {max_lambda_sigma:g} from {excess[far].min():.1e} "
                     f"to {excess[far].max():.1e} ({len(lambdas)} λ; mass outside the box ≤ {law.outside:.0e})")
    return Measurement(worst, f"largest ln E e^⟨λ,u⟩ − σ²‖λ‖²/2 = {worst:.1e} at σ = {sigma:g} ({'; '.join(parts)})",
                       note="exact enumeration; the bound is attained up to rounding (ρ(Λ − c)/ρ(Λ) differs from 1 "
                            "by about e^(−2π²σ²λ₁(Λ*)²), far below double precision at this σ)", n=count)


def gaussian_not_pure(run: Run, paper, *, sigma: float, radii: list[int]) -> Measurement:
    """ISDP §4 ("a discrete Gaussian mechanism only provides (ε,δ)-DP"): the generalized Gaussian is not pure
    DP — its privacy loss ln P(M(x) = y)/P(M(x') = y) = (‖y − x'‖² − ‖y − x‖²)/2σ² is linear in y, so its largest
    value over the outputs grows without bound with the output box. The release's exact Gaussian route on a
    total of 3 cells, one person moving, its law enumerated on the box |u_free|_∞ ≤ R (both laws normalised on
    the same box, so each ratio is exact); the value per R is the largest loss over the box, rounded to 1e-9
    (the precision of the enumeration) so that a loss that stops growing reads as equal."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import exact_route_noise, max_privacy_loss

    sig = Fraction(str(sigma))
    sampler, x, v = ExactL1Sampler.build(np.ones((1, 3), dtype=np.int64)), np.array([1, 0, 2]), np.array([-1, 1, 0])
    losses = {}
    for radius in radii:
        law = exact_route_noise(sampler, 1 / sig, radius, sigma=sig)
        losses[f"R{radius}"] = round(max_privacy_loss(law.shifted(x), law.shifted(x + v),
                                                      floor=np.finfo(float).tiny), 9)
    return Measurement(losses, "largest privacy loss over the output box |u_free|_∞ ≤ R, one person moving, σ = "
                               f"{sigma:g}: " + ", ".join(f"R = {r}: {losses[f'R{r}']:.3f}" for r in radii),
                       n=len(radii))


def privacy_theorem_l2(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP Thm 10 for the ℓ2 target, measured exactly: the generalized Laplace law ∝ exp(−ε‖u‖₂) on Λ(A)
    (:func:`isdp.exact_laws.enumerate_target`; the law E1/E2's ℓ2 chains target), for neighbouring tables on the two
    small lattices of :func:`_neighbour_cases`, at the experiment's ε: the largest privacy loss over ε‖x − x'‖₂.
    The box |w|_∞ ≤ R in the lattice's coordinates holds every u with ‖u‖₂ ≤ R·s_min(B), chosen ≥ 30/ε, so it
    holds every output whose probability passes :func:`~isdp.privacy_audit.max_privacy_loss`'s floor; both laws
    are one law shifted, so the ratios are exact."""
    from isdp.exact_laws import enumerate_target
    from isdp.lattice import IntegerLattice
    from isdp.privacy_audit import Law, max_privacy_loss
    from isdp.targets import generalized_laplace

    eps = float(run.config[exp]["eps"])
    cases = _neighbour_cases()
    ratios, parts = [], []
    for name, (A, x, v) in cases.items():
        lattice = IntegerLattice.from_constraints(A)
        radius = int(np.ceil(30 / (eps * np.linalg.svd(lattice.basis.astype(float), compute_uv=False).min())))
        points, probs, _ = enumerate_target(lattice, generalized_laplace(eps, "l2"), radius)
        noise = Law(np.asarray(points, dtype=np.int64), probs, 0.0)
        bound = eps * float(np.linalg.norm(v))
        loss = max_privacy_loss(noise.shifted(x), noise.shifted(np.add(x, v)))
        ratios.append(loss / bound)
        parts.append(f"{name}: largest loss {loss:.9f} against ε‖v‖₂ = {bound:.6f} ({len(points)} points)")
    return Measurement(max(ratios), f"largest privacy loss / ε‖x − x'‖₂ = {max(ratios):.9f} at ε = {eps:g} "
                                    f"({'; '.join(parts)})",
                       note="exact enumeration of the ℓ2 target law (no Monte Carlo); the ratio is 1 when the bound "
                            "is attained (at y = x)", n=len(cases))


def _experiment_problem(run: Run, exp: str):
    """E1's problem (the config's Venn constraints) or E2's (the margins of the committed table)."""
    if exp == "e1":
        from isdp.experiments.e1_intersecting.problem import intersecting_constraints_problem

        return intersecting_constraints_problem(run.config["e1"]["x"], run.config["e1"]["records_per_region"])
    from isdp.experiments.problems import contingency_table_problem

    return contingency_table_problem("e2", *read_table_csv(run.data(run.config["e2"]["table"])))


def lattice_complete(run: Run, paper) -> Measurement:
    """ISDP Prop 8's "iff": the basis of each experiment's lattice spans every integer solution of A u = 0, not
    a sublattice. For E1 (the Venn constraints of the config), E2 (the margins of the committed table) and E3 (a
    sum over the counties of each state with at least 2 counties in the committed county file, on the config's
    draw basis): the index of the basis's lattice in Z^n ∩ ker A (:func:`.theory.kernel_index`; 1 = the whole
    kernel, 0 = not a basis of a full-dimensional part of the kernel). E3's value is the first index ≠ 1 over
    the states' sizes, else 1."""
    from isdp.bases import with_mixing_basis
    from isdp.experiments.lattice_study.theory import kernel_index
    from isdp.experiments.nhgis import load_counties
    from isdp.lattice import IntegerLattice, sum_constraint

    e1, e2 = _experiment_problem(run, "e1"), _experiment_problem(run, "e2")
    sizes = sorted(int(s) for s in set(load_counties(run.data(run.config["data"]["embedded"]))
                                       .groupby("state_abbr").size()) if s >= 2)
    draw_basis = run.config["e3"]["mcmc"]["draw_basis"]
    e3, checked = 1, 0
    for n in sizes:  # smallest first; the first index ≠ 1 decides
        basis = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(n)), draw_basis).basis
        e3, checked = kernel_index(sum_constraint(n), basis), checked + 1
        if e3 != 1:
            break
    lat1, lat2 = e1.lattice(), e2.lattice()
    value = {"e1_venn": kernel_index(e1.A, lat1.basis), "e2_margins": kernel_index(e2.A, lat2.basis), "e3_sum": e3}
    return Measurement(value, f"index in Z^n ∩ ker A of the basis's lattice: E1 Venn ({e1.A.shape[1]} records, "
                              f"dimension {lat1.dim}) {value['e1_venn']}; E2 margins ({e2.A.shape[1]} cells, dimension "
                              f"{lat2.dim}) {value['e2_margins']}; E3 sums of {sizes[0]}–{sizes[-1]} counties "
                              f"({len(sizes)} sizes, {draw_basis} basis) {e3}"
                              + ("" if e3 == 1 else f" at {sizes[checked - 1]} counties"),
                       n=2 + checked)


def doubling_exponent(run: Run, paper, *, k: int, norms: list[str]) -> Measurement:
    """ISDP Lemma 11 / App. B Eq 12's growth exponent: doubling the radius multiplies the number of lattice points
    in a ball by 2^r, r = n − rank(A) the lattice's dimension. N(ρ) = #{u ∈ Λ(A) : ‖u‖ ≤ ρ} counted exactly
    (:func:`.theory.ball_counts`) at ρ = k and 2k on three small lattices (a total of 3 cells and 2 × 3 margins,
    r = 2; a total of 4 cells, r = 3), in each of ``norms``; the value is the largest |N(2k)/(2^r N(k)) − 1|."""
    from isdp.experiments.lattice_study.theory import ball_counts
    from isdp.lattice import table_margins

    lattices = {"a total of 3 cells": np.ones((1, 3), dtype=np.int64), "2 × 3 margins": table_margins(2, 3),
                "a total of 4 cells": np.ones((1, 4), dtype=np.int64)}
    gaps, parts = [], []
    for name, A in lattices.items():
        r = A.shape[1] - int(np.linalg.matrix_rank(A))
        for norm in norms:
            small, big = ball_counts(A, [k, 2 * k], norm)
            gaps.append(abs(big / (2**r * small) - 1))
            parts.append(f"{name} ({norm}, r = {r}): N = {small}, {big}, ratio {big / small:.3f} against {2**r}")
    return Measurement(max(gaps), f"largest |N(2k)/(2^r N(k)) − 1| = {max(gaps):.3f} at k = {k} ({'; '.join(parts)})",
                       n=len(gaps))


def smooth_delta_grows(run: Run, paper, *, sigma: float, eps: float, distances: list[int], radius: int) -> Measurement:
    """ISDP §2 footnote: for approximate smooth DP the error term of the Gaussian mechanism grows with the
    distance. The discrete Gaussian on Z (the release's Gaussian route with no invariant), x and x' = x + d: the
    smallest δ with P(M(x) ∈ S) ≤ e^{εd} P(M(x') ∈ S) + δ for all S, the hockey-stick divergence at εd, on the
    box (its truncation slack, reported, taken off), rounded to 1e-9 (so a δ that stays at 0 reads as equal)."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import exact_route_noise, hockey_stick, truncation_slack

    sig = Fraction(str(sigma))
    law = exact_route_noise(ExactL1Sampler.build(np.zeros((0, 1), dtype=np.int64)), 1 / sig, radius, sigma=sig)
    deltas, slack = {}, 0.0
    for d in distances:
        p, q = law, law.shifted([d])
        slack = max(slack, truncation_slack(p, q, eps * d))
        deltas[f"d{d}"] = round(hockey_stick(p, q, eps * d) - truncation_slack(p, q, eps * d), 9)
    return Measurement(deltas, f"δ(d) at ε d, ε = {eps:g}, σ = {sigma:g}: "
                               + ", ".join(f"d = {d}: {deltas[f'd{d}']:.4f}" for d in distances)
                               + f" (truncation slack ≤ {slack:.0e})", n=len(distances))


def coupling_censored(run: Run, paper, *, exp: str) -> Measurement:
    """Coupled pairs of every target's certificate that had not met by its ``max_iter`` (censored)."""
    parts, censored = [], 0
    for norm in run.config[exp]["targets"]:
        s = run.json(f"{exp}/certificate_{norm}.json")["summary"]
        censored += int(s["censored"])
        parts.append(f"{norm}: {int(s['censored'])} of {int(s['pairs'])} pairs (lag {int(s['lag'])}, max_iter "
                     f"{int(s['max_iter'])}, latest meeting τ − L = {int(s['tau_minus_lag_max'])})")
    return Measurement(censored, f"{censored} censored; " + "; ".join(parts))


def _small_lattice(name: str):
    """The small lattices the exact coupling and kernel rows enumerate on, by name: a total of ``sum<n>`` cells,
    2 × 3 margins, or E1's Venn construction with one record per region (7 records, dimension 4)."""
    from isdp.experiments.e1_intersecting.problem import intersecting_constraints_problem
    from isdp.lattice import IntegerLattice, sum_constraint, table_margins

    if name == "venn1":
        return intersecting_constraints_problem([1] * 7, 1).lattice()
    if name == "margins2x3":
        return IntegerLattice.from_constraints(table_margins(2, 3))
    if name.startswith("sum"):
        return IntegerLattice.from_constraints(sum_constraint(int(name[3:])))
    raise ValueError(f"unknown small lattice {name!r} (sum<n>, margins2x3, venn1)")


def jump_law(lattice, pmf: dict[int, float]) -> dict[tuple[int, ...], float]:
    """ISDP Eq. 11's jump, exactly: v = V(0, …, 0, z) = B z for the lattice basis B (V's last columns, Smith or
    LLL-reduced) and z with i.i.d. coordinates of the finite law ``pmf`` (value → probability). The pmf of v."""
    values, probs = np.array(list(pmf), dtype=np.int64), np.array(list(pmf.values()), dtype=float)
    index = np.indices((len(values),) * lattice.dim).reshape(lattice.dim, -1).T  # every z, as indices of values
    jumps, which = np.unique(values[index] @ np.asarray(lattice.basis, dtype=np.int64).T, axis=0, return_inverse=True)
    mass = np.bincount(which.ravel(), weights=probs[index].prod(axis=1), minlength=len(jumps))
    return {tuple(int(c) for c in v): float(m) for v, m in zip(jumps, mass, strict=True)}


def jump_symmetric(run: Run, paper, *, lattices: list[str], laws: dict[str, dict], eps: float,
                   reach: int) -> Measurement:
    """ISDP §4 after Eq. 11: with z's coordinates unbiased and symmetric about 0, the jump v = V(0, z) is unbiased
    and symmetric and keeps the invariants. Exactly (:func:`jump_law`) on small lattices, for the double geometric
    DG(``eps``) cut at ±``reach`` (its tail mass left out, below 1e-12 of it) and each further finite law of
    ``laws``. The value is the largest of max_v |q(v) − q(−v)|, ‖Σ v q(v)‖∞ and max |A v| over the lattices and
    laws."""
    from isdp.double_geometric import dg_pmf

    k = np.arange(-reach, reach + 1)
    named = {f"DG({eps:g})": dict(zip(k.tolist(), dg_pmf(k, eps).tolist(), strict=True)),
             **{name: {int(v): float(p) for v, p in law.items()} for name, law in laws.items()}}
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


def tv_bound_valid(run: Run, paper, *, cases: list[dict], lags: list[int], n_pairs: int, iterations: list[int],
                   resolvable: float, seed: int) -> Measurement:
    """ISDP §4 / App. D.2: the L-lag meeting times estimate an upper bound on d_TV(π_t, π). On small lattices the
    exact TV of the chain started at u = 0 (:func:`isdp.exact_laws.exact_tv_curve`; its lower end, tv_box minus the
    box's losses, so truncation can only favour a violation) against the estimate E max(0, ⌈(τ − L − t)/L⌉) from
    ``n_pairs`` coupled pairs (:func:`isdp.coupling.meeting_times`, :func:`.studies.tv_curves`), per lag and per
    t where the exact TV is at least ``resolvable``. The value is the one-sided p-value of each shortfall,
    Φ̄((TV − estimate)/SE): small when the estimate falls below the exact TV beyond its Monte Carlo error."""
    from scipy.stats import norm as normal

    from isdp import coupling
    from isdp.exact_laws import exact_tv_curve
    from isdp.experiments.lattice_study.studies import tv_curves
    from isdp.targets import generalized_laplace

    ts = np.asarray(iterations, dtype=np.int64)
    pvalues, parts = [], []
    for i, case in enumerate(cases):
        lattice, target = _small_lattice(case["lattice"]), generalized_laplace(case["eps"], case["norm"])
        box, upper = exact_tv_curve(lattice, target, case["proposal_eps"], case["radius"],
                                    [np.zeros(lattice.n, dtype=np.int64)], [1.0], ts)
        exact = 2 * box - upper  # the true TV is at least tv_box less what the box lost (upper − box)
        check = exact >= resolvable
        for lag in lags:
            mt = coupling.meeting_times(lattice, target, lag=int(lag), n_pairs=n_pairs,
                                        proposal_eps=case["proposal_eps"], seed=seed + 1000 * i + int(lag))
            curve = tv_curves(pd.DataFrame({"lag": lag, "tau": mt.tau}), t_max=int(ts.max()))
            est, se = curve["tv_bound"].to_numpy()[ts], curve["se"].to_numpy()[ts]
            gap = exact[check] - est[check]
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(se[check] > 0, gap / se[check], np.where(gap > 0, np.inf, -np.inf))
            pvalues.extend(normal.sf(z).tolist())
            worst = int(np.argmax(z))
            parts.append(f"{case['lattice']} {case['norm']} ε {case['eps']:g}, lag {lag}: at t = {ts[check][worst]} "
                         f"exact {exact[check][worst]:.3f}, estimate {est[check][worst]:.3f} ± {se[check][worst]:.3f}")
        parts[-1] += f" (exact TV ≥ {resolvable:g} at t ≤ {ts[check].max()}; box losses ≤ {np.max(upper - box):.0e})"
    p = np.asarray(pvalues)
    return Measurement(p, f"smallest one-sided p of the estimate below the exact TV = {p.min():.3f} over {p.size} "
                          f"(case, lag, t), {n_pairs} pairs each; closest: " + "; ".join(parts), n=int(p.size))


def kernel_stationary(run: Run, paper, *, cases: list[dict], proposal_eps: float) -> Measurement:
    """ISDP §4, Alg. 1: the Gibbs-within-Metropolis sweep leaves the target π invariant. On each small lattice and
    norm, the sweep's transition matrix on the box |w|_∞ ≤ R (:func:`isdp.exact_laws.sweep_transition_matrix`, moves
    leaving the box dropped) and π, the untruncated target restricted to the box (normalised on the box of radius
    2R): ‖π P − π‖₁. Each of the k component updates is the true kernel restricted to the box, so it loses at most
    the flux into the box from outside, at most π(outside); the value is the largest ‖π P − π‖₁ − k π(outside)."""
    from isdp.exact_laws import enumerate_target, sweep_transition_matrix
    from isdp.targets import generalized_laplace

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
            parts.append(f"{case['lattice']} {norm} (ε {case['eps']:g}, R {radius}): ‖πP − π‖₁ {gap:.1e}, allowance "
                         f"{lattice.dim * outside:.1e}, moves per sweep {moved:.2f}")
    return Measurement(max(excess), f"largest ‖πP − π‖₁ − k π(outside) = {max(excess):.1e} at proposal ε "
                                    f"{proposal_eps:g} ({'; '.join(parts)})", n=len(excess))


def lag_tau_ks(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP App. D.2: the lags are such that "the distribution of the L-lag coupling time, τ − L, appears to be
    empirically stable in L". Per target, two-sample Kolmogorov–Smirnov tests of τ − L between every two configured
    lags (the pairs of each lag are independent, from their own seeds); the value is their p-values."""
    import itertools

    from scipy.stats import ks_2samp

    pvalues, parts = [], []
    for norm in run.config[exp]["targets"]:
        meet = run.table_at(f"{exp}/meeting_times_{norm}.csv")
        by_lag = {int(lag): (g["tau"] - lag).to_numpy() for lag, g in meet.groupby("lag")}
        tests = []
        for a, b in itertools.combinations(sorted(by_lag), 2):
            p = float(ks_2samp(by_lag[a], by_lag[b]).pvalue)
            pvalues.append(p)
            tests.append(f"{a}–{b} p {p:.3f}")
        means = ", ".join(f"L {lag}: {v.mean():.0f}" for lag, v in sorted(by_lag.items()))
        parts.append(f"{norm}: mean τ − L {means}; KS {', '.join(tests)}")
    return Measurement(np.asarray(pvalues), f"smallest KS p = {min(pvalues):.3f} over {len(pvalues)} lag pairs ("
                                            + "; ".join(parts) + ")")


def l1_tail_rate_floor(run: Run, paper, *, exp: str, quantile: float) -> Measurement:
    """ISDP Thm 12 (7) read one-sidedly: the tail is at least as light as the rate ``paper`` (in units of ε). The
    fitted rate of :func:`l1_tail_rate` as a z-score against it, (λ̂/ε − paper)/SE: a heavier tail is negative."""
    fit = l1_tail_rate(run, paper, exp=exp, quantile=quantile)
    z = (fit.value - float(paper)) / fit.se
    return Measurement(z, f"z = {z:+.2f} ({fit.text})", n=fit.n)


def sparser(run: Run, paper, *, quantity: str, tol: float) -> Measurement:
    """ISDP §3.1: "as we impose more counting invariants, the lattice becomes sparser, making it harder to find a
    feasible solution". E1's constraints (config) imposed one at a time, A_k its first k rows (k = 0…3): per k the
    lattice's dimension n − rank(A_k) (``quantity`` "dimension") or the exact probability that i.i.d. DG noise at
    E1's ε keeps A_k u = 0 (``quantity`` "probability"; :func:`.theory.iid_invariant_probability` with error at
    most ``tol``, rounded to 5 significant digits so that a constraint that changes nothing reads as equal)."""
    from isdp.double_geometric import dg_pmf
    from isdp.experiments.e1_intersecting.problem import intersecting_constraints_problem
    from isdp.experiments.lattice_study.theory import iid_invariant_probability

    A = intersecting_constraints_problem(run.config["e1"]["x"], run.config["e1"]["records_per_region"]).A
    eps = float(run.config["e1"]["eps"])
    support = np.arange(-int(np.ceil(45 / eps)), int(np.ceil(45 / eps)) + 1)  # DG mass beyond it below e^-45
    steps = range(A.shape[0] + 1)
    dims = {f"k{k}": A.shape[1] - (int(np.linalg.matrix_rank(A[:k])) if k else 0) for k in steps}
    text = (f"E1's {A.shape[1]} records, constraints imposed one at a time (k = 0…{A.shape[0]}): lattice dimension "
            + ", ".join(f"{d}" for d in dims.values()))
    if quantity == "dimension":
        return Measurement(dims, text, n=len(steps))
    exact = [iid_invariant_probability(A[:k], dg_pmf(support, eps), tol) for k in steps]
    probs = {f"k{k}": float(f"{p:.5g}") for k, (p, _, _) in zip(steps, exact, strict=True)}
    return Measurement(probs, text + f"; P(i.i.d. DG at ε = {eps:g} keeps them) "
                              + ", ".join(f"{p:.5g}" for p in probs.values())
                              + f" (exact, error ≤ {max(b for _, b, _ in exact):.0e})", n=len(steps))


def release_data_independence(run: Run, paper, *, seeds: list[int], nonnegative: bool = False) -> Measurement:
    """ISDP §1, §4: the noise keeps "statistical independence between the confidential data and the privacy
    errors". The project's release (:func:`isdp.release.make_release`, the exact ℓ1 route at E2's ε per person,
    all margins invariant) of E2's committed table x and of x' = x turned by 180° (another table with the same
    invariant structure), with the same seed, for each of ``seeds``: the largest |(y − x) − (y' − x')|.
    ``nonnegative`` adds the release's --nonnegative post-processing (the integer ℓ1 projection onto s ≥ 0)."""
    import csv
    import tempfile
    from pathlib import Path

    from isdp.constraints import constraint_matrix
    from isdp.release import Request, make_release
    from isdp.tables import load_table

    table = load_table(run.data(run.config["e2"]["table"]))
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
    return Measurement(max(gaps), f"largest |error(x) − error(x')| = {max(gaps)} over {len(seeds)} seeds ("
                                  + ", ".join(f"seed {s}: {g}" for s, g in zip(seeds, gaps, strict=True))
                                  + f"); E2's table and the table turned by 180°, all margins kept, exact ℓ1 route at "
                                    f"ε = {eps} per person" + (", --nonnegative" if nonnegative else ""),
                       n=2 * len(seeds))


def composition_relations(
    run: Run, paper, *, route: str, scales: list[float], radius: int, eps_grid: list[float], rule: str = "sum"
) -> Measurement:
    """ISDP Prop 6 across two different invariants: release 1 keeps A₁ = (1, 1, 0), release 2 keeps A₂ = (0, 1, 1)
    (3 cells), and x, x' = x + (1, −1, 1) meet both (x ~₁ x' and x ~₂ x'). Both releases' laws are enumerated from
    their construction (:func:`isdp.privacy_audit.exact_route_noise`) and their product (run together on the same
    data) compared with the composition's guarantee. ``route`` "l1": the exact ℓ1 routes at ε = ``scales``; the
    value is the product's largest privacy loss over the composed budget — (ε₁ + ε₂)‖x − x'‖₁ (``rule`` "sum") or
    max(ε₁, ε₂)‖x − x'‖₁ ("max"). ``route`` "gaussian": the Gaussian routes at σ = ``scales``, each (εᵢ, δᵢ(εᵢ))-DP
    for every εᵢ with δᵢ its hockey-stick divergence; for each (ε₁, ε₂) on ``eps_grid`` × ``eps_grid`` the value is
    the product's δ at ε₁ + ε₂ less δ₁ + δ₂ ("sum") or max(δ₁, δ₂) ("max"), less the boxes' truncation slack; the
    largest over the grid."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.experiments.lattice_study.dp_audits import product_ratio_arrays
    from isdp.privacy_audit import aligned, exact_route_noise, hockey_stick_divergence, max_loss, max_privacy_loss

    combine = {"sum": lambda a, b: a + b, "max": max}[rule]
    x, v = np.array([2, 1, 3]), np.array([1, -1, 1])
    d = float(np.abs(v).sum())
    laws = []
    for A, scale in zip((np.array([[1, 1, 0]]), np.array([[0, 1, 1]])), scales, strict=True):
        sampler, s = ExactL1Sampler.build(A), Fraction(str(scale))
        law = (
            exact_route_noise(sampler, s, radius)
            if route == "l1"
            else exact_route_noise(sampler, 1 / s, radius, sigma=s)
        )
        laws.append((law.shifted(x), law.shifted(x + v)))
    a, b = product_ratio_arrays(laws)
    if route == "l1":
        losses = [max_privacy_loss(p, q) for p, q in laws]
        loss = max_loss(a, b)
        budget = combine(*scales) * d
        return Measurement(
            loss / budget,
            f"largest loss of the two releases together {loss:.9f} against "
            f"{rule}(ε₁, ε₂)‖v‖₁ = {budget:g} (ε = {scales[0]:g}, {scales[1]:g}; each "
            f"release alone {losses[0]:.6f}, {losses[1]:.6f}; ‖v‖₁ = {d:g})",
            n=2,
        )
    slack = laws[0][0].outside + laws[1][0].outside
    worst, at = -np.inf, None
    for e1, e2 in itertools.product(eps_grid, repeat=2):
        parts = [hockey_stick_divergence(*aligned(p, q), e) for (p, q), e in zip(laws, (e1, e2), strict=True)]
        joint = hockey_stick_divergence(a, b, e1 + e2)
        excess = joint - combine(*parts) - slack * (1 + np.exp(e1 + e2))
        if excess > worst:
            worst, at = excess, (e1, e2, joint, parts)
    e1, e2, joint, parts = at
    return Measurement(
        worst,
        f"largest δ(ε₁ + ε₂) − {rule}(δ₁(ε₁), δ₂(ε₂)) = {worst:.2e} over a {len(eps_grid)}² grid "
        f"of (ε₁, ε₂) (σ = {scales[0]:g}, {scales[1]:g}); at ε₁ = {e1:g}, ε₂ = {e2:g}: product "
        f"{joint:.4f}, parts {parts[0]:.4f}, {parts[1]:.4f}; truncation allowance "
        f"{slack * (1 + np.exp(2 * max(eps_grid))):.1e} at the largest ε₁ + ε₂",
        n=len(eps_grid) ** 2,
    )


def post_processing_randomized(
    run: Run, paper, *, sigma: float, radius: int, eps_grid: list[float], reads_data: bool = False
) -> Measurement:
    """ISDP Prop 7 with a randomized map and δ > 0: the release's Gaussian route at σ on a total of 3 cells, one
    person moving (x = (1, 0, 2), x' = x + (−1, 1, 0)), its law enumerated from its construction; the release is
    (ε′, δ(ε′))-DP for every ε′, δ its hockey-stick divergence. Two randomized maps: the first cell plus independent
    double geometric noise (ε = 1); one cell chosen uniformly at random. ``reads_data`` makes the first map add the
    confidential first cell as well (a map that reads x: not a post-processing). The value is the largest
    δ_post(ε′) − δ(ε′) over the maps and ``eps_grid``, less the truncation slack."""
    from fractions import Fraction

    from isdp.double_geometric import dg_pmf
    from isdp.exact_sampling import ExactL1Sampler
    from isdp.experiments.lattice_study.dp_audits import add_noise, compact, randomized_map
    from isdp.privacy_audit import aligned, exact_route_noise, hockey_stick_divergence, truncation_slack

    sig = Fraction(str(sigma))
    A, x, v = (np.asarray(c) for c in _neighbour_cases()["a total of 3 cells, one person moves"])
    law = exact_route_noise(ExactL1Sampler.build(A), 1 / sig, radius, sigma=sig)
    support = np.arange(-40, 41)
    noise = dg_pmf(support, 1.0)

    def first_cell_noisy(xs):
        shift = xs[0] if reads_data else 0
        return lambda p: add_noise(compact(randomized_map(p, [(lambda y: y[:, :1] + shift, 1.0)])), noise, support)

    maps = {
        "first cell + DG(1)": first_cell_noisy,
        "a random cell": lambda xs: (
            lambda p: randomized_map(p, [(lambda y, c=c: y[:, c : c + 1], 1 / 3) for c in range(3)])
        ),
    }
    p, q = law.shifted(x), law.shifted(x + v)
    base = [hockey_stick_divergence(*aligned(p, q), e) for e in eps_grid]  # the release's δ(ε′) on the box
    worst, parts = -np.inf, []
    for name, make in maps.items():
        fp, fq = make(x)(p), make(x + v)(q)
        a, b = aligned(fp, fq)
        excess = [hockey_stick_divergence(a, b, e) - d - truncation_slack(fp, fq, e)
                  for e, d in zip(eps_grid, base, strict=True)]
        worst = max(worst, max(excess))
        parts.append(f"{name}: largest {max(excess):.2e}")
    return Measurement(
        worst,
        f"largest δ_post(ε′) − δ(ε′) = {worst:.2e} at σ = {sigma:g} over ε′ in "
        f"{fmt_list(eps_grid)} ({'; '.join(parts)}); the release's δ(ε′) "
        + ", ".join(f"{b:.3f}" for b in base)
        + (" (map reads x)" if reads_data else ""),
        n=len(maps) * len(eps_grid),
    )


def smooth_dp_equivalence(run: Run, paper, *, eps: float, norm: str, span: int, radius: int) -> Measurement:
    """ISDP §2 footnote 1, pure case: a mechanism ε-DP on neighbours (d(x, x') = 1) is ε·d(x, x')-smooth DP. Two
    mechanisms on 3 free cells, their laws on the cube {−R..R}³ from their formulas: double geometric noise
    (∝ e^{−ε‖u‖₁}) and the ℓ2 generalized Laplace (∝ e^{−ε‖u‖₂}). For each, ε₁ = its largest privacy loss over
    the neighbours (the unit vectors, at distance 1 in ℓ1 and ℓ2 alike), and the largest loss over ε₁·d(v) for
    every v in {−span..span}³ \\ {0}, d the ``norm``; the value is the largest over both mechanisms (1: smooth DP
    at ε₁ per unit of d)."""
    from isdp.experiments.lattice_study.dp_audits import log_ratio_on_grid

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


def projection_privacy(run: Run, paper, *, eps: float, radius: int, reads_data: bool = False) -> Measurement:
    """ISDP App. E.4 (comparison with projected DG): double geometric noise at ε per cell, then the integer ℓ1
    projection onto the public total (:class:`isdp.baselines.L1Projector`, the MILP of Fig 10), "still private" as
    a post-processing. On 3 cells, x = (2, 1, 0) and x' = (1, 2, 0) (one person moving; ‖x − x'‖₁ = 2):
    the projection is solved once for every noisy m in the union of the two boxes |m − x|_∞, |m − x'|_∞ ≤ R, and
    the output laws summed from the DG pmf. The value is the hockey-stick divergence at ε‖x − x'‖₁ on the boxes
    less its truncation slack (≤ 0 when private). ``reads_data`` replaces the projection by one that reads x: the
    discrepancy put on x's largest cell."""
    from isdp.baselines import L1Projector
    from isdp.double_geometric import dg_pmf
    from isdp.privacy_audit import Law, dg_box_tail, hockey_stick, truncation_slack

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
        probs = np.prod(dg_pmf(m[inside] - data, eps), axis=1)
        laws.append(Law(project(data)[inside], probs / probs.sum(), dg_box_tail(eps, radius, 3)))
    budget = eps * float(np.abs(x - xp).sum())
    slack = truncation_slack(*laws, budget)
    raw = hockey_stick(*laws, budget) - slack
    return Measurement(
        raw - slack,
        f"hockey-stick at ε‖x − x'‖₁ = {budget:g} on the boxes {raw:.2e} (truncation "
        f"slack {slack:.1e}); {len(m)} noisy tables projected" + (" (projection reads x)" if reads_data else ""),
        n=len(m),
    )


def lattice_point_volume(run: Run, paper, *, radii: list[int], covolume: str = "gram") -> Measurement:
    """ISDP Lemma 11 / App. B Thm 17, Eq 12: the number of lattice points in a ball is approximated by its volume
    — in the lattice's coordinates w (u = B w), ‖B w‖₂ ≤ ρ is an ellipsoid of volume V_r ρ^r / √det(BᵀB), V_r the
    unit r-ball's volume. N(ρ) counted exactly (:func:`.theory.ball_counts`) on the three lattices of
    :func:`doubling_exponent`; the value is the largest |N(ρ)/volume − 1| over them and ``radii``. ``covolume``
    "one" takes the lattice as Z^r (no √det): a wrong volume."""
    from math import gamma, pi

    from isdp.experiments.lattice_study.theory import ball_counts
    from isdp.lattice import IntegerLattice, table_margins

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


def joint_update_stationary(
    run: Run, paper, *, lattice: str, eps: float, proposal_eps: float, radius: int, tilt: float = 0.0
) -> Measurement:
    """ISDP §4 / App. D.1 ("these updates may also be performed simultaneously"): the simultaneous update (all
    pre-jumps at once, one Metropolis test: :func:`isdp.kernels.joint_sweep`) leaves π invariant. Its exact
    transition matrix on a box (:func:`.dp_audits.joint_update_matrix`) for both norms' targets; π the untruncated
    target restricted to the box (normalised on the box of twice the radius). The value is the largest
    ‖πP − π‖₁ − 2π(outside) (the inflow the box misses and the outflow it keeps)."""
    from isdp.exact_laws import enumerate_target
    from isdp.experiments.lattice_study.dp_audits import joint_update_matrix
    from isdp.targets import generalized_laplace

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


def maximal_coupling_z(
    run: Run, paper, *, shifts: list[int], size: int, seed: int, coupling: str = "maximal"
) -> Measurement:
    """ISDP §4 / App. D.2: Alg. 2's joint kernel couples each coordinate's proposals maximally — X ~ DG(ε) and
    Y ~ s + DG(ε) with P(X = Y) = 1 − TV (:func:`isdp.double_geometric.maximal_coupling_rvs`, the draw the coupled
    sweep makes). At each proposal ε of E1's and E2's targets (config) and each shift s, ``size`` pairs: z-scores
    of the meeting rate against 1 − TV (:func:`isdp.double_geometric.dg_tv_shift`) and of the two marginal means
    against 0 and s (binomial and DG standard errors). ``coupling`` "independent" draws X and Y independently."""
    from isdp.double_geometric import dg_rvs, dg_tv_shift, dg_variance, maximal_coupling_rvs

    eps_list = sorted({float(t["proposal_eps"]) for exp in ("e1", "e2") for t in run.config[exp]["targets"].values()})
    z, parts = [], []
    for i, (eps, s) in enumerate(itertools.product(eps_list, shifts)):
        if coupling == "maximal":
            pairs = maximal_coupling_rvs(0, s, eps, size, seed + i)
        else:
            rng = np.random.default_rng(seed + i)
            pairs = np.column_stack([dg_rvs(eps, size, rng), s + dg_rvs(eps, size, rng)])
        meet, target = float(np.mean(pairs[:, 0] == pairs[:, 1])), 1 - dg_tv_shift(s, eps)
        sd = np.sqrt(dg_variance(eps) / size)
        z += [
            (meet - target) / np.sqrt(target * (1 - target) / size),
            pairs[:, 0].mean() / sd,
            (pairs[:, 1].mean() - s) / sd,
        ]
        parts.append(f"ε {eps:g}, s {s}: {meet:.4f} vs {target:.4f}")
    z = np.asarray(z)
    return Measurement(
        z,
        f"largest |z| = {np.abs(z).max():.2f} over {z.size} ({size} pairs each; meeting rate vs "
        f"1 − TV: {'; '.join(parts)})",
        n=int(z.size),
    )


def _aligned_tv(law_x, law_y, shift) -> float:
    """TV of two laws given on boxes of one shape whose corners differ by the integer vector ``shift`` (y − x)."""
    shift = np.asarray(shift)
    canvas = [np.zeros(np.abs(shift) + law_x.shape) for _ in range(2)]
    for c, law, corner in ((canvas[0], law_x, np.maximum(-shift, 0)), (canvas[1], law_y, np.maximum(shift, 0))):
        c[tuple(slice(o, o + s) for o, s in zip(corner, law.shape, strict=True))] = law
    return 0.5 * float(np.abs(canvas[0] - canvas[1]).sum())


def coupled_sweep_exact(lattice, target, proposal_eps: float, pairs, mass: float = 1e-15) -> list[dict]:
    """Exact one-iteration laws of Alg. 2 on a two-dimensional lattice, for each pair (w_x, w_y) of lattice
    coordinates: P(X' = Y') under one coupled sweep (:func:`isdp.coupling._coupled_sweep`: coordinate j's proposals
    w_x[j] + DG and w_y[j] + DG maximally coupled, one uniform for both Metropolis tests), the single-chain one-sweep
    laws K(x, ·) and K(y, ·) and their TV; the same for the first update alone. The DG jumps are cut at T with
    P(|DG| > T) < ``mass``, moves beyond it dropped (the stay probability is what the kept moves leave).

    Meeting needs equality after every update (coordinate j changes only at update j), so it is a recursion on the
    common coordinates: with c(z) = min(p(z), p(z − d)) (proposals equal at w_x[j] + z; the maximal coupling's
    residuals have disjoint supports, so unequal proposals never meet) and a_X, a_Y the two acceptances, the pair
    meets at w_x[j] + z with probability c(z) min(a_X, a_Y) and, when d = w_y[j] − w_x[j] = 0, also stays together
    with probability Σ c (1 − max(a_X, a_Y))."""
    from isdp.double_geometric import dg_pmf

    if lattice.dim != 2:
        raise ValueError(f"the exact coupled sweep is written for two-dimensional lattices, not {lattice.dim}")
    a = np.exp(-proposal_eps)
    T = int(np.ceil(np.log(mass * (1 + a) / 2) / -proposal_eps))  # P(|DG| > T) = 2 a^(T+1) / (1 + a)
    z = np.arange(-T, T + 1)
    p = dg_pmf(z, proposal_eps)
    pairs = [(np.asarray(wx, dtype=np.int64), np.asarray(wy, dtype=np.int64)) for wx, wy in pairs]
    points = np.array([w for pair in pairs for w in pair])
    lo, hi = points.min(axis=0) - T, points.max(axis=0) + T
    w1 = np.arange(lo[1], hi[1] + 1)
    # log π on the box of every pair (rows w[0], columns w[1]), in blocks of rows to bound the memory
    blocks = np.array_split(np.arange(lo[0], hi[0] + 1), max(1, (hi[0] - lo[0]) // 128))
    b0, b1 = lattice.basis[:, 0], lattice.basis[:, 1]
    logp = np.concatenate([target.log_density(w0[:, None, None] * b0 + w1[None, :, None] * b1) for w0 in blocks])
    second = {}  # the second update's acceptance at every (w[0], w[1] + z) from column w[1] = c

    def accept_second(c):
        if c not in second:
            second[c] = np.exp(np.minimum(0.0, logp - logp[:, c - lo[1], None]))
        return second[c]

    def box(c, axis):  # the rows (axis 0) or columns (axis 1) c + z
        return slice(c - lo[axis] - T, c - lo[axis] + T + 1)

    def accept_first(w_from, c):  # the first update from w_from, proposing (w_x[0] + z, c)
        return np.exp(np.minimum(0.0, logp[box(c[0], 0), c[1] - lo[1]] - logp[w_from[0] - lo[0], w_from[1] - lo[1]]))

    def one_sweep(w):
        first = p * accept_first(w, w)
        first[T] = 0.0
        first[T] = 1.0 - first.sum()
        law = first[:, None] * p * accept_second(w[1])[box(w[0], 0), box(w[1], 1)]
        law[:, T] = 0.0
        law[:, T] = first - law.sum(axis=1)
        return first, law

    def overlap(d):
        return np.minimum(p, np.where(np.abs(z - d) <= T, dg_pmf(z - d, proposal_eps), 0.0))

    out = []
    for wx, wy in pairs:
        d = wy - wx
        c = overlap(d[0])
        ax, ay = accept_first(wx, wx), accept_first(wy, (wx[0], wy[1]))
        met = c * np.minimum(ax, ay)
        if d[0] == 0:
            met[T] += (c * (1 - np.maximum(ax, ay))).sum()
        c = overlap(d[1])
        ax = accept_second(wx[1])[box(wx[0], 0), box(wx[1], 1)]
        ay = accept_second(wy[1])[box(wx[0], 0), box(wx[1], 1)]
        per_row = (c * np.minimum(ax, ay)).sum(axis=1)
        if d[1] == 0:
            per_row += (c * (1 - np.maximum(ax, ay))).sum(axis=1)
        (first_x, law_x), (first_y, law_y) = one_sweep(wx), one_sweep(wy)
        alone = d[1] == 0  # the first update alone is comparable for pairs that differ only in its coordinate
        out.append(
            dict(
                meet=float(met @ per_row),
                tv=_aligned_tv(law_x, law_y, d),
                law_x=law_x,
                law_y=law_y,
                T=T,
                meet_first=float(met.sum()) if alone else np.nan,
                tv_first=_aligned_tv(first_x, first_y, d[:1]) if alone else np.nan,
            )
        )
    return out


def coupled_kernel_maximal(
    run: Run, paper, *, lattice: str, pairs: list, mass: float = 1e-15, target_eps: float | None = None
) -> Measurement:
    """ISDP §4 / App. D.2 ("The joint kernel, given by Algorithm 2 …, is a maximal coupling kernel"), read
    literally: one coupled iteration K̄((x, y), ·) is a maximal coupling of the one-iteration kernels K(x, ·) and
    K(y, ·), P(X' = Y') = 1 − TV(K(x, ·), K(y, ·)). Exact on a two-dimensional ``lattice``
    (:func:`coupled_sweep_exact`) at each target ε (config; ``target_eps`` replaces it) and proposal ε of E1's and
    E2's targets, for ``pairs`` of lattice coordinates. The value is the smallest P(X' = Y') / (1 − TV): 1 when
    the kernel is maximal at every pair, never above 1 (the coupling inequality)."""
    from isdp.targets import generalized_laplace

    lat = _small_lattice(lattice)
    cases = set()
    for exp in ("e1", "e2"):
        eps = float(run.config[exp]["eps"] if target_eps is None else target_eps)
        cases |= {(norm, eps, float(t["proposal_eps"])) for norm, t in run.config[exp]["targets"].items()}
    ratios, parts, first = [], [], []
    for norm, eps, proposal_eps in sorted(cases):
        found = coupled_sweep_exact(lat, generalized_laplace(eps, norm), proposal_eps, pairs, mass)
        each = []
        for (wx, wy), r in zip(pairs, found, strict=True):
            ratios.append(r["meet"] / (1 - r["tv"]))
            each.append(f"{list(wx)}→{list(wy)} {r['meet']:.4f} of {1 - r['tv']:.4f}")
            if np.isfinite(r["meet_first"]) and r["tv_first"] < 1:
                first.append(r["meet_first"] / (1 - r["tv_first"]))
        parts.append(f"{norm} ε {eps:g}, proposal ε {proposal_eps:g}: " + "; ".join(each))
    worst = min(ratios)
    note = "other readings: the proposals alone (ISDP-E1-maximal-coupling) meet with 1 − TV by construction, ratio 1"
    if first:
        note += f"; the first coordinate's update alone, at the pairs that differ only there: smallest {min(first):.4f}"
    return Measurement(
        worst,
        f"smallest P(X' = Y') / (1 − TV) = {worst:.4f} over {len(ratios)} (target, pair) on {lattice}, one coupled "
        f"sweep (P(X' = Y') of 1 − TV: {' | '.join(parts)})",
        note=note,
        n=len(ratios),
    )


def coupling_finite_exact(
    run: Run, paper, *, lattice: str, eps: float, proposal_eps: float, lag: int, horizon: int, radius: int,
    uniforms: str = "common",
) -> Measurement:
    """ISDP §4 / App. D.2 (the L-lag coupled chains "will couple in finite time with probability one"), exactly on
    a rank-1 ``lattice``: the law of Alg. 2's pair propagated for ``horizon`` iterations
    (:func:`.coupling_law.apart_probabilities`) for the ℓ1 and ℓ2 generalized Laplace targets at ``eps``. The value is
    the larger P(X_{L+horizon} ≠ Y_horizon): 0 up to the mass the computation drops when the pair meets with
    probability one and stays met. ``uniforms`` "independent" tests the two Metropolis steps with one uniform each."""
    from isdp.experiments.lattice_study.coupling_law import apart_probabilities
    from isdp.targets import generalized_laplace

    lat = _small_lattice(lattice)
    ends, parts = [], []
    for norm in ("l1", "l2"):
        apart = apart_probabilities(lat, generalized_laplace(eps, norm), proposal_eps=proposal_eps, lag=lag,
                                    horizon=horizon, radius=radius, uniforms=uniforms)
        rate = (apart[59] / apart[19]) ** (1 / 40) if horizon >= 60 else np.nan
        ends.append(float(apart[-1]))
        parts.append(f"{norm}: " + ", ".join(f"t={t} {apart[t - 1]:.2g}" for t in (1, 10, 50, horizon))
                     + f", per-iteration ratio {rate:.3f} from t=20 to 60")
    return Measurement(
        max(ends),
        f"largest P(X_(L+t) ≠ Y_t) at t = {horizon} is {max(ends):.1e} ({lattice}, ε {eps:g}, proposal ε "
        f"{proposal_eps:g}, L = {lag}, {uniforms} uniform(s); {'; '.join(parts)})",
        n=2,
    )


def configured_value(run: Run, paper, *, keys: list[str]) -> Measurement:
    """The project's own value of a setting the document states but our text copy lost: the config entries at the
    dotted ``keys`` (none: the project has no such value)."""
    values = {}
    for key in keys:
        node = run.config
        for part in key.split("."):
            node = node[part]
        values[key] = node
    text = "; ".join(f"{k} = {v}" for k, v in values.items()) if values else "the project has no value of its own"
    return Measurement(text, f"this project: {text}")


def nonnegative_unbiased_lp(
    run: Run, paper, *, total: int, eps: list[float], nonnegative: bool, margin: int
) -> Measurement:
    """ISDP App. E.4 ("when non-negativity is enforced, bias is theoretically unavoidable"): whether an unbiased
    ε-DP mechanism for two counts under their total exists, with non-negative releases or (without
    ``nonnegative``) releases within ``margin`` of the range (:func:`.dp_audits.unbiased_dp_exists`), per ε."""
    from isdp.experiments.lattice_study.dp_audits import unbiased_dp_exists

    exists = {f"eps {e:g}": unbiased_dp_exists(total, float(e), nonnegative, margin) for e in eps}
    space = f"y in {{0..{total}}}" if nonnegative else f"y in {{−{margin}..{total + margin}}}"
    return Measurement(
        exists,
        f"an unbiased ε-DP mechanism for (x, {total} − x) with {space}: "
        + ", ".join(f"{k}: {'feasible' if v else 'infeasible'}" for k, v in exists.items())
        + " (HiGHS)",
        n=len(exists),
    )


def printed_draw_shape(run: Run, paper, *, exp: str, norm: str, file: str, window: float) -> Measurement:
    """ISDP §5 Table 1 / App. E.3 Table 3 as single draws of their law, without ε: under π ∝ e^{−ε‖u‖} on Λ, u
    given its norm is uniform on that shell whatever ε is, so the printed table's shape is judged among this run's
    draws whose norm is within ``window`` (relative) of the printed one. Two statistics that do not grow with the
    norm: the number of zero cells and the largest |u_i| over the norm. The value is each statistic's two-sided
    p-value, 2 min(q, 1 − q), q the printed table's mid-quantile among those draws."""
    printed, flat = _printed_and_drawn(run, exp, norm, file)

    def size(u):
        return _norm(u, norm)

    near = flat[np.abs(size(flat) - size(printed)) <= window * size(printed)]
    stats = {
        "zero cells": lambda u: (u == 0).sum(axis=-1),
        "largest |u_i| / ‖u‖": lambda u: np.abs(u).max(axis=-1) / size(u),
    }
    pvalues, parts = [], []
    for name, stat in stats.items():
        if not len(near):  # no draw to compare with: n = 0 makes the row an error
            break
        mine, theirs = float(stat(printed)), stat(near)
        q = float((theirs < mine).mean() + 0.5 * (theirs == mine).mean())
        pvalues.append(min(1.0, 2 * min(q, 1 - q)))
        parts.append(f"{name}: printed {mine:.3g} at quantile {q:.3f} (draws' median {np.median(theirs):.3g})")
    return Measurement(
        np.asarray(pvalues),
        f"{len(near)} of {len(flat)} draws with ‖u‖ within {window:.0%} of the printed {size(printed):.4g}; "
        + "; ".join(parts),
        n=len(near),
    )


def printed_draws_same_eps(run: Run, paper, *, exp: str, files: dict[str, str]) -> Measurement:
    """ISDP §5 Table 1 and App. E.3 Table 3 as draws of the ℓ1 and ℓ2 laws at one ε, without knowing it: under
    π ∝ e^{−ε‖u‖} on a rank-r lattice, ε‖u‖ is close to Gamma(r, 1) for either norm (Lemma 11's shell counts), so
    the ratio ‖u_ℓ2‖₂ / ‖u_ℓ1‖₁ of independent draws of the two laws hardly depends on ε. The value is the printed
    ratio's two-sided mid-quantile p-value among the ratios of every pair of this run's ℓ2 and ℓ1 draws."""
    from scipy import stats

    sizes, printed = {}, {}
    for norm, file in files.items():
        table, flat = _printed_and_drawn(run, exp, norm, file)
        sizes[norm], printed[norm] = _norm(flat, norm), float(_norm(table, norm))
    ratio = printed["l2"] / printed["l1"]
    l2 = np.sort(sizes["l2"])
    below = np.searchsorted(l2, ratio * sizes["l1"], "left")
    ties = np.searchsorted(l2, ratio * sizes["l1"], "right") - below
    q = float(np.mean((below + 0.5 * ties) / l2.size))
    p = min(1.0, 2 * min(q, 1 - q))
    rank = int(np.linalg.matrix_rank(_experiment_problem(run, exp).lattice().basis))
    gamma_q = float(stats.f.cdf(ratio, 2 * rank, 2 * rank))  # the ratio of two Gamma(r, 1): F(2r, 2r)
    return Measurement(
        np.asarray([p]),
        f"printed ‖T3‖₂ / ‖T1‖₁ = {printed['l2']:.4g} / {printed['l1']:.4g} = {ratio:.3f} at mid-quantile {q:.3f} "
        f"of the ratios of this run's {l2.size} ℓ2 and {sizes['l1'].size} ℓ1 draws (their medians "
        f"{np.median(sizes['l2']):.1f} and {np.median(sizes['l1']):.1f}); two-sided p = {p:.3f}",
        note=f"the Gamma({rank}, 1) approximation (ratio ~ F({2 * rank}, {2 * rank}), no lattice correction) puts it "
        f"at quantile {gamma_q:.3f}",
        n=int(l2.size),
    )


def tv_bound_not_sharp(run: Run, paper, *, case: dict, lags: list[int], n_pairs: int, iterations: list[int],
                       seed: int) -> Measurement:
    """ISDP App. D.2 ("the TV upper bound itself is not an optimal one thus the benefit of sharpness is limited"):
    even at large lags the L-lag estimate stays above the exact TV. On a small lattice where the exact TV of the
    chain started at u = 0 is known (:func:`isdp.exact_laws.exact_tv_curve`, its upper end, so truncation can only
    shrink the gap), ``n_pairs`` coupled pairs per lag: each pair's bound minus the exact TV, averaged over
    ``iterations``. The value is the smallest z-score of the mean gap over the lags (SE from the pairs)."""
    from isdp import coupling
    from isdp.exact_laws import exact_tv_curve
    from isdp.targets import generalized_laplace

    lat, target = _small_lattice(case["lattice"]), generalized_laplace(case["eps"], case["norm"])
    ts = np.asarray(iterations, dtype=np.int64)
    _, tv = exact_tv_curve(lat, target, case["proposal_eps"], case["radius"], [np.zeros(lat.n, dtype=np.int64)],
                           [1.0], ts)
    zs, parts = [], []
    for lag in lags:
        tau = coupling.meeting_times(lat, target, lag=int(lag), n_pairs=n_pairs, proposal_eps=case["proposal_eps"],
                                     seed=seed + int(lag)).tau
        terms = coupling.tv_bound_terms(tau, lag, ts)
        gap = (terms - tv[None, :]).mean(axis=1)
        zs.append(gap.mean() / (gap.std(ddof=1) / np.sqrt(gap.size)))
        worst = int(np.argmax(terms.mean(axis=0) - tv))
        parts.append(f"L = {lag}: mean gap {gap.mean():.3f} ± {gap.std(ddof=1) / np.sqrt(gap.size):.3f} "
                     f"(largest at t = {ts[worst]})")
    return Measurement(
        float(min(zs)),
        f"{case['lattice']} {case['norm']} ε {case['eps']:g}, {n_pairs} pairs per lag: estimate − exact TV averaged "
        f"over t = {ts.min()}…{ts.max()}: " + "; ".join(parts) + f"; smallest {min(zs):.1f} SE",
        n=n_pairs * len(lags),
    )


def lag_tradeoff(run: Run, paper, *, lattice: str, norm: str, eps: float, proposal_eps: float, lags: list[int],
                 n_pairs: int, iterations: list[int], seed: int) -> Measurement:
    """ISDP App. D.2 on the lag L: a smaller L couples sooner but gives a poorer (looser) TV upper bound; a larger L a
    tighter bound at a heavier computational cost. For each lag (increasing), ``n_pairs`` coupled pairs on a small
    lattice (:func:`isdp.coupling.meeting_times`): the bound E max(0, ⌈(τ − L − t)/L⌉) averaged over ``iterations``
    (per pair, so its SE comes from the pairs) and the cost, the iterations a pair runs (τ for X, τ − L for Y). The
    value is the smallest z-score over the successive steps of both: bound(L) − bound(L') and cost(L') − cost(L)
    for each consecutive L < L', each over its standard error."""
    from isdp import coupling
    from isdp.targets import generalized_laplace

    lat, target = _small_lattice(lattice), generalized_laplace(eps, norm)
    ts = np.asarray(iterations, dtype=np.int64)
    per_pair = {}
    for lag in lags:
        tau = coupling.meeting_times(lat, target, lag=int(lag), n_pairs=n_pairs, proposal_eps=proposal_eps,
                                     seed=seed + int(lag)).tau
        per_pair[lag] = (coupling.tv_bound_terms(tau, lag, ts).mean(axis=1), 2 * tau - lag)

    def z(a, b):  # mean(a) − mean(b) over its standard error (independent pairs)
        return (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)

    steps = list(zip(lags[:-1], lags[1:], strict=True))
    zs = [z(per_pair[a][0], per_pair[b][0]) for a, b in steps] + [z(per_pair[b][1], per_pair[a][1]) for a, b in steps]
    return Measurement(float(min(zs)), f"{lattice} {norm} ε {eps:g}, {n_pairs} pairs per lag: mean TV bound over t = "
                                       f"{ts.min()}…{ts.max()}: " + ", ".join(f"L = {lag}: {b.mean():.3f}"
                                                                               for lag, (b, _) in per_pair.items())
                       + "; mean iterations per pair: " + ", ".join(f"L = {lag}: {c.mean():.1f}"
                                                                    for lag, (_, c) in per_pair.items())
                       + f"; smallest step {min(zs):.1f} SE", n=n_pairs * len(lags))


def singleton_bounded_dp(run: Run, paper, *, cells: int, agents: int, eps: float, radius: int,
                         distance: int = 2) -> Measurement:
    """ISDP Example 3: with one counting constraint on the whole universe (the total), the equivalent pairs at the
    smallest nonzero ℓ1 distance (``distance``, 2 for histograms) are exactly the bounded-DP neighbours (one agent's
    record changed), over every histogram of ``agents`` agents on ``cells`` cells; and the generalized Laplace
    mechanism's exact privacy loss on such a pair (the release's exact ℓ1 route at ``eps`` under the total), in the
    text: bounded DP at 2ε. The value: whether the two sets of pairs are the same."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.lattice import sum_constraint
    from isdp.privacy_audit import exact_route_noise, max_privacy_loss

    hists = [np.array(h) for h in itertools.product(range(agents + 1), repeat=cells) if sum(h) == agents]
    equivalent = {(tuple(a), tuple(b)) for a in hists for b in hists
                  if np.abs(a - b).sum() == distance}  # same total, hence equivalent under the singleton
    bounded = set()
    for a in hists:
        for i in range(cells):
            for j in range(cells):
                if i != j and a[i] > 0:  # one agent moves from cell i to cell j
                    b = a.copy()
                    b[i] -= 1
                    b[j] += 1
                    bounded.add((tuple(a), tuple(b)))
    noise = exact_route_noise(ExactL1Sampler.build(sum_constraint(cells)), Fraction(str(eps)), radius)
    a, b = hists[0], next(np.array(q) for p, q in sorted(bounded) if p == tuple(hists[0]))
    ratio = max_privacy_loss(noise.shifted(a), noise.shifted(b)) / (eps * np.abs(a - b).sum())
    value = {"same_pairs": equivalent == bounded}
    return Measurement(value, f"{len(hists)} histograms of {agents} agents on {cells} cells: {len(equivalent)} "
                              f"ordered equivalent pairs at ℓ1 distance {distance}, {len(bounded)} bounded-DP "
                              f"neighbour pairs ({'the same set' if value['same_pairs'] else 'NOT the same set'}); "
                              f"the exact ℓ1 route at ε = {eps:g} loses {ratio:.6f} × ε·‖x − x'‖₁ = "
                              f"{ratio * eps * np.abs(a - b).sum():.4f} on a neighbour pair")


def joint_invariant_inference(run: Run, paper, *, invariants: list[list[int]], quantity: list[int],
                              box: int) -> Measurement:
    """ISDP §2 after Prop 7: mechanisms that keep different invariants, released together, let one infer what
    neither reveals. Each mechanism discloses its invariant A_i x exactly (A_i M_i(x) = A_i x); over every table x
    in {0, …, ``box``}^n, whether the disclosed values determine ``quantity``·x: from each invariant alone (some x
    shares its A_i x with an x' of another quantity) and from all together. The value: {alone, together}, true
    where the quantity is determined at every x."""
    A = [np.atleast_2d(np.asarray(a, dtype=np.int64)) for a in invariants]
    q = np.asarray(quantity, dtype=np.int64)
    xs = np.array(list(itertools.product(range(box + 1), repeat=q.size)), dtype=np.int64)

    def determined(rows) -> bool:
        keys = np.hstack([xs @ a.T for a in rows])
        seen: dict[bytes, set] = {}
        for key, value in zip(keys, xs @ q, strict=True):
            seen.setdefault(key.tobytes(), set()).add(int(value))
        return all(len(v) == 1 for v in seen.values())

    value = {"alone": [determined([a]) for a in A], "together": determined(A)}
    return Measurement(value, f"{len(xs):,} tables in {{0…{box}}}^{q.size}, quantity {q.tolist()}·x: determined by "
                              + ", ".join(f"{a.tolist()} alone: {'yes' if d else 'no'}"
                                          for a, d in zip(A, value["alone"], strict=True))
                              + f"; by all together: {'yes' if value['together'] else 'no'}")


def neighbour_invariant_kinds(run: Run, paper) -> Measurement:
    """ISDP §1 / §2: neighbouring datasets (one person's record changed) "may or may not meet the same invariants".
    For each of the paper's invariant systems — E1's three intersecting constraints over 14 records, E2's table
    margins, E3's state totals over the committed county file — every one-person move from a populated cell a to
    another cell b keeps the invariants exactly when A's columns a and b are equal. The value is the number of
    systems with moves of both kinds; the text gives each system's counts."""
    from isdp.experiments.nhgis import load_counties

    counties = load_counties(run.data(run.config["data"]["embedded"]))
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
    return Measurement(both, f"{both} of {len(systems)} invariant systems have neighbours of both kinds ("
                             + "; ".join(parts) + ")", n=len(systems))


def lattice_proposal_efficiency(run: Run, paper, *, exp: str, invariants: int,
                                blind_eps: float | None = None) -> Measurement:
    """ISDP §1/§4: proposals that satisfy the invariants keep a reasonable acceptance rate. Per target of ``exp``
    (E1's or E2's), the run's acceptance rate of the lattice proposals (the chains' per-component rate, in the ESS
    table) against the best any invariant-blind proposal at the same scale can do: i.i.d. DG noise at the target's
    proposal ε on every cell (``blind_eps`` replaces it) is accepted only if it lands on the lattice, P(A z = 0)
    (:func:`.theory.iid_invariant_probability`, exact) for the first ``invariants`` rows of A only: a larger
    probability than for all of them, so a bound in the blind proposal's favour (and a 2-D rather than a 3-D grid).
    The value is the smallest ratio."""
    from isdp.double_geometric import dg_pmf
    from isdp.experiments.lattice_study.theory import iid_invariant_probability

    A = _experiment_problem(run, exp).A
    ratios, parts = [], []
    for norm, target in run.config[exp]["targets"].items():
        eps = float(target["proposal_eps"] if blind_eps is None else blind_eps)
        support = np.arange(-int(np.ceil(45 / eps)), int(np.ceil(45 / eps)) + 1)  # DG mass beyond it below e^-45
        landing = iid_invariant_probability(A[:invariants], dg_pmf(support, eps), 1e-12)[0]
        accepted = float(run.table(f"{exp}_ess_{norm}")["acceptance"].iloc[0])
        ratios.append(accepted / landing)
        parts.append(f"{norm}: lattice proposals accepted {accepted:.3f}, blind DG(ε = {eps:g}) meets the first "
                     f"{invariants} invariants with probability {landing:.3g}: "
                     f"ratio {accepted / landing:,.0f}")
    return Measurement(min(ratios), f"{exp.upper()}: " + "; ".join(parts))


def _exact_tail_rate(law, rank: int, window: list[int]) -> tuple[float, int, int, float, float]:
    """The exponential rate of P(‖u‖₁ ≥ t)/t^{rank−1} between the two ends of ``window`` (each raised to the next
    norm the lattice attains: a multiple of the norms' gcd), from ``law`` (an :class:`isdp.privacy_audit.Law` on a
    box), taken conservatively: the box's left-out mass (``law.outside``, relative to the mass inside) lowers the
    tail at the first end by at most the factor 1 + outside and raises it at the second by at most outside.
    Returns (rate, t1, t2, T(t1) lower, T(t2) upper)."""
    norms = np.abs(law.points).sum(axis=1)
    step = int(np.gcd.reduce(norms))
    t1, t2 = (int(t) + (-int(t) % step) for t in window)
    low = float(law.probs[norms >= t1].sum()) / (1 + law.outside)
    high = float(law.probs[norms >= t2].sum()) + law.outside
    rate = (np.log(low / t1 ** (rank - 1)) - np.log(high / t2 ** (rank - 1))) / (t2 - t1)
    return float(rate), t1, t2, low, high


def l1_tail_exact(run: Run, paper, *, lattices: list[str], eps: list[float], window: list[int], radius: int,
                  law_scale: float = 1.0) -> Measurement:
    """ISDP Thm 12 (7) on the exact law, without draws and without the lost constant: P(‖u‖₁ ≥ t) ≤ c t^{r−1} e^{−εt}
    for large t means T(t) e^{εt}/t^{r−1} does not grow, i.e. the exponential rate of T(t)/t^{r−1} over ``window``
    is at least ε. The ℓ1 law is the exact route's, from its construction (:func:`isdp.privacy_audit.exact_route_noise`
    on the box |u_free|∞ ≤ ``radius``, which holds every point of norm ≤ radius), on each of ``lattices``
    (:func:`_small_lattice`) at each ε of ``eps``; ``law_scale`` < 1 draws the law at that multiple of ε instead (a
    heavier tail) while the rate is still divided by ε. The value is the smallest rate / ε."""
    from fractions import Fraction

    from isdp.exact_sampling import ExactL1Sampler
    from isdp.privacy_audit import exact_route_noise

    rates, parts = [], []
    for name in lattices:
        lattice = _small_lattice(name)
        sampler = ExactL1Sampler.build(lattice.A)
        for e in eps:
            law = exact_route_noise(sampler, Fraction(str(e)) * Fraction(str(law_scale)), radius)
            rate, t1, t2, low, high = _exact_tail_rate(law, lattice.dim, window)
            rates.append(rate / e)
            parts.append(f"{name} (r = {lattice.dim}) at ε = {e:g}: λ/ε = {rate / e:.4f} (T({t1}) ≥ {low:.3g}, "
                         f"T({t2}) ≤ {high:.3g}, left out ≤ {law.outside:.0e})")
    return Measurement(min(rates), f"smallest exact tail rate λ/ε = {min(rates):.4f} over t ∈ [{window[0]}, "
                                   f"{window[1]}] beyond t^(r−1) ({'; '.join(parts)})", n=len(rates))
