"""Measures of Subspace DP §4 Theorem 4.2.

The projected noise is the noise conditioned on the invariant for the spherical Gaussian, and not for other noises (the
remark after it).

Statements: the conditional and the projected covariance on E6's query (``conditioning_gap``); brute-force
conditioning on a slab against projection (``conditioning_slab_ks``, ``slab_adjusted_min_p``; Laplace noise in
:data:`SLAB_NOISES`); non-spherical Gaussian noise, exactly (``gaussian_projection_gap``).
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run
from isdp_papers.e6_spatiotemporal_gaussian.measures.study_errors import _info


def conditioning_gap(run: Run, paper) -> Measurement:
    """Largest gap between the Gaussian conditional covariance and the projected one, on probe vectors."""
    gap = _info(run, nonnegative=["conditioning_gap"])["conditioning_gap"]
    return Measurement(
        gap, f"max |σ²(I − Aᵀ(AAᵀ)⁺A) z − σ² Π z| = {gap:.1e} on {run.config['e6']['n_probes']} random probes"
    )


#: i.i.d. unit-variance noises for the slab test besides the spherical Gaussian of Thm 4.2 (the default draw of
#: :func:`spatiotemporal.conditioning_by_slab`): Cor 3.8's Laplace
SLAB_NOISES = {"laplace": lambda g, shape: g.laplace(0.0, 1 / np.sqrt(2), shape)}


def conditioning_slab_ks(
    run: Run, paper, *, n_accepted: int, window: float, seed: int, noise: str = "gaussian"
) -> Measurement:
    """Thm 4.2 by brute force.

    I.i.d. ``noise`` (``gaussian``, the theorem's spherical Gaussian, or :data:`SLAB_NOISES`) kept on a slab max |C e| <
    ``window`` against the projected noise (:func:`spatiotemporal.conditioning_by_slab`), two-sample KS on every cell
    and every difference of two cells, for Example 2.3's invariant (1ᵀ, 3 cells) and Example 2.4's ((1, 0, 1, 0)).
    """
    from isdp_papers.e6_spatiotemporal_gaussian.spatiotemporal import conditioning_by_slab, slab_ks_pvalues

    pvalues, parts = [], []
    for k, (name, C) in enumerate((("1ᵀ on 3 cells", [[1, 1, 1]]), ("(1, 0, 1, 0)", [[1, 0, 1, 0]]))):
        draw = {} if noise == "gaussian" else {"noise": SLAB_NOISES[noise]}
        kept, projected = conditioning_by_slab(
            np.array(C), n_accepted, window, np.random.default_rng([seed, k]), **draw
        )
        p = slab_ks_pvalues(kept, projected)
        gap = np.abs(np.cov(kept.T) - np.cov(projected.T)).max()
        pvalues.extend(p)
        parts.append(f"{name}: smallest p {p.min():.3f} of {p.size}, largest covariance gap {gap:.3f}")
    return Measurement(
        np.array(pvalues),
        f"{len(pvalues)} KS tests, {n_accepted:,} conditioned and projected draws "
        f"each (slab {window:g}, {noise} noise): {'; '.join(parts)}",
    )


def slab_adjusted_min_p(run: Run, paper, *, n_accepted: int, window: float, seed: int, noise: str) -> Measurement:
    """§4 after Thm 4.2.

    The Bonferroni-adjusted smallest p, min(1, m · min p), of :func:`conditioning_slab_ks`'s m tests of the projected
    ``noise`` against the same noise conditioned on the invariant (a slab).
    """
    m = conditioning_slab_ks(run, paper, n_accepted=n_accepted, window=window, seed=seed, noise=noise)
    adjusted = float(min(1.0, m.value.size * m.value.min()))
    return Measurement(adjusted, f"Bonferroni-adjusted smallest p {adjusted:.2g}; {m.text}", n=m.value.size)


def gaussian_projection_gap(
    run: Run, paper, *, constraint: list[list[float]], covariance: list[list[float]]
) -> Measurement:
    """§4 after Thm 4.2, exactly for Gaussian noise N(0, Σ).

    The projected noise Π_N e and the noise conditioned on C e = 0 are both centred Gaussians, so they agree in law iff
    Π_N Σ Π_N = Σ − Σ Cᵀ(C Σ Cᵀ)⁻¹ C Σ. The value is the largest entry of the difference for ``covariance``; beside it
    the spherical Σ = I (Thm 4.2) and the condition that decides it, Σ-uncorrelated invariant and null-space parts (Π_N
    Σ (I − Π_N) = 0).
    """
    C, sigma = np.asarray(constraint, dtype=float), np.asarray(covariance, dtype=float)
    proj = np.eye(C.shape[1]) - np.linalg.pinv(C) @ C

    def gap(s: np.ndarray) -> float:
        conditioned = s - s @ C.T @ np.linalg.solve(C @ s @ C.T, C @ s)
        return float(np.abs(proj @ s @ proj - conditioned).max())

    cross = float(np.abs(proj @ sigma @ (np.eye(len(proj)) - proj)).max())
    return Measurement(
        gap(sigma),
        f"largest |Π Σ Π − Cov(e | C e = 0)| entry {gap(sigma):.3g} for Σ = "
        f"{sigma.tolist()} under C = {C.tolist()}; spherical Σ = I: "
        f"{gap(np.eye(len(sigma))):.1g}; cross-covariance of the null-space and invariant "
        f"parts under Σ: {cross:.3g} (the gap is 0 exactly when it is)",
    )
