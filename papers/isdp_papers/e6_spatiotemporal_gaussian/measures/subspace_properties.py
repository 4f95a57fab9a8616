"""Measures of Subspace DP's properties and Theorems 3.1 and 3.3 on exact laws (no Monte Carlo).

Databases of a few rows over {1, 2, 3, 4} (:mod:`isdp_papers.e6_spatiotemporal_gaussian.subspace_exact`).

Statements: DP implies subspace DP (``subspace_dp_delta``, Cor 2.8); nestedness (``nestedness_delta``, Prop 2.7);
composition (``composition_delta``, Prop 2.9); post-processing on N (``post_processing_delta``) and mixtures
(``mixture_delta``, §2.3); Thm 3.1's privacy half (``projection_privacy_delta``) and Thm 3.3's converse
(``extension_converse_check``); a consistent release without invariants (``consistent_release_delta``, §1).
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run


def _exact_note() -> str:
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    return (
        f"exact laws, no Monte Carlo: databases of {se.RECORDS} rows over {{1, 2, 3, 4}}, A = hist, bounded "
        f"neighbours ({len(se.neighbours())} ordered pairs), cells clamp(h_i + DG(ε/{se.SENSITIVITY}), 0, "
        f"{se.RECORDS}) (subspace_exact)"
    )


def _levels(levels: dict) -> str:
    return ", ".join(f"{name} {v:.6f}" if np.isfinite(v) else f"{name} ∞" for name, v in levels.items())


def subspace_dp_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Measure Cor. 2.8: the largest δ at ε of an (ε, 0)-DP mechanism projected onto each subspace.

    The subspaces are those of :data:`subspace_exact.SUBSPACES` (ℝ⁴, N(C), N(C) ∩ N(1ᵀ), a line, N(1ᵀ)); the δ is the
    largest over every neighbour pair.
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.dp_implies_subspace_dp(eps)
    worst = max(delta for _, delta in out.values())
    return Measurement(
        worst,
        f"largest δ at ε = {eps:g} over {len(out)} subspaces: {worst:.1e}; levels / ε: "
        + _levels({k: lv / eps for k, (lv, _) in out.items()}),
        note=_exact_note(),
        n=len(out),
    )


def projection_privacy_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Thm 3.1, privacy half.

    The largest δ at ε on N of 𝓜(x) = h + Π_N(M(x) − h), M the (ε, 0)-DP base, for Examples 2.4's and 2.3's invariants;
    beside it the level on ℝ⁴ and the invariants' largest residual.
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.projection_privacy(eps)
    worst = max(v[1] for v in out.values())
    parts = [
        f"{name}: level on N {lv / eps:.6f} ε, on ℝ⁴ {'∞' if not np.isfinite(full) else f'{full / eps:.6f} ε'}, "
        f"invariant residual {res}"
        for name, (lv, _, full, res) in out.items()
    ]
    return Measurement(
        worst, f"largest δ at ε = {eps:g} on N: {worst:.1e} ({'; '.join(parts)})", note=_exact_note(), n=len(out)
    )


def extension_converse_check(run: Run, paper, *, eps: float, translate: str = "row space") -> Measurement:
    """Thm 3.3 "only if".

    M̂(x) = 𝓜(x) − Π_R A(x) for Thm 3.1's release 𝓜 (Examples 2.4's and 2.3's invariants),
    :func:`subspace_exact.extension_converse`: ``image in N`` — C M̂ = 0 on every support point (integer arithmetic);
    ``(ε, 0)-DP on ℝⁿ`` — the largest hockey-stick δ at ε over every ordered neighbour pair at most 1e-12 (rounding).
    ``translate``: what is subtracted instead of Π_R A(x) (``query``, ``none``; the tests).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.extension_converse(eps, translate=translate)
    residual, delta = max(v[0] for v in out.values()), max(v[2] for v in out.values())
    parts = [
        f"{name}: largest |C M̂| {res}, level on ℝ⁴ {'∞' if not np.isfinite(lv) else f'{lv / eps:.6f} ε'}, "
        f"δ at ε {d:.1e}"
        for name, (res, lv, d) in out.items()
    ]
    return Measurement(
        {"image in N": residual == 0, "(ε, 0)-DP on ℝⁿ": bool(delta <= 1e-12)},
        f"M̂ = 𝓜 − {'Π_R A(x)' if translate == 'row space' else translate} at ε = {eps:g}: " + "; ".join(parts),
        note=_exact_note(),
        n=len(out),
    )


