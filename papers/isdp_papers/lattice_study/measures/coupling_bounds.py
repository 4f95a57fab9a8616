"""Alg. 2's L-lag coupling and its TV upper bound (ISDP §4, App. D.2).

The bound against the exact TV, its (lack of) sharpness and the lag trade-off, the proposals' maximal coupling, the
joint kernel against a maximal coupling of the one-iteration kernels, and meeting in finite time. The exact laws of the
coupled sweep and pair are :mod:`isdp.exact` and :mod:`..exact_tv`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from isdp_papers.claims import Measurement, Run

from .sampler_kernel import _small_lattice


def tv_bound_valid(
    run: Run,
    paper,
    *,
    cases: list[dict],
    lags: list[int],
    n_pairs: int,
    iterations: list[int],
    resolvable: float,
    seed: int,
) -> Measurement:
    """ISDP §4 / App. D.2: the L-lag meeting times estimate an upper bound on d_TV(π_t, π).

    On small lattices the exact TV of the chain started at u = 0 (:func:`..exact_tv.exact_tv_curve`; its lower end,
    tv_box minus the box's losses, so truncation can only favour a violation) against the estimate E max(0, ⌈(τ − L −
    t)/L⌉) from ``n_pairs`` coupled pairs (:func:`isdp.mcmc.meeting_times`, :func:`.studies.tv_curves`), per lag and per
    t where the exact TV is at least ``resolvable``. The value is the one-sided p-value of each shortfall, Φ̄((TV −
    estimate)/SE): small when the estimate falls below the exact TV beyond its Monte Carlo error.
    """
    from scipy.stats import norm as normal

    from isdp import mcmc
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.exact_tv import exact_tv_curve
    from isdp_papers.lattice_study.studies import tv_curves

    ts = np.asarray(iterations, dtype=np.int64)
    pvalues, parts = [], []
    for i, case in enumerate(cases):
        lattice, target = _small_lattice(case["lattice"]), generalized_laplace(case["eps"], case["norm"])
        box, upper = exact_tv_curve(
            lattice, target, case["proposal_eps"], case["radius"], [np.zeros(lattice.n, dtype=np.int64)], [1.0], ts
        )
        exact = 2 * box - upper  # the true TV is at least tv_box less what the box lost (upper − box)
        check = exact >= resolvable
        for lag in lags:
            mt = mcmc.meeting_times(
                lattice,
                target,
                lag=int(lag),
                n_pairs=n_pairs,
                proposal_eps=case["proposal_eps"],
                seed=seed + 1000 * i + int(lag),
            )
            curve = tv_curves(pd.DataFrame({"lag": lag, "tau": mt.tau}), t_max=int(ts.max()))
            est, se = curve["tv_bound"].to_numpy()[ts], curve["se"].to_numpy()[ts]
            gap = exact[check] - est[check]
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(se[check] > 0, gap / se[check], np.where(gap > 0, np.inf, -np.inf))
            pvalues.extend(normal.sf(z).tolist())
            worst = int(np.argmax(z))
            parts.append(
                f"{case['lattice']} {case['norm']} ε {case['eps']:g}, lag {lag}: at t = {ts[check][worst]} "
                f"exact {exact[check][worst]:.3f}, estimate {est[check][worst]:.3f} ± {se[check][worst]:.3f}"
            )
        parts[-1] += f" (exact TV ≥ {resolvable:g} at t ≤ {ts[check].max()}; box losses ≤ {np.max(upper - box):.0e})"
    p = np.asarray(pvalues)
    return Measurement(
        p,
        f"smallest one-sided p of the estimate below the exact TV = {p.min():.3f} over {p.size} "
        f"(case, lag, t), {n_pairs} pairs each; closest: " + "; ".join(parts),
        n=int(p.size),
    )


def tv_bound_not_sharp(
    run: Run, paper, *, case: dict, lags: list[int], n_pairs: int, iterations: list[int], seed: int
) -> Measurement:
    """ISDP App. D.2 ("the TV upper bound itself is not an optimal one thus the benefit of sharpness is limited").

    Even at large lags the L-lag estimate stays above the exact TV. On a small lattice where the exact TV of the chain
    started at u = 0 is known (:func:`..exact_tv.exact_tv_curve`, its upper end, so truncation can only shrink the gap),
    ``n_pairs`` coupled pairs per lag: each pair's bound minus the exact TV, averaged over ``iterations``. The value is
    the smallest z-score of the mean gap over the lags (SE from the pairs).
    """
    from isdp import mcmc
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.exact_tv import exact_tv_curve

    lat, target = _small_lattice(case["lattice"]), generalized_laplace(case["eps"], case["norm"])
    ts = np.asarray(iterations, dtype=np.int64)
    _, tv = exact_tv_curve(
        lat, target, case["proposal_eps"], case["radius"], [np.zeros(lat.n, dtype=np.int64)], [1.0], ts
    )
    zs, parts = [], []
    for lag in lags:
        pairs = mcmc.meeting_times(
            lat, target, lag=int(lag), n_pairs=n_pairs, proposal_eps=case["proposal_eps"], seed=seed + int(lag)
        )
        terms = pairs.tv_bound_terms(ts)
        gap = (terms - tv[None, :]).mean(axis=1)
        zs.append(gap.mean() / (gap.std(ddof=1) / np.sqrt(gap.size)))
        worst = int(np.argmax(terms.mean(axis=0) - tv))
        parts.append(
            f"L = {lag}: mean gap {gap.mean():.3f} ± {gap.std(ddof=1) / np.sqrt(gap.size):.3f} "
            f"(largest at t = {ts[worst]})"
        )
    return Measurement(
        float(min(zs)),
        f"{case['lattice']} {case['norm']} ε {case['eps']:g}, {n_pairs} pairs per lag: estimate − exact TV averaged "
        f"over t = {ts.min()}…{ts.max()}: " + "; ".join(parts) + f"; smallest {min(zs):.1f} SE",
        n=n_pairs * len(lags),
    )


def lag_tradeoff(
    run: Run,
    paper,
    *,
    lattice: str,
    norm: str,
    eps: float,
    proposal_eps: float,
    lags: list[int],
    n_pairs: int,
    iterations: list[int],
    seed: int,
) -> Measurement:
    """ISDP App. D.2 on the lag L.

    A smaller L couples sooner but gives a poorer (looser) TV upper bound; a larger L a tighter bound at a heavier
    computational cost. For each lag (increasing), ``n_pairs`` coupled pairs on a small lattice
    (:func:`isdp.mcmc.meeting_times`): the bound E max(0, ⌈(τ − L − t)/L⌉) averaged over ``iterations`` (per pair, so
    its SE comes from the pairs) and the cost, the iterations a pair runs (τ for X, τ − L for Y). The value is the
    smallest z-score over the successive steps of both: bound(L) − bound(L') and cost(L') − cost(L) for each consecutive
    L < L', each over its standard error.
    """
    from isdp import mcmc
    from isdp.lattice import generalized_laplace

    lat, target = _small_lattice(lattice), generalized_laplace(eps, norm)
    ts = np.asarray(iterations, dtype=np.int64)
    per_pair = {}
    for lag in lags:
        pairs = mcmc.meeting_times(
            lat, target, lag=int(lag), n_pairs=n_pairs, proposal_eps=proposal_eps, seed=seed + int(lag)
        )
        per_pair[lag] = (pairs.tv_bound_terms(ts).mean(axis=1), 2 * pairs.tau - lag)

    def z(a, b):  # mean(a) − mean(b) over its standard error (independent pairs)
        return (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)

    steps = list(zip(lags[:-1], lags[1:], strict=True))
    zs = [z(per_pair[a][0], per_pair[b][0]) for a, b in steps] + [z(per_pair[b][1], per_pair[a][1]) for a, b in steps]
    return Measurement(
        float(min(zs)),
        f"{lattice} {norm} ε {eps:g}, {n_pairs} pairs per lag: mean TV bound over t = "
        f"{ts.min()}…{ts.max()}: "
        + ", ".join(f"L = {lag}: {b.mean():.3f}" for lag, (b, _) in per_pair.items())
        + "; mean iterations per pair: "
        + ", ".join(f"L = {lag}: {c.mean():.1f}" for lag, (_, c) in per_pair.items())
        + f"; smallest step {min(zs):.1f} SE",
        n=n_pairs * len(lags),
    )


def dg_tv_shift(shift: int, eps: float) -> float:
    """TV distance between DG(ε) and shift + DG(ε): ``1 - P(X = Y)`` under maximal coupling.

    Parameters
    ----------
    shift : int
        The shift d between the two laws' centres (its sign does not matter).
    eps : float
        The parameter ε > 0.

    Returns
    -------
    float
        1 − Σ_k min(DG(k), DG(k − d)), summed where both tails are above 1e-18; 0 for d = 0.

    See Also
    --------
    isdp.mcmc.DoubleGeometric.maximal_coupling_rvs : Pairs that meet with probability 1 minus this.

    Examples
    --------
    For a shift of one the distance is tanh(ε/2):

    >>> import numpy as np
    >>> from isdp_papers.lattice_study.measures.coupling_bounds import dg_tv_shift
    >>> round(dg_tv_shift(1, 1.0), 9), round(float(np.tanh(0.5)), 9), dg_tv_shift(0, 1.0)
    (0.462117157, 0.462117157, 0.0)
    """
    from isdp.mcmc import DoubleGeometric  # deferred: isdp.mcmc loads numba

    d = abs(int(shift))
    if d == 0:
        return 0.0
    reach = d + int(np.ceil(np.log(1e-18) / -eps))  # beyond it both tails are < 1e-18
    ks = np.arange(-reach, reach + 1)
    return float(1.0 - np.minimum(DoubleGeometric(eps).pmf(ks), DoubleGeometric(eps).pmf(ks - d)).sum())


def maximal_coupling_z(
    run: Run, paper, *, shifts: list[int], size: int, seed: int, coupling: str = "maximal"
) -> Measurement:
    """ISDP §4 / App. D.2.

    Alg. 2's joint kernel couples each coordinate's proposals maximally — X ~ DG(ε) and Y ~ s + DG(ε) with P(X = Y) = 1
    − TV (:meth:`isdp.mcmc.DoubleGeometric.maximal_coupling_rvs`, the draw the coupled sweep makes). At each proposal ε
    of E1's and E2's targets (config) and each shift s, ``size`` pairs: z-scores of the meeting rate against 1 − TV
    (:func:`dg_tv_shift`) and of the two marginal means against 0 and s (binomial and DG standard errors).
    ``coupling`` "independent" draws X and Y independently.
    """
    from isdp.mcmc import DoubleGeometric

    eps_list = sorted({float(t["proposal_eps"]) for exp in ("e1", "e2") for t in run.config[exp]["targets"].values()})
    z, parts = [], []
    for i, (eps, s) in enumerate(itertools.product(eps_list, shifts)):
        if coupling == "maximal":
            pairs = DoubleGeometric(eps).maximal_coupling_rvs(0, s, size, seed + i)
        else:
            rng = np.random.default_rng(seed + i)
            pairs = np.column_stack([DoubleGeometric(eps).rvs(size, rng), s + DoubleGeometric(eps).rvs(size, rng)])
        meet, target = float(np.mean(pairs[:, 0] == pairs[:, 1])), 1 - dg_tv_shift(s, eps)
        sd = np.sqrt(DoubleGeometric(eps).variance() / size)
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


def coupled_kernel_maximal(
    run: Run, paper, *, lattice: str, pairs: list, mass: float = 1e-15, target_eps: float | None = None
) -> Measurement:
    """ISDP §4 / App. D.2 ("The joint kernel, given by Algorithm 2 …, is a maximal coupling kernel"), read literally.

    One coupled iteration K̄((x, y), ·) is a maximal coupling of the one-iteration kernels K(x, ·) and K(y, ·), P(X' =
    Y') = 1 − TV(K(x, ·), K(y, ·)). Exact on a two-dimensional ``lattice`` (``coupled_laws.coupled_sweep_exact``)
    at each target ε (config; ``target_eps`` replaces it) and proposal ε of E1's and E2's targets, for ``pairs`` of
    lattice coordinates. The value is the smallest P(X' = Y') / (1 − TV): 1 when the kernel is maximal at every pair,
    never above 1 (the coupling inequality).
    """
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.coupled_laws import coupled_sweep_exact

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
    run: Run,
    paper,
    *,
    lattice: str,
    eps: float,
    proposal_eps: float,
    lag: int,
    horizon: int,
    radius: int,
    uniforms: str = "common",
) -> Measurement:
    """Measure ISDP §4 / App. D.2 exactly on a rank-1 ``lattice``: the coupled chains meet in finite time.

    The paper: the L-lag coupled chains "will couple in finite time with probability one". Measured exactly on a rank-1
    ``lattice``: the law of Alg. 2's pair propagated for ``horizon`` iterations
    (``coupled_laws.apart_probabilities``) for the ℓ1 and ℓ2 generalized Laplace targets
    at ``eps``. The value is the larger P(X_{L+horizon} ≠ Y_horizon): 0 up to the mass the computation drops when the
    pair meets with probability one and stays met. ``uniforms`` "independent" tests the two Metropolis steps with one
    uniform each.
    """
    from isdp.lattice import generalized_laplace
    from isdp_papers.lattice_study.coupled_laws import apart_probabilities

    lat = _small_lattice(lattice)
    ends, parts = [], []
    for norm in ("l1", "l2"):
        apart = apart_probabilities(
            lat,
            generalized_laplace(eps, norm),
            proposal_eps=proposal_eps,
            lag=lag,
            horizon=horizon,
            radius=radius,
            uniforms=uniforms,
        )
        rate = (apart[59] / apart[19]) ** (1 / 40) if horizon >= 60 else np.nan
        ends.append(float(apart[-1]))
        parts.append(
            f"{norm}: "
            + ", ".join(f"t={t} {apart[t - 1]:.2g}" for t in (1, 10, 50, horizon))
            + f", per-iteration ratio {rate:.3f} from t=20 to 60"
        )
    return Measurement(
        max(ends),
        f"largest P(X_(L+t) ≠ Y_t) at t = {horizon} is {max(ends):.1e} ({lattice}, ε {eps:g}, proposal ε "
        f"{proposal_eps:g}, L = {lag}, {uniforms} uniform(s); {'; '.join(parts)})",
        n=2,
    )
