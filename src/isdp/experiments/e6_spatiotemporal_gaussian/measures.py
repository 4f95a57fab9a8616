"""Measures of E6: the projected Gaussian mechanism on the spatio-temporal query (Subspace DP §5.2)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from isdp.experiments.claims import Measurement, Run, fmt_se
from isdp.experiments.e6_spatiotemporal_gaussian.spatiotemporal import READINGS


def _info(run: Run) -> dict:
    return run.json("e6/info.json")


def _readings(run: Run):
    return run.table("e6_readings").set_index(["reading", "statistic"])


def dimensions(run: Run, paper) -> Measurement:
    """Number of cells and rank of the constraint matrix (numerical rank of its row-space basis)."""
    info = _info(run)
    v = {"cells": info["cells"], "constraint_rank": info["rank"]}
    return Measurement(v, f"{info['cells']:,} cells; {info['constraint_rows']} constraint rows of rank {info['rank']}")


def reading_statistic(run: Run, paper, *, reading: str, statistic: str) -> Measurement:
    """One reading's statistic: mean over this run's studies; SE = spread of one study (the paper's) ⊕ SE of the mean.

    The same statistic under the other readings goes into the note, so a reading chosen because it
    fits is always shown beside the ones it was chosen over.
    """
    tab = _readings(run)
    r = tab.loc[(reading, statistic)]
    others = "; ".join(f"{other}: {tab.loc[(other, statistic), 'mean']:.4f}" for other in READINGS
                       if other != reading and (other, statistic) in tab.index)
    return Measurement(float(r["mean"]), f"{r['mean']:.4f} (exact law {r['exact']:.4f}; one study of "
                       f"{_info(run)['n_reps']} releases varies by ±{r['study_sd']:.4f} SD, "
                       f"{int(r['n_studies'])} studies)", se=float(r["se"]),
                       note=f"{READINGS[reading]}; the other readings give {others}")


def reading_gap(run: Run, paper, *, reading: str, rounding: float) -> Measurement:
    """Largest gap, in SEs of one study, between a reading's statistics and the paper's, after printed rounding.

    ``paper`` maps statistic names (``median``, ``q05``, …) to printed values; each gap is
    max(0, |mean − paper| − ``rounding``) / se with the SE of :func:`reading_statistic`.
    """
    tab = _readings(run)
    parts, worst = [], 0.0
    for name, p in paper.items():
        r = tab.loc[(reading, name)]
        gap = max(0.0, abs(r["mean"] - p) - rounding) / r["se"]
        worst = max(worst, gap)
        parts.append(f"{name} {r['mean']:.3f} ± {r['study_sd']:.3f}")
    return Measurement(worst, "; ".join(parts) + f" (± one study's SD); largest gap {worst:.1f} SE",
                       note=READINGS[reading])


def exact_sd(run: Run, paper) -> Measurement:
    """Largest exact per-cell error SD (all cells equal here), with the closed form."""
    info = _info(run)
    return Measurement(info["exact_sd_max"], f"every cell {info['exact_sd_min']:.4f}–{info['exact_sd_max']:.4f} "
                       f"(closed form √((G−1)(H−1)/(G H))·σ = {info['closed_form_sd']:.4f}, gap "
                       f"{info['max_gap_to_closed_form']:.1e})")


def unbiased_z(run: Run, paper) -> Measurement:
    """Per-cell z-scores of the mean error over all releases (exact per-cell SD)."""
    z = run.table_at("e6/cells.csv")["z"].to_numpy()
    info = _info(run)
    return Measurement(z, f"max |z| = {np.abs(z).max():.2f} over {z.size:,} cells "
                          f"({info['n_studies'] * info['n_reps']:,} releases each)")


def invariant_residual(run: Run, paper) -> Measurement:
    """Largest |A y − A x| over every release."""
    info = _info(run)
    r = info["max_invariant_residual"]
    ulps = r / (np.finfo(float).eps * info["max_abs_invariant"])
    return Measurement(r, f"max |A y − A x| = {r:.1e} over {info['n_studies'] * info['n_reps']:,} releases "
                          f"({ulps:.0f} units of rounding of the largest invariant, {info['max_abs_invariant']:.0f})")


def total_error_z(run: Run, paper) -> Measurement:
    """z of the mean squared error per release against (n − rank) σ²."""
    info = _info(run)
    z = (info["sq_error_mean"] - info["sq_error_expected"]) / info["sq_error_se"]
    return Measurement([z], f"mean ‖error‖² {info['sq_error_mean']:.1f} ± {info['sq_error_se']:.1f} vs "
                            f"(n − rank) σ² = {info['sq_error_expected']:.0f}: z = {z:.2f}")


def conditioning_gap(run: Run, paper) -> Measurement:
    """Largest gap between the Gaussian conditional covariance and the projected one, on probe vectors."""
    gap = _info(run)["conditioning_gap"]
    return Measurement(gap, f"max |σ²(I − Aᵀ(AAᵀ)⁺A) z − σ² Π z| = {gap:.1e} on "
                            f"{run.config['e6']['n_probes']} random probes")


def data_independence(run: Run, paper) -> Measurement:
    """The errors of two different stand-in tables under the same noise: the error law needs no data."""
    gap = _info(run)["data_independence_gap"]
    return Measurement(gap, f"error(x) − error(x') with the same noise: max |gap| = {gap:.1e}, so the error "
                            "statistics above need no confidential data")


def extended_over_projected_error(run: Run, paper) -> Measurement:
    """One-sided 99 % upper confidence bound on err_EG / err_PG (Cor. 3.6 against Cor. 3.5) at the same
    c_{ε,δ}, from the simulated mean squared errors (SE by the delta method), beside the closed form
    Δ₂(Q_Nᵀ A)² / Δ₂(A)² = max_i Π_ii for this query."""
    info = _info(run)
    eg, pg = info["extended_sq_error_mean"], info["sq_error_mean"]
    ratio = eg / pg
    se = ratio * float(np.hypot(info["extended_sq_error_se"] / eg, info["sq_error_se"] / pg))
    closed = (info["exact_sd_max"] / info["sigma"]) ** 2
    upper = ratio + stats.norm.isf(0.01) * se
    return Measurement(upper, f"simulated mean ‖error‖²: extended {eg:.1f}, projected {pg:.1f}, ratio "
                              f"{fmt_se(ratio, se, digits=4)}, one-sided 99 % upper bound {upper:.4f} (closed form "
                              f"max_i Π_ii = {closed:.4f}; {info['n_studies'] * info['n_reps']:,} releases each)")


def extended_error_z(run: Run, paper) -> Measurement:
    """z of the extended mechanism's simulated mean ‖error‖² against Cor. 3.6's (n − n_c) c² Δ₂(Q_Nᵀ A)²,
    and its largest invariant residual."""
    info = _info(run)
    z = (info["extended_sq_error_mean"] - info["extended_sq_error_expected"]) / info["extended_sq_error_se"]
    mean = fmt_se(info["extended_sq_error_mean"], info["extended_sq_error_se"], digits=1)
    return Measurement([z], f"mean ‖error‖² {mean}"
                            f" vs (n − n_c) σ_N² = {info['extended_sq_error_expected']:.1f} (σ_N = c Δ₂(Q_Nᵀ A) = "
                            f"{info['extended_sigma']:.4f}): z = {z:.2f}; max |A y − A x| "
                            f"{info['extended_max_residual']:.1e}")


def lemma34_profile(run: Run, paper, *, eps: list[float], delta: list[float]) -> Measurement:
    """Lemma 3.4's Gaussian noise σ = Δ₂ c_{ε,δ}, c_{ε,δ} = (1 + √(1 + ln(1/δ)))/ε, against the exact privacy profile
    of the Gaussian mechanism (:func:`isdp.accounting.gaussian_delta`): the largest δ_exact(ε)/δ over the grid."""
    from isdp.accounting import gaussian_delta

    worst, failing = 0.0, []
    for e in eps:
        for d in delta:
            c = (1.0 + np.sqrt(1.0 + np.log(1.0 / d))) / e
            ratio = gaussian_delta(e, 1.0 / c) / d
            worst = max(worst, ratio)
            if ratio > 1:
                failing.append(f"(ε {e:g}, δ {d:g}): {ratio:.3g}")
    return Measurement(worst, f"largest exact δ / stated δ = {worst:.3g} over {len(eps)} × {len(delta)} (ε, δ); "
                              + (f"above 1 at {len(failing)}: " + ", ".join(failing) if failing else "never above 1"))


def example_24_ratio(run: Run, paper, *, domain, invariant, x, x_prime, value: int) -> Measurement:
    """Subspace DP Example 2.4: P[M(x) ∈ S] / P[M(x') ∈ S] for S = {y : C y = value} under any
    mechanism that keeps the invariant C; unbounded when C hist(x) = value ≠ C hist(x')."""
    def c_hist(db):
        hist = np.array([sum(1 for r in db if r == z) for z in domain])
        return int(np.dot(invariant, hist))

    cx, cxp = c_hist(x), c_hist(x_prime)
    p, p_prime = float(cx == value), float(cxp == value)
    unbounded = p > 0 and p_prime == 0
    ratio = "∞" if unbounded else (p / p_prime if p_prime else "undefined")
    return Measurement(unbounded, f"C hist(x) = {cx}, C hist(x') = {cxp}: P[M(x) ∈ S] = {p:g}, P[M(x') ∈ S] = "
                                  f"{p_prime:g}, ratio {ratio}")
