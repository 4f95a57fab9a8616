"""E4: generalized Laplace against projection-based mechanisms, county by county.

ISDP appendix "Comparison with projected discrete Laplace" (Fig 10); docs/experiments/e4.md. For one
state (one sum constraint over its counties, ε = 0.192, Δ = 1) five mechanisms release the county
populations ``x`` (2010 SF1):

- ``generalized_laplace`` — ℓ1 generalized Laplace noise on the integer kernel lattice (the
  retained MCMC draws of E3, reused, not resampled): integer, invariant exact, unbiased;
- ``projected_laplace`` — ``x + Π e``, e ~ Lap(Δ/ε)^n (:func:`isdp.baselines.projected_laplace`):
  real-valued, invariant up to rounding, unbiased;
- ``dg_l1_lp`` / ``dg_l1_milp`` — ``m = x + DG(e^{−ε})^n`` then the ℓ1 projection onto
  ``{y : Σy = Σx}``, real (LP) or integer (MILP), both by HiGHS
  (:func:`isdp.baselines.dg_l1_projection`);
- ``dg_l1_lp_interior`` — the same LP solved by HiGHS' interior-point method without crossover
  (``method="interior"``): real-valued.

The ℓ1 projection has many optima; HiGHS' simplex (and its MILP) returns a vertex that puts the
whole discrepancy ``Σx − Σm`` on one county whose index depends only on n (see
:func:`isdp.baselines.dg_l1_projection`). That county's error is ``−Σ_{i≠k} e_i``, with SD ≈
√(n − 1) · SD(DG); every other county keeps its raw DG noise. The interior-point solution is the
optimal face's analytic centre, which spreads the discrepancy evenly: county error ``e_i − mean(e)``,
SD ≈ √(1 − 1/n) · SD(DG) everywhere. :func:`metrics_table` reports, per method, the share of
releases in which a single county absorbs the whole discrepancy and which county that is;
:func:`county_spread` the per-county spread with Monte Carlo standard errors.

Errors are ``release − SF1``. The DAS errors (``dp − sf1`` of the NHGIS vintage) are one more
"method" with a single release.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from isdp.baselines import dg_l1_projection, projected_laplace
from isdp.files import atomic_write
from isdp.lattice import sum_constraint
from isdp_papers.jobs import derive_seed

log = logging.getLogger(__name__)


def discrepancy_concentration(m, y) -> np.ndarray | float:
    """Share of the projection discrepancy absorbed by the single cell that moves most.

    For a noisy vector m and its projection y, the share is max_i |y_i − m_i| / Σ_i |y_i − m_i|:
    1.0 when one cell (county) absorbs the whole discrepancy, 1/n when it is spread evenly.

    Parameters
    ----------
    m : array_like, shape (n,) or (size, n)
        The vectors before the projection (e.g. the noisy counts), one per row.
    y : array_like, same shape as ``m``
        The projected vectors.

    Returns
    -------
    float or ndarray of float, shape (size,)
        The share, a float for 1-D inputs and one per row for 2-D inputs; NaN where y = m (no
        discrepancy).

    Raises
    ------
    ValueError
        If ``m`` and ``y`` differ in shape, are not 1-D or 2-D, or have no cells.

    See Also
    --------
    dg_l1_projection : Returns the releases and the noisy vectors.

    Examples
    --------
    >>> from isdp_papers.e4_projection_comparison.comparison import discrepancy_concentration
    >>> discrepancy_concentration([4, 3, 2], [7, 3, 2])  # one cell takes all of it
    1.0
    >>> round(discrepancy_concentration([4, 3, 2], [5, 4, 3]), 4)  # spread evenly: 1/3
    0.3333
    >>> discrepancy_concentration([[4, 3, 2], [1, 1, 1]], [[6, 3, 3], [1, 1, 1]]).tolist()
    [0.6666666666666666, nan]
    """
    m, y = np.asarray(m, dtype=float), np.asarray(y, dtype=float)
    if m.shape != y.shape or m.ndim not in (1, 2) or m.shape[-1] == 0:
        raise ValueError(f"m and y must be equal-shaped 1-D or 2-D arrays, got {m.shape}, {y.shape}")
    d = np.abs(y - m)
    total = d.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, d.max(axis=-1) / total, np.nan)
    return float(share) if share.ndim == 0 else share


METHODS = ("generalized_laplace", "projected_laplace", "dg_l1_lp", "dg_l1_milp", "dg_l1_lp_interior")
DAS = "das"
LABELS = {
    "generalized_laplace": "generalized Laplace (ISDP)",
    "projected_laplace": "projected Laplace (real)",
    "dg_l1_lp": "DG + ℓ1 projection, LP (real)",
    "dg_l1_milp": "DG + ℓ1 projection, MILP (integer)",
    "dg_l1_lp_interior": "DG + ℓ1 LP (interior point, real)",
    DAS: "DAS (NHGIS)",
}
#: integer-valued by construction (the check in :func:`metrics_table` is separate and on the data)
INTEGER_BY_CONSTRUCTION = {
    "generalized_laplace": True,
    "projected_laplace": False,
    "dg_l1_lp": False,
    "dg_l1_milp": True,
    "dg_l1_lp_interior": False,
    DAS: True,
}
#: the ℓ1 projections solved to a vertex (simplex LP, MILP): one county absorbs the discrepancy
PROJECTIONS = ("dg_l1_lp", "dg_l1_milp")
#: every method with a projection step, i.e. a noisy vector m and a discrepancy to place
L1_PROJECTIONS = (*PROJECTIONS, "dg_l1_lp_interior")
#: (integer, LP method) of each ℓ1 projection, for :func:`isdp.baselines.dg_l1_projection`
_L1_SOLVES = {"dg_l1_lp": (False, "vertex"), "dg_l1_milp": (True, "vertex"), "dg_l1_lp_interior": (False, "interior")}
#: absolute tolerance on the state total for real-valued releases
REAL_TOL = 1e-6
#: a release "concentrates" when one county carries at least this share of Σ|y − m|
CONCENTRATION_TOL = 1e-9


@dataclass
class StateReleases:
    """All releases of one state: ``releases[method]`` is (R, n); ``noisy[method]`` the m before projection."""

    state: str
    counties: list[str]  # gisjoin, the column order of every array
    names: list[str]
    sf1: np.ndarray  # int64 (n,)
    dp: np.ndarray  # int64 (n,) DAS values
    releases: dict[str, np.ndarray]
    noisy: dict[str, np.ndarray] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)

    def errors(self, method: str) -> np.ndarray:
        """``release − SF1`` as float (R, n); the DAS error as (1, n)."""
        if method == DAS:
            return (self.dp - self.sf1).astype(float)[None, :]
        return np.asarray(self.releases[method], dtype=float) - self.sf1[None, :]


def releases_for_state(
    state: str,
    sf1,
    dp,
    gl_noise,
    *,
    eps: float,
    n_releases: int,
    seed: int,
    sensitivity: float = 1.0,
    counties=None,
    names=None,
) -> StateReleases:
    """Return the five mechanisms' releases for one state (one sum constraint over its counties).

    ``gl_noise`` are E3's retained generalized Laplace noise vectors ((chains, draws, n), or
    (draws, n) for one chain); the first ``n_releases`` of them (pooled over chains,
    chain-major) are used as they are, and the draws per chain are kept in
    ``attrs["gl_draws_per_chain"]`` (for the effective sample sizes of :func:`county_spread`).
    The baselines draw with independent streams derived from ``seed``, one per method and keyed
    by its name, so adding a method leaves the others' releases unchanged. Raises
    :class:`ValueError` when fewer than ``n_releases`` E3 draws are available or shapes disagree.
    """
    sf1 = np.asarray(sf1, dtype=np.int64)
    dp = np.asarray(dp, dtype=np.int64)
    n = sf1.shape[0]
    if sf1.ndim != 1 or dp.shape != sf1.shape:
        raise ValueError(f"sf1 and dp must be equal-length 1-D vectors, got {sf1.shape}, {dp.shape}")
    gl = np.asarray(gl_noise)
    if gl.shape[-1] != n:
        raise ValueError(f"{state}: E3 draws have {gl.shape[-1]} counties, the data {n}")
    per_chain = gl.shape[-2] if gl.ndim >= 2 else 1
    gl = gl.reshape(-1, n)
    if len(gl) < n_releases:
        raise ValueError(f"{state}: {len(gl)} E3 draws, fewer than n_releases = {n_releases}")
    A = sum_constraint(n)
    releases, noisy, seconds = {}, {}, {}
    releases["generalized_laplace"] = sf1[None, :] + gl[:n_releases].astype(np.int64)
    t0 = time.perf_counter()
    rng = np.random.default_rng(derive_seed(seed, "projected_laplace"))
    releases["projected_laplace"] = projected_laplace(sf1, A, eps, n_releases, rng, sensitivity)
    seconds["projected_laplace"] = time.perf_counter() - t0
    for method, (integer, lp_method) in _L1_SOLVES.items():
        t0 = time.perf_counter()
        rng = np.random.default_rng(derive_seed(seed, method))
        y, m = dg_l1_projection(
            sf1, A, eps, n_releases, rng, integer=integer, sensitivity=sensitivity, return_noisy=True, method=lp_method
        )
        releases[method], noisy[method] = y, m
        seconds[method] = time.perf_counter() - t0
        log.info("%s %s: %d releases in %.1f s", state, method, n_releases, seconds[method])
    counties = list(counties) if counties is not None else [str(i) for i in range(n)]
    names = list(names) if names is not None else counties
    return StateReleases(
        state,
        counties,
        names,
        sf1,
        dp,
        releases,
        noisy,
        seconds,
        {
            "eps": float(eps),
            "sensitivity": float(sensitivity),
            "seed": int(seed),
            "n_releases": int(n_releases),
            "gl_draws_per_chain": int(per_chain),
        },
    )


# --------------------------------------------------------------------------- storage


def save_releases(path, rel: StateReleases) -> None:
    """Write one state's releases as netCDF (xarray), via a temporary file."""
    import xarray as xr

    data = {f"release_{m}": (("release", "county"), rel.releases[m]) for m in rel.releases}
    data.update({f"noisy_{m}": (("release", "county"), rel.noisy[m]) for m in rel.noisy})
    data["sf1"] = ("county", rel.sf1)
    data["dp"] = ("county", rel.dp)
    ds = xr.Dataset(data, coords={"county": rel.counties, "name": ("county", rel.names)})
    ds.attrs = {"state": rel.state, **rel.attrs, **{f"seconds_{k}": v for k, v in rel.seconds.items()}}
    atomic_write(path, ds.to_netcdf)


