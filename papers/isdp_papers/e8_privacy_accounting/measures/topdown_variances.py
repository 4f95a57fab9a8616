"""Measures of the TopDown talk's 'zCDP/RDP vs. Pure DP' slides: the noise-variance tables and the readings of δ.

Statements: the Laplace and Gaussian variance tables (``variance_gap``, ``table_at_other_delta``,
``laplace_column_delta_free``); Gaussian variance larger, tails lighter (``gaussian_over_laplace``,
``gaussian_outliers``); the conservative and moderate δ (``failure_probability``, ``random_record_delta``,
``privacy_loss_tail``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import optimize

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e8_privacy_accounting.measures._common import _cells_text

HALF_PRINTED_UNIT = 0.05  # the talk prints the variances to one decimal


#: the columns that name a cell of ``e8_tda_variance``
VARIANCE_KEY = ["delta", "epsilon", "mechanism", "conversion"]


def _variances(run: Run):
    """``e8_tda_variance``.

    Every (δ, ε, mechanism, conversion) once, positive variances printed and recomputed, each variance the configured
    levels' formula at its δ, ε and conversion, and gap = variance − printed (all recomputed, not trusted).
    """
    from isdp_papers.e8_privacy_accounting.tables import per_level_gaussian_variance, per_level_laplace_variance

    t = ec.table(
        run, "e8_tda_variance", key=VARIANCE_KEY, positive=["delta", "epsilon", "printed", "variance"], finite=["gap"]
    )
    where = str(run.path("tables/e8_tda_variance.csv"))
    ec.check_choices(t["mechanism"], where, "column 'mechanism'", ("laplace", "gaussian"))
    tda = run.config["e8"]["tda"]
    levels, cells = tda["levels"], tda["changed_cells"]
    formula = [
        per_level_laplace_variance(r.epsilon, levels, cells)
        if r.mechanism == "laplace"
        else per_level_gaussian_variance(r.epsilon, r.delta, levels, math.sqrt(cells), r.conversion)
        for r in t.itertuples()
    ]
    ec.check_consistent(
        t["variance"],
        formula,
        where,
        f"variance = the formula over {levels} levels, Δ₂² = {cells}, at the row's δ, ε and conversion",
        rtol=1e-6,
    )
    ec.check_consistent(t["gap"], t["variance"] - t["printed"], where, "gap = variance − printed")
    return t


def _printed_variances(run: Run):
    """Return the committed printed variance tables (config ``e8.printed.tda_variance``).

    Every (δ, ε) once, positive.
    """
    return ec.committed_csv(
        run,
        run.config["e8"]["printed"]["tda_variance"],
        key=["delta", "epsilon"],
        positive=["delta", "epsilon", "laplace_variance", "gaussian_variance"],
    )


@ec.reads_committed
def variance_gap(
    run: Run,
    paper,
    *,
    mechanism: str,
    delta: float | None = None,
    conversion: str | None = None,
    beside: str | None = None,
) -> Measurement:
    """Largest |this run − printed| over the noise variances of one mechanism (and δ) of the talk's tables.

    Gaussian rows use the zCDP → (ε, δ) ``conversion`` (default: the configured one); the conversion ``beside`` (a
    competing reading) is set beside it in the text, with whether its gap is within the same half unit of the last
    digit; the other conversions' gaps go into the note.
    """
    t = _variances(run)
    printed = _printed_variances(run)  # the run's printed column is the committed table's
    expected = {
        ec.row_key((r.delta, r.epsilon, mech)): getattr(r, f"{mech}_variance")
        for r in printed.itertuples()
        for mech in ("laplace", "gaussian")
    }
    own = [expected.get(ec.row_key((r.delta, r.epsilon, r.mechanism)), np.nan) for r in t.itertuples()]
    ec.check_consistent(
        t["printed"],
        own,
        str(run.path("tables/e8_tda_variance.csv")),
        "printed = the committed printed variance of the same (δ, ε, mechanism)",
        rtol=0,
        atol=0,
    )
    t = t.assign(gap=t["variance"] - t["printed"])
    t = t[t["mechanism"] == mechanism]
    if delta is not None:
        t = t[np.isclose(t["delta"], delta, rtol=1e-9, atol=0)]
    beside_text = ""
    if mechanism == "gaussian":
        method = conversion or run.config["e8"]["tda"]["conversion"]
        gaps = t.groupby("conversion")["gap"].agg(lambda g: g.abs().max())
        note = "largest gaps of the other conversions: " + ", ".join(
            f"{m} {g:.3f}" for m, g in gaps.items() if m not in (method, beside)
        )
        if beside is not None and beside not in gaps:
            beside_text = f"; beside it, {beside}: not in this run's table"
        elif beside is not None:
            other = t[t["conversion"] == beside]
            beside_text = (
                f"; beside it, {beside}: max gap {gaps[beside]:.3f} ("
                f"{'within' if gaps[beside] <= HALF_PRINTED_UNIT else 'OUTSIDE'} half a unit of the last "
                "digit): " + _cells_text(other["variance"], other["printed"], 1)
            )
        t = t[t["conversion"] == method]
    else:
        method, note = "basic composition", ""
    if t.empty:
        raise ValueError(f"no {mechanism} rows at δ = {delta} in e8_tda_variance")
    ec.check_count(
        t["epsilon"].nunique(),
        ec.claimed_count(paper),
        str(run.path("tables/e8_tda_variance.csv")),
        f"values of ε for {mechanism}" + (f" at δ = {delta:g}" if delta is not None else ""),
    )
    gap = float(t["gap"].abs().max())
    return Measurement(
        gap,
        f"{method}: max |variance − printed| = {gap:.3f} over {len(t)} cells (ε = "
        f"{', '.join(f'{e:g}' for e in t['epsilon'])}): " + _cells_text(t["variance"], t["printed"], 1) + beside_text,
        note=note,
    )


@ec.reads_committed
def table_at_other_delta(run: Run, paper, *, table_delta: float, delta: float, conversion: str) -> Measurement:
    """Measure the talk's Gaussian variance table printed for δ = ``table_delta`` at another δ the talk gives.

    The other δ is given for the same label (the first 'RDP/zCDP' slide's conservative 10⁻¹⁴/4 against the table's
    10⁻¹⁴); the largest |variance − printed| under ``conversion``, the table's own δ beside it.
    """
    from isdp_papers.e8_privacy_accounting.tables import per_level_gaussian_variance

    tda = run.config["e8"]["tda"]
    printed = _printed_variances(run)
    printed = printed[np.isclose(printed["delta"], table_delta, rtol=1e-9, atol=0)]
    if printed.empty:
        raise ValueError(f"no printed table at δ = {table_delta}")
    ec.check_count(
        len(printed),
        ec.claimed_count(paper),
        str(run.data(run.config["e8"]["printed"]["tda_variance"])),
        f"printed cells at δ = {table_delta:g}",
    )

    def variances(d):
        return np.array(
            [
                per_level_gaussian_variance(e, d, tda["levels"], math.sqrt(tda["changed_cells"]), conversion)
                for e in printed["epsilon"]
            ]
        )

    at, own = variances(delta), variances(table_delta)
    gap = float(np.abs(at - printed["gaussian_variance"]).max())
    return Measurement(
        gap,
        f"{conversion}, δ = {delta:g}: max |variance − printed| = {gap:.3f} over {len(at)} cells "
        f"(ε = {', '.join(f'{e:g}' for e in printed['epsilon'])}): "
        + _cells_text(at, printed["gaussian_variance"], 1)
        + f"; at the table's own δ = {table_delta:g}: max gap "
        f"{np.abs(own - printed['gaussian_variance']).max():.3f}",
    )


@ec.reads_committed
def laplace_column_delta_free(run: Run, paper) -> Measurement:
    """Whether the printed Laplace variances are the same on every δ slide (pure DP needs no δ)."""
    t = _printed_variances(run)
    wide = t.pivot_table(index="epsilon", columns="delta", values="laplace_variance")
    spread = float((wide.max(axis=1) - wide.min(axis=1)).max())
    return Measurement(
        spread == 0.0,
        f"largest spread of a printed Laplace variance across the {wide.shape[1]} δ "
        f"slides: {spread:g} (ε = {', '.join(f'{e:g}' for e in wide.index)})",
    )


@ec.reads_committed
def gaussian_over_laplace(run: Run, paper) -> Measurement:
    """Every printed Gaussian variance exceeds the printed Laplace variance at the same (ε, δ).

    This run's recomputed ratios (configured conversion) beside them.
    """
    printed = _printed_variances(run)
    ratio = printed["gaussian_variance"] / printed["laplace_variance"]
    t = _variances(run)
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    recomputed = gau / lap
    return Measurement(
        bool((ratio > 1).all()),
        f"printed Gaussian / Laplace variance from {ratio.min():.2f} to "
        f"{ratio.max():.2f} over {len(ratio)} printed (ε, δ) cells",
        note=f"recomputed ({method} conversion): {recomputed.min():.2f} to {recomputed.max():.2f}",
    )


def gaussian_outliers(run: Run, paper, *, k: float, scale: str) -> Measurement:
    """Measure at every (ε, δ) of the tables the chance of an error beyond ``k`` SDs, Gaussian against Laplace.

    And whether the Gaussian's is the smaller everywhere. ``scale``: ``own`` (each mechanism's own SD: 2Φ(−k) against
    exp(−k√2), the tails' shape) or ``laplace`` (the Laplace SD for both: 2Φ(−k sd_L/sd_G), this run's variances); the
    other scale and the far-tail crossover are set beside it.
    """
    from scipy import stats

    t = _variances(run)
    method = run.config["e8"]["tda"]["conversion"]
    lap = t[t["mechanism"] == "laplace"].set_index(["delta", "epsilon"])["variance"]
    gau = t[(t["mechanism"] == "gaussian") & (t["conversion"] == method)].set_index(["delta", "epsilon"])["variance"]
    p_lap = float(np.exp(-k * np.sqrt(2.0)))
    p_gau = {
        "own": pd.Series(2 * stats.norm.sf(k), index=lap.index),
        "laplace": pd.Series(2 * stats.norm.sf(k * np.sqrt(lap / gau)), index=lap.index),
    }
    fewer = {s: bool((p < p_lap).all()) for s, p in p_gau.items()}
    more = list(dict.fromkeys(f"δ {d:g}" for (d, _), g in (p_gau["laplace"] > p_lap).items() if g))
    worst = float((gau / lap).max())
    # beyond this many Laplace SDs the widest table's Gaussian tail is the lighter one: the far-tail reading
    cross = optimize.brentq(lambda x: np.log(2 * stats.norm.sf(x / np.sqrt(worst))) + x * np.sqrt(2.0), 1e-3, 50)
    words = {
        "own": f"beyond {k:g} of its own SDs: Gaussian {p_gau['own'].iloc[0]:.4f} against Laplace {p_lap:.4f} "
        f"(the same at every (ε, δ)): {'fewer' if fewer['own'] else 'NOT fewer'} Gaussian outliers",
        "laplace": f"beyond {k:g} Laplace SDs: Gaussian {p_gau['laplace'].min():.4f} to "
        f"{p_gau['laplace'].max():.4f} against Laplace {p_lap:.4f} over {len(lap)} (ε, δ) cells "
        f"(variance ratio {(gau / lap).min():.2f} to {worst:.2f}): "
        + (
            "fewer Gaussian outliers in every table"
            if fewer["laplace"]
            else f"MORE Gaussian outliers at {', '.join(more)}"
        ),
    }
    other = "laplace" if scale == "own" else "own"
    return Measurement(
        fewer[scale],
        f"{words[scale]}; beside it, {words[other]}",
        note=f"the far-tail reading: beyond {cross:.1f} Laplace SDs the Gaussian's tail is the lighter "
        f"one in every table (there the Laplace puts {np.exp(-cross * np.sqrt(2.0)):.1e} of its "
        "errors)",
    )


def failure_probability(run: Run, paper, *, people: float, delta: float) -> Measurement:
    """Chance that some record is released: people × δ (δ per person of an algorithm that leaks a record)."""
    p = people * delta
    return Measurement(
        p, f"{people:.0e} people × δ = {delta:.2e} → {p:.2e}", note="the tables use δ = 1e-14, four times this δ"
    )


def random_record_delta(
    run: Run, paper, *, release_probability: float, people: float, records: list[int], eps: list[float]
) -> Measurement:
    """Measure the δ of the talk's yardstick algorithm, which may publish one record chosen uniformly at random.

    With probability ``release_probability`` it publishes one record chosen uniformly at random (its index and value),
    otherwise nothing; the exact hockey-stick divergence over every pair of neighbouring binary datasets (one record
    changed) of each size in ``records``, at each ε in ``eps``, against ``release_probability`` / n (equal within 1e-9,
    relative); then that δ at ``people`` records.
    """
    from isdp.privacy import TruncatedLaw

    def law(data):  # outputs: nothing, then (i, v) for every index i and value v
        out = np.zeros(1 + 2 * len(data))
        out[0] = 1 - release_probability
        out[1 + 2 * np.arange(len(data)) + np.asarray(data)] = release_probability / len(data)
        return out

    worst = 0.0
    for n in records:
        for data in itertools.product((0, 1), repeat=n):
            for i in range(n):
                other = list(data)
                other[i] = 1 - other[i]
                for e in eps:
                    delta = TruncatedLaw.hockey_stick_divergence(law(data), law(other), e)
                    worst = max(worst, abs(delta / (release_probability / n) - 1))
    delta = release_probability / people
    value = {"delta": delta, "delta_is_p_over_n": worst <= 1e-9}
    verb = "equals" if value["delta_is_p_over_n"] else "DIFFERS FROM"
    return Measurement(
        value,
        f"exact: the algorithm's δ {verb} p/n for every pair of neighbouring datasets of "
        f"{min(records)} to {max(records)} binary records at ε = "
        f"{', '.join(f'{e:g}' for e in eps)} (largest relative deviation {worst:.1e}); at p = "
        f"{release_probability:g} and n = {people:.0e} people, δ = {delta:.3g}",
        note="δ does not fall with ε: the published record has probability 0 under the neighbour",
    )


@ec.reads_committed
def privacy_loss_tail(run: Run, paper, *, delta: float) -> Measurement:
    """Measure the chance that one person's privacy loss exceeds ε under the talk's Gaussian mechanism at δ.

    For each ε of its printed table: the printed per-query variance σ² at each of the configured levels
    (``e8.tda.levels``), neighbours changing ``e8.tda.changed_cells`` cells by one (Δ₂² = that count), so ρ =
    levels·Δ₂²/(2σ²) and the privacy loss of the composed Gaussian mechanism is N(ρ, 2ρ) exactly: P(L > ε) = Φ̄((ε −
    ρ)/√(2ρ)). The value is the largest.
    """
    from scipy.stats import norm

    levels, changed_cells = (run.config["e8"]["tda"][k] for k in ("levels", "changed_cells"))
    printed = _printed_variances(run)
    rows = printed[np.isclose(printed["delta"], delta, rtol=1e-9, atol=0)]
    if rows.empty:
        raise ValueError(f"no printed Gaussian variances at δ = {delta}")
    rho = levels * changed_cells / (2 * rows["gaussian_variance"].to_numpy())
    tail = norm.sf((rows["epsilon"].to_numpy() - rho) / np.sqrt(2 * rho))
    return Measurement(
        float(tail.max()),
        "P(privacy loss > ε) at δ = "
        + f"{delta:g}: "
        + ", ".join(f"ε = {e:g}: {p:.2e} ({p / delta:.3f} δ)" for e, p in zip(rows["epsilon"], tail, strict=True)),
        note=f"the printed variances, {levels} levels, Δ₂² = {changed_cells} per level: the privacy "
        "loss is Gaussian, N(ρ, 2ρ), so the probabilities are exact",
    )
