"""E6: the projected Gaussian mechanism on the spatio-temporal query of Subspace DP §5.2.

The query is a groups × hours × buildings array of person-hours; the invariants are every
building's hourly totals over groups and its per-group totals over hours
(:func:`isdp_papers.e6_spatiotemporal_gaussian.problem.group_hour_building_constraints`). The error of a release,
Π e with e ~ N(0, σ²)^n, does not depend on the confidential data, so the paper's error
statistics can be recomputed without its (non-public) WiFi data.

Per building the invariants are the two margins of a G × H table, whose null-space projector is
double centring: Π = (I_G − J_G/G) ⊗ (I_H − J_H/H) ⊗ I_B. Every cell therefore has the same
error SD, σ √((G − 1)(H − 1)/(G H)) (:func:`closed_form_sd`).

The paper reports "the median standard deviation of the elementwise additive errors over 50
repetitions" with 5 % and 95 % quantiles. :data:`READINGS` lists three ways to compute that from
one study of ``n_reps`` releases; each statistic has an exact population law
(:func:`exact_reading_quantiles`), and :func:`run_studies` repeats the whole study so that the
spread of a study's statistic — the paper's own Monte Carlo error — is measured too.
:func:`extended_errors` simulates Cor. 3.6's extended Gaussian mechanism beside it, for the
paper's error formula and its comparison of the two mechanisms.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import optimize

from isdp.baselines import projected_gaussian, row_space_basis
from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian, null_space_blocks, projection_sd
from isdp_papers.jobs import derive_seed

READINGS = {
    "cell_sd": "per cell: SD over the repetitions; median and quantiles over the cells",
    "rep_sd": "per repetition: SD over the cells; median and quantiles over the repetitions",
    "rep_var": "per repetition: variance over the cells; median and quantiles over the repetitions",
}


def stat_names(probs) -> list[str]:
    """Column names of the statistics: ``median`` then ``q05``, ``q95``, … for ``probs``."""
    return ["median", *(f"q{round(100 * p):02d}" for p in probs)]


def closed_form_sd(groups: int, hours: int, sigma: float = 1.0) -> float:
    """Per-cell error SD under the two margin families: σ √((G − 1)(H − 1)/(G H))."""
    return float(sigma * np.sqrt((groups - 1) * (hours - 1) / (groups * hours)))


def reading_statistics(errors: np.ndarray, probs) -> dict[str, float]:
    """Return the three readings' median and quantiles for one study's errors (n_reps × n_cells).

    SDs and variances use ``ddof=1``; quantiles are NumPy's default (linear interpolation, as
    R's default type 7).
    """
    errors = np.asarray(errors, dtype=float)
    per_cell_sd = errors.std(axis=0, ddof=1)
    per_rep_var = errors.var(axis=1, ddof=1)
    values = {"cell_sd": per_cell_sd, "rep_sd": np.sqrt(per_rep_var), "rep_var": per_rep_var}
    q = [0.5, *probs]
    out = {}
    for reading, v in values.items():
        for name, x in zip(stat_names(probs), np.quantile(v, q), strict=True):
            out[f"{reading}_{name}"] = float(x)
    return out


def exact_reading_quantiles(cell_sd: np.ndarray, n_reps: int, null_dim: int, sigma: float, probs) -> dict:
    """Return population quantiles (median first, then ``probs``) of each reading's statistic.

    - ``cell_sd``: one cell's sample SD over ``n_reps`` repetitions is s_i √(χ²_{k−1}/(k−1));
      across cells the law is the mixture over cells (one scaled χ when all s_i are equal).
    - ``rep_var``: one repetition's error vector Π e has ‖Π e‖² = σ² χ²_d, d = ``null_dim``; its
      sample variance over the n cells is that over n − 1 when the cells' mean error is 0, i.e.
      when the grand total is implied by the invariants (true for §5.2; the caller checks it).
    - ``rep_sd``: the square root of ``rep_var``.
    """
    from scipy import stats

    cell_sd = np.asarray(cell_sd, dtype=float)
    n, k = cell_sd.size, int(n_reps)
    q = [0.5, *probs]
    scales, weights = np.unique(np.round(cell_sd, 12), return_counts=True)
    weights = weights / weights.sum()
    chi = stats.chi2(k - 1)

    def mixture_quantile(p):
        if scales.size == 1:
            return scales[0] * np.sqrt(chi.ppf(p) / (k - 1))
        cdf = lambda t: float(np.sum(weights * chi.cdf((k - 1) * t**2 / scales**2))) - p  # noqa: E731
        return optimize.brentq(cdf, 0.0, scales.max() * 10, xtol=1e-14)

    rep_var = stats.chi2(null_dim, scale=sigma**2 / (n - 1))
    names = stat_names(probs)
    out = {}
    for name, p in zip(names, q, strict=True):
        out[f"cell_sd_{name}"] = float(mixture_quantile(p))
        out[f"rep_var_{name}"] = float(rep_var.ppf(p))
        out[f"rep_sd_{name}"] = float(np.sqrt(rep_var.ppf(p)))
    return out


@dataclass(frozen=True)
class StudyResult:
    """What :func:`run_studies` returns.

    ``studies``: one row per study with every reading's statistics; ``repetitions``: one row
    per release (study, rep, SD and variance over the cells, squared error ‖Π e‖²);
    ``first_errors``: the errors of study 0 (n_reps × n); ``cell_mean``/``cell_sd``: each cell's
    mean and SD over all releases; ``max_residual``: the largest |A y − A x| over all releases;
    ``max_rep_mean``: the largest |mean error over the cells| of a release.
    """

    studies: pd.DataFrame
    repetitions: pd.DataFrame
    first_errors: np.ndarray
    cell_mean: np.ndarray
    cell_sd: np.ndarray
    max_residual: float
    max_rep_mean: float


def run_studies(x, A, sigma: float, n_reps: int, n_studies: int, seed: int, probs, basis) -> StudyResult:
    """``n_studies`` independent studies of ``n_reps`` projected Gaussian releases of ``x``.

    Study ``k`` draws from its own stream ``derive_seed(seed, "study", k)``, so adding studies
    never changes the earlier ones. ``basis``: :func:`isdp.baselines.row_space_basis` of ``A``.
    """
    x = np.asarray(x, dtype=float)
    S = sp.csr_array(np.asarray(A, dtype=float))  # sparse: the residual check costs O(nnz) per release
    invariants = S @ x
    rows, reps = [], []
    total = np.zeros(x.size)
    total_sq = np.zeros(x.size)
    max_residual = max_rep_mean = 0.0
    first = None
    for k in range(int(n_studies)):
        rng = np.random.default_rng(derive_seed(seed, "study", k))
        y = projected_gaussian(x, A, sigma, n_reps, rng, basis=basis)
        err = y - x
        if first is None:
            first = err
        total += err.sum(axis=0)
        total_sq += (err**2).sum(axis=0)
        max_residual = max(max_residual, float(np.abs((S @ y.T).T - invariants).max()))
        max_rep_mean = max(max_rep_mean, float(np.abs(err.mean(axis=1)).max()))
        rows.append({"study": k, **reading_statistics(err, probs)})
        var = err.var(axis=1, ddof=1)
        reps.append(
            pd.DataFrame(
                {"study": k, "rep": np.arange(n_reps), "sd": np.sqrt(var), "var": var, "sq_error": (err**2).sum(axis=1)}
            )
        )
    n_total = int(n_studies) * int(n_reps)
    mean = total / n_total
    sd = np.sqrt(np.maximum(total_sq - n_total * mean**2, 0.0) / (n_total - 1))
    return StudyResult(
        pd.DataFrame(rows), pd.concat(reps, ignore_index=True), first, mean, sd, max_residual, max_rep_mean
    )


def readings_table(studies: pd.DataFrame, exact: dict, probs, paper: dict | None = None) -> pd.DataFrame:
    """Per reading and statistic: the exact value, the mean over studies and the spread of one study.

    ``study_sd`` is the SD of the statistic across studies, i.e. the Monte Carlo error of a single
    study such as the paper's; ``se_mean`` that of the mean over this run's studies; ``se`` =
    √(study_sd² + se_mean²), the SE of (this run's mean − one independent study's value).
    ``paper``: statistic name → the paper's printed value, copied into a ``paper`` column.
    """
    r = len(studies)
    rows = []
    for reading, description in READINGS.items():
        for name in stat_names(probs):
            col = studies[f"{reading}_{name}"]
            spread = float(col.std(ddof=1)) if r > 1 else float("nan")
            se_mean = spread / np.sqrt(r)
            rows.append(
                {
                    "reading": reading,
                    "statistic": name,
                    "exact": exact[f"{reading}_{name}"],
                    "mean": float(col.mean()),
                    "study_sd": spread,
                    "se_mean": se_mean,
                    "se": float(np.hypot(spread, se_mean)),
                    "n_studies": r,
                    "paper": (paper or {}).get(name, np.nan),
                    "description": description,
                }
            )
    return pd.DataFrame(rows)


def conditioning_gap(A, sigma: float, basis, n_probes: int, rng: np.random.Generator) -> float:
    """Largest gap between σ² Π z and the conditional covariance applied to random probes z.

    Conditioning x + e, e ~ N(0, σ² I), on A(x + e) = A x gives covariance
    σ² (I − Aᵀ (A Aᵀ)⁺ A) (Gaussian conditioning with a pseudo-inverse, since A may be rank
    deficient); the projected mechanism's is σ² (I − Q Qᵀ). Subspace DP Thm 4.2 says they agree.
    """
    A = np.asarray(A, dtype=float)
    z = rng.standard_normal((A.shape[1], int(n_probes)))
    # A Aᵀ of a rank-deficient integer A has eigenvalues 0 up to rounding (~1e-14) or of order 1:
    # NumPy's default cutoff (1e-15 relative) would invert the rounding noise.
    conditional = z - A.T @ (np.linalg.pinv(A @ A.T, rcond=1e-10, hermitian=True) @ (A @ z))
    projected = z - basis @ (basis.T @ z)
    return float(sigma**2 * np.abs(conditional - projected).max())


def conditioning_by_slab(
    C, n_accepted: int, window: float, rng: np.random.Generator, noise=None, chunk: int = 250_000
) -> tuple[np.ndarray, np.ndarray]:
    """Subspace DP Thm 4.2 by brute force.

    ``n_accepted`` noise vectors e kept when max |C e| < ``window`` (conditioning on a thin slab around C e = 0), and as
    many independent draws projected orthogonally onto null(C) (the projected mechanism's noise, through
    :func:`isdp.baselines.row_space_basis`).

    ``noise(rng, shape)`` draws i.i.d. noise (default: standard normal, the theorem's spherical Gaussian).
    A kept draw differs from an exactly conditioned one by its component in the row space of C, of norm
    below ``window`` / smallest singular value of C, with a symmetric law (its first-order effect cancels).
    """
    C = np.atleast_2d(np.asarray(C))
    n = C.shape[1]
    draw = noise or (lambda g, shape: g.standard_normal(shape))
    kept, total = [], 0
    while total < n_accepted:
        e = draw(rng, (chunk, n))
        e = e[np.abs(e @ C.T).max(axis=1) < window]
        kept.append(e)
        total += len(e)
    Q = row_space_basis(C)
    e = draw(rng, (int(n_accepted), n))
    return np.concatenate(kept)[:n_accepted], e - (e @ Q) @ Q.T


def slab_ks_pvalues(conditioned: np.ndarray, projected: np.ndarray) -> np.ndarray:
    """Two-sample Kolmogorov–Smirnov p-values of every cell and every difference of two cells."""
    from scipy import stats

    eye = np.eye(conditioned.shape[1])
    directions = [*eye, *(eye[i] - eye[j] for i, j in itertools.combinations(range(len(eye)), 2))]
    return np.array([stats.ks_2samp(conditioned @ d, projected @ d).pvalue for d in directions])


def data_independence_gap(x1, x2, A, sigma: float, n_reps: int, seed: int, basis) -> float:
    """Largest difference between the errors of two confidential tables released with the same noise."""
    e1 = projected_gaussian(x1, A, sigma, n_reps, np.random.default_rng(seed), basis=basis) - np.asarray(x1, float)
    e2 = projected_gaussian(x2, A, sigma, n_reps, np.random.default_rng(seed), basis=basis) - np.asarray(x2, float)
    return float(np.abs(e1 - e2).max())


def extended_errors(x, A, scale: float, n_reps: int, n_studies: int, seed: int) -> dict:
    """Return ``n_studies`` × ``n_reps`` releases of the extended Gaussian mechanism (Subspace DP Cor. 3.6).

    At the projected mechanism's ``scale`` (c_{ε,δ}), with its noise scale σ_N, the mean squared error per release with
    its SE, Cor. 3.6's (n − rank) σ_N², and the largest |A y − A x|. Study ``k`` draws from ``derive_seed(seed, "study",
    k)``.
    """
    x = np.asarray(x, dtype=float)
    A = np.asarray(A)
    basis = null_space_blocks(A)
    null_dim = sum(Q.shape[1] for _, Q in basis)
    S = sp.csr_array(A.astype(float))
    sq, residual, sigma = [], 0.0, float("nan")
    for k in range(int(n_studies)):
        y, sigma = extended_gaussian(
            x, A, scale, n_reps, np.random.default_rng(derive_seed(seed, "study", k)), basis=basis
        )
        sq.append(((y - x) ** 2).sum(axis=1))
        residual = max(residual, float(np.abs((S @ y.T).T - S @ x).max()))
    sq = np.concatenate(sq)
    return {
        "extended_sigma": sigma,
        "extended_sq_error_mean": float(sq.mean()),
        "extended_sq_error_se": float(sq.std(ddof=1) / np.sqrt(sq.size)),
        "extended_sq_error_expected": float(null_dim * sigma**2),
        "extended_max_residual": residual,
    }


def exact_sd_summary(A, sigma: float, groups: int, hours: int, basis) -> dict:
    """Exact per-cell SDs from the projector's diagonal, against the closed form."""
    sd = projection_sd(A, sigma, basis=basis)
    closed = closed_form_sd(groups, hours, sigma)
    return {
        "exact_sd_min": float(sd.min()),
        "exact_sd_median": float(np.median(sd)),
        "exact_sd_max": float(sd.max()),
        "closed_form_sd": closed,
        "max_gap_to_closed_form": float(np.abs(sd - closed).max()),
    }