def load_releases(path) -> StateReleases:
    """Read :func:`save_releases` output back (dtypes kept: int64 for the integer methods)."""
    import xarray as xr

    with xr.open_dataset(path) as ds:
        ds = ds.load()
    releases = {k[len("release_") :]: ds[k].values for k in ds.data_vars if k.startswith("release_")}
    noisy = {k[len("noisy_") :]: ds[k].values for k in ds.data_vars if k.startswith("noisy_")}
    attrs = dict(ds.attrs)
    seconds = {k[len("seconds_") :]: float(attrs.pop(k)) for k in list(attrs) if k.startswith("seconds_")}
    state = str(attrs.pop("state"))
    return StateReleases(
        state,
        [str(c) for c in ds["county"].values],
        [str(c) for c in ds["name"].values],
        ds["sf1"].values.astype(np.int64),
        ds["dp"].values.astype(np.int64),
        releases,
        noisy,
        seconds,
        attrs,
    )


# --------------------------------------------------------------------------- checks and metrics


def integer_valued(release) -> bool:
    """Return True when every entry is an exact integer (int dtype, or floats with rint(r) == r)."""
    r = np.asarray(release)
    if np.issubdtype(r.dtype, np.integer):
        return True
    return bool(np.all(np.isfinite(r)) and np.all(np.rint(r) == r))


