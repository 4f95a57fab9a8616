"""Measures of E3: 2010 Census county populations with the state total invariant."""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp.convergence import load_draws
from isdp.mcmc import DoubleGeometric
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run, fmt_se
from isdp_papers.measure_helpers import max_abs_z, max_r_hat_of, vintage_note
from isdp_papers.nhgis.counties import DataValidationError, check_recorded_sha256, load_counties
from isdp_papers.unbiasedness import unbiasedness_table


def sum_constraint_l1_marginal(n: int, epsilon: float, k) -> np.ndarray:
    """Exact pmf of one cell of ℓ1 generalized Laplace noise on {u ∈ Z^n : Σ u = 0}, at ``k``.

    The law is i.i.d. DG(a = e^{-ε}) conditioned on a zero sum, so by exchangeability
    P(u_1 = k) = DG(k) · P(S_{n-1} = -k) / P(S_n = 0), with S_m a sum of m i.i.d. DG. The laws of
    S_m come from the characteristic function (1-a)²/(1 - 2a cos t + a²) raised to the m-th power
    on an FFT grid wide enough (≥ 40 standard deviations of S_n) that aliasing is below 1e-15.

    Parameters
    ----------
    n : int
        Number of cells, ≥ 2.
    epsilon : float
        ε of the target, positive and finite.
    k : int or array_like of int
        The values at which the pmf is wanted.

    Returns
    -------
    numpy.ndarray
        float, the shape of ``k``: P(u_1 = k), the same for every cell.

    Raises
    ------
    ValueError
        If ``n`` < 2 or ``epsilon`` is not a finite positive number.

    See Also
    --------
    isdp.exact.sample_sum_constraint_l1 : Exact draws of the whole vector.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp_papers.e3_census_counties.measures import sum_constraint_l1_marginal
    >>> sum_constraint_l1_marginal(3, 1.0, [-2, -1, 0, 1, 2]).round(4).tolist()
    [0.0291, 0.1501, 0.6294, 0.1501, 0.0291]
    >>> round(float(sum_constraint_l1_marginal(3, 1.0, np.arange(-60, 61)).sum()), 12)
    1.0
    """
    from scipy import stats  # here, not at the top: SciPy's statistics cost a job 0.5 s to import

    if n < 2:
        raise ValueError("a sum constraint needs at least 2 cells to leave room for noise")
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be a finite positive number, got {epsilon!r}")
    a = float(np.exp(-epsilon))
    sd_sum = np.sqrt(n * DoubleGeometric(epsilon).variance())
    k = np.asarray(k, dtype=np.int64)
    size = int(2 ** np.ceil(np.log2(40 * sd_sum + 4 * np.abs(k).max(initial=0) + 64)))
    t = 2 * np.pi * np.arange(size) / size
    phi = (1 - a) ** 2 / (1 - 2 * a * np.cos(t) + a**2)
    law = {m: np.fft.ifft(phi**m).real for m in (n - 1, n)}  # law[m][s mod size] = P(S_m = s)
    dg = stats.dlaplace.pmf(k, epsilon)
    return dg * law[n - 1][(-k) % size] / law[n][0]


def _states(run: Run) -> list[str]:
    """Return the states the run selected (``e3/selection.json``): a non-empty list of distinct abbreviations."""
    sel = ec.json_values(run, "e3/selection.json", required=["selected_states"])
    return ec.check_labels(sel["selected_states"], str(run.path("e3/selection.json")), "selected_states")


def _audit(run: Run):
    """``e3_das_audit``.

    One regression per state, a finite slope with a positive standard error, a p-value in [0, 1] and at least 3 counties
    (one residual degree of freedom).
    """
    reg = ec.table(
        run,
        "e3_das_audit",
        dtype={"state_fips": str},
        key="state_abbr",
        finite=["slope"],
        positive=["stderr"],
        probability=["p_value"],
        count=["n_counties"],
    )
    ec.check_values(reg["n_counties"], str(run.path("tables/e3_das_audit.csv")), "column 'n_counties'", "count", lo=3)
    return reg


#: the county file's columns the measures read: counts of people (SF1 never negative; the DAS's may be)
_COUNTY_CHECKS = {
    "key": "gisjoin",
    "filled": ["state_abbr", "name"],
    "count": ["sf1_pop"],
    "integer": ["dp_pop"],
    "columns": ["vintage"],
}


def _counties(run: Run, **checks):
    """Return the county file this run used (``results/data/counties.csv``).

    Each county once, SF1 counts non-negative integers, DAS counts integers (``checks``: only those of
    :func:`~isdp_papers.evidence_checks.check_frame` given, for a measure that reads less).
    """
    try:
        check_recorded_sha256(run.path("data/counties.csv"))
    except DataValidationError as err:
        raise ec.EvidenceError(str(err)) from None
    return ec.table_at(run, "data/counties.csv", dtype={"state_fips": str}, **(checks or _COUNTY_CHECKS))


