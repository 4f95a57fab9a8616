"""Measures of the Swapping slides' 'A Perverse Guide to Reducing the Privacy Loss ε (without adding more noise)'.

Each way of lowering ε measured exactly on small cases.

Statements: more invariants (``swap_more_invariants``), persons instead of households and one day instead of a
person's whole history as the privacy unit (``swap_person_units``, ``day_units``), (ε, δ)-DP instead of ε-DP
(``swap_approximate_budget``).
"""

from __future__ import annotations

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e8_privacy_accounting.measures._common import _strata


@ec.reads_committed
def swap_more_invariants(run: Run, paper, *, coarse: list, refined: list, rates: list[float]) -> Measurement:
    """Adding a variable to the swap key V_Match (more invariants).

    The printed 2020 what-if ε with and without household size, and the exact worst loss of one stratum against the same
    records split by the added variable (the worst loss of independent strata is the largest of theirs: loss and
    distance add up).
    """
    from isdp_papers.e8_privacy_accounting.measures.swapping_tables import _printed_swap
    from isdp_papers.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    t = _printed_swap(run, "e8_swap_2020")[0]
    eps = t.set_index(["v_match", "v_swap", "swap_rate"])["epsilon"]
    pairs = [
        (base, r.v_swap, r.swap_rate)
        for r in t.itertuples()
        if (base := r.v_match.removesuffix(" x household size")) != r.v_match
    ]
    drops = [eps[(base, v_swap, p)] - eps[(f"{base} x household size", v_swap, p)] for base, v_swap, p in pairs]
    before = {p: worst_loss_per_unit(*coarse, p) for p in rates}
    after = {p: max(worst_loss_per_unit(h, k, p) for h, k in refined) for p in rates}
    exact_lower = all(after[p] < before[p] if p <= 0.5 else after[p] <= before[p] + 1e-12 for p in rates)
    value = {"printed_lower": all(d > 0 for d in drops), "exact_lower": exact_lower}
    listed = ", ".join(f"{d:.2f}" for d in drops)
    return Measurement(
        value,
        f"printed ε without − with household size in V_Match: {listed} ({len(drops)} pairs); "
        f"exact worst loss, one stratum of {len(coarse[0])} → strata of "
        f"{', '.join(str(len(h)) for h, _ in refined)}: "
        + ", ".join(f"p = {p:g}: {before[p]:.3f} → {after[p]:.3f}" for p in rates),
        note="above p = 1/2 both are ln o (the same), as the formula's right branch",
    )


def swap_person_units(run: Run, paper, *, strata: list, rates: list[float], beside: list | None = None) -> Measurement:
    """'Persons instead of households'.

    Permutation swapping of household records (h[0] the household's size), its exact worst loss per unit of the
    person-level distance (each household that differs counts its persons) against per unit of the household-level one,
    on small strata and rates. ``beside``: a stratum reported in the note only (e.g. one with a single-person
    household).
    """
    from isdp_papers.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    def ratios(h, k):
        return {p: worst_loss_per_unit(h, k, p, persons=lambda hh: hh[0]) / worst_loss_per_unit(h, k, p) for p in rates}

    found = {(h, k): ratios(h, k) for h, k in _strata(strata)}
    flat = [r for rs in found.values() for r in rs.values()]
    value = {"never_higher": max(flat) <= 1 + 1e-9, "lower": max(flat) < 1 - 1e-9}
    parts = []
    for (h, _), rs in found.items():
        sizes = [hh[0] for hh in h]
        scale = f" (× size {sizes[0]}: {max(rs.values()) * sizes[0]:.6f})" if len(set(sizes)) == 1 else ""
        parts.append(f"sizes {sizes}: ε_person/ε_household {min(rs.values()):.4f} to {max(rs.values()):.4f}{scale}")
    note = ""
    if beside:
        ((h, k),) = _strata([beside])
        rs = ratios(h, k)
        note = (
            f"beside it, sizes {[hh[0] for hh in h]}: ε_person/ε_household {min(rs.values()):.4f} to "
            f"{max(rs.values()):.4f}"
        )
    return Measurement(
        value,
        f"{len(flat)} (stratum, rate) cases at p = {', '.join(f'{p:g}' for p in rates)}: " + "; ".join(parts),
        note=note,
        n=len(flat),
    )


def day_units(
    run: Run, paper, *, eps: float, days: list[int], days_present: int | None = None, radius: int = 40
) -> Measurement:
    """Return the Swapping slides' 'one day's worth of data, instead of all of an individual's data over time'.

    The same mechanism, a daily count released with double geometric noise at ``eps`` each day for T days, judged per
    person over time (neighbours: one person's whole history, present on ``days_present`` days, all T by default) and
    per person-day (neighbours: one day of it). Exact laws of the T releases (products of DG laws on a box of
    ``radius``); the budget is the largest privacy loss. The value: whether the per-day budget is lower for every T.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp.privacy import TruncatedLaw

    k = np.arange(-radius, radius + 1)
    daily = TruncatedLaw(k[:, None], DoubleGeometric(eps).pmf(k), 0.0)
    ratios = {}
    for t in days:
        joint = daily
        for _ in range(t - 1):
            joint = joint.product(daily)
        present = t if days_present is None else days_present
        history = [1] * present + [0] * (t - present)
        per_person = joint.shifted(history).max_privacy_loss(joint)
        per_day = joint.shifted([1] + [0] * (t - 1)).max_privacy_loss(joint)
        ratios[t] = per_day / per_person
    value = {"lower": all(r < 1 - 1e-9 for r in ratios.values())}
    return Measurement(
        value,
        f"DG at ε = {eps:g} per day: per person-day / per person over T days = "
        + ", ".join(f"{r:.4f} (T = {t}, 1/T = {1 / t:.4f})" for t, r in ratios.items()),
    )


def swap_approximate_budget(run: Run, paper, *, strata: list, rates: list[float], deltas: list[float]) -> Measurement:
    """'Use (ε, δ)-DP instead of ε-DP'.

    Permutation swapping's exact (ε, δ) budget per unit of distance
    (:func:`~isdp_papers.e8_privacy_accounting.swap_audit.approximate_loss_per_unit`) against its exact pure budget (δ =
    0) on small strata, every rate and δ; the value is the largest ratio over the cases with a positive pure budget.
    """
    from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon
    from isdp_papers.e8_privacy_accounting.swap_audit import approximate_loss_per_unit

    ratios, zero = {}, []
    for h, k in _strata(strata):
        for p in rates:
            pure = approximate_loss_per_unit(h, k, p, 0.0)
            if pure == 0:
                zero.append(f"b = {len(h)}, p = {p:g}")
                continue
            for delta in deltas:
                ratios[(len(h), p, delta)] = approximate_loss_per_unit(h, k, p, delta) / pure
    worst = max(ratios.values())
    (b, p, delta), least = min(ratios.items(), key=lambda kv: kv[1])
    by_delta = "; ".join(
        f"δ = {d:g}: ratio {min(r for (_, _, dd), r in ratios.items() if dd == d):.4f} to "
        f"{max(r for (_, _, dd), r in ratios.items() if dd == d):.6f}"
        for d in deltas
    )
    return Measurement(
        worst,
        f"exact (ε, δ) budget / exact pure budget over {len(ratios)} (stratum, rate, δ) cases: "
        f"{by_delta}; largest fall at b = {b}, p = {p:g}, δ = {delta:g} "
        f"(to {least:.3f}, the slides' ε(p, b) = {swapping_epsilon(p, b):.3f})",
        note="pure budget 0 (nothing to shrink) at " + ("; ".join(zero) or "none"),
        n=len(ratios),
    )