def invariant_residual(release, total) -> float:
    """Max over releases of |Σ release − total| (0.0 exactly for exact integer releases)."""
    r = np.atleast_2d(np.asarray(release))
    if np.issubdtype(r.dtype, np.integer):
        return float(np.abs(r.sum(axis=-1) - int(total)).max())
    return float(np.abs(r.sum(axis=-1) - float(total)).max())


def invariant_exact(release, total, integer: bool) -> bool:
    """Integer methods: Σ release == total exactly (int64 arithmetic, after checking the values are integers).

    Real methods: within :data:`REAL_TOL` (absolute).
    """
    r = np.atleast_2d(np.asarray(release))
    if integer:
        if not integer_valued(r):
            return False
        return bool(np.all(np.rint(r).astype(np.int64).sum(axis=-1) == int(total)))
    return invariant_residual(r, total) <= REAL_TOL


def concentration(y, m) -> dict:
    """How the projection places the discrepancy, over the releases with a non-zero discrepancy.

    The share of them in which one county absorbs all of Σ|y − m|, the county that does so most often (index; −1 when
    none ever does) with the share of releases in which it does, and the mean over releases of the largest county's
    share of Σ|y − m| (1 for a vertex, 1/n when spread evenly).
    """
    y, m = np.atleast_2d(np.asarray(y, float)), np.atleast_2d(np.asarray(m, float))
    share = discrepancy_concentration(m, y)
    nonzero = ~np.isnan(share)
    single = share[nonzero] >= 1 - CONCENTRATION_TOL
    k = np.argmax(np.abs(y - m), axis=1)[nonzero][single]
    mode = int(np.bincount(k, minlength=y.shape[1]).argmax()) if k.size else -1
    return {
        "n_with_discrepancy": int(nonzero.sum()),
        "single_county_share": float(single.mean()) if single.size else np.nan,
        "absorbing_county_index": mode,
        "absorbing_county_share": float((k == mode).sum() / single.size) if single.size else np.nan,
        "mean_max_share": float(share[nonzero].mean()) if single.size else np.nan,
    }