def audit_count(run: Run, paper, *, count: str) -> Measurement:
    """One count of the DAS-bias audit: regressions, negative slopes, or significant negative slopes."""
    reg = _audit(run)
    alpha = float(run.config["e3"]["audit"]["alpha"])
    neg = reg["slope"] < 0
    sig = reg["p_value"] < alpha
    value = {
        "regressions": len(reg),
        "negative": int(neg.sum()),
        "significant_negative": int((neg & sig).sum()),
        "significant_positive": int((~neg & sig).sum()),
    }[count]
    listed = ", ".join(reg.loc[neg & sig, "state_abbr"]) or "none"
    text = (
        f"{value} (of {len(reg)} regressions: {int(neg.sum())} negative, {int((neg & sig).sum())} of them with "
        f"p < {alpha:g} [{listed}], {int((~neg & sig).sum())} significant positive)"
    )
    return Measurement(value, text, note=vintage_note(run))


def positive_slope_share(run: Run, paper) -> Measurement:
    """Share of the audit's state regressions of (DAS − SF1) on log population whose slope is positive."""
    reg = _audit(run)
    pos = int((reg["slope"] > 0).sum())
    return Measurement(
        pos / len(reg), f"{pos} of {len(reg)} slopes positive ({pos / len(reg):.2f})", note=vintage_note(run)
    )


def sign_test(run: Run, paper) -> Measurement:
    """One-sided sign-test p-value of 'more negative than positive slopes' (no trend: Bin(n, 1/2))."""
    from scipy import stats

    reg = _audit(run)
    n, neg = len(reg), int((reg["slope"] < 0).sum())
    p = float(stats.binomtest(neg, n, 0.5, alternative="greater").pvalue)
    return Measurement(p, f"{neg} of {n} slopes negative; sign-test p = {p:.2g}", note=vintage_note(run))


def _state_draws(run: Run, state: str) -> np.ndarray:
    """Return a state's stored noise draws (chains, draws, counties), refused unless a run could have made them.

    Integers that keep the state total, and, for a state of two or more counties, not one vector repeated in every draw
    of every chain (the chains start apart and move: all-zero noise once read as unbiased, in band and as designed).
    """
    path = run.path(f"e3/draws_{state}.nc")
    try:
        draws = load_draws(path)
    except (OSError, ValueError) as err:
        raise ec.EvidenceError(f"{path}: {err}") from None
    if draws.dtype != np.int64 or draws.sum(axis=-1).any():
        raise ec.EvidenceError(f"{path}: noise that is not integer or does not keep the state total")
    if draws.shape[-1] >= 2 and draws.size and (draws == draws.reshape(-1, draws.shape[-1])[0]).all():
        raise ec.EvidenceError(
            f"{path}: every draw of every chain is the same noise vector, which no run of over-dispersed chains makes"
        )
    return draws


def unbiased_z(run: Run, paper) -> Measurement:
    """Z = mean noise / MC SE per county (SE from the retained draws' bulk ESS), every selected state."""
    z = []
    for state in _states(run):
        draws = _state_draws(run, state)
        diag = ec.table_at(
            run,
            f"e3/diagnostics_{state}.csv",
            key="gisjoin",
            positive=["ess_bulk_retained"],
            allow_missing=["ess_bulk_retained"],
            rows=draws.shape[-1],
        )
        try:
            table = unbiasedness_table(
                draws,
                diag["ess_bulk_retained"].to_numpy(),
                list(diag["gisjoin"]),
                fixed=np.full(draws.shape[-1], draws.shape[-1] == 1),
            )
        except ValueError as err:
            raise ec.EvidenceError(f"{run.path(f'e3/draws_{state}.nc')}: {err}") from None
        z.append(table["z"])
    return max_abs_z(np.concatenate(z), f"counties of {len(z)} states")


def negative_counts(run: Run, paper) -> Measurement:
    """Return the number of negative noisy county counts over all retained releases."""
    nn = ec.table(
        run,
        "e3_nonnegativity",
        key="state",
        keys=_states(run),
        count=["n_negative", "n_noisy_counts"],
        integer=["min_noisy_count"],
    )
    if (nn["n_negative"] > nn["n_noisy_counts"]).any():
        raise ec.EvidenceError(f"{run.path('tables/e3_nonnegativity.csv')}: more negative counts than noisy counts")
    if ((nn["min_noisy_count"] < 0) != (nn["n_negative"] > 0)).any():  # one derives from the other
        raise ec.EvidenceError(
            f"{run.path('tables/e3_nonnegativity.csv')}: the smallest noisy count and the number "
            "of negative counts disagree (a negative smallest count with none negative, or the "
            "reverse)"
        )
    neg = int(nn["n_negative"].sum())
    return Measurement(
        neg,
        f"{neg} negative of {int(nn['n_noisy_counts'].sum()):,} noisy counts (smallest "
        f"{int(nn['min_noisy_count'].min())})",
    )


def band_share(run: Run, paper, *, band: int) -> Measurement:
    """Return the smallest state's share of released noise entries in [−band, band], with its MC SE.

    The SE comes from the ESS of the per-release share series, so autocorrelation between retained
    releases is accounted for. The exact law's share is shown beside it for the reader; the
    comparison of MCMC and exact draws is ISDP-E3-exact-sampler's, not this row's.
    """
    from isdp.convergence import ess as arviz_ess

    eps = float(run.config["e3"]["eps"])
    k = np.arange(-band, band + 1)
    shares, parts = [], []
    for state in _states(run):
        draws = _state_draws(run, state)  # (chains, draws, counties)
        if draws.shape[-1] == 1:  # one county, fixed by the state total: no noise
            parts.append(f"{state} one county, no noise")
            continue
        exact = float(sum_constraint_l1_marginal(draws.shape[-1], eps, k).sum())
        series = (np.abs(draws) <= band).mean(axis=2)
        share = float(series.mean())
        ess = float(arviz_ess(series, method="bulk"))
        se = float(series.std(ddof=1) / np.sqrt(ess)) if series.std() > 0 else 0.0
        shares.append((share, se, state))
        parts.append(f"{state} {fmt_se(share, se, digits=4)} (exact law {exact:.4f})")
    if not shares:
        raise ValueError("every selected state has one county, fixed by its total: no noise to measure")
    share, se, state = min(shares)
    return Measurement(share, f"smallest share in [−{band}, {band}]: {state} {share:.4f}; " + "; ".join(parts), se=se)