# --------------------------------------------------------------------------- figure


def plot_readings(
    per_cell_sd,
    n_reps: int,
    repetitions: pd.DataFrame,
    exact_sd: float,
    null_dim: int,
    sigma: float,
    paper: dict,
    probs,
    axes=None,
):
    """Two panels: (a) one study's per-cell SDs; (b) every release's SD and variance over the cells.

    ``per_cell_sd``: each cell's SD over the ``n_reps`` releases of one study. Each panel
    overlays the exact law and marks the paper's median (dashed) and quantiles (dotted) from
    ``paper`` (statistic name → value).
    """
    import matplotlib.pyplot as plt
    from scipy import stats

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4))
    per_cell = np.asarray(per_cell_sd, dtype=float)
    n = per_cell.size
    ax = axes[0]
    ax.hist(per_cell, bins=60, density=True, color="#9ecae1", label=f"{n:,} cells, one study of {n_reps} releases")
    t = np.linspace(per_cell.min(), per_cell.max(), 400)
    dof = n_reps - 1
    ax.plot(
        t,
        stats.chi2.pdf(dof * t**2 / exact_sd**2, dof) * 2 * dof * t / exact_sd**2,
        "k-",
        lw=1,
        label=f"exact law: {exact_sd:.4f}·√(χ²_{dof}/{dof})",
    )
    ax.axvline(exact_sd, color="k", lw=2, label=f"exact per-cell SD {exact_sd:.4f}")
    ax.set_xlabel("per-cell error SD over the repetitions")
    ax.set_title("(a) per-cell SD over the repetitions")
    ax = axes[1]
    colors = {"sd": "#2ca02c", "var": "#ff7f0e"}
    law = stats.chi2(null_dim, scale=sigma**2 / (n - 1))
    for col, label in (("sd", "SD over the cells"), ("var", "variance over the cells")):
        v = repetitions[col].to_numpy()
        ax.hist(v, bins=50, density=True, alpha=0.5, color=colors[col], label=f"{label} ({v.size:,} releases)")
        t = np.linspace(v.min(), v.max(), 400)
        pdf = law.pdf(t) if col == "var" else law.pdf(t**2) * 2 * t
        ax.plot(t, pdf, color=colors[col], lw=1)
    ax.set_xlabel("per-release statistic over the cells")
    ax.set_title("(b) per-release SD and variance over the cells")
    for a in axes:
        a.axvline(paper["median"], color="r", ls="--", label="paper: median")
        for name in stat_names(probs)[1:]:
            a.axvline(
                paper[name],
                color="r",
                ls=":",
                label="paper: " + " / ".join(f"{round(100 * p)} %" for p in probs) + " quantiles"
                if name == stat_names(probs)[1]
                else None,
            )
        a.set_ylabel("density")
        a.legend(fontsize=7)
    return axes