def slope_on_log_population(errors, sf1) -> tuple[float, float, float]:
    """OLS of the per-county mean error (over releases) on log(SF1): (slope, stderr, p-value).

    Pooling over releases first: the regression has one point per county, so its p-value tests
    whether the expected error depends on county size (as the DAS audit does for the one DAS
    release), without treating the releases' within-county noise as independent evidence.
    """
    from scipy import stats

    mean = np.asarray(errors, float).reshape(-1, len(sf1)).mean(axis=0)
    if len(sf1) < 3:  # no residual degree of freedom
        return float("nan"), float("nan"), float("nan")
    res = stats.linregress(np.log(np.asarray(sf1, float)), mean)
    return float(res.slope), float(res.stderr), float(res.pvalue)


def method_metrics(errors, sf1, *, integer_check=None, total=None, integer: bool) -> dict:
    """Metrics of one method's errors (R, n) for one state (see :func:`metrics_table`)."""
    e = np.asarray(errors, float)
    sf1 = np.asarray(sf1)
    county_mean = e.mean(axis=0)
    county_sd = e.std(axis=0, ddof=1) if len(e) > 1 else np.full(e.shape[1], np.nan)
    slope, stderr, p = slope_on_log_population(e, sf1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(county_mean) / (county_sd / np.sqrt(len(e)))
    out = {
        "n_releases": int(e.shape[0]),
        "n_counties": int(e.shape[1]),
        "mean_bias": float(e.mean()),
        "mean_abs_county_bias": float(np.abs(county_mean).mean()),
        "max_abs_bias_z": float(np.nanmax(z)) if len(e) > 1 and np.isfinite(z).any() else np.nan,
        "sd": float(e.std(ddof=1)),
        "median_county_sd": float(np.median(county_sd)),
        "max_county_sd": float(np.max(county_sd)),
        "widest_county_index": int(np.argmax(county_sd)) if len(e) > 1 else -1,
        "mean_abs_error": float(np.abs(e).mean()),
        "slope_log_pop": slope,
        "slope_stderr": stderr,
        "slope_p_value": p,
    }
    if integer_check is not None:
        out["integer_valued"] = "yes" if integer_valued(integer_check) else "no"
        out["invariant_exact"] = "yes" if invariant_exact(integer_check, total, integer) else "no"
        out["invariant_max_residual"] = invariant_residual(integer_check, total)
    return out


def metrics_table(rel: StateReleases) -> pd.DataFrame:
    """One row per method (the five mechanisms and the DAS) for one state.

    Columns: ``mean_bias`` (grand mean error; 0 up to rounding for any mechanism that keeps the
    state total), ``mean_abs_county_bias`` (mean over counties of |per-county mean error|),
    ``max_abs_bias_z`` (max over counties of |mean| / (SD / √R)), ``sd`` (SD of all errors),
    ``median_county_sd`` / ``max_county_sd`` (per-county SDs; the widest county named),
    ``mean_abs_error``, ``slope_log_pop`` with ``slope_p_value`` (OLS of the per-county mean
    error on log SF1, :func:`slope_on_log_population`), ``integer_valued`` (every entry an exact
    integer, checked on the releases; ``integer_by_construction`` says whether that is
    guaranteed), ``invariant_exact`` (Σ release == Σ SF1: exactly for integer methods, to
    :data:`REAL_TOL` for real ones) with the largest residual, and for the projections
    ``single_county_share`` (share of releases with a non-zero discrepancy in which one county
    absorbs all of it) with the most frequent absorbing county and its share (empty when no county
    ever absorbs it all) and ``mean_max_share`` (:func:`concentration`).
    """
    rows = []
    total = int(rel.sf1.sum())
    for method in (*METHODS, DAS):
        if method != DAS and method not in rel.releases:
            continue
        integer = INTEGER_BY_CONSTRUCTION[method]
        values = rel.dp[None, :] if method == DAS else rel.releases[method]
        row = {
            "state": rel.state,
            "method": method,
            "label": LABELS[method],
            **method_metrics(rel.errors(method), rel.sf1, integer_check=values, total=total, integer=integer),
            "integer_by_construction": "yes" if integer else "no",
        }
        w = row["widest_county_index"]
        row["widest_county"] = rel.names[w] if w >= 0 else ""
        if method in rel.noisy:
            c = concentration(rel.releases[method], rel.noisy[method])
            row.update(c)
            k = c["absorbing_county_index"]
            row["absorbing_county"] = rel.names[k] if k >= 0 else ""
            rank = int(np.argsort(np.argsort(rel.sf1, kind="stable"))[k]) + 1 if k >= 0 else -1
            row["absorbing_county_rank_by_pop"] = rank
        rows.append(row)
    return pd.DataFrame(rows)


def _iqr(e: np.ndarray) -> np.ndarray:
    q75, q25 = np.percentile(e, [75, 25], axis=0)
    return q75 - q25


def spread_ratios(rel: StateReleases, reference: str = "generalized_laplace") -> pd.DataFrame:
    """Per method: per-county SD and IQR relative to ``reference``, summarised over counties.

    ``median_*_ratio`` is the median over counties of (method / reference); ``max_*_ratio`` and
    ``max_ratio_county`` name the county where the method is widest relative to the reference
    (for the LP/MILP the absorbing county); ``*_ratio_others`` is the median without that county.
    """
    ref = rel.errors(reference)
    ref_sd, ref_iqr = ref.std(axis=0, ddof=1), _iqr(ref)
    rows = []
    for method in METHODS:
        if method == reference or method not in rel.releases:
            continue
        e = rel.errors(method)
        with np.errstate(divide="ignore", invalid="ignore"):  # a reference without noise (one county): undefined
            sd = np.where(ref_sd > 0, e.std(axis=0, ddof=1) / ref_sd, np.nan)
            iqr = _iqr(e) / ref_iqr
        k = int(np.nanargmax(sd)) if np.isfinite(sd).any() else 0
        others = np.delete(np.arange(len(sd)), k)
        if not len(others):
            others = np.array([k])
        rows.append(
            {
                "state": rel.state,
                "method": method,
                "reference": reference,
                "n_counties": len(sd),
                "median_sd_ratio": float(np.median(sd)),
                "median_iqr_ratio": float(np.nanmedian(iqr)),
                "sd_ratio_q05": float(np.quantile(sd, 0.05)),
                "sd_ratio_q95": float(np.quantile(sd, 0.95)),
                "max_sd_ratio": float(sd[k]),
                "max_iqr_ratio": float(iqr[k]),
                "max_ratio_county": rel.names[k],
                "max_ratio_county_index": k,
                "median_sd_ratio_others": float(np.median(sd[others])) if len(sd) > 1 else float("nan"),
                "max_sd_ratio_others": float(np.max(sd[others])) if len(sd) > 1 else float("nan"),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- per-county spread


def log_sd_se(errors, ess=None) -> np.ndarray:
    """Delta-method Monte Carlo standard error of log(SD) for each column of ``errors`` (R, n).

    The sample variance is a mean of squared centred errors, so Var(s²) ≈ (μ₄ − σ⁴)/ESS and
    SE(log s) = SE(s²) / (2 s²) = √((κ − 1) / (4 ESS)), with κ = μ₄/σ⁴ the kurtosis, estimated
    from the column. For normal errors (κ = 3) this is √(1/(2 ESS)), the familiar i.i.d.
    √(1/(2(R − 1))) up to R − 1 vs R; for Laplace-like noise (κ ≈ 6) it is √(5/(4 ESS)), about 1.6
    times wider. ``ess`` (scalar or per column) defaults to R, i.e. independent releases. The
    plug-in kurtosis of heavy-tailed noise is biased low in small samples: for Laplace draws the
    median SE is ~6 % below the true one at R = 200 and ~3 % at R = 1000 (root mean square ~1.5 %
    and ~1 % below).
    """
    e = np.asarray(errors, float)
    c = e - e.mean(axis=0)
    m2 = (c**2).mean(axis=0)
    ess = np.broadcast_to(np.asarray(len(e) if ess is None else ess, float), m2.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        kurtosis = (c**4).mean(axis=0) / m2**2
        return np.sqrt((kurtosis - 1) / (4 * ess))


def squared_error_ess(errors, draws_per_chain: int) -> np.ndarray:
    """Effective sample size, per column, of the squared centred errors of chain-major MCMC draws.

    ``errors`` (R, n) are the first R draws pooled over chains of ``draws_per_chain`` each. ArviZ's
    ESS for the mean (``method="mean"``) of (e − ē)² is computed on the complete chains among them
    (the whole R as one chain if there is none) and scaled by R over the number of draws used. It is
    capped at R: MCMC draws are not expected to beat independent ones, and an estimate above R is
    noise that would understate the standard error.
    """
    from isdp.convergence import ess as arviz_ess

    e = np.asarray(errors, float)
    R, n = e.shape
    k = R // int(draws_per_chain)
    sq = (e - e.mean(axis=0)) ** 2
    blocks = sq[: k * draws_per_chain].reshape(k, draws_per_chain, n) if k else sq[None]
    used = blocks.shape[0] * blocks.shape[1]
    ess = arviz_ess(blocks, method="mean") * R / used
    return np.minimum(ess, R)


def county_spread(rel: StateReleases, reference: str = "generalized_laplace") -> pd.DataFrame:
    """One row per county and method: the spread of the errors and its ratio to ``reference``.

    Columns: ``mean``, ``sd`` (ddof 1) and ``iqr`` of the county's errors over the R releases;
    ``ess`` (R for the independent baselines, :func:`squared_error_ess` for the reference's MCMC
    draws, whose chain length is ``rel.attrs["gl_draws_per_chain"]``); ``se_log_sd``
    (:func:`log_sd_se`); ``sd_ratio`` = sd / reference sd and ``iqr_ratio``; ``se_log_sd_ratio``
    = √(se_log_sd² + reference se_log_sd²), the streams being independent (NaN on the reference's
    own rows, whose ratio is 1 by definition).
    """
    ref = rel.errors(reference)
    R = len(ref)
    ref_ess = squared_error_ess(ref, rel.attrs.get("gl_draws_per_chain", R))
    ref_sd, ref_iqr, ref_se = ref.std(axis=0, ddof=1), _iqr(ref), log_sd_se(ref, ref_ess)
    frames = []
    for method in METHODS:
        if method not in rel.releases:
            continue
        e = rel.errors(method)
        own = method == reference
        ess = ref_ess if own else np.full(e.shape[1], float(len(e)))
        se = ref_se if own else log_sd_se(e, ess)
        sd, iqr = e.std(axis=0, ddof=1), _iqr(e)
        with np.errstate(divide="ignore", invalid="ignore"):
            frames.append(
                pd.DataFrame(
                    {
                        "state": rel.state,
                        "county": rel.counties,
                        "name": rel.names,
                        "sf1": rel.sf1,
                        "method": method,
                        "n_releases": len(e),
                        "mean": e.mean(axis=0),
                        "sd": sd,
                        "iqr": iqr,
                        "ess": ess,
                        "se_log_sd": se,
                        "sd_ratio": sd / ref_sd,
                        "iqr_ratio": iqr / ref_iqr,
                        "se_log_sd_ratio": np.full(len(sd), np.nan) if own else np.sqrt(se**2 + ref_se**2),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- across states


def state_overview(
    counties: pd.DataFrame, regressions: pd.DataFrame, noise: pd.DataFrame, metrics: pd.DataFrame, states
) -> pd.DataFrame:
    """One row per state (in ``states`` order): its size, E3's noise, the DAS audit, E4's errors.

    ``counties`` is the county table, ``regressions`` the DAS audit (slope of the DAS error on log
    SF1; absent for states with too few counties), ``noise`` E3's unbiasedness table (``mean_sd``:
    the mean over counties of the generalized Laplace noise SD) and ``metrics`` E4's metrics (per
    state and method). Columns ``sd_<method>``: the SD of all county errors of that mechanism (for
    the DAS, of its one release); ``mae_<method>``: their mean absolute value.
    """
    states = list(states)
    by_state = counties.groupby("state_abbr").agg(
        n_counties=("sf1_pop", "size"), sf1_total=("sf1_pop", "sum"), min_county=("sf1_pop", "min")
    )
    table = by_state.loc[states].reset_index().rename(columns={"state_abbr": "state"})
    table["noise_sd"] = noise.set_index("state").loc[states, "mean_sd"].to_numpy()
    audit = regressions.set_index("state_abbr").reindex(states)
    table["das_slope"] = audit["slope"].to_numpy()
    table["das_slope_stderr"] = audit["stderr"].to_numpy()
    table["das_slope_p"] = audit["p_value"].to_numpy()
    wide = metrics.pivot(index="state", columns="method", values=["sd", "mean_abs_error"]).reindex(states)
    for method in (*METHODS, DAS):
        if ("sd", method) in wide.columns:
            table[f"sd_{method}"] = wide[("sd", method)].to_numpy()
            table[f"mae_{method}"] = wide[("mean_abs_error", method)].to_numpy()
    return table


# --------------------------------------------------------------------------- per state and across states


def check_guarantees(state: str, metrics: pd.DataFrame) -> None:
    """Raise :class:`isdp.errors.InvariantError` when a mechanism breaks what it guarantees by construction.

    The mechanisms are those of ``metrics`` (a :func:`metrics_table`); they guarantee the state total (exactly for
    integer methods, to :data:`REAL_TOL` for real ones) and, for integer methods, integer values.
    """
    from isdp.errors import InvariantError

    for _, row in metrics[metrics["method"].isin(METHODS)].iterrows():
        by_construction = INTEGER_BY_CONSTRUCTION[row["method"]]
        if row["invariant_exact"] != "yes" or (by_construction and row["integer_valued"] != "yes"):
            raise InvariantError(
                f"{state} {row['method']}: integer_valued={row['integer_valued']}, invariant_exact="
                f"{row['invariant_exact']} (max residual {row['invariant_max_residual']:.3g})"
            )


def run_record(rel: StateReleases, *, n_releases: int, seed: int, gl_noise) -> dict:
    """Return a state's run record (``run_<state>.json``).

    Size, releases, seed, seconds per method (total and per release) and how many E3 draws were available.
    """
    n = len(rel.sf1)
    return {
        "state": rel.state,
        "n_counties": n,
        "n_releases": n_releases,
        "seed": seed,
        "seconds": rel.seconds,
        "ms_per_release": {k: 1000 * v / n_releases for k, v in rel.seconds.items()},
        "e3_draws_available": int(np.asarray(gl_noise).reshape(-1, n).shape[0]),
    }


def runtime_table(runs) -> pd.DataFrame:
    """Solver cost, one row per state (run record of :func:`run_record`, in order) and timed method."""
    rows = []
    for run in runs:
        for method, sec in run["seconds"].items():
            rows.append(
                {
                    "state": run["state"],
                    "n_counties": run["n_counties"],
                    "method": method,
                    "n_releases": run["n_releases"],
                    "seconds": sec,
                    "ms_per_release": run["ms_per_release"][method],
                }
            )
    return pd.DataFrame(rows)