def design_kept(run: Run, paper) -> Measurement:
    """Whether this run kept the design it was configured with, read from its outputs.

    The selected states against the configured selection (the ``override`` list, every state of the county file for
    ``all``, else ``n_states`` states including the ``always`` ones), and each selected state's stored draws —
    ``mcmc.n_chains`` chains, ``mcmc.n_draws`` retained noise vectors, one column per county of the state in the county
    file. The value is the number of departures: a state, chain, draw or county missing, or a count other than
    configured.
    """
    cfg = run.config["e3"]
    selected = list(_states(run))
    counties = _counties(run, filled=["state_abbr"])["state_abbr"].value_counts()  # one row per county
    override, departures = cfg["selection"]["override"], []
    if override:
        expected = list(counties.index) if override == "all" else [s.upper() for s in override]
        departures += [f"{s} not selected" for s in expected if s not in selected]
        departures += [f"{s} selected, not configured" for s in selected if s not in expected]
    else:
        if len(selected) != int(cfg["selection"]["n_states"]):
            departures.append(f"{len(selected)} states selected, {cfg['selection']['n_states']} configured")
        departures += [f"{s} (always) not selected" for s in cfg["selection"]["always"] if s not in selected]
    chains, draws = int(cfg["mcmc"]["n_chains"]), int(cfg["mcmc"]["n_draws"])
    for state in selected:
        path = run.path(f"e3/draws_{state}.nc")
        if not path.exists():
            departures.append(f"{state}: no draws file")
            continue
        c, per_chain, n = _state_draws(run, state).shape
        if (c, c * per_chain, n) != (chains, draws, counties.get(state, 0)):
            departures.append(f"{state}: {c} chains, {c * per_chain} draws, {n} of {counties.get(state, 0)} counties")
    text = (
        f"configured: {chains} chains and {draws} draws per state; {len(selected)} states selected "
        f"({', '.join(selected)}); "
        + (f"{len(departures)} departures: {'; '.join(departures)}" if departures else "all kept")
    )
    return Measurement(len(departures), text)


def max_r_hat(run: Run, paper) -> Measurement:
    """Largest rank-normalised split R-hat over the counties of every selected state."""
    conv = ec.table(run, "e3_convergence", key="state", keys=_states(run), count=["n_counties", "n_chains"])
    noisy = conv[conv["n_counties"] >= 2]  # a one-county state has no noise, no R-hat
    if noisy.empty:
        raise ec.EvidenceError(f"{run.path('tables/e3_convergence.csv')}: no state with more than one county")
    ec.check_frame(noisy, str(run.path("tables/e3_convergence.csv")), positive=["max_r_hat", "min_ess_bulk"])
    r, text = max_r_hat_of(
        conv,
        f"{int(conv['n_counties'].sum())} counties ({int(conv['n_chains'].iloc[0])} over-dispersed chains per state)",
    )
    return Measurement(r, text)


def exact_p(run: Run, paper) -> Measurement:
    """Chi-square p-values of MCMC against the exact sampler (3 statistics per state)."""
    ex = ec.table(run, "e3_mcmc_vs_exact", key=["state", "statistic"], probability=["p_chi2"])
    unknown = sorted(set(ex["state"]) - set(_states(run)))
    if unknown:
        raise ec.EvidenceError(f"{run.path('tables/e3_mcmc_vs_exact.csv')}: states {unknown} were not selected")
    return Measurement(
        ex["p_chi2"].to_numpy(),
        f"{len(ex)} chi-square tests ({ex['state'].nunique()} states × "
        f"{ex['statistic'].nunique()} statistics): min p "
        f"{ex['p_chi2'].min():.3g}",
    )


def smallest_county(run: Run, paper) -> Measurement:
    """Return the least populous county of the country (SF1) and its population."""
    c = _counties(run)
    row = c.loc[c["sf1_pop"].idxmin()]
    value = {"county": f"{row['name']}, {row['state_abbr']}", "population": int(row["sf1_pop"])}
    return Measurement(value, f"{value['county']}: {value['population']} (of {len(c):,} counties)")


def states_smallest_county_in_thousands(run: Run, paper) -> Measurement:
    """Measure the share of the states and DC whose least populous county has at least 1,000 people (SF1).

    Puerto Rico, in the county file, is not a state. The share with 1,000–9,999 (a stricter 'in the thousands') is
    beside it.
    """
    c = _counties(run)
    smallest = c[c["state_abbr"] != "PR"].groupby("state_abbr")["sf1_pop"].min()
    share = float((smallest >= 1000).mean())
    strict = float(((smallest >= 1000) & (smallest < 10000)).mean())
    below = ", ".join(f"{s} {v}" for s, v in smallest[smallest < 1000].sort_values().items())
    return Measurement(
        share,
        f"{int((smallest >= 1000).sum())} of {len(smallest)} states and DC ({share:.0%}; "
        f"1,000–9,999: {strict:.0%}); below 1,000: {below}",
    )


