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


def invariant_residual(run: Run, paper, *, mechanism: str = "projected") -> Measurement:
    """Largest |A y − A x| over every release of the projected (Cor. 3.5) or ``extended`` (Cor. 3.6) Gaussian."""
    info = _info(run)
    r = info["extended_max_residual" if mechanism == "extended" else "max_invariant_residual"]
    which = "extended releases" if mechanism == "extended" else "releases"
    ulps = r / (np.finfo(float).eps * info["max_abs_invariant"])
    return Measurement(r, f"max |A y − A x| = {r:.1e} over {info['n_studies'] * info['n_reps']:,} {which} "
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


def projected_sensitivity(run: Run, paper) -> Measurement:
    """Subspace DP §3.3 after Cor. 3.6: with Q_N's columns orthonormal, Δ₂(Q_Nᵀ A) ≤ Δ₂(A). Exact for §5.2's
    histogram query A = I on the configured groups × hours × buildings invariants: under Def 2.1's neighbours (one
    person's record moves from cell i to cell j, Δ₂(A) = √2) Δ₂(Q_Nᵀ A)² = max over i ≠ j of Π_ii + Π_jj − 2Π_ij,
    Π = Q_N Q_Nᵀ block by block (Π_ij = 0 across blocks). The value is Δ₂(Q_Nᵀ A) / Δ₂(A); the text adds the
    one-cell (add or remove) version, max_i √Π_ii against 1."""
    from isdp.baselines import null_space_blocks
    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

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
    return Measurement(ratio, f"Δ₂(Q_Nᵀ A) = {moved:.4f} against Δ₂(A) = √2 under Def 2.1 (one record moves cell): "
                              f"ratio {ratio:.4f}; a cell added or removed: {one_cell:.4f} against 1 ("
                              f"{A.shape[1]:,} cells in {len(blocks)} blocks)")


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


def _gaussian_profile(eps: list[float], delta: list[float], shift: float) -> tuple[float, list[str]]:
    """Over the grid: the largest exact δ(ε) / δ of Gaussian noise of SD c_{ε,δ} = (1 + √(1 + ln(1/δ)))/ε whose
    neighbours lie ``shift`` apart (:func:`isdp.accounting.gaussian_delta` at μ = shift / c), and where it exceeds 1."""
    from isdp.accounting import gaussian_delta

    worst, failing = 0.0, []
    for e in eps:
        for d in delta:
            c = (1.0 + np.sqrt(1.0 + np.log(1.0 / d))) / e
            ratio = gaussian_delta(e, shift / c) / d
            worst = max(worst, ratio)
            if ratio > 1:
                failing.append(f"(ε {e:g}, δ {d:g}): {ratio:.3g}")
    return worst, failing


def lemma34_profile(run: Run, paper, *, eps: list[float], delta: list[float]) -> Measurement:
    """Lemma 3.4's Gaussian noise σ = Δ₂ c_{ε,δ}, c_{ε,δ} = (1 + √(1 + ln(1/δ)))/ε, against the exact privacy profile
    of the Gaussian mechanism (:func:`isdp.accounting.gaussian_delta`): the largest δ_exact(ε)/δ over the grid."""
    worst, failing = _gaussian_profile(eps, delta, 1.0)
    return Measurement(worst, f"largest exact δ / stated δ = {worst:.3g} over {len(eps)} × {len(delta)} (ε, δ); "
                              + (f"above 1 at {len(failing)}: " + ", ".join(failing) if failing else "never above 1"))


def gaussian_corollaries_profile(run: Run, paper, *, eps: list[float], delta: list[float]) -> Measurement:
    """Cor. 3.5 and 3.6's N-subspace privacy at Lemma 3.4's constant, for A = hist on 4 values with bounded neighbours
    (Δ = e_j − e_i) and the invariants of Examples 2.3 (1ᵀ) and 2.4 ((1, 0, 1, 0)).

    On N both releases are spherical Gaussian (SD c Δ₂(A) for the projected mechanism, c Δ₂(Q_Nᵀ A) in Q_N's
    coordinates for the extended one) and neighbours lie ‖Π_N Δ‖ (resp. ‖Q_Nᵀ Δ‖) apart, so the exact profile
    is the Gaussian one at μ = (largest shift)/(c · sensitivity). The value is the largest δ_exact(ε)/δ over the
    grid and both corollaries."""
    import scipy.linalg

    eye = np.eye(4)
    diffs = np.array([eye[j] - eye[i] for i in range(4) for j in range(4) if i != j])
    sensitivity = float(np.linalg.norm(diffs, axis=1).max())  # Δ₂(hist)
    worst, parts = 0.0, []
    invariants = {"Example 2.3, C = 1ᵀ": np.ones((1, 4)), "Example 2.4, C = (1,0,1,0)": np.array([[1, 0, 1, 0.0]])}
    for name, C in invariants.items():
        projector = eye - C.T @ np.linalg.solve(C @ C.T, C)
        in_null_coordinates = np.linalg.norm(diffs @ scipy.linalg.null_space(C), axis=1)  # ‖Q_Nᵀ Δ‖
        shifts = {"Cor 3.5": np.linalg.norm(diffs @ projector, axis=1).max() / sensitivity,
                  "Cor 3.6": in_null_coordinates.max() / in_null_coordinates.max()}  # over Δ₂(Q_Nᵀ A), the same sup
        for cor, shift in shifts.items():
            w, failing = _gaussian_profile(eps, delta, float(shift))
            worst = max(worst, w)
            parts.append(f"{cor}, {name}: μ c = {shift:.4f}, largest ratio {w:.3g} (above 1 at {len(failing)} of "
                         f"{len(eps) * len(delta)})")
    return Measurement(worst, f"largest exact δ / stated δ = {worst:.3g} ({'; '.join(parts)})",
                       note="the projected release's worst shift equals Δ₂(hist) whenever some Δ lies in N (always "
                            "for 1ᵀ), the extended one's is Δ₂(Q_Nᵀ A) by its definition: μ = 1/c, Lemma 3.4's case")


def example_24_ratio(run: Run, paper, *, domain, invariant, x, x_prime, value: int) -> Measurement:
    """Subspace DP Example 2.4: P[M(x) ∈ S] / P[M(x') ∈ S] for S = {y : C y = value} under any
    mechanism that keeps the invariant C. Named values: ``neighbours`` (x and x' have the same size and differ
    in exactly one row, Def 2.1), ``ratio_unbounded`` (C hist(x) = value ≠ C hist(x')) and
    ``smallest_delta``, inf over ε > 0 of max(0, P[M(x) ∈ S] − e^ε P[M(x') ∈ S]): the δ below which no ε makes
    the DP inequality hold on S."""
    def c_hist(db):
        hist = np.array([sum(1 for r in db if r == z) for z in domain])
        return int(np.dot(invariant, hist))

    rows_differ = sum(a != b for a, b in zip(x, x_prime, strict=False))
    neighbours = len(x) == len(x_prime) and rows_differ == 1
    cx, cxp = c_hist(x), c_hist(x_prime)
    p, p_prime = float(cx == value), float(cxp == value)
    unbounded = p > 0 and p_prime == 0
    smallest_delta = p if p_prime == 0 else 0.0  # e^ε P[M(x') ∈ S] grows without bound unless it is 0
    ratio = "∞" if unbounded else (p / p_prime if p_prime else "undefined")
    return Measurement({"neighbours": neighbours, "ratio_unbounded": unbounded, "smallest_delta": smallest_delta},
                       f"sizes {len(x)}, {len(x_prime)}, {rows_differ} row(s) differ; C hist(x) = {cx}, C hist(x') = "
                       f"{cxp}: P[M(x) ∈ S] = {p:g}, P[M(x') ∈ S] = {p_prime:g}, ratio {ratio}; (ε, δ)-DP on S needs "
                       f"δ ≥ {smallest_delta:g} at every ε")


# --------------------------------------------------------------------------- §2.3 and Thm 3.1, exactly


def _exact_note() -> str:
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    return (f"exact laws, no Monte Carlo: databases of {se.RECORDS} rows over {{1, 2, 3, 4}}, A = hist, bounded "
            f"neighbours ({len(se.neighbours())} ordered pairs), cells clamp(h_i + DG(ε/{se.SENSITIVITY}), 0, "
            f"{se.RECORDS}) (subspace_exact)")


def _levels(levels: dict) -> str:
    return ", ".join(f"{name} {v:.6f}" if np.isfinite(v) else f"{name} ∞" for name, v in levels.items())


def subspace_dp_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Cor. 2.8: the largest δ at ε of an (ε, 0)-DP mechanism projected onto each subspace of
    :data:`subspace_exact.SUBSPACES` (ℝ⁴, N(C), N(C) ∩ N(1ᵀ), a line, N(1ᵀ)), over every neighbour pair."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.dp_implies_subspace_dp(eps)
    worst = max(delta for _, delta in out.values())
    return Measurement(worst, f"largest δ at ε = {eps:g} over {len(out)} subspaces: {worst:.1e}; levels / ε: "
                              + _levels({k: lv / eps for k, (lv, _) in out.items()}),
                       note=_exact_note(), n=len(out))


def projection_privacy_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Thm 3.1, privacy half: the largest δ at ε on N of 𝓜(x) = h + Π_N(M(x) − h), M the (ε, 0)-DP base, for
    Examples 2.4's and 2.3's invariants; beside it the level on ℝ⁴ and the invariants' largest residual."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.projection_privacy(eps)
    worst = max(v[1] for v in out.values())
    parts = [f"{name}: level on N {lv / eps:.6f} ε, on ℝ⁴ {'∞' if not np.isfinite(full) else f'{full / eps:.6f} ε'}, "
             f"invariant residual {res}" for name, (lv, _, full, res) in out.items()]
    return Measurement(worst, f"largest δ at ε = {eps:g} on N: {worst:.1e} ({'; '.join(parts)})", note=_exact_note(),
                       n=len(out))


def extension_converse_check(run: Run, paper, *, eps: float, translate: str = "row space") -> Measurement:
    """Thm 3.3 "only if": M̂(x) = 𝓜(x) − Π_R A(x) for Thm 3.1's release 𝓜 (Examples 2.4's and 2.3's invariants),
    :func:`subspace_exact.extension_converse`: ``image in N`` — C M̂ = 0 on every support point (integer
    arithmetic); ``(ε, 0)-DP on ℝⁿ`` — the largest hockey-stick δ at ε over every ordered neighbour pair at most
    1e-12 (rounding). ``translate``: what is subtracted instead of Π_R A(x) (``query``, ``none``; the tests)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.extension_converse(eps, translate=translate)
    residual, delta = max(v[0] for v in out.values()), max(v[2] for v in out.values())
    parts = [f"{name}: largest |C M̂| {res}, level on ℝ⁴ {'∞' if not np.isfinite(lv) else f'{lv / eps:.6f} ε'}, "
             f"δ at ε {d:.1e}" for name, (res, lv, d) in out.items()]
    return Measurement({"image in N": residual == 0, "(ε, 0)-DP on ℝⁿ": bool(delta <= 1e-12)},
                       f"M̂ = 𝓜 − {'Π_R A(x)' if translate == 'row space' else translate} at ε = {eps:g}: "
                       + "; ".join(parts), note=_exact_note(), n=len(out))


def consistent_release_delta(run: Run, paper, *, eps: float, total_from: str = "release") -> Measurement:
    """§1: the largest δ at ε of the non-negative base release with a relational total, y₁ + y₃ of the released
    cells (:func:`subspace_exact.consistent_release`); ``total_from = "data"``: the total of the confidential
    histogram instead (an invariant, Example 2.4's)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    delta = se.consistent_release(eps, total_from=total_from)
    source = "its released cells y₁ + y₃" if total_from == "release" else "the confidential h₁ + h₃"
    return Measurement(delta, f"largest δ at ε = {eps:g} of (y, total) on ℝ⁵, the total from {source}: {delta:.1e}",
                       note=_exact_note())


def nestedness_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Prop. 2.7: for nested V₂ ⊆ V₁, the largest δ on V₂ at the mechanism's exact level on V₁, for the (ε, 0)-DP
    base and for its Thm 3.1 mechanism with C = (1, 0, 1, 0), which is V₁ = N(C)-private but not DP on ℝ⁴."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.nestedness(eps)
    worst = max(v["delta"] for v in out.values())
    parts = [f"{m}: levels / ε {_levels({k: lv / eps for k, lv in v['levels'].items()})}; {len(v['pairs'])} nested "
             f"pairs" for m, v in out.items()]
    return Measurement(worst, f"largest δ on V₂ at V₁'s level: {worst:.1e} ({'; '.join(parts)})", note=_exact_note(),
                       n=sum(len(v["pairs"]) for v in out.values()))


def composition_delta(run: Run, paper, *, eps: list[float]) -> Measurement:
    """Prop. 2.9: two Thm 3.1 mechanisms, (hist, C₁ = (1, 0, 1, 0)) at ε₁ and (hist, C₂ = 1ᵀ) at ε₂, run on the same
    data; the largest δ at ε₁ + ε₂ of their joint law on N(C₁) × N(C₂), with the joint level and the δ at
    max(ε₁, ε₂) beside it."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    e1, e2 = eps
    out = se.composition(e1, e2)
    return Measurement(out["delta_sum"], f"largest δ at ε₁ + ε₂ = {e1 + e2:g}: {out['delta_sum']:.1e}; joint level "
                                         f"{out['level']:.6f} (each alone {out['levels'][0]:.6f}, "
                                         f"{out['levels'][1]:.6f}); at max(ε₁, ε₂) = {max(e1, e2):g} δ would be "
                                         f"{out['delta_max']:.3f}", note=_exact_note())


def post_processing_delta(run: Run, paper, *, eps: float) -> Measurement:
    """L114: the largest δ at ε on N(C), C = (1, 0, 1, 0), of Thm 3.1's release after post-processings that act only
    on its N-component (:data:`subspace_exact.ON_NULL_SPACE`)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.post_processing(eps)
    worst = max(delta for _, delta in out.values())
    return Measurement(worst, f"largest δ at ε = {eps:g} on N: {worst:.1e} ("
                              + "; ".join(f"{name}: level {lv / eps:.6f} ε" for name, (lv, _) in out.items()) + ")",
                       note=_exact_note(), n=len(out))


def mixture_delta(run: Run, paper, *, eps: float, weights: list[float]) -> Measurement:
    """L116: the largest δ at ε on N(C), C = (1, 0, 1, 0), of mixtures (weight λ, data-independent) of two Thm 3.1
    mechanisms that are each (ε, 0) on N(C) (:func:`subspace_exact.mixture`)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    out = {lam: se.mixture(eps, lam) for lam in weights}
    worst = max(delta for _, delta in out.values())
    return Measurement(worst, f"largest δ at ε = {eps:g} on N: {worst:.1e} ("
                              + "; ".join(f"λ = {lam:g}: level {lv / eps:.6f} ε" for lam, (lv, _) in out.items()) + ")",
                       note=_exact_note(), n=len(out))


#: i.i.d. unit-variance noises for the slab test besides the spherical Gaussian of Thm 4.2 (the default draw of
#: :func:`spatiotemporal.conditioning_by_slab`): Cor 3.8's Laplace
SLAB_NOISES = {"laplace": lambda g, shape: g.laplace(0.0, 1 / np.sqrt(2), shape)}


def conditioning_slab_ks(run: Run, paper, *, n_accepted: int, window: float, seed: int,
                         noise: str = "gaussian") -> Measurement:
    """Thm 4.2 by brute force: i.i.d. ``noise`` (``gaussian``, the theorem's spherical Gaussian, or :data:`SLAB_NOISES`)
    kept on a slab max |C e| < ``window`` against the projected noise (:func:`spatiotemporal.conditioning_by_slab`),
    two-sample KS on every cell and every difference of two cells, for Example 2.3's invariant (1ᵀ, 3 cells) and
    Example 2.4's ((1, 0, 1, 0))."""
    from isdp.experiments.e6_spatiotemporal_gaussian.spatiotemporal import conditioning_by_slab, slab_ks_pvalues

    pvalues, parts = [], []
    for k, (name, C) in enumerate((("1ᵀ on 3 cells", [[1, 1, 1]]), ("(1, 0, 1, 0)", [[1, 0, 1, 0]]))):
        draw = {} if noise == "gaussian" else {"noise": SLAB_NOISES[noise]}
        kept, projected = conditioning_by_slab(np.array(C), n_accepted, window, np.random.default_rng([seed, k]),
                                               **draw)
        p = slab_ks_pvalues(kept, projected)
        gap = np.abs(np.cov(kept.T) - np.cov(projected.T)).max()
        pvalues.extend(p)
        parts.append(f"{name}: smallest p {p.min():.3f} of {p.size}, largest covariance gap {gap:.3f}")
    return Measurement(np.array(pvalues), f"{len(pvalues)} KS tests, {n_accepted:,} conditioned and projected draws "
                                          f"each (slab {window:g}, {noise} noise): {'; '.join(parts)}")


def slab_adjusted_min_p(run: Run, paper, *, n_accepted: int, window: float, seed: int, noise: str) -> Measurement:
    """§4 after Thm 4.2: the Bonferroni-adjusted smallest p, min(1, m · min p), of :func:`conditioning_slab_ks`'s m
    tests of the projected ``noise`` against the same noise conditioned on the invariant (a slab)."""
    m = conditioning_slab_ks(run, paper, n_accepted=n_accepted, window=window, seed=seed, noise=noise)
    adjusted = float(min(1.0, m.value.size * m.value.min()))
    return Measurement(adjusted, f"Bonferroni-adjusted smallest p {adjusted:.2g}; {m.text}", n=m.value.size)


def gaussian_projection_gap(run: Run, paper, *, constraint: list[list[float]], covariance: list[list[float]]
                            ) -> Measurement:
    """§4 after Thm 4.2, exactly for Gaussian noise N(0, Σ): the projected noise Π_N e and the noise conditioned on
    C e = 0 are both centred Gaussians, so they agree in law iff Π_N Σ Π_N = Σ − Σ Cᵀ(C Σ Cᵀ)⁻¹ C Σ. The value is
    the largest entry of the difference for ``covariance``; beside it the spherical Σ = I (Thm 4.2) and the
    condition that decides it, Σ-uncorrelated invariant and null-space parts (Π_N Σ (I − Π_N) = 0)."""
    C, sigma = np.asarray(constraint, dtype=float), np.asarray(covariance, dtype=float)
    proj = np.eye(C.shape[1]) - np.linalg.pinv(C) @ C

    def gap(s: np.ndarray) -> float:
        conditioned = s - s @ C.T @ np.linalg.solve(C @ s @ C.T, C @ s)
        return float(np.abs(proj @ s @ proj - conditioned).max())

    cross = float(np.abs(proj @ sigma @ (np.eye(len(proj)) - proj)).max())
    return Measurement(gap(sigma), f"largest |Π Σ Π − Cov(e | C e = 0)| entry {gap(sigma):.3g} for Σ = "
                                   f"{sigma.tolist()} under C = {C.tolist()}; spherical Σ = I: "
                                   f"{gap(np.eye(len(sigma))):.1g}; cross-covariance of the null-space and invariant "
                                   f"parts under Σ: {cross:.3g} (the gap is 0 exactly when it is)")


# --------------------------------------------------------------------------- Laplace mechanisms (§3.3), exactly


def _laplace_setting(n: int, eps: float, sensitivity: float | None):
    """Neighbour shifts of hist on ``n`` values under Def 2.1, Δ₁ = max ‖Δ‖₁ (2), and the Laplace scale: Δ₁/ε, or
    ``sensitivity``/ε when given (E4's per-unit convention is 1)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts = le.histogram_shifts(n)
    delta1 = float(np.abs(shifts).sum(axis=1).max())
    return shifts, delta1, (delta1 if sensitivity is None else sensitivity) / eps


def laplace_product_level(run: Run, paper, *, eps: float, n: int, sensitivity: float | None = None) -> Measurement:
    """Lemma 3.7: privacy level / ε of hist + Lap(Δ₁/ε)ⁿ under bounded neighbours, the larger of the closed form
    max ‖Δ‖₁/b and the density's largest log ratio on E7's grid (rounding near 10⁶ scales shows as ~1e-9)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts, delta1, b = _laplace_setting(n, eps, sensitivity)
    exact, on_grid = le.product_level(shifts, b), le.product_grid_level(shifts, b, le.grid(b))
    return Measurement(max(exact, on_grid) / eps, f"level {exact / eps:.6f} ε (closed form max ‖Δ‖₁/b), "
                       f"{on_grid / eps:.6f} ε on the grid; Δ₁(hist) = {delta1:g} over {len(shifts)} shifts, "
                       f"b = {b * eps:g}/ε; at b = 1/ε: {le.product_level(shifts, 1 / eps) / eps:.6f} ε")


def projected_laplace_level(run: Run, paper, *, eps: float, n: int, sensitivity: float | None = None) -> Measurement:
    """Cor 3.8: N-subspace privacy level / ε of hist + Π_N Lap(Δ₁/ε)ⁿ, C = 1ᵀ (:mod:`laplace_exact`): the larger of
    the exact level (the recession slope of the log-concave projected density) and its closed-form density's
    largest log ratio on a 2-D grid of N reaching 10⁶ scales (the grid approaches the supremum from below)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts, delta1, b = _laplace_setting(n, eps, sensitivity)
    exact = le.projected_level(shifts, b)
    on_grid, where = le.projected_grid_level(shifts, b, le.grid(b))
    return Measurement(max(exact, on_grid) / eps, f"level on N {exact / eps:.6f} ε (exact: min_σ ‖Δ + σ1‖₁/b), "
                       f"{on_grid / eps:.6f} ε on the grid (at |v| ≈ {np.abs(where).max() / b:.0e} scales); "
                       f"Δ₁(hist) = {delta1:g}, b = {b * eps:g}/ε; at E4's b = 1/ε: "
                       f"{le.projected_level(shifts, 1 / eps) / eps:.6f} ε",
                       note=f"n = {n} values, C = 1ᵀ, bounded neighbours (Def 2.1)")


def extended_laplace_check(run: Run, paper, *, eps: float, n: int, records: int, releases: int, seed: int,
                           as_printed: bool = False, noise_basis: str = "helmert") -> Measurement:
    """Cor 3.9 on hist of ``records`` rows over ``n`` values, C = 1ᵀ, Q_N = :func:`laplace_exact.helmert_basis`:
    ``(ε, 0) on N`` — the exact level of the release's N-coordinates Q_Nᵀ y (a product Laplace located at
    Q_Nᵀ of the noiseless release) is at most ε (1 + 1e-9) over every neighbour pair; ``keeps C y = C h`` — the
    largest |1ᵀ y − 1ᵀ h| over ``releases`` draws per histogram is at most 1e-9. ``as_printed``: the noise
    e = h + Q_N w as printed. ``noise_basis = "scipy"``: the noise added in SciPy's null-space basis while
    Δ₁(Q_Nᵀ A) is computed in Helmert's (a plausible bug: the ℓ1 sensitivity depends on the basis)."""
    import scipy.linalg

    from isdp.experiments.e6_spatiotemporal_gaussian import laplace_exact as le

    Q_scale = le.helmert_basis(n)
    Q = Q_scale if noise_basis == "helmert" else scipy.linalg.null_space(np.ones((1, n)))
    b = le.extended_scale(le.histogram_shifts(n), Q_scale, eps)
    pairs = le.histogram_pairs(n, records)

    def location(h):  # Q_Nᵀ of the release without noise: the N-coordinates' centre
        return (le.extended_release(h, Q, np.zeros(n - 1), as_printed) @ Q)[0]
    level = max(np.abs(location(h) - location(hp)).sum() for h, hp in pairs) / b
    rng = np.random.default_rng(seed)
    hists = {tuple(h) for h, _ in pairs}
    residual = max(np.abs(le.extended_release(np.array(h), Q, rng.laplace(0.0, b, (releases, n - 1)), as_printed)
                          .sum(axis=1) - sum(h)).max() for h in sorted(hists))
    value = {"(ε, 0) on N": bool(level <= eps * (1 + 1e-9)), "keeps C y = C h": bool(residual <= 1e-9)}
    return Measurement(value, f"level on N {level / eps:.6f} ε over {len(pairs)} neighbour pairs (b = Δ₁(Q_Nᵀ A)/ε "
                       f"= {b * eps:.4f}/ε); largest |1ᵀ y − 1ᵀ h| {residual:.3g} over {releases} releases of each of "
                       f"{len(hists)} histograms" + (" (noise as printed: h + Q_N w)" if as_printed else ""),
                       note=f"{records} rows over {n} values, C = 1ᵀ, bounded neighbours; Q_N the Helmert basis")


def _projected_laplace_tail(k: float) -> float:
    """P(|X| > k SD(X)) for X = (2e₁ − e₂ − e₃)/3, e ~ Lap(1)³ (a coordinate of Π_N e, C = 1ᵀ on 3 values): over
    S = e₂ + e₃ (E7's density of a sum of two Laplaces), P(2e₁ > c + S) + P(2e₁ < S − c) with c = 3k SD(X)."""
    from scipy import integrate

    from isdp.experiments.e7_congenial_histogram.congenial import laplace_sum_pdf

    c = 3 * k * np.sqrt(2 * 6 / 9)  # Var X = 2 (4 + 1 + 1)/9

    def upper(z):  # P(e₁ > z)
        return 0.5 * np.exp(-z) if z >= 0 else 1 - 0.5 * np.exp(z)

    def integrand(s):
        return laplace_sum_pdf(s, 1.0) * (upper((c + s) / 2) + 1 - upper((s - c) / 2))
    return sum(integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
               for lo, hi in ((-np.inf, -c), (-c, c), (c, np.inf)))


def laplace_tail_ratio(run: Run, paper, *, ks: list[float], laplace_tail=None) -> Measurement:
    """§3.3: P(|e| > k SD) of the Laplace noise over the Gaussian's at the same variance, for each k in ``ks``: a
    coordinate of Lemma 3.7's noise (closed form e^{−√2 k} against 2Φ(−k)) and of Cor 3.8's projected noise on
    3 values with C = 1ᵀ (one quadrature) against Cor 3.5's (Gaussian, 2Φ(−k)). Value: the smallest ratio.
    ``laplace_tail``: k → the base noise's tail (a plausibly wrong law, in the tests)."""
    from scipy import stats

    base = laplace_tail or (lambda k: float(np.exp(-np.sqrt(2) * k)))
    ratios = {}
    for k in ks:
        gauss = 2 * stats.norm.sf(k)
        ratios[("Lemma 3.7 / 3.4", k)] = base(k) / gauss
        ratios[("Cor 3.8 / 3.5", k)] = _projected_laplace_tail(k) / gauss
    worst = min(ratios.values())
    parts = [f"{name}: " + ", ".join(f"{ratios[(name, k)]:.3g}" for k in ks) for name in ("Lemma 3.7 / 3.4",
                                                                                          "Cor 3.8 / 3.5")]
    return Measurement(worst, f"tail ratio Laplace / Gaussian at k = {', '.join(f'{k:g}' for k in ks)} SD — "
                              + "; ".join(parts) + f"; smallest {worst:.3g}; at k = 1: "
                              f"{base(1.0) / (2 * stats.norm.sf(1.0)):.3g} (base) — the shoulders are lighter",
                       note="excess kurtosis: Laplace 3, its projected coordinate 3·Σa⁴/(Σa²)² = 1.5, Gaussians 0")


def _extended_laplace(x: np.ndarray, eps: float, size: int, rng: np.random.Generator,
                      basis) -> tuple[np.ndarray, float]:
    """``size`` releases x + Q_N w_N of the extended Laplace mechanism (Cor 3.9 with Algorithm 1's noise Q_N w_N) for
    the identity query, one cell changing by 1: w_N ~ Lap(b) i.i.d., b = Δ₁(Q_Nᵀ)/ε = max_i ‖Q_Nᵀ e_i‖₁/ε, drawn
    block by block as :func:`isdp.baselines.extended_gaussian`. Returns (releases, b)."""
    b = max(float(np.abs(Q).sum(axis=1).max()) for _, Q in basis if Q.size) / eps
    out = np.repeat(x[None, :], size, axis=0)
    for cells, Q in basis:
        if Q.shape[1]:
            out[:, cells] += rng.laplace(0.0, b, (size, Q.shape[1])) @ Q.T
    return out, b


def extended_unbiased_z(run: Run, paper, *, groups: int, hours: int, buildings: int, poisson_mean: float,
                        releases: int, eps: float, seed: int, clip_at: float | None = None) -> Measurement:
    """§4: per-cell z of the mean error of the two extension mechanisms, the extended Gaussian (Algorithm 1, Cor 3.6;
    scale c = 1 as E6's σ) and the extended Laplace (Cor 3.9), on §5.2's invariants at a small size (a
    Poisson(``poisson_mean``) stand-in table), ``releases`` fixed-seed releases each, against the exact per-cell SDs
    σ_N √Π_ii and b √(2 Π_ii). ``clip_at``: releases clipped below (counts made non-negative: a biased mechanism,
    in the tests)."""
    from isdp.baselines import extended_gaussian, null_space_blocks
    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    rng = np.random.default_rng(seed)
    x = rng.poisson(poisson_mean, A.shape[1]).astype(float)
    basis = null_space_blocks(A)
    pi = np.zeros(x.size)  # diag Π_N = Σ_k Q_ik²
    for cells, Q in basis:
        pi[cells] = (Q**2).sum(axis=1)
    gauss, sigma = extended_gaussian(x, A, 1.0, releases, rng, basis=basis)
    laplace, b = _extended_laplace(x, eps, releases, rng, basis)
    z, parts = [], []
    for name, y, sd in (("extended Gaussian", gauss, sigma * np.sqrt(pi)),
                        ("extended Laplace", laplace, b * np.sqrt(2 * pi))):
        if clip_at is not None:
            y = np.maximum(y, clip_at)
        bias = (y - x).mean(axis=0)
        z.append(bias / (sd / np.sqrt(releases)))
        parts.append(f"{name}: largest |mean error| {np.abs(bias).max():.3f} (per-cell SD {sd.max():.3f}), "
                     f"max |z| {np.abs(z[-1]).max():.2f}")
    z = np.concatenate(z)
    return Measurement(z, f"{'; '.join(parts)} — {x.size} cells ({groups} groups × {hours} hours × {buildings} "
                          f"buildings, null space of dimension {sum(Q.shape[1] for _, Q in basis)}), {releases:,} "
                          "releases each",
                       note=f"σ_N = {sigma:.4f} (c = 1), b = {b * eps:.4f}/ε at ε = {eps:g}; unbiasedness does not "
                            "depend on the scale")


def noise_data_independence(run: Run, paper, *, groups: int, hours: int, buildings: int, poisson_mean: float,
                            releases: int, eps: float, seed: int, clip_at: float | None = None) -> Measurement:
    """§4 after Cor 4.1: the largest |error(x) − error(x')| of two different stand-in tables (Poisson(``poisson_mean``)
    cells, §5.2's invariants at a small size) released with the same seed by the extended Gaussian (Algorithm 1,
    Cor 3.6), the projected Laplace (Cor 3.8, E4's :func:`isdp.baselines.projected_laplace`) and the extended Laplace
    (Cor 3.9); Cor 3.5's projected Gaussian is SDP-E6-data-independence's. ``clip_at``: releases clipped below (a
    non-negativity post-processing, whose error depends on the data: the tests)."""
    from isdp.baselines import extended_gaussian, null_space_blocks, projected_laplace
    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    data = np.random.default_rng([seed, 0])
    tables = [data.poisson(poisson_mean, A.shape[1]).astype(float) for _ in range(2)]
    basis = null_space_blocks(A)
    mechanisms = {
        "Cor 3.6 extended Gaussian": lambda x, rng: extended_gaussian(x, A, 1.0, releases, rng, basis=basis)[0],
        "Cor 3.8 projected Laplace": lambda x, rng: projected_laplace(x, A, eps, releases, rng),
        "Cor 3.9 extended Laplace": lambda x, rng: _extended_laplace(x, eps, releases, rng, basis)[0],
    }
    gaps = {}
    for k, (name, release) in enumerate(mechanisms.items()):
        errors = []
        for x in tables:
            y = release(x, np.random.default_rng([seed, 1, k]))
            errors.append((y if clip_at is None else np.maximum(y, clip_at)) - x)
        gaps[name] = float(np.abs(errors[0] - errors[1]).max())
    worst = max(gaps.values())
    return Measurement(worst, f"largest |error(x) − error(x')| with the same seed: {worst:.1e} ("
                              + "; ".join(f"{name} {g:.1e}" for name, g in gaps.items())
                              + f") — two tables of {A.shape[1]} cells differing in "
                              f"{int((tables[0] != tables[1]).sum())}, {releases} releases each",
                       n=len(gaps))


def invariant_dp_incompatibility(run: Run, paper, *, eps: float, sizes: list[int], entries: list[int]) -> Measurement:
    """§1 and §2.2: DP and a linear invariant on databases over X = {1, 2, 3, 4}, A = hist, Def 2.1's neighbours (one
    row changes, the size stays). For every one-row C with entries in ``entries`` (not all 0): C is *nontrivial*
    when C hist(x) is not constant over the databases of the sizes in ``sizes``; its *forced δ* is 1 when some
    neighbour pair has C hist(x) ≠ C hist(x') — Example 2.4's event {y : C y = C hist(x)} then has probability 1
    under x and 0 under x' for every mechanism that keeps C, so no ε makes δ < 1 — else 0 (no bound). Value: the
    smallest forced δ over the nontrivial invariants. Beside it, Thm 3.1's release for 1ᵀ on ℝ⁴ (exact level)."""
    import itertools

    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    hists = np.array([h for n in sizes for h in se.histograms(n)])
    steps = np.array([np.subtract(h, hp) for n in sizes for h, hp in se.neighbours(n)]).reshape(-1, 4)
    forced, nontrivial = {}, []
    for C in itertools.product(entries, repeat=4):
        if any(C) and np.ptp(hists @ C) > 0:
            nontrivial.append(C)
            forced[C] = float((steps @ C != 0).any())
    worst = min(forced.values())
    free = [C for C in nontrivial if forced[C] == 0]
    level_total = se.projection_privacy(eps)["C = 1ᵀ"][2]
    return Measurement(worst, f"{len(nontrivial)} nontrivial invariants (databases of {', '.join(map(str, sizes))} "
                              f"rows): smallest forced δ {worst:g}"
                              + (f"; not forced for {len(free)}, e.g. {free[:3]}" if free else "")
                              + f"; Thm 3.1's release for 1ᵀ (constant on neighbours) is {level_total / eps:.6f} ε-DP "
                              f"on ℝ⁴ at ε = {eps:g}",
                       note=f"{(len(entries) ** 4) - 1} one-row invariants C ∈ {{{', '.join(map(str, entries))}}}⁴ "
                            "\\ {0}; on databases of every size the total 1ᵀ hist is nontrivial but constant on "
                            "Def 2.1's neighbours, and DP with it is possible", n=len(nontrivial))


def binary_invariant_additive_noise(run: Run, paper, *, sizes: list[int], outputs: str = "binary") -> Measurement:
    """§6: binary records x ∈ {0, 1}ⁿ with the invariant Σ x = k. An additive mechanism x + e whose noise e does not
    depend on x must put every x of the invariant's fibre {x : Σ x = k} on an allowed output (``binary``: {0, 1}ⁿ;
    ``integer``: ℤⁿ, the linear case) with Σ e = 0. Value: the number of nonzero such e over every n in ``sizes``
    and every k (brute force over e ∈ {−2, …, 2}ⁿ, which holds every candidate for binary outputs, where |e_i| ≤ 1;
    for ``integer`` outputs every zero-sum e qualifies, and the value only counts those in that box)."""
    import itertools

    found, parts = 0, []
    for n in sizes:
        noises = np.array([e for e in itertools.product(range(-2, 3), repeat=n) if any(e) and sum(e) == 0])
        for k in range(n + 1):
            fibre = np.array([x for x in itertools.product((0, 1), repeat=n) if sum(x) == k])
            out = fibre[None, :, :] + noises[:, None, :]  # (noises, fibre, n)
            ok = ((out == 0) | (out == 1)).all(axis=(1, 2)) if outputs == "binary" else np.ones(len(noises), bool)
            found += int(ok.sum())
            parts.append(f"n = {n}, k = {k}: {int(ok.sum())}")
    return Measurement(found, f"{found} nonzero data-independent noise vectors keep {outputs} outputs and Σ = k ("
                              + "; ".join(parts) + ")", note="the only one left, e = 0, releases x itself")


def margins_linkage(run: Run, paper, *, shapes: list[list[int]], max_total: int,
                    second: str = "columns") -> Measurement:
    """§2.3 after Prop 2.9: an age × zip table with C₁ its row (age) margins and C₂ its column (zip) margins. Every
    table of each shape in ``shapes`` with 1 to ``max_total`` individuals is grouped by C₁ alone and by (C₁, C₂)
    (``second = "rows"``: C₂ = C₁ again, no new information). Value: the number of tables whose cells, hence every
    individual's age and zip, the two invariants fix (a fibre of one table) while C₁ alone does not."""
    import itertools
    from collections import Counter

    linked, parts = 0, []
    for r, c in shapes:
        tables = np.array([t for t in itertools.product(range(max_total + 1), repeat=r * c)
                           if 1 <= sum(t) <= max_total]).reshape(-1, r, c)
        rows = [tuple(t) for t in tables.sum(axis=2)]
        both = [(a, tuple(t)) for a, t in zip(rows, tables.sum(axis=1) if second == "columns"
                                              else tables.sum(axis=2), strict=True)]
        fibre_one, fibre_both = Counter(rows), Counter(both)
        fixed = np.array([fibre_both[k] == 1 and fibre_one[a] > 1 for a, k in zip(rows, both, strict=True)])
        degenerate = np.array([(t > 0).any(axis=1).sum() == 1 or (t > 0).any(axis=0).sum() == 1 for t in tables])
        linked += int(fixed.sum())
        parts.append(f"{r} × {c}: {int(fixed.sum())} of {len(tables)} tables fixed by both margins, not by the "
                     f"age margin alone ({int((fixed & degenerate).sum())} of them with every individual in one row "
                     f"or one column); mean fibre {np.mean([fibre_one[a] for a in rows]):.1f} tables under the age "
                     f"margin, {np.mean([fibre_both[k] for k in both]):.1f} under both")
    return Measurement(linked, f"{linked} tables identified by composing the margins — " + "; ".join(parts),
                       note=f"tables of 1 to {max_total} individuals; C₂ = {second} margins")


def independent_rows_equivalence(run: Run, paper, *, groups: int, hours: int, buildings: int,
                                 drop: int = 0) -> Measurement:
    """Footnote 1 on §5.2's invariants: per building (the constraints of different buildings share no cell), C′ =
    the rows of C that QR with column pivoting of Cᵀ picks as independent (rank-many, minus ``drop``). Value: the
    largest of ‖C − T C′‖_max with T = C C′⁺ (C from C′ by a linear map) and ‖Π_N(C) − Π_N(C′)‖_max (the same null
    space, so the same mechanisms) over the buildings."""
    import scipy.linalg

    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    cells = np.arange(A.shape[1])
    worst, ranks, seen = 0.0, [], {}
    for b in range(buildings):
        block = A[:, cells % buildings == b]
        block = block[np.abs(block).sum(axis=1) > 0].astype(float)
        if block.tobytes() not in seen:  # identical blocks (every building here) give identical results
            q, r, piv = scipy.linalg.qr(block.T, mode="economic", pivoting=True)
            rank = int((np.abs(np.diag(r)) > np.abs(r[0, 0]) * 1e-10).sum())
            sub = block[np.sort(piv[: rank - drop])]
            q_sub, r_sub = np.linalg.qr(sub.T)  # sub has full row rank: sub = r_subᵀ q_subᵀ
            T = block @ q_sub @ np.linalg.inv(r_sub).T  # T C′ = C Q_sub Q_subᵀ, C itself when C′ spans C's rows
            gap = max(float(np.abs(block - T @ sub).max()),  # and Π_N = I − QQᵀ: compare the row-space projectors
                      float(np.abs(q[:, :rank] @ q[:, :rank].T - q_sub @ q_sub.T).max()))
            seen[block.tobytes()] = (gap, (block.shape[0], rank, sub.shape[0]))
        gap, shape = seen[block.tobytes()]
        worst = max(worst, gap)
        ranks.append(shape)
    rows, rank, kept = (sum(x[i] for x in ranks) for i in range(3))
    return Measurement(worst, f"{rows} rows of rank {rank}; C′ keeps {kept} rows ({buildings} building blocks): "
                              f"largest |C − T C′| or projector gap {worst:.1e} ({len(seen)} distinct block(s))",
                       n=buildings)


def distributed_privatization_gap(run: Run, paper, *, groups: int, hours: int, buildings: int, sum_cells: int,
                                  random_c: list[int], poisson_mean: float, block_sizes: list[int], seeds: list[int],
                                  releases: int, eps: float, shared_seed: bool = True,
                                  clip_at: float | None = None) -> Measurement:
    """§4 'Implementation: distributed privatization' (A = identity): each local agent holds only its own entries of
    x, knows C and the common seed, runs the mechanism on its local view (its entries, 0 for every entry it does not
    hold) with the common seed and keeps its own entries; the assembled release is compared with the central
    release of the whole x under the same seed. Mechanisms: the projected Gaussian (Cor 3.5, σ = 1), projected
    Laplace (Cor 3.8, E4's code), extended Gaussian (Algorithm 1, Cor 3.6) and extended Laplace (Cor 3.9). Invariants:
    §5.2's at ``groups`` × ``hours`` × ``buildings``, one total over ``sum_cells`` cells (a state's counties), and a
    random integer C of ``random_c`` = [rows, cells] (entries −2..2). Agents hold contiguous blocks of each size in
    ``block_sizes``. Value: the largest of |assembled − central| and the invariant residual |C y − C x| / max(1, |C x|).
    ``shared_seed=False``: each agent seeds its own generator (the statement's 'if' broken); ``clip_at``: every
    release clipped below (a non-negativity post-processing: local, so the agents still agree, but C is lost)."""
    from isdp.baselines import extended_gaussian, null_space_blocks, projected_gaussian, projected_laplace
    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    def clip(y):
        return y if clip_at is None else np.maximum(y, clip_at)

    data = np.random.default_rng([seeds[0], 0])
    rows, cols = random_c
    instances = {f"§5.2 ({groups} × {hours} × {buildings})": group_hour_building_constraints(groups, hours,
                                                                                            buildings)[0],
                 f"one total of {sum_cells}": np.ones((1, sum_cells), dtype=np.int64),
                 f"random C {rows} × {cols}": data.integers(-2, 3, (rows, cols))}
    gaps, residuals = {}, {}
    for A in instances.values():
        x = data.poisson(poisson_mean, A.shape[1]).astype(float)
        basis = null_space_blocks(A)  # a function of C alone: every agent can compute it
        mechanisms = {
            "projected Gaussian": lambda v, rng, A=A: projected_gaussian(v, A, 1.0, releases, rng),
            "projected Laplace": lambda v, rng, A=A: projected_laplace(v, A, eps, releases, rng),
            "extended Gaussian": lambda v, rng, A=A, basis=basis: extended_gaussian(v, A, 1.0, releases, rng,
                                                                                   basis=basis)[0],
            "extended Laplace": lambda v, rng, basis=basis: _extended_laplace(v, eps, releases, rng, basis)[0],
        }
        for k, (name, release) in enumerate(mechanisms.items()):
            for s in seeds:
                central = clip(release(x, np.random.default_rng([s, k])))
                for size in block_sizes:
                    assembled = np.empty_like(central)
                    for agent, cells in enumerate(np.array_split(np.arange(x.size), -(-x.size // size))):
                        local = np.zeros_like(x)
                        local[cells] = x[cells]
                        rng = np.random.default_rng([s, k] if shared_seed else [s, k, agent + 1])
                        assembled[:, cells] = clip(release(local, rng))[:, cells]
                    gap = float(np.abs(assembled - central).max())
                    residual = float((np.abs(assembled @ A.T - A @ x) / np.maximum(1.0, np.abs(A @ x))).max())
                    gaps[name] = max(gaps.get(name, 0.0), gap)
                    residuals[name] = max(residuals.get(name, 0.0), residual)
    worst = max(*gaps.values(), *residuals.values())
    return Measurement(worst, f"largest |assembled − central| or relative |C y − C x|: {worst:.1e} ("
                              + "; ".join(f"{name} {gaps[name]:.1e} / {residuals[name]:.1e}" for name in gaps)
                              + f") — {', '.join(instances)}; agents holding blocks of {block_sizes} entries, "
                              f"{'a common seed' if shared_seed else 'one seed per agent'}, {len(seeds)} seeds × "
                              f"{releases} releases",
                       n=len(gaps) * len(instances) * len(seeds) * len(block_sizes))


def exponential_not_additive(run: Run, paper, *, eps: float, n_max: int, counts: list[int],
                             bounded: bool = True) -> Measurement:
    """Subspace DP §3.1: the exponential mechanism is in general not additive. For a count released on the range
    {0, …, ``n_max``} (``bounded``) with utility −|y − x| (sensitivity 1), P(y | x) ∝ exp(−ε|y − x|/2), the exact law
    of the error y − x at each count in ``counts``; the value is the largest total variation distance between two of
    them (0 for an additive mechanism, whose error law is the same at every x). Without ``bounded`` the range is
    every integer (a box of half-width 60/ε around x, the rest below e^-30), where the mechanism is a double
    geometric one: additive."""
    def error_law(x):
        lo, hi = (0, n_max) if bounded else (x - int(60 / eps), x + int(60 / eps))
        y = np.arange(lo, hi + 1)
        w = np.exp(-eps * np.abs(y - x) / 2)
        return dict(zip((y - x).tolist(), w / w.sum(), strict=True))

    laws = {x: error_law(x) for x in counts}
    tv = 0.0
    for a in counts:
        for b in counts:
            keys = set(laws[a]) | set(laws[b])
            tv = max(tv, 0.5 * sum(abs(laws[a].get(k, 0.0) - laws[b].get(k, 0.0)) for k in keys))
    return Measurement(tv, f"{'range {0, …, ' + str(n_max) + '}' if bounded else 'every integer'}, ε = {eps:g}, "
                           f"counts {counts}: the error laws are up to {tv:.3f} apart in total variation "
                           f"(mean error at x = {counts[0]}: {sum(k * p for k, p in laws[counts[0]].items()):.2f}, at "
                           f"x = {counts[-1]}: {sum(k * p for k, p in laws[counts[-1]].items()):.2f})")
