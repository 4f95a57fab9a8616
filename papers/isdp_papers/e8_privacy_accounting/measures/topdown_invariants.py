"""Measures of what the TopDown talk says invariants do to privacy and accuracy.

DP algorithms stay DP under invariants (a toy TopDown with pure-DP noise), consistency with the invariants can increase
accuracy, and the failsafe ('Workarounds').

Statements: ``tda_toy_pure_dp``, ``consistency_accuracy``, ``tda_failsafe``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.nhgis.counties import load_counties


def tda_toy_pure_dp(
    run: Run, paper, *, x: list[int], within: list[int], across: list[int], kept: list[int], epsilon: float, radius: int
) -> Measurement:
    """Return the toy TDA of :func:`tda_toy_invariants` with the talk's pure-DP noise.

    Two-sided geometric noise, P(k) ∝ e^(−ε|k|), on every cell, then the closest nonnegative integer table with c =
    (total, the cells ``kept``). For ``within`` (same c) the exact largest |ln P_x(z) − ln P_x'(z)| over the released
    tables z, over the noise's ε‖x − x'‖₁; for ``across`` (another c) whether the released tables can coincide. The
    release reads the noisy cells only where they are not kept, so only those are enumerated (±``radius`` around each
    count).
    """
    from isdp_papers.e8_privacy_accounting.zcdp_audit import closest_dataset

    steps = np.arange(-radius, radius + 1)
    log_pmf = -epsilon * np.abs(steps) - np.log(np.sum(np.exp(-epsilon * np.abs(steps))))
    free = [i for i in range(len(x)) if i not in kept]

    def law(v) -> dict[tuple, float]:
        out: dict[tuple, float] = {}
        for offsets in itertools.product(range(len(steps)), repeat=len(free)):
            t = list(v)
            for i, o in zip(free, offsets, strict=True):
                t[i] = v[i] + steps[o]
            z = closest_dataset(t, v, kept)
            out[z] = np.logaddexp(out.get(z, -np.inf), sum(log_pmf[o] for o in offsets))
        return out

    laws = {name: law(v) for name, v in (("x", x), ("within", within), ("across", across))}
    budget = epsilon * float(np.abs(np.subtract(within, x)).sum())
    support = laws["x"].keys() | laws["within"].keys()
    loss = max(abs(laws["x"].get(z, -np.inf) - laws["within"].get(z, -np.inf)) for z in support)
    shared = laws["x"].keys() & laws["across"].keys()
    value = {"within_budget": bool(loss <= budget * (1 + 1e-9)), "common_support_across": bool(shared)}
    return Measurement(
        value,
        f"x = {x}, c = (total, cells {kept}), two-sided geometric noise at ε = {epsilon:g} per "
        f"cell: largest |log-ratio| of the released tables for x' = {within} {loss:.4f}, over "
        f"ε‖x − x'‖₁ = {budget:g}: {loss / budget:.4f}; x'' = {across} (same total only): "
        f"{len(shared)} released tables in common, so no finite ε",
        note=f"noise truncated to ±{radius} per cell (mass beyond about "
        f"{2 * math.exp(-epsilon * radius):.0e} per cell)",
    )


@ec.reads_committed
def consistency_accuracy(run: Run, paper, *, eps: float, draws: int, seed: int, total_offset: int = 0) -> Measurement:
    """Return the talk's 'making published data consistent with the invariants could increase accuracy', in its frame.

    For each state of the committed county file with at least two counties, ``draws`` releases of i.i.d. DG(ε) noisy
    county counts, and the same made consistent with the state total (+ ``total_offset``: a wrong invariant) by
    TopDown's L2 step, the nonnegative least-squares fit (:func:`isdp.baselines.nonnegative_total_projection`). The
    value is the smallest z over the states of the paired drop in squared error (noisy − consistent), SE from the draws;
    the text gives the error ratios beside the exact (k − 1)/k of the projection without s ≥ 0.
    """
    from isdp.baselines import nonnegative_total_projection
    from isdp.mcmc import DoubleGeometric

    counties = load_counties(ec.committed(run, run.config["data"]["embedded"]))
    rng = np.random.default_rng(seed)
    zs, ratios = {}, {}
    for state, g in counties.groupby("state_abbr"):
        x = g["sf1_pop"].to_numpy(dtype=float)
        if x.size < 2:
            continue
        noisy = x + DoubleGeometric(eps).rvs((draws, x.size), rng)
        consistent = nonnegative_total_projection(noisy, x.sum() + total_offset)
        before, after = ((noisy - x) ** 2).sum(axis=1), ((consistent - x) ** 2).sum(axis=1)
        drop = before - after
        zs[state] = drop.mean() / (drop.std(ddof=1) / np.sqrt(draws))
        ratios[state] = (after.mean() / before.mean(), (x.size - 1) / x.size)
    worst = min(zs, key=zs.get)
    extremes = sorted(ratios, key=lambda s: ratios[s][0])
    better = sum(r < 1 for r, _ in ratios.values())
    return Measurement(
        float(zs[worst]),
        f"{len(zs)} states with ≥ 2 counties, {draws} releases each at ε = {eps:g}"
        f"{f', the total off by {total_offset:+d}' if total_offset else ''}: "
        f"consistent counts more accurate in {better}; "
        f"squared error of the consistent counts over the noisy ones from "
        f"{ratios[extremes[0]][0]:.3f} ({extremes[0]}; (k − 1)/k = "
        f"{ratios[extremes[0]][1]:.3f}) to {ratios[extremes[-1]][0]:.4f} "
        f"({extremes[-1]}; {ratios[extremes[-1]][1]:.4f}); smallest z of the drop "
        f"{zs[worst]:.1f} ({worst})",
        n=len(zs),
    )


@ec.reads_committed
def tda_failsafe(
    run: Run,
    paper,
    *,
    state: str,
    shares: list[float],
    epsilon_parent: float,
    epsilon_children: float,
    draws: int,
    seed: int,
    k: float,
    weaker: str = "total",
) -> Measurement:
    """Return the talk's failsafe ('Workarounds') on a two-level toy.

    The parent ``state`` (its population the invariant) and its counties as the children, each county's 2010 population
    split into cells by ``shares`` (the remainder of the flooring in the largest); identity queries with double
    geometric noise at ε per cell on each level (``epsilon_parent``, ``epsilon_children``); the regular solve and the
    failsafe (``weaker``) of :func:`rounding.two_level_solve` on the same ``draws`` measurements. Value: whether the
    final parent's mean L1 error is larger in the failsafe beyond ``k`` SE of the paired difference, and whether the
    state total is exact in every draw of both.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.e8_privacy_accounting.rounding import two_level_solve

    t = ec.committed_csv(
        run,
        run.config["data"]["embedded"],
        dtype={"state_fips": str},
        key="gisjoin",
        filled=["state_abbr"],
        count=["sf1_pop"],
    )
    pop = t.loc[t["state_abbr"] == state, "sf1_pop"].to_numpy()
    children = np.floor(np.outer(pop, shares)).astype(int)
    children[:, int(np.argmax(shares))] += pop - children.sum(axis=1)
    parent, total = children.sum(axis=0), int(pop.sum())
    m, c = children.shape
    rng = np.random.default_rng(seed)
    parent_noisy = parent + DoubleGeometric(epsilon_parent).rvs((draws, c), rng)
    children_noisy = children + DoubleGeometric(epsilon_children).rvs((draws, m * c), rng).reshape(draws, m, c)
    solves = {
        name: two_level_solve(parent_noisy, children_noisy, total, w)
        for name, w in (("regular", None), ("failsafe", weaker))
    }
    parent_err = {n: np.abs(p - parent).sum(axis=1) for n, (p, _) in solves.items()}
    child_err = {n: np.abs(ch - children).sum(axis=(1, 2)).mean() for n, (_, ch) in solves.items()}
    diff = parent_err["failsafe"] - parent_err["regular"]
    se = float(diff.std(ddof=1) / np.sqrt(draws))
    residual = max(float(np.abs(p.sum(axis=1) - total).max()) for p, _ in solves.values())
    value = {"worse": bool(diff.mean() > k * se), "invariants": residual == 0}
    mean = {n: e.mean() for n, e in parent_err.items()}
    return Measurement(
        value,
        f"{state}'s {m} counties × {c} cells, ε = {epsilon_parent:g} (state) and {epsilon_children:g} (counties) per "
        f"cell: mean L1 error of the final state histogram {mean['regular']:.2f} regular, {mean['failsafe']:.2f} "
        f"failsafe (weaker requirement: {weaker}); difference {diff.mean():+.2f} ± {se:.2f} SE "
        f"(z = {diff.mean() / se:.1f}, {draws} paired draws); largest |state total − {total:,}| {residual:g}",
        se=se,
        note=f"the counties' mean L1 error: {child_err['regular']:.2f} regular, {child_err['failsafe']:.2f} "
        f"failsafe; cells split by shares {shares} (this project's toy), seed {seed}",
        n=draws,
    )