def state_das_trend(run: Run, paper, *, state: str) -> Measurement:
    """One-sided p-value that the DAS error decreases with log county population in ``state``."""
    from scipy import stats

    reg = _audit(run).set_index("state_abbr")
    r = reg.loc[state]
    t = r["slope"] / r["stderr"]
    p = float(stats.t.cdf(t, df=int(r["n_counties"]) - 2))
    return Measurement(
        p,
        f"{state}: slope {r['slope']:+.3f} ± {r['stderr']:.3f} per log-person, one-sided p = {p:.2g}",
        note=vintage_note(run),
    )


def audit_excluded(run: Run, paper) -> Measurement:
    """Return the state-level areas of the county file that the DAS audit fitted no regression to, sorted."""
    counts = _counties(run).groupby("state_abbr").size()
    reg = _audit(run)
    left_out = sorted(set(counts.index) - set(reg["state_abbr"]))
    return Measurement(
        left_out,
        f"{len(reg)} of {len(counts)} state-level areas regressed; left out (counties): "
        + ", ".join(f"{s} {counts[s]}" for s in left_out),
    )


@ec.reads_committed
def das_state_totals_broken(run: Run, paper, *, file: str | None = None, level: str = "state") -> Measurement:
    """Count the state-level areas whose DAS county counts do not sum to the SF1 state total.

    With ``level`` "nation" the value is |Σ DAS − Σ SF1| over the 50 states and DC, the talk's national histogram. The
    counts are read from the county file this run used (``results/data/counties.csv``: the download when it succeeded,
    else the committed extract) or from the repository file ``file``. The extraction keeps a file that breaks them
    (:func:`isdp_papers.nhgis.counties.validate`); the national difference and the number of negative DAS counts beside
    it.
    """
    from isdp_papers.nhgis.counties import state_totals_off

    c = ec.committed_csv(run, file, dtype={"state_fips": str}, **_COUNTY_CHECKS) if file else _counties(run)
    off = state_totals_off(c)
    listed = "".join(f"; {s} DAS − SF1 = {d:+d}" for s, d in off.items())
    nation = c[c["state_abbr"] != "PR"]
    gap = abs(int(nation["dp_pop"].sum() - nation["sf1_pop"].sum()))
    return Measurement(
        gap if level == "nation" else len(off),
        f"{len(off)} of {c['state_abbr'].nunique()} state-level areas whose DAS county counts miss "
        f"the SF1 state total{listed}; the nation (50 states and DC): DAS {nation['dp_pop'].sum():,} "
        f"against SF1 {nation['sf1_pop'].sum():,}; {int((c['dp_pop'] < 0).sum())} of {len(c):,} DAS "
        "county counts negative",
        note=f"data vintage v{c['vintage'].iloc[0]} (the file read)"
        + (
            ""
            if str(c["vintage"].iloc[0]) == str(run.config["data"]["vintage"])
            else f"; the paper's v{run.config['data']['vintage']} was not reachable; the invariant is "
            "part of the DAS design in both"
        ),
    )


def truncation_bias(x: int, n: int, eps: float) -> tuple[float, float]:
    """Return the exact bias of clamping a county's noisy count at 0, and the SD of u.

    The bias is E[max(x + u, 0)] − x = Σ_{k < −x} (−x − k) P(u = k), where u is one county's ℓ1 generalized Laplace
    noise under its state's total (n counties).
    """
    reach = int(np.ceil(45 / eps))  # the law's mass beyond ±reach is below e^-45 times a modest factor
    k = np.arange(-x - reach, reach + 1)
    p = np.maximum(sum_constraint_l1_marginal(n, eps, k), 0.0)  # FFT rounding can leave -1e-17
    below = k < -x
    return float(np.sum((-x - k[below]) * p[below])), float(np.sqrt(np.sum(k**2 * p)))


def truncation_bias_se(run: Run, paper) -> Measurement:
    """Measure the largest exact bias of clamping the noisy county counts at 0 over the selected states.

    It is counted in Monte Carlo SEs of a county's mean over E3's ``mcmc.n_draws`` releases (SD/√n_draws). The bias
    falls with the count, so a state's largest is at its smallest county.
    """
    eps, n_draws = float(run.config["e3"]["eps"]), int(run.config["e3"]["mcmc"]["n_draws"])
    c = _counties(run)
    rows = []
    for state in _states(run):
        counts = c.loc[c["state_abbr"] == state, "sf1_pop"]
        if len(counts) < 2:  # one county, fixed by its total: no noise
            continue
        bias, sd = truncation_bias(int(counts.min()), len(counts), eps)
        rows.append((bias / (sd / np.sqrt(n_draws)), state, int(counts.min()), bias, len(counts)))
    if not rows:
        raise ValueError("every selected state has one county, fixed by its total: no noise to truncate")
    ratio, state, x, bias, n = max(rows)
    ratio = float(ratio)
    ten, sd = truncation_bias(10, n, eps)
    return Measurement(
        ratio,
        f"largest: {state}, smallest county {x}: bias {bias:.2g} = {ratio:.2g} SE of a "
        f"{n_draws}-draw mean; per state (smallest county, bias/SE): "
        + ", ".join(f"{s} {m} {r:.1g}" for r, s, m, _, _ in rows),
        note=f"for scale: a county of 10 people in {state} would have bias {ten:.2f} = "
        f"{ten / (sd / np.sqrt(n_draws)):.2f} SE",
    )