def consistent_release_delta(run: Run, paper, *, eps: float, total_from: str = "release") -> Measurement:
    """Measure §1: the largest δ at ε of the non-negative base release with a relational total.

    The total is y₁ + y₃ of the released cells (:func:`subspace_exact.consistent_release`); ``total_from = "data"``: the
    total of the confidential histogram instead (an invariant, Example 2.4's).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    delta = se.consistent_release(eps, total_from=total_from)
    source = "its released cells y₁ + y₃" if total_from == "release" else "the confidential h₁ + h₃"
    return Measurement(
        delta, f"largest δ at ε = {eps:g} of (y, total) on ℝ⁵, the total from {source}: {delta:.1e}", note=_exact_note()
    )


def nestedness_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Measure Prop. 2.7: for nested V₂ ⊆ V₁, the largest δ on V₂ at the mechanism's exact level on V₁.

    For the (ε, 0)-DP base and for its Thm 3.1 mechanism with C = (1, 0, 1, 0), which is V₁ = N(C)-private but not DP on
    ℝ⁴.
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.nestedness(eps)
    worst = max(v["delta"] for v in out.values())
    parts = [
        f"{m}: levels / ε {_levels({k: lv / eps for k, lv in v['levels'].items()})}; {len(v['pairs'])} nested pairs"
        for m, v in out.items()
    ]
    return Measurement(
        worst,
        f"largest δ on V₂ at V₁'s level: {worst:.1e} ({'; '.join(parts)})",
        note=_exact_note(),
        n=sum(len(v["pairs"]) for v in out.values()),
    )


def composition_delta(run: Run, paper, *, eps: list[float]) -> Measurement:
    """Measure Prop. 2.9: the largest δ at ε₁ + ε₂ of two Thm 3.1 mechanisms run on the same data.

    The mechanisms are (hist, C₁ = (1, 0, 1, 0)) at ε₁ and (hist, C₂ = 1ᵀ) at ε₂; the δ is that of their joint law on
    N(C₁) × N(C₂), with the joint level and the δ at max(ε₁, ε₂) beside it.
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    e1, e2 = eps
    out = se.composition(e1, e2)
    return Measurement(
        out["delta_sum"],
        f"largest δ at ε₁ + ε₂ = {e1 + e2:g}: {out['delta_sum']:.1e}; joint level "
        f"{out['level']:.6f} (each alone {out['levels'][0]:.6f}, "
        f"{out['levels'][1]:.6f}); at max(ε₁, ε₂) = {max(e1, e2):g} δ would be "
        f"{out['delta_max']:.3f}",
        note=_exact_note(),
    )


def post_processing_delta(run: Run, paper, *, eps: float) -> Measurement:
    """Measure L114: the largest δ at ε on N(C) of Thm 3.1's release after post-processings of its N-component.

    C = (1, 0, 1, 0); the post-processings act only on the release's N-component (:data:`subspace_exact.ON_NULL_SPACE`).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = se.post_processing(eps)
    worst = max(delta for _, delta in out.values())
    return Measurement(
        worst,
        f"largest δ at ε = {eps:g} on N: {worst:.1e} ("
        + "; ".join(f"{name}: level {lv / eps:.6f} ε" for name, (lv, _) in out.items())
        + ")",
        note=_exact_note(),
        n=len(out),
    )


def mixture_delta(run: Run, paper, *, eps: float, weights: list[float]) -> Measurement:
    """Measure L116: the largest δ at ε on N(C) of mixtures of two Thm 3.1 mechanisms each (ε, 0) on N(C).

    C = (1, 0, 1, 0); the mixtures have weight λ, data-independent (:func:`subspace_exact.mixture`).
    """
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    out = {lam: se.mixture(eps, lam) for lam in weights}
    worst = max(delta for _, delta in out.values())
    return Measurement(
        worst,
        f"largest δ at ε = {eps:g} on N: {worst:.1e} ("
        + "; ".join(f"λ = {lam:g}: level {lv / eps:.6f} ε" for lam, (lv, _) in out.items())
        + ")",
        note=_exact_note(),
        n=len(out),
    )
