"""E4: generalized Laplace against projection-based mechanisms, county by county.

ISDP appendix "Comparison with projected discrete Laplace" (Fig 10); SPEC §1.6 and §2 E4. For one
state (one sum constraint over its counties, ε = 0.192, Δ = 1) four mechanisms release the county
populations ``x`` (2010 SF1):

- ``generalized_laplace`` — ℓ1 generalized Laplace noise on the integer kernel lattice (the
  retained MCMC draws of E3, reused, not resampled): integer, invariant exact, unbiased;
- ``projected_laplace`` — ``x + Π e``, e ~ Lap(Δ/ε)^n (:func:`isdp.baselines.projected_laplace`):
  real-valued, invariant up to rounding, unbiased;
- ``dg_l1_lp`` / ``dg_l1_milp`` — ``m = x + DG(e^{−ε})^n`` then the ℓ1 projection onto
  ``{y : Σy = Σx}``, real (LP) or integer (MILP), both by HiGHS
  (:func:`isdp.baselines.dg_l1_projection`).

The ℓ1 projection has many optima; HiGHS returns a vertex that puts the whole discrepancy
``Σx − Σm`` on one county whose index depends only on n (see :func:`isdp.baselines.l1_projection_lp`).
That county's error is ``−Σ_{i≠k} e_i``, with SD ≈ √(n − 1) · SD(DG); every other county keeps its
raw DG noise. :func:`metrics_table` reports, per method, the share of releases in which a single
county absorbs the whole discrepancy and which county that is.

Errors are ``release − SF1``. The DAS errors (``dp − sf1`` of the NHGIS vintage) are one more
"method" with a single release.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .baselines import dg_l1_projection, discrepancy_concentration, projected_laplace
from .lattice import sum_constraint
from .studies import derive_seed

log = logging.getLogger("isdp.comparison")

METHODS = ("generalized_laplace", "projected_laplace", "dg_l1_lp", "dg_l1_milp")
DAS = "das"
LABELS = {
    "generalized_laplace": "generalized Laplace (ISDP)",
    "projected_laplace": "projected Laplace (real)",
    "dg_l1_lp": "DG + ℓ1 projection, LP (real)",
    "dg_l1_milp": "DG + ℓ1 projection, MILP (integer)",
    DAS: "DAS (NHGIS)",
}
COLORS = {"generalized_laplace": "#1f77b4", "projected_laplace": "#2ca02c", "dg_l1_lp": "#ff7f0e",
          "dg_l1_milp": "#9467bd", DAS: "red"}
#: integer-valued by construction (the check in :func:`metrics_table` is separate and on the data)
INTEGER_BY_CONSTRUCTION = {"generalized_laplace": True, "projected_laplace": False, "dg_l1_lp": False,
                           "dg_l1_milp": True, DAS: True}
#: methods with a projection step, i.e. a noisy vector m and a discrepancy to place
PROJECTIONS = ("dg_l1_lp", "dg_l1_milp")
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


def releases_for_state(state: str, sf1, dp, gl_noise, *, eps: float, n_releases: int, seed: int,
                       sensitivity: float = 1.0, counties=None, names=None) -> StateReleases:
    """The four mechanisms' releases for one state (one sum constraint over its counties).

    ``gl_noise`` are E3's retained generalized Laplace noise vectors (any shape (..., n)); the
    first ``n_releases`` of them (pooled over chains, chain-major) are used as they are. The
    baselines draw with independent streams derived from ``seed`` (one per method). Raises
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
    for method, integer in (("dg_l1_lp", False), ("dg_l1_milp", True)):
        t0 = time.perf_counter()
        rng = np.random.default_rng(derive_seed(seed, method))
        y, m = dg_l1_projection(sf1, A, eps, n_releases, rng, integer=integer, sensitivity=sensitivity,
                                return_noisy=True)
        releases[method], noisy[method] = y, m
        seconds[method] = time.perf_counter() - t0
        log.info("%s %s: %d releases in %.1f s", state, method, n_releases, seconds[method])
    counties = list(counties) if counties is not None else [str(i) for i in range(n)]
    names = list(names) if names is not None else counties
    return StateReleases(state, counties, names, sf1, dp, releases, noisy, seconds,
                         {"eps": float(eps), "sensitivity": float(sensitivity), "seed": int(seed),
                          "n_releases": int(n_releases)})


# --------------------------------------------------------------------------- storage


def save_releases(path, rel: StateReleases) -> None:
    """Write one state's releases as netCDF (xarray), via a temporary file."""
    from pathlib import Path

    import xarray as xr

    data = {f"release_{m}": (("release", "county"), rel.releases[m]) for m in rel.releases}
    data.update({f"noisy_{m}": (("release", "county"), rel.noisy[m]) for m in rel.noisy})
    data["sf1"] = ("county", rel.sf1)
    data["dp"] = ("county", rel.dp)
    ds = xr.Dataset(data, coords={"county": rel.counties, "name": ("county", rel.names)})
    ds.attrs = {"state": rel.state, **rel.attrs, **{f"seconds_{k}": v for k, v in rel.seconds.items()}}
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    ds.to_netcdf(tmp)
    tmp.replace(path)


