"""Measures of Subspace DP §3.3's Gaussian and Laplace mechanisms, exactly.

The privacy of Lemma 3.4's Gaussian and its Corollaries 3.5 and 3.6, of Lemma 3.7's Laplace and its Corollaries 3.8 and
3.9 (:mod:`isdp_papers.e6_spatiotemporal_gaussian.laplace_exact`), and the Laplace noise's tails.

Statements: Lemma 3.4's constant against the exact Gaussian profile (``lemma34_profile``) and Cor 3.5 and 3.6's
subspace privacy at it (``gaussian_corollaries_profile``); the levels of Lemma 3.7 (``laplace_product_level``) and
Cor 3.8 (``projected_laplace_level``); Cor 3.9's extended Laplace, private on N and keeping C
(``extended_laplace_check``); the Laplace tails against the Gaussian's (``laplace_tail_ratio``). The extended
Laplace release itself (:func:`_extended_laplace`) serves :mod:`.transparency` too.
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run


def _gaussian_profile(eps: list[float], delta: list[float], shift: float) -> tuple[float, list[str]]:
    """Over the grid.

    The largest exact δ(ε) / δ of Gaussian noise of SD c_{ε,δ} = (1 + √(1 + ln(1/δ)))/ε whose neighbours lie ``shift``
    apart (E8's :func:`~isdp_papers.e8_privacy_accounting.accounting.gaussian_delta` at μ = shift / c), and where it
    exceeds 1.
    """
    from isdp_papers.e8_privacy_accounting.accounting import gaussian_delta

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
    """Measure Lemma 3.4's Gaussian noise against the exact privacy profile of the Gaussian mechanism.

    The noise is σ = Δ₂ c_{ε,δ}, c_{ε,δ} = (1 + √(1 + ln(1/δ)))/ε; the profile is
    :func:`~isdp_papers.e8_privacy_accounting.accounting.gaussian_delta`'s; the value is the largest δ_exact(ε)/δ over
    the grid.
    """
    worst, failing = _gaussian_profile(eps, delta, 1.0)
    return Measurement(
        worst,
        f"largest exact δ / stated δ = {worst:.3g} over {len(eps)} × {len(delta)} (ε, δ); "
        + (f"above 1 at {len(failing)}: " + ", ".join(failing) if failing else "never above 1"),
    )


def gaussian_corollaries_profile(run: Run, paper, *, eps: list[float], delta: list[float]) -> Measurement:
    """Measure Cor. 3.5 and 3.6's N-subspace privacy at Lemma 3.4's constant.

    For A = hist on 4 values with bounded neighbours (Δ = e_j − e_i) and the invariants of Examples 2.3 (1ᵀ) and 2.4
    ((1, 0, 1, 0)).

    On N both releases are spherical Gaussian (SD c Δ₂(A) for the projected mechanism, c Δ₂(Q_Nᵀ A) in Q_N's
    coordinates for the extended one) and neighbours lie ‖Π_N Δ‖ (resp. ‖Q_Nᵀ Δ‖) apart, so the exact profile
    is the Gaussian one at μ = (largest shift)/(c · sensitivity). The value is the largest δ_exact(ε)/δ over the
    grid and both corollaries.
    """
    import scipy.linalg

    eye = np.eye(4)
    diffs = np.array([eye[j] - eye[i] for i in range(4) for j in range(4) if i != j])
    sensitivity = float(np.linalg.norm(diffs, axis=1).max())  # Δ₂(hist)
    worst, parts = 0.0, []
    invariants = {"Example 2.3, C = 1ᵀ": np.ones((1, 4)), "Example 2.4, C = (1,0,1,0)": np.array([[1, 0, 1, 0.0]])}
    for name, C in invariants.items():
        projector = eye - C.T @ np.linalg.solve(C @ C.T, C)
        in_null_coordinates = np.linalg.norm(diffs @ scipy.linalg.null_space(C), axis=1)  # ‖Q_Nᵀ Δ‖
        shifts = {
            "Cor 3.5": np.linalg.norm(diffs @ projector, axis=1).max() / sensitivity,
            "Cor 3.6": in_null_coordinates.max() / in_null_coordinates.max(),
        }  # over Δ₂(Q_Nᵀ A), the same sup
        for cor, shift in shifts.items():
            w, failing = _gaussian_profile(eps, delta, float(shift))
            worst = max(worst, w)
            parts.append(
                f"{cor}, {name}: μ c = {shift:.4f}, largest ratio {w:.3g} (above 1 at {len(failing)} of "
                f"{len(eps) * len(delta)})"
            )
    return Measurement(
        worst,
        f"largest exact δ / stated δ = {worst:.3g} ({'; '.join(parts)})",
        note="the projected release's worst shift equals Δ₂(hist) whenever some Δ lies in N (always "
        "for 1ᵀ), the extended one's is Δ₂(Q_Nᵀ A) by its definition: μ = 1/c, Lemma 3.4's case",
    )


def _laplace_setting(n: int, eps: float, sensitivity: float | None):
    """Neighbour shifts of hist on ``n`` values under Def 2.1, Δ₁ = max ‖Δ‖₁ (2), and the Laplace scale.

    Δ₁/ε, or ``sensitivity``/ε when given (E4's per-unit convention is 1).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts = le.histogram_shifts(n)
    delta1 = float(np.abs(shifts).sum(axis=1).max())
    return shifts, delta1, (delta1 if sensitivity is None else sensitivity) / eps


def laplace_product_level(run: Run, paper, *, eps: float, n: int, sensitivity: float | None = None) -> Measurement:
    """Measure Lemma 3.7: the privacy level / ε of hist + Lap(Δ₁/ε)ⁿ under bounded neighbours.

    The level is the larger of the closed form max ‖Δ‖₁/b and the density's largest log ratio on E7's grid (rounding
    near 10⁶ scales shows as ~1e-9).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts, delta1, b = _laplace_setting(n, eps, sensitivity)
    exact, on_grid = le.product_level(shifts, b), le.product_grid_level(shifts, b, le.grid(b))
    return Measurement(
        max(exact, on_grid) / eps,
        f"level {exact / eps:.6f} ε (closed form max ‖Δ‖₁/b), "
        f"{on_grid / eps:.6f} ε on the grid; Δ₁(hist) = {delta1:g} over {len(shifts)} shifts, "
        f"b = {b * eps:g}/ε; at b = 1/ε: {le.product_level(shifts, 1 / eps) / eps:.6f} ε",
    )


def projected_laplace_level(run: Run, paper, *, eps: float, n: int, sensitivity: float | None = None) -> Measurement:
    """Cor 3.8: N-subspace privacy level / ε of hist + Π_N Lap(Δ₁/ε)ⁿ, C = 1ᵀ (:mod:`laplace_exact`).

    The larger of the exact level (the recession slope of the log-concave projected density) and its closed-form
    density's largest log ratio on a 2-D grid of N reaching 10⁶ scales (the grid approaches the supremum from below).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import laplace_exact as le

    shifts, delta1, b = _laplace_setting(n, eps, sensitivity)
    exact = le.projected_level(shifts, b)
    on_grid, where = le.projected_grid_level(shifts, b, le.grid(b))
    return Measurement(
        max(exact, on_grid) / eps,
        f"level on N {exact / eps:.6f} ε (exact: min_σ ‖Δ + σ1‖₁/b), "
        f"{on_grid / eps:.6f} ε on the grid (at |v| ≈ {np.abs(where).max() / b:.0e} scales); "
        f"Δ₁(hist) = {delta1:g}, b = {b * eps:g}/ε; at E4's b = 1/ε: "
        f"{le.projected_level(shifts, 1 / eps) / eps:.6f} ε",
        note=f"n = {n} values, C = 1ᵀ, bounded neighbours (Def 2.1)",
    )


def extended_laplace_check(
    run: Run,
    paper,
    *,
    eps: float,
    n: int,
    records: int,
    releases: int,
    seed: int,
    as_printed: bool = False,
    noise_basis: str = "helmert",
) -> Measurement:
    """Cor 3.9 on hist of ``records`` rows over ``n`` values, C = 1ᵀ, Q_N = :func:`laplace_exact.helmert_basis`.

    ``(ε, 0) on N`` — the exact level of the release's N-coordinates Q_Nᵀ y (a product Laplace located at Q_Nᵀ of the
    noiseless release) is at most ε (1 + 1e-9) over every neighbour pair; ``keeps C y = C h`` — the largest |1ᵀ y − 1ᵀ
    h| over ``releases`` draws per histogram is at most 1e-9. ``as_printed``: the noise e = h + Q_N w as printed.
    ``noise_basis = "scipy"``: the noise added in SciPy's null-space basis while Δ₁(Q_Nᵀ A) is computed in Helmert's (a
    plausible bug: the ℓ1 sensitivity depends on the basis).
    """
    import scipy.linalg

    from isdp_papers.e6_spatiotemporal_gaussian import laplace_exact as le

    Q_scale = le.helmert_basis(n)
    Q = Q_scale if noise_basis == "helmert" else scipy.linalg.null_space(np.ones((1, n)))
    b = le.extended_scale(le.histogram_shifts(n), Q_scale, eps)
    pairs = le.histogram_pairs(n, records)

    def location(h):  # Q_Nᵀ of the release without noise: the N-coordinates' centre
        return (le.extended_release(h, Q, np.zeros(n - 1), as_printed) @ Q)[0]

    level = max(np.abs(location(h) - location(hp)).sum() for h, hp in pairs) / b
    rng = np.random.default_rng(seed)
    hists = {tuple(h) for h, _ in pairs}
    residual = max(
        np.abs(
            le.extended_release(np.array(h), Q, rng.laplace(0.0, b, (releases, n - 1)), as_printed).sum(axis=1) - sum(h)
        ).max()
        for h in sorted(hists)
    )
    value = {"(ε, 0) on N": bool(level <= eps * (1 + 1e-9)), "keeps C y = C h": bool(residual <= 1e-9)}
    return Measurement(
        value,
        f"level on N {level / eps:.6f} ε over {len(pairs)} neighbour pairs (b = Δ₁(Q_Nᵀ A)/ε "
        f"= {b * eps:.4f}/ε); largest |1ᵀ y − 1ᵀ h| {residual:.3g} over {releases} releases of each of "
        f"{len(hists)} histograms" + (" (noise as printed: h + Q_N w)" if as_printed else ""),
        note=f"{records} rows over {n} values, C = 1ᵀ, bounded neighbours; Q_N the Helmert basis",
    )


def _projected_laplace_tail(k: float) -> float:
    """P(|X| > k SD(X)) for X = (2e₁ − e₂ − e₃)/3, e ~ Lap(1)³ (a coordinate of Π_N e, C = 1ᵀ on 3 values).

    Over S = e₂ + e₃ (E7's density of a sum of two Laplaces), P(2e₁ > c + S) + P(2e₁ < S − c) with c = 3k SD(X).
    """
    from scipy import integrate

    from isdp_papers.e7_congenial_histogram.noise_laws import laplace_sum_pdf

    c = 3 * k * np.sqrt(2 * 6 / 9)  # Var X = 2 (4 + 1 + 1)/9

    def upper(z):  # P(e₁ > z)
        return 0.5 * np.exp(-z) if z >= 0 else 1 - 0.5 * np.exp(z)

    def integrand(s):
        return laplace_sum_pdf(s, 1.0) * (upper((c + s) / 2) + 1 - upper((s - c) / 2))

    return sum(
        integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
        for lo, hi in ((-np.inf, -c), (-c, c), (c, np.inf))
    )


def laplace_tail_ratio(run: Run, paper, *, ks: list[float], laplace_tail=None) -> Measurement:
    """§3.3: P(|e| > k SD) of the Laplace noise over the Gaussian's at the same variance, for each k in ``ks``.

    A coordinate of Lemma 3.7's noise (closed form e^{−√2 k} against 2Φ(−k)) and of Cor 3.8's projected noise on 3
    values with C = 1ᵀ (one quadrature) against Cor 3.5's (Gaussian, 2Φ(−k)). Value: the smallest ratio.
    ``laplace_tail``: k → the base noise's tail (a plausibly wrong law, in the tests).
    """
    from scipy import stats

    base = laplace_tail or (lambda k: float(np.exp(-np.sqrt(2) * k)))
    ratios = {}
    for k in ks:
        gauss = 2 * stats.norm.sf(k)
        ratios[("Lemma 3.7 / 3.4", k)] = base(k) / gauss
        ratios[("Cor 3.8 / 3.5", k)] = _projected_laplace_tail(k) / gauss
    worst = min(ratios.values())
    parts = [
        f"{name}: " + ", ".join(f"{ratios[(name, k)]:.3g}" for k in ks) for name in ("Lemma 3.7 / 3.4", "Cor 3.8 / 3.5")
    ]
    return Measurement(
        worst,
        f"tail ratio Laplace / Gaussian at k = {', '.join(f'{k:g}' for k in ks)} SD — "
        + "; ".join(parts)
        + f"; smallest {worst:.3g}; at k = 1: "
        f"{base(1.0) / (2 * stats.norm.sf(1.0)):.3g} (base) — the shoulders are lighter",
        note="excess kurtosis: Laplace 3, its projected coordinate 3·Σa⁴/(Σa²)² = 1.5, Gaussians 0",
    )


def _extended_laplace(
    x: np.ndarray, eps: float, size: int, rng: np.random.Generator, basis
) -> tuple[np.ndarray, float]:
    """Draw ``size`` releases x + Q_N w_N of the extended Laplace mechanism for the identity query.

    The mechanism is Cor 3.9 with Algorithm 1's noise Q_N w_N, one cell changing by 1: w_N ~ Lap(b) i.i.d., b =
    Δ₁(Q_Nᵀ)/ε = max_i ‖Q_Nᵀ e_i‖₁/ε, drawn block by block as
    :func:`~isdp_papers.e6_spatiotemporal_gaussian.null_space_noise.extended_gaussian`. Returns (releases, b).
    """
    b = max(float(np.abs(Q).sum(axis=1).max()) for _, Q in basis if Q.size) / eps
    out = np.repeat(x[None, :], size, axis=0)
    for cells, Q in basis:
        if Q.shape[1]:
            out[:, cells] += rng.laplace(0.0, b, (size, Q.shape[1])) @ Q.T
    return out, b