def _certificates(run: Run) -> pd.DataFrame:
    """Return the selected states' certificate rows, each refused unless its columns agree as a certificate's must.

    No more censored pairs than pairs; ``certified_at_burn_in`` exactly when the bound there is at most the threshold,
    and then a burn-in at or after ``t_cert``; a bound no smaller than n pairs can give (1 − α^(1/n), every pair met at
    once), nor than the point estimate.
    """
    cert = ec.table(
        run,
        "e3_certificates",
        key="state",
        keys=_states(run),
        filled=["basis"],
        count=["censored", "pairs", "burn_in", "t_cert"],
        integer=["certified_at_burn_in"],
    )
    where = str(run.path("tables/e3_certificates.csv"))
    coupled = cert[cert["pairs"] > 0]
    ec.check_frame(
        coupled, where, probability=["confidence_level", "threshold", "tv_bound_at_burn_in", "tv_estimate_at_burn_in"]
    )
    floor = 1 - (1 - coupled["confidence_level"]) ** (1 / coupled["pairs"])
    certified = coupled["tv_bound_at_burn_in"] <= coupled["threshold"]
    problems = {
        "more censored pairs than pairs": cert["censored"] > cert["pairs"],
        "certified_at_burn_in is not (tv_bound_at_burn_in <= threshold)": coupled["certified_at_burn_in"] != certified,
        "a certified burn-in before t_cert": certified & (coupled["burn_in"] < coupled["t_cert"]),
        "a bound below what its pairs can give, 1 − α^(1/pairs)": coupled["tv_bound_at_burn_in"] < floor * (1 - 1e-9),
        "a bound below its point estimate": coupled["tv_bound_at_burn_in"] < coupled["tv_estimate_at_burn_in"],
    }
    for what, bad in problems.items():
        if bad.any():
            states = list(cert.loc[bad[bad].index, "state"])
            raise ec.EvidenceError(f"{where}: {what} ({', '.join(states)}): not a certificate any run makes")
    return cert


def coupling_censored(run: Run, paper) -> Measurement:
    """Coupled pairs of the selected states' certificates that had not met by ``max_iter`` (censored)."""
    cert = _certificates(run)
    where = str(run.path("tables/e3_certificates.csv"))
    coupled = cert[cert["pairs"] > 0]  # a one-county state has nothing to certify: no pairs, no meeting times
    if coupled.empty:
        raise ec.EvidenceError(f"{where}: no state with coupled pairs")
    ec.check_frame(coupled, where, count=["tau_minus_lag_max"])
    censored, latest = int(cert["censored"].sum()), int(cert["tau_minus_lag_max"].max())
    return Measurement(
        censored,
        f"{censored} censored of {int(cert['pairs'].sum()):,} pairs ({len(cert)} states, "
        f"{cert['basis'].iloc[0]} coupling; latest meeting {latest} sweeps, max_iter "
        f"{int(run.config['e3']['mcmc']['certificate']['max_iter']):,})",
    )


def _state_sizes(run: Run):
    """Counties per state (and Puerto Rico) of the committed county file, the areas with at least 2, fewest first."""
    sizes = load_counties(ec.committed(run, run.config["data"]["embedded"])).groupby("state_abbr").size()
    return sizes[sizes >= 2].sort_values()


def _dg_total_kept(n: int, eps: float) -> float:
    """P(Σ u = 0) for n i.i.d. double geometric DG(ε) noises: the sum constraint's acceptance times P(u = 0)."""
    from isdp.exact import sum_constraint_acceptance

    a = np.exp(-eps)
    return sum_constraint_acceptance(n, eps) * (1 - a) / (1 + a)


