"""Measures of Subspace DP §5.2's study and of the error of its Gaussian mechanisms, read from E6's run.

The study is the projected Gaussian on the groups × hours × buildings query; the mechanisms' errors are §3.3's Cor 3.5
and 3.6.

Statements: the query's size (``dimensions``); the printed error statistic under each reading
(``reading_statistic``, ``reading_gap``); the exact per-cell error SD (``exact_sd``); the mean squared error of the
projected (``total_error_z``) and the extended Gaussian (``extended_error_z``), their ratio
(``extended_over_projected_error``) and the projected sensitivity behind it (``projected_sensitivity``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run, fmt_se
from isdp_papers.e6_spatiotemporal_gaussian.spatiotemporal import READINGS


def _info(run: Run, **kinds) -> dict:
    """Return ``results/e6/info.json``, the fields a measure reads checked by kind.

    The kinds are ``nonnegative=[...]``, ... (:data:`isdp_papers.evidence_checks.KINDS`).
    """
    return ec.json_values(run, "e6/info.json", **kinds)


#: the fields of one study's size and of its releases, read beside most statistics
_SIZE = ["n_studies", "n_reps"]


def _readings(run: Run, reading: str, statistics) -> pd.DataFrame:
    """Return ``e6_readings`` indexed by (reading, statistic), refused unless every row is consistent.

    It is refused unless every row is one (reading, statistic) with a finite mean and exact value, a spread of one study
    ``study_sd`` ≥ 0 over ``n_studies`` ≥ 2 studies, and its SEs derived from them (``se_mean`` = study_sd/√n_studies,
    ``se`` = √(study_sd² + se_mean²): recomputed, not trusted), and unless it has ``reading``'s ``statistics``.
    """
    where = str(run.path("tables/e6_readings.csv"))
    t = ec.table(
        run,
        "e6_readings",
        key=["reading", "statistic"],
        finite=["mean", "exact"],
        nonnegative=["study_sd", "se_mean"],
        positive=["se"],
        count=["n_studies"],
    )
    ec.check_values(t["n_studies"], where, "column 'n_studies'", "count", lo=2)
    ec.check_consistent(t["se_mean"], t["study_sd"] / np.sqrt(t["n_studies"]), where, "se_mean = study_sd/√n_studies")
    ec.check_consistent(t["se"], np.hypot(t["study_sd"], t["se_mean"]), where, "se = √(study_sd² + se_mean²)")
    tab = t.set_index(["reading", "statistic"])
    missing = [s for s in statistics if (reading, s) not in tab.index]
    if missing:
        raise ec.EvidenceError(f"{where}: no row of reading {reading!r} for {missing}")
    return tab


def dimensions(run: Run, paper) -> Measurement:
    """Return the number of cells and rank of the constraint matrix (numerical rank of its row-space basis)."""
    info = _info(run, count=["cells", "rank", "constraint_rows"])
    if not 0 < info["rank"] <= min(info["cells"], info["constraint_rows"]):
        raise ec.EvidenceError(
            f"{run.path('e6/info.json')}: rank {info['rank']} of a {info['constraint_rows']} × "
            f"{info['cells']} constraint matrix"
        )
    v = {"cells": info["cells"], "constraint_rank": info["rank"]}
    return Measurement(v, f"{info['cells']:,} cells; {info['constraint_rows']} constraint rows of rank {info['rank']}")


def reading_statistic(run: Run, paper, *, reading: str, statistic: str) -> Measurement:
    """One reading's statistic: mean over this run's studies; SE = spread of one study (the paper's) ⊕ SE of the mean.

    The same statistic under the other readings goes into the note, so a reading chosen because it
    fits is always shown beside the ones it was chosen over.
    """
    tab = _readings(run, reading, [statistic])
    r = tab.loc[(reading, statistic)]
    others = "; ".join(
        f"{other}: {tab.loc[(other, statistic), 'mean']:.4f}"
        for other in READINGS
        if other != reading and (other, statistic) in tab.index
    )
    return Measurement(
        float(r["mean"]),
        f"{r['mean']:.4f} (exact law {r['exact']:.4f}; one study of "
        f"{_info(run, count=['n_reps'])['n_reps']} releases varies by ±{r['study_sd']:.4f} SD, "
        f"{int(r['n_studies'])} studies)",
        se=float(r["se"]),
        note=f"{READINGS[reading]}; the other readings give {others}",
    )


def reading_gap(run: Run, paper, *, reading: str, rounding: float) -> Measurement:
    """Largest gap, in SEs of one study, between a reading's statistics and the paper's, after printed rounding.

    ``paper`` maps statistic names (``median``, ``q05``, …) to printed values; each gap is
    max(0, |mean − paper| − ``rounding``) / se with the SE of :func:`reading_statistic`.
    """
    tab = _readings(run, reading, list(paper))
    parts, worst = [], 0.0
    for name, p in paper.items():
        r = tab.loc[(reading, name)]
        gap = max(0.0, abs(r["mean"] - p) - rounding) / r["se"]
        worst = max(worst, gap)
        parts.append(f"{name} {r['mean']:.3f} ± {r['study_sd']:.3f}")
    return Measurement(
        worst, "; ".join(parts) + f" (± one study's SD); largest gap {worst:.1f} SE", note=READINGS[reading]
    )


def exact_sd(run: Run, paper) -> Measurement:
    """Largest exact per-cell error SD (all cells equal here), with the closed form."""
    info = _info(
        run, positive=["exact_sd_min", "exact_sd_max", "closed_form_sd"], nonnegative=["max_gap_to_closed_form"]
    )
    if info["exact_sd_min"] > info["exact_sd_max"]:
        raise ec.EvidenceError(f"{run.path('e6/info.json')}: exact_sd_min > exact_sd_max")
    return Measurement(
        info["exact_sd_max"],
        f"every cell {info['exact_sd_min']:.4f}–{info['exact_sd_max']:.4f} "
        f"(closed form √((G−1)(H−1)/(G H))·σ = {info['closed_form_sd']:.4f}, gap "
        f"{info['max_gap_to_closed_form']:.1e})",
    )


def total_error_z(run: Run, paper) -> Measurement:
    """Z of the mean squared error per release against (n − rank) σ²."""
    info = _info(run, positive=["sq_error_mean", "sq_error_expected", "sq_error_se"])
    z = (info["sq_error_mean"] - info["sq_error_expected"]) / info["sq_error_se"]
    return Measurement(
        [z],
        f"mean ‖error‖² {info['sq_error_mean']:.1f} ± {info['sq_error_se']:.1f} vs "
        f"(n − rank) σ² = {info['sq_error_expected']:.0f}: z = {z:.2f}",
    )


def extended_over_projected_error(run: Run, paper) -> Measurement:
    """Measure a one-sided 99 % upper confidence bound on err_EG / err_PG at the same c_{ε,δ}.

    The ratio is Cor. 3.6's against Cor. 3.5's, from the simulated mean squared errors (SE by the delta method), beside
    the closed form Δ₂(Q_Nᵀ A)² / Δ₂(A)² = max_i Π_ii for this query.
    """
    from scipy import stats

    info = _info(
        run,
        positive=[
            "extended_sq_error_mean",
            "sq_error_mean",
            "extended_sq_error_se",
            "sq_error_se",
            "exact_sd_max",
            "sigma",
        ],
        count=_SIZE,
    )
    eg, pg = info["extended_sq_error_mean"], info["sq_error_mean"]
    ratio = eg / pg
    se = ratio * float(np.hypot(info["extended_sq_error_se"] / eg, info["sq_error_se"] / pg))
    closed = (info["exact_sd_max"] / info["sigma"]) ** 2
    upper = ratio + stats.norm.isf(0.01) * se
    return Measurement(
        upper,
        f"simulated mean ‖error‖²: extended {eg:.1f}, projected {pg:.1f}, ratio "
        f"{fmt_se(ratio, se, digits=4)}, one-sided 99 % upper bound {upper:.4f} (closed form "
        f"max_i Π_ii = {closed:.4f}; {info['n_studies'] * info['n_reps']:,} releases each)",
    )


def projected_sensitivity(run: Run, paper) -> Measurement:
    """Subspace DP §3.3 after Cor. 3.6.

    With Q_N's columns orthonormal, Δ₂(Q_Nᵀ A) ≤ Δ₂(A). Exact for §5.2's histogram query A = I on the configured groups
    × hours × buildings invariants: under Def 2.1's neighbours (one person's record moves from cell i to cell j, Δ₂(A) =
    √2) Δ₂(Q_Nᵀ A)² = max over i ≠ j of Π_ii + Π_jj − 2Π_ij, Π = Q_N Q_Nᵀ block by block (Π_ij = 0 across blocks). The
    value is Δ₂(Q_Nᵀ A) / Δ₂(A); the text adds the one-cell (add or remove) version, max_i √Π_ii against 1.
    """
    from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import null_space_blocks
    from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    e6 = run.config["e6"]
    A, _ = group_hour_building_constraints(e6["groups"], e6["hours"], e6["buildings"])
    blocks = null_space_blocks(A)
    diagonal, within = [], 0.0
    for _, Q in blocks:
        P = Q @ Q.T
        d = np.diag(P)
        within = max(within, float((d[:, None] + d[None, :] - 2 * P).max()))
        diagonal.append(d)
    top = np.sort([d.max() for d in diagonal])[-2:]  # a move between two blocks: their largest diagonals
    moved = np.sqrt(max(within, float(top.sum()) if len(diagonal) > 1 else 0.0))
    one_cell = float(np.sqrt(max(d.max() for d in diagonal)))
    ratio = moved / np.sqrt(2)
    return Measurement(
        ratio,
        f"Δ₂(Q_Nᵀ A) = {moved:.4f} against Δ₂(A) = √2 under Def 2.1 (one record moves cell): "
        f"ratio {ratio:.4f}; a cell added or removed: {one_cell:.4f} against 1 ("
        f"{A.shape[1]:,} cells in {len(blocks)} blocks)",
    )


def extended_error_z(run: Run, paper) -> Measurement:
    """Measure the z of the extended mechanism's simulated mean ‖error‖² against Cor. 3.6's (n − n_c) c² Δ₂(Q_Nᵀ A)².

    Its largest invariant residual is beside it.
    """
    info = _info(
        run,
        positive=["extended_sq_error_mean", "extended_sq_error_expected", "extended_sq_error_se", "extended_sigma"],
        nonnegative=["extended_max_residual"],
    )
    z = (info["extended_sq_error_mean"] - info["extended_sq_error_expected"]) / info["extended_sq_error_se"]
    mean = fmt_se(info["extended_sq_error_mean"], info["extended_sq_error_se"], digits=1)
    return Measurement(
        [z],
        f"mean ‖error‖² {mean}"
        f" vs (n − n_c) σ_N² = {info['extended_sq_error_expected']:.1f} (σ_N = c Δ₂(Q_Nᵀ A) = "
        f"{info['extended_sigma']:.4f}): z = {z:.2f}; max |A y − A x| "
        f"{info['extended_max_residual']:.1e}",
    )