def load_releases(path) -> StateReleases:
    """Read :func:`save_releases` output back (dtypes kept: int64 for the integer methods)."""
    import xarray as xr

    with xr.open_dataset(path) as ds:
        ds = ds.load()
    releases = {k[len("release_"):]: ds[k].values for k in ds.data_vars if k.startswith("release_")}
    noisy = {k[len("noisy_"):]: ds[k].values for k in ds.data_vars if k.startswith("noisy_")}
    attrs = dict(ds.attrs)
    seconds = {k[len("seconds_"):]: float(attrs.pop(k)) for k in list(attrs) if k.startswith("seconds_")}
    state = str(attrs.pop("state"))
    return StateReleases(state, [str(c) for c in ds["county"].values], [str(c) for c in ds["name"].values],
                         ds["sf1"].values.astype(np.int64), ds["dp"].values.astype(np.int64), releases, noisy,
                         seconds, attrs)


# --------------------------------------------------------------------------- checks and metrics


def integer_valued(release) -> bool:
    """True when every entry is an exact integer (int dtype, or floats with rint(r) == r)."""
    r = np.asarray(release)
    if np.issubdtype(r.dtype, np.integer):
        return True
    return bool(np.all(np.isfinite(r)) and np.all(np.rint(r) == r))


def invariant_residual(release, total) -> float:
    """max over releases of |Σ release − total| (0.0 exactly for exact integer releases)."""
    r = np.atleast_2d(np.asarray(release))
    if np.issubdtype(r.dtype, np.integer):
        return float(np.abs(r.sum(axis=-1) - int(total)).max())
    return float(np.abs(r.sum(axis=-1) - float(total)).max())


def invariant_exact(release, total, integer: bool) -> bool:
    """Integer methods: Σ release == total exactly (int64 arithmetic, after checking the values are
    integers). Real methods: within :data:`REAL_TOL` (absolute)."""
    r = np.atleast_2d(np.asarray(release))
    if integer:
        if not integer_valued(r):
            return False
        return bool(np.all(np.rint(r).astype(np.int64).sum(axis=-1) == int(total)))
    return invariant_residual(r, total) <= REAL_TOL


def concentration(y, m) -> dict:
    """How the projection places the discrepancy: share of releases (with a non-zero discrepancy) in
    which one county absorbs all of Σ|y − m|, the most frequent absorbing county (index) and its share."""
    y, m = np.atleast_2d(np.asarray(y, float)), np.atleast_2d(np.asarray(m, float))
    share = discrepancy_concentration(m, y)
    nonzero = ~np.isnan(share)
    single = share[nonzero] >= 1 - CONCENTRATION_TOL
    k = np.argmax(np.abs(y - m), axis=1)[nonzero]
    mode = int(np.bincount(k, minlength=y.shape[1]).argmax()) if k.size else -1
    return {"n_with_discrepancy": int(nonzero.sum()),
            "single_county_share": float(single.mean()) if single.size else np.nan,
            "absorbing_county_index": mode,
            "absorbing_county_share": float((k == mode).mean()) if k.size else np.nan}


def slope_on_log_population(errors, sf1) -> tuple[float, float, float]:
    """OLS of the per-county mean error (over releases) on log(SF1): (slope, stderr, p-value).

    Pooling over releases first: the regression has one point per county, so its p-value tests
    whether the expected error depends on county size (as the DAS audit does for the one DAS
    release), without treating the releases' within-county noise as independent evidence.
    """
    mean = np.asarray(errors, float).reshape(-1, len(sf1)).mean(axis=0)
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
    """One row per method (the four mechanisms and the DAS) for one state.

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
    absorbs all of it) with the most frequent absorbing county and its share.
    """
    rows = []
    total = int(rel.sf1.sum())
    for method in (*METHODS, DAS):
        if method != DAS and method not in rel.releases:
            continue
        integer = INTEGER_BY_CONSTRUCTION[method]
        values = rel.dp[None, :] if method == DAS else rel.releases[method]
        row = {"state": rel.state, "method": method, "label": LABELS[method],
               **method_metrics(rel.errors(method), rel.sf1, integer_check=values, total=total, integer=integer),
               "integer_by_construction": "yes" if integer else "no"}
        w = row["widest_county_index"]
        row["widest_county"] = rel.names[w] if w >= 0 else ""
        if method in rel.noisy:
            c = concentration(rel.releases[method], rel.noisy[method])
            row.update(c)
            k = c["absorbing_county_index"]
            row["absorbing_county"] = rel.names[k] if k >= 0 else ""
            row["absorbing_county_rank_by_pop"] = int(np.argsort(np.argsort(rel.sf1, kind="stable"))[k]) + 1 if k >= 0 else -1
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
        sd = e.std(axis=0, ddof=1) / ref_sd
        with np.errstate(divide="ignore", invalid="ignore"):
            iqr = _iqr(e) / ref_iqr
        k = int(np.argmax(sd))
        others = np.delete(np.arange(len(sd)), k)
        rows.append({"state": rel.state, "method": method, "reference": reference, "n_counties": len(sd),
                     "median_sd_ratio": float(np.median(sd)), "median_iqr_ratio": float(np.nanmedian(iqr)),
                     "sd_ratio_q05": float(np.quantile(sd, 0.05)), "sd_ratio_q95": float(np.quantile(sd, 0.95)),
                     "max_sd_ratio": float(sd[k]), "max_iqr_ratio": float(iqr[k]), "max_ratio_county": rel.names[k],
                     "max_ratio_county_index": k,
                     "median_sd_ratio_others": float(np.median(sd[others])),
                     "max_sd_ratio_others": float(np.max(sd[others]))})
    return pd.DataFrame(rows)