@ec.reads_committed
def discrete_gaussian_total_kept(run: Run, paper, *, sigma: float | None = None) -> Measurement:
    """ISDP §3.3: discrete Gaussian mechanisms "do not satisfy (non-trivial) invariants constraints".

    For every state (and Puerto Rico) of the committed county file with at least 2 counties, the exact probability that
    i.i.d. discrete Gaussian noise on its counties keeps the state total
    (:func:`isdp_papers.lattice_study.theory.iid_invariant_probability`), at ``sigma`` or, by default, at the SD of E3's
    double geometric noise (DG at E3's ε: the same noise size); the value is the largest over the states (the one with
    the fewest counties). The i.i.d. double geometric's is beside it.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.e8_privacy_accounting.zcdp_audit import discrete_gaussian_pmf
    from isdp_papers.lattice_study.theory import iid_invariant_probability

    eps = float(run.config["e3"]["eps"])
    sigma = float(np.sqrt(DoubleGeometric(eps).variance())) if sigma is None else float(sigma)
    sizes = _state_sizes(run)
    _, pmf = discrete_gaussian_pmf(sigma**2, int(np.ceil(40 * sigma)) + 1)
    kept = {n: iid_invariant_probability(np.ones((1, n), dtype=np.int64), pmf) for n in sorted(set(sizes))}
    worst = max(kept, key=lambda n: kept[n][0])
    value, most = kept[worst][0], max(kept)
    dg = _dg_total_kept(worst, eps)
    return Measurement(
        value,
        f"largest P(i.i.d. discrete Gaussian noise keeps the state total) = {value:.4f} at "
        f"σ = {sigma:.2f} ({', '.join(sizes[sizes == worst].index)}, {worst} counties; "
        f"{kept[most][0]:.2g} at {most} counties; exact, error ≤ "
        f"{max(b for _, b, _ in kept.values()):.0e}); i.i.d. double geometric at ε = {eps:g} "
        f"there: {dg:.4f}; {len(sizes)} areas of the county file with ≥ 2 counties",
        n=len(sizes),
    )


@ec.reads_committed
def das_housing_counties_changed(run: Run, paper, *, units: str = "housing") -> Measurement:
    """Count the counties whose DAS count of ``units`` differs from SF1 in the committed housing extract.

    The extract is :data:`isdp_papers.nhgis.housing.HOUSING_EXTRACT`: ``housing`` = total housing units (IFE001),
    ``occupied`` = occupied units (IFE002). A block-level invariant holds in every county, its sum of blocks; the other
    count is shown beside it.
    """
    from isdp_papers.nhgis.housing import HOUSING_EXTRACT, load_housing

    h = load_housing(ec.committed(run, HOUSING_EXTRACT))
    changed = {u: h[f"dp_{u}_units"] != h[f"sf1_{u}_units"] for u in ("housing", "occupied")}
    other = "occupied" if units == "housing" else "housing"
    diff = (h[f"dp_{units}_units"] - h[f"sf1_{units}_units"]).abs()
    return Measurement(
        int(changed[units].sum()),
        f"{int(changed[units].sum())} of {len(h):,} counties with DAS ≠ SF1 {units} units (largest "
        f"|DAS − SF1| {int(diff.max())}); {other} units: {int(changed[other].sum())} counties differ",
        note="NHGIS PPDD v20210608 (the 2010 demonstration data from the production settings), county "
        "level: equal county totals are necessary for a block-level invariant, not sufficient",
        n=len(h),
    )


@ec.reads_committed
def das_group_quarters_presence_changed(run: Run, paper) -> Measurement:
    """Count the county × group-quarters-type cells where the DAS and SF1 disagree on whether the type houses anyone.

    The cells are those of the committed group-quarters extract
    (:data:`isdp_papers.nhgis.group_quarters.GROUP_QUARTERS_EXTRACT`, the seven P42 types); they disagree when (DAS > 0)
    ≠ (SF1 > 0). An invariant count of occupied facilities per type and block, each occupied facility housing at least
    one person, keeps that presence in every block and so in every county; the cells whose population itself is
    unchanged are shown beside it.
    """
    from isdp_papers.nhgis.group_quarters import GROUP_QUARTERS_EXTRACT, GROUP_QUARTERS_TYPES, load_group_quarters

    gq = load_group_quarters(ec.committed(run, GROUP_QUARTERS_EXTRACT))
    sf1 = gq[[f"sf1_gq_{t}" for t in GROUP_QUARTERS_TYPES]].to_numpy()
    das = gq[[f"dp_gq_{t}" for t in GROUP_QUARTERS_TYPES]].to_numpy()
    changed = int(((sf1 > 0) != (das > 0)).sum())
    occupied = sf1 > 0
    same_population = int((das[occupied] == sf1[occupied]).sum())
    return Measurement(
        changed,
        f"{changed} of {sf1.size:,} county × type cells (7 types) where DAS and SF1 disagree "
        f"on whether the type is occupied ({int(occupied.sum()):,} occupied in SF1); the "
        f"population itself is unchanged in {same_population:,} of those "
        f"{int(occupied.sum()):,} occupied cells",
        note="NHGIS PPDD v20210608 (the 2010 demonstration data from the production settings), table "
        "P42 by county: presence kept in every county is necessary for a block-level facility "
        "invariant, not sufficient",
        n=sf1.size,
    )


def relational_breaks(pop, gq, housing, occupied) -> dict[str, np.ndarray]:
    """Per county, whether its tables break a logical relationship between tabulated quantities.

    More occupied units than housing units, or fewer people in households (population less group quarters) than occupied
    units, each occupied unit being one household of at least one person.
    """
    pop, gq, housing, occupied = (np.asarray(a) for a in (pop, gq, housing, occupied))
    return {"occupied > housing units": occupied > housing, "household population < households": pop - gq < occupied}


@ec.reads_committed
def das_logical_relationships(run: Run, paper) -> Measurement:
    """Count the counties where the DAS output breaks a relation of :func:`relational_breaks`.

    The DAS output is the committed population, housing and group-quarters extracts (one DAS run); the tightest slack of
    each relation in it is beside the count.
    """
    from isdp_papers.nhgis.group_quarters import GROUP_QUARTERS_EXTRACT, GROUP_QUARTERS_TYPES, load_group_quarters
    from isdp_papers.nhgis.housing import HOUSING_EXTRACT, load_housing

    c = load_counties(ec.committed(run, run.config["data"]["embedded"])).set_index("gisjoin")
    h, g = (
        load(ec.committed(run, path)).set_index("gisjoin").loc[c.index]
        for load, path in ((load_housing, HOUSING_EXTRACT), (load_group_quarters, GROUP_QUARTERS_EXTRACT))
    )
    gq = g[[f"dp_gq_{t}" for t in GROUP_QUARTERS_TYPES]].sum(axis=1)
    broken = relational_breaks(c["dp_pop"], gq, h["dp_housing_units"], h["dp_occupied_units"])
    n_broken = int(np.logical_or.reduce(list(broken.values())).sum())
    vacant = h["dp_housing_units"] - h["dp_occupied_units"]
    persons = (c["dp_pop"] - gq) / h["dp_occupied_units"]
    return Measurement(
        n_broken,
        f"{n_broken} of {len(c):,} counties break a relation ("
        + ", ".join(f"{k}: {int(v.sum())}" for k, v in broken.items())
        + f"); tightest slack: {int(vacant.min())} vacant units ({vacant.idxmin()}), "
        f"{persons.min():.2f} persons per household ({persons.idxmin()})",
        note="NHGIS PPDD v20210608 (the 2010 demonstration data from the production settings)",
        n=len(c),
    )


@ec.reads_committed
def double_geometric_total_kept(run: Run, paper, *, eps: float, sensitivity: float) -> Measurement:
    """Subspace DP §1.

    The exact probability that i.i.d. double geometric noise DG(ε/``sensitivity``) on a state's county counts keeps the
    state total, P(Σ u = 0) (:func:`isdp.exact.sum_constraint_acceptance` times P(u = 0)), for every state (and Puerto
    Rico) of the committed county file with at least 2 counties; the value is the largest (at the fewest counties).
    """
    sizes = _state_sizes(run)
    kept = {n: _dg_total_kept(n, eps / sensitivity) for n in sorted(set(sizes))}
    fewest, most = min(kept), max(kept)
    return Measurement(
        kept[fewest],
        f"largest P(i.i.d. DG noise keeps the state total) = {kept[fewest]:.4f} "
        f"({', '.join(sizes[sizes == fewest].index)}, {fewest} counties; "
        f"{kept[most]:.2g} at {most} counties); DG(ε/Δ₁) with ε = {eps:g}, Δ₁ = "
        f"{sensitivity:g}; {len(sizes)} areas of the county file with ≥ 2 counties",
        note="continuous (Laplace) noise keeps a total with probability 0",
        n=len(sizes),
    )


@ec.reads_committed
def block_truncation_bias(run: Run, paper, *, counts: list[int], state: str) -> Measurement:
    """ISDP App. E.4 ("maintaining unbiasedness and nonnegativity is difficult at the block level").

    The exact bias of truncating at 0 (:func:`truncation_bias`) for stylised block-sized counts, the same noise as the
    county rows — one cell's ℓ1 generalized Laplace noise at E3's ε under a total over ``state``'s number of counties
    (the committed county file; the marginal hardly depends on it) — in Monte Carlo SEs of a 1000-draw mean
    (SD/√n_draws, as :func:`truncation_bias_se`). The value is the smallest ratio over ``counts``.
    """
    eps, n_draws = float(run.config["e3"]["eps"]), int(run.config["e3"]["mcmc"]["n_draws"])
    n = int(_state_sizes(run)[state])
    ratios = {}
    for x in counts:
        bias, sd = truncation_bias(int(x), n, eps)
        ratios[int(x)] = bias / (sd / np.sqrt(n_draws))
    low = min(ratios.values())
    return Measurement(
        float(low),
        f"smallest bias/SE = {low:.3g} (ε = {eps:g}, a total over {n} cells as {state}'s "
        f"counties, SE of a {n_draws}-draw mean; count: bias/SE "
        + ", ".join(f"{x}: {r:.3g}" for x, r in ratios.items())
        + ")",
        n=len(ratios),
    )


@ec.reads_committed
def das_histogram_consistency(run: Run, paper) -> Measurement:
    """Return the DAS output as one nonnegative integer histogram.

    Over the counties of the committed histogram-cells extract
    (:data:`isdp_papers.nhgis.histograms.HISTOGRAM_CELLS_EXTRACT`), the negative cells of the 252-cell ethnicity × race
    × voting-age histograms derived from the DAS's published race tables, plus the counties whose cells do not add up to
    the DAS's published total and voting-age populations.
    """
    from isdp_papers.nhgis.histograms import HISTOGRAM_CELLS, HISTOGRAM_CELLS_EXTRACT, load_histogram_cells

    h = load_histogram_cells(ec.committed(run, HISTOGRAM_CELLS_EXTRACT))
    negative, off = int(h["dp_negative_cells"].sum()), int(h["dp_cells_off_totals"].sum())
    return Measurement(
        negative + off,
        f"{negative} negative cells among {HISTOGRAM_CELLS * len(h):,} "
        f"({HISTOGRAM_CELLS} per county, "
        f"{len(h):,} counties) derived from the DAS's race tables P8–P11; {off} "
        "counties whose cells miss the DAS's total or voting-age population",
        note="NHGIS PPDD v20210608 (the 2010 demonstration data from the production settings)",
        n=HISTOGRAM_CELLS * len(h),
    )


@ec.reads_committed
def histogram_sparsity(run: Run, paper, *, level: str = "county") -> Measurement:
    """Return the share of zero cells of the 252-cell SF1 histogram (ethnicity × race × voting age).

    The median over the counties of the committed histogram-cells extract (``level`` county), or the nation's (``level``
    nation: the 50 states and DC, from the committed histogram-support table).
    """
    from isdp_papers.nhgis.histograms import (
        HISTOGRAM_CELLS,
        HISTOGRAM_CELLS_EXTRACT,
        HISTOGRAM_SUPPORT_EXTRACT,
        NATION,
        load_histogram_cells,
    )

    cells = HISTOGRAM_CELLS
    if level == "nation":
        support = ec.committed_csv(run, HISTOGRAM_SUPPORT_EXTRACT, key="state_abbr", count=["nonzero_cells"])
        ec.check_values(
            support["nonzero_cells"],
            str(run.data(HISTOGRAM_SUPPORT_EXTRACT)),
            "column 'nonzero_cells'",
            "count",
            hi=cells,
        )
        if NATION not in set(support["state_abbr"]):
            raise ec.EvidenceError(f"{run.data(HISTOGRAM_SUPPORT_EXTRACT)}: no row of the nation ({NATION})")
        share = 1 - int(support.loc[support["state_abbr"] == NATION, "nonzero_cells"].iloc[0]) / cells
        return Measurement(share, f"the nation's histogram: {share:.1%} of its {cells} cells are zero")
    h = load_histogram_cells(ec.committed(run, HISTOGRAM_CELLS_EXTRACT))
    zero = 1 - h["sf1_nonzero_cells"] / cells
    dp_zero = 1 - h["dp_nonzero_cells"] / cells
    return Measurement(
        float(zero.median()),
        f"median county: {zero.median():.1%} of the {cells} SF1 cells are zero "
        f"(quartiles {zero.quantile(0.25):.1%}, {zero.quantile(0.75):.1%}; "
        f"{(zero > 0.5).sum():,} of {len(h):,} counties above half); after the "
        f"DAS {dp_zero.median():.1%}",
        note="a zero county cell is zero in every block of the county, so the blocks' share is at least the county's",
        n=len(h),
    )


def negative_count_bound(x, n: int, eps: float) -> np.ndarray:
    """Return upper bounds on P(x + u < 0) for counts ``x`` of one state, free of FFT rounding in the tail.

    Here u is one county's ℓ1 generalized Laplace noise under the state's total (n ≥ 2 counties). P(u = k) = DG(k)
    P(S_{n−1} = −k) / P(S_n = 0) (the marginal of :func:`sum_constraint_l1_marginal`) and the sum S_{n−1} of
    i.i.d. DG is symmetric and log-concave, so P(S_{n−1} = −k) ≤ P(S_{n−1} = 0); the DG tail P(DG ≤ −x − 1) is
    a^{x+1}/(1 + a), a = e^{−ε}.
    """
    from isdp.exact import sum_constraint_acceptance

    a = np.exp(-eps)
    ratio = sum_constraint_acceptance(n - 1, eps) / sum_constraint_acceptance(n, eps)
    return a ** (np.asarray(x, dtype=float) + 1) / (1 + a) * ratio


def _no_negative_lower(counts: pd.Series, eps: float, releases: int) -> float:
    """Lower bound on P(no county of one state negative in ``releases`` independent releases).

    A union bound over the counties within a release.
    """
    return max(0.0, 1.0 - float(negative_count_bound(counts, len(counts), eps).sum())) ** releases


def no_truncation_probability(run: Run, paper, *, releases: int, eps: float | None = None) -> Measurement:
    """ISDP App. E.4: 'none of the 1000 instantiations triggers the truncation in any county of any state'.

    The probability of that under the mechanism (``releases`` independent releases of every selected state at E3's ε, or
    ``eps``), bounded below by a union bound over each state's counties with :func:`negative_count_bound` (states are
    released independently). The upper bound from each state's smallest county alone, with its exact marginal, is shown
    beside it, and the lower bound over every state-level area of the county file.
    """
    eps = float(run.config["e3"]["eps"]) if eps is None else float(eps)
    c = _counties(run)
    lower, upper, parts = 1.0, 1.0, []
    for state in _states(run):
        counts = c.loc[c["state_abbr"] == state, "sf1_pop"]
        if len(counts) < 2:  # one county, fixed by its total: no noise
            continue
        x, n = int(counts.min()), len(counts)
        lower *= _no_negative_lower(counts, eps, releases)
        k = np.arange(-x - 1 - int(np.ceil(45 / eps)), -x)  # the marginal's mass below is under e^-45
        p = float(np.maximum(sum_constraint_l1_marginal(n, eps, k), 0.0).sum())  # FFT rounding can leave -1e-17
        upper *= (1.0 - p) ** releases
        parts.append(f"{state} {x} {p:.1g}")
    every = np.prod([_no_negative_lower(g, eps, releases) for _, g in c.groupby("state_abbr")["sf1_pop"] if len(g) > 1])
    return Measurement(
        lower,
        f"P(no negative county count in {releases} releases, ε = {eps:g}) between "
        f"{lower:.6g} and {upper:.6g} over {len(parts)} states; per state (smallest county, "
        "P(negative in one release)): " + ", ".join(parts),
        note=f"over every state-level area of the county file with ≥ 2 counties: ≥ {every:.4g}",
    )
