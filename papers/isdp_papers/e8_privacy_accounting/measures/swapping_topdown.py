"""Measures of the Swapping slides' statements about TopDown (TDA) and SafeTab.

ZCDP budgets as ε, their composition, and TDA's invariants.

Statements: the US Decennial Censuses table's ρ and ε (``tda_epsilon``, ``zcdp_budget_epsilon``,
``zcdp_composition_gap``); discrete Gaussian noise is ρ-zCDP (``discrete_gaussian_zcdp``, ``zcdp_budget``); TDA
satisfies DP subject to its invariants, and not for a proper subset of them (``tda_toy_invariants``,
``tda_proper_subsets``); swapping's invariants are finer than TDA's (``swap_finer_than_tda``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e8_privacy_accounting.accounting import dp_to_zcdp, zcdp_to_dp


def tda_epsilon(
    run: Run,
    paper,
    *,
    rho: float,
    delta: float,
    rho_rounding: float,
    eps_rounding: float,
    conversion: str | None = None,
) -> Measurement:
    """ε of the printed ρ at δ under ``conversion`` (default: the configured one).

    The point of ε([ρ − r, ρ + r]) nearest the paper's.

    ``rho_rounding`` and ``eps_rounding`` are half a unit of the last printed digit of ρ and ε.
    """
    method = conversion or run.config["e8"]["tda"]["conversion"]
    t = ec.table(
        run,
        "e8_tda_conversion",
        key="conversion",
        filled=["conversion"],
        positive=["rho", "delta", "epsilon", "epsilon_rho_low", "epsilon_rho_high"],
    )
    where = str(run.path("tables/e8_tda_conversion.csv"))
    if method not in set(t["conversion"]):
        raise ec.EvidenceError(f"{where}: no row of the conversion {method!r}")
    # every ε is its conversion of the printed ρ (and of ρ ± its rounding) at the printed δ: recomputed, not trusted
    ec.check_consistent(t["rho"], rho, where, f"rho = the printed {rho:g}")
    ec.check_consistent(t["delta"], delta, where, f"delta = the printed {delta:g}")
    for column, r in (
        ("epsilon", rho),
        ("epsilon_rho_low", rho - rho_rounding),
        ("epsilon_rho_high", rho + rho_rounding),
    ):
        ec.check_consistent(
            t[column],
            [zcdp_to_dp(r, delta, m) for m in t["conversion"]],
            where,
            f"{column} = the row's conversion of ρ = {r:g} at δ = {delta:g}",
            rtol=1e-6,
        )
    t = t.set_index("conversion")
    lo, hi = float(t.loc[method, "epsilon_rho_low"]), float(t.loc[method, "epsilon_rho_high"])
    value = min(max(float(paper), lo), hi)
    rho_needed = dp_to_zcdp(float(paper) - eps_rounding, delta, method)  # smallest ρ whose ε rounds to the paper's
    others = "; ".join(f"{m} {r.epsilon:.3f}" for m, r in t.iterrows() if m != method)
    text = (
        f"{method}: ε({rho:g}) = {t.loc[method, 'epsilon']:.4f}, over ρ ∈ [{rho - rho_rounding:g}, "
        f"{rho + rho_rounding:g}] ε ∈ [{lo:.4f}, {hi:.4f}]; nearest to the paper: {value:.4f}. Other "
        f"conversions at ρ = {rho:g}: {others}"
    )
    note = (
        f"at ρ = {rho:g} exactly the {method} conversion gives {zcdp_to_dp(rho, delta, method):.2f}; the printed "
        f"ε needs an unrounded ρ ≥ {rho_needed:.4f}, inside ρ's printed rounding"
    )
    return Measurement(value, text, note=note)


def zcdp_budget_epsilon(run: Run, paper, *, delta: float, conversion: str) -> Measurement:
    """Return the printed zCDP ρ as ε at δ (to set beside a budget that cannot be checked here)."""
    eps = zcdp_to_dp(float(paper), delta, conversion)
    return Measurement(eps, f"ρ = {float(paper):g} is ε = {eps:.2f} at δ = {delta:g} ({conversion} conversion)")


def zcdp_composition_gap(run: Run, paper, *, parts: list[str], total: str) -> Measurement:
    """Measure printed zCDP budgets against composition.

    ZCDP's ρ adds up over releases of the same persons (Bun & Steinke 2016, Lemma 2.3), so the budget printed for
    several products together should be the sum of theirs. The value is |ρ(total) − Σ ρ(parts)|, ``paper`` mapping each
    printed label to its ρ.
    """
    added = sum(float(paper[p]) for p in parts)
    gap = abs(float(paper[total]) - added)
    return Measurement(
        gap,
        f"{total}: ρ = {float(paper[total]):g} printed; "
        + " + ".join(f"{p} {float(paper[p]):g}" for p in parts)
        + f" = {added:g} by composition; gap {gap:.2f}",
    )


def discrete_gaussian_zcdp(
    run: Run, paper, *, variances: list[float], shifts: list[list[int]], alphas: list[float], radius_sd: float
) -> Measurement:
    """Measure the exact sup over α of D_α/α between N_Z(0, σ²) and its shift against the cited zCDP budget.

    Cells are independent and their divergences add; the budget is ρ = ‖shift‖₂²/(2σ²) (Canonne, Kamath & Steinke); the
    value is the ratio farthest from 1 over the settings. D_nor of the slides is √(sup D_α/α) = √ρ. The laws live on
    ±``radius_sd`` SDs (the mass beyond is below e^(−radius_sd²/2), and every probability inside stays above
    floating-point underflow).
    """
    from isdp_papers.e8_privacy_accounting.zcdp_audit import discrete_gaussian_law, renyi_divergence

    ratios = {}
    for sigma2 in variances:
        radius = math.ceil(radius_sd * math.sqrt(sigma2))
        centred = discrete_gaussian_law(sigma2, radius)
        for shift in shifts:
            moved = [discrete_gaussian_law(sigma2, radius, s) for s in shift]  # per cell, on the same box
            sup = max(sum(renyi_divergence(centred, m, a) for m in moved) / a for a in alphas)
            ratios[(sigma2, tuple(shift))] = sup / zcdp_budget(shift, sigma2)
    far = max(ratios.values(), key=lambda r: abs(r - 1))
    return Measurement(
        far,
        "sup_α D_α/α over ρ = ‖shift‖₂²/(2σ²): "
        + ", ".join(f"σ² {s2:g}, shift {list(sh)}: {r:.6f}" for (s2, sh), r in ratios.items()),
        n=len(ratios),
    )


def zcdp_budget(shift, sigma2: float) -> float:
    """Return the zCDP budget of discrete Gaussian noise N_Z(0, σ²) per cell for a change ``shift`` of the cells."""
    return float(np.sum(np.square(shift))) / (2 * sigma2)


def tda_toy_invariants(
    run: Run,
    paper,
    *,
    x: list[int],
    within: list[int],
    across: list[int],
    kept: list[int],
    variance: float,
    radius: int,
    alphas: list[float],
) -> Measurement:
    """Return a toy TDA on a few cells.

    Discrete Gaussian noise on every cell, then the closest nonnegative integer table with the invariants c = (total,
    the cells ``kept``). For ``within`` (one person moved, same c) the exact sup_α D_α/α of the released tables, both
    ways, over the noise's budget ρ = ‖x − x'‖₂²/(2σ²); for ``across`` (one person moved, same total, another kept cell:
    a proper subset of the invariants) whether the released tables can coincide.
    """
    from isdp_papers.e8_privacy_accounting.zcdp_audit import release_law, renyi_divergence

    law = {
        name: release_law(v, variance, radius, kept) for name, v in (("x", x), ("within", within), ("across", across))
    }
    rho = zcdp_budget(np.subtract(within, x), variance)
    ratio = max(
        renyi_divergence(law[a], law[b], alpha) / alpha / rho
        for a, b in (("x", "within"), ("within", "x"))
        for alpha in alphas
    )
    shared = law["x"].keys() & law["across"].keys()
    value = {"within_budget": ratio <= 1 + 1e-9, "common_support_across": bool(shared)}
    return Measurement(
        value,
        f"x = {x}, c = (total, cells {kept}), σ² = {variance:g}: sup_α D_α/α of the released "
        f"tables / ρ = {ratio:.4f} for x' = {within} (ρ = {rho:g}); x'' = {across} (same total "
        f"only): {len(shared)} released tables in common, so D_nor = ∞",
        note=f"noise truncated to ±{radius} per cell (mass beyond about "
        f"{2 * math.exp(-(radius**2) / (2 * variance)):.0e} per cell)",
    )


def tda_proper_subsets(
    run: Run, paper, *, cells: list[str], zero_cells: list[str], persons: int, invariants: dict
) -> Measurement:
    """'Let c' be any proper subset of TDA's invariants.

    No finite budget.' A toy census: ``persons`` persons in ``cells`` (``zero_cells`` structural zeros, empty in every
    CEF), the invariants named in ``invariants`` (each the sum of its cells). TDA releases c exactly, so two datasets
    with different c have released tables with no common support; a universe of c' gives an infinite budget if and only
    if two of its datasets at finite d_HAM^p (the same number of persons: every pair here) differ on c. The value counts
    the proper subsets c' left with a finite budget; the text names them.
    """
    index = {c: i for i, c in enumerate(cells)}
    free = [c for c in cells if c not in zero_cells]
    data = []
    for counts in itertools.product(range(persons + 1), repeat=len(free)):
        if sum(counts) == persons:
            x = [0] * len(cells)
            for c, n in zip(free, counts, strict=True):
                x[index[c]] = n
            data.append(x)
    values = np.array([[sum(x[index[c]] for c in members) for members in invariants.values()] for x in data])
    names = list(invariants)
    finite = []
    for size in range(len(names)):
        for subset in itertools.combinations(range(len(names)), size):
            same_sub = np.all(values[:, None, list(subset)] == values[None, :, list(subset)], axis=2)
            differ = np.any(values[:, None, :] != values[None, :, :], axis=2)
            if not np.any(same_sub & differ):
                finite.append("{" + ", ".join(names[i] for i in subset) + "}")
    total = 2 ** len(names) - 1
    return Measurement(
        len(finite),
        f"{len(data)} datasets of {persons} persons in cells {', '.join(free)}"
        + (f" (structural zeros {', '.join(zero_cells)})" if zero_cells else "")
        + f"; {len(finite)} of the {total} proper subsets of the {len(names)} invariants "
        "leave a finite budget" + (": " + "; ".join(finite) if finite else ""),
        n=len(data),
    )


def swap_finer_than_tda(
    run: Run, paper, *, blocks: list, sizes: list[int], households: int, settings: list
) -> Measurement:
    """Return 'Swapping invariants.

    Varies but greater than TDA.' A toy of ``households`` household records (state, county, block, size) over ``blocks``
    ([state, county, block] each) and ``sizes``. TDA's invariants here: the population of each state and the housing
    units (households) of each block. Permutation swapping's with key V_Match and swapped geography V_Swap (each setting
    [V_Match, V_Swap], lists of state/county/block/size): the multisets of V_Hold (every variable but V_Swap) and of
    V_Match × V_Swap. Whether, in every setting, equal swapping invariants imply equal TDA invariants (finer), and some
    datasets share TDA's but not swapping's (strictly).
    """
    fields = ("state", "county", "block", "size")
    records = [(*b, s) for b in map(tuple, blocks) for s in sizes]
    data = list(itertools.combinations_with_replacement(records, households))

    def project(x, keep):
        return tuple(sorted(tuple(r[fields.index(f)] for f in keep) for r in x))

    def tda(x):
        pop = {}
        for r in x:
            pop[r[0]] = pop.get(r[0], 0) + r[3]
        return tuple(sorted(pop.items())), project(x, fields[:3])

    words, finer, strictly = [], True, True
    for match, swap in settings:
        hold = [f for f in fields if f not in swap]
        groups: dict = {}
        for x in data:
            groups.setdefault((project(x, hold), project(x, match + swap)), set()).add(tda(x))
        coarse = {}
        for swap_c, tda_cs in groups.items():
            for c in tda_cs:
                coarse.setdefault(c, set()).add(swap_c)
        is_finer = all(len(cs) == 1 for cs in groups.values())
        is_strict = any(len(s) > 1 for s in coarse.values())
        finer, strictly = finer and is_finer, strictly and is_strict
        words.append(
            f"V_Match {' × '.join(match) or 'none'}, V_Swap {' × '.join(swap)}: "
            f"{'finer' if is_finer else 'NOT finer'} ({len(groups)} swapping universes, {len(coarse)} TDA "
            "ones)"
        )
    return Measurement(
        {"finer": finer, "strictly": strictly},
        f"{len(data)} datasets of {households} households: " + "; ".join(words),
        n=len(data),
    )
