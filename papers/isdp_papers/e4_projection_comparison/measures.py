"""Measures of E4: generalized Laplace against the projection baselines, county by county."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from isdp.baselines import nonnegative_total_projection
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.criteria import z_threshold
from isdp_papers.e4_projection_comparison.comparison import DAS, METHODS, load_releases
from isdp_papers.measure_helpers import vintage_note


def _metrics(run: Run):
    """``e4_metrics``: one row per (state, method), each state of E3's selection, with its number of counties."""
    m = ec.table(
        run, "e4_metrics", keep_default_na=False, na_values=[""], key=["state", "method"], count=["n_counties"]
    )
    ec.check_values(m["n_counties"], str(run.path("tables/e4_metrics.csv")), "column 'n_counties'", "count", lo=1)
    return m


def _every_method(run: Run):
    """Return ``e4_metrics`` (:func:`_metrics`), refused unless it has a row for every compared method.

    It must have a row for every compared method and the DAS in every state E3 selected: a row per method the claim
    covers.
    """
    m = _metrics(run)
    expected = [(s, method) for s in _selected(run) for method in (*METHODS, DAS)]
    return ec.check_frame(m, str(run.path("tables/e4_metrics.csv")), key=["state", "method"], keys=expected)


def _one_county_states(run: Run) -> list[str]:
    """States whose one county is fixed by the invariant total (DC).

    Every mechanism releases it exactly, so spread, slopes and integrality say nothing about the mechanisms there.
    """
    m = _metrics(run)
    return sorted(set(m.loc[m["n_counties"] == 1, "state"]))


def _selected(run: Run) -> list[str]:
    """E3's selected states (``e3/selection.json``): a non-empty list of distinct abbreviations."""
    sel = ec.json_values(run, "e3/selection.json", required=["selected_states"])
    return ec.check_labels(sel["selected_states"], str(run.path("e3/selection.json")), "selected_states")


def _load_releases(run: Run, state: str):
    """Return ``e4/releases_<state>.nc``, refused (naming it) when it is unreadable or not as written.

    It is refused when a release is not a finite array of one column per county, or a count of SF1 is negative.
    """
    path = run.path(f"e4/releases_{state}.nc")
    rel = ec.load(path, load_releases, "releases file")
    where, n = str(path), len(rel.counties)
    ec.check_values(rel.sf1, where, "sf1", "count", size=n)
    ec.check_values(rel.dp, where, "dp", "integer", size=n)
    if not rel.releases:
        raise ec.EvidenceError(f"{where}: no release")
    for method, r in rel.releases.items():
        if np.ndim(r) != 2 or np.shape(r)[1] != n or np.shape(r)[0] == 0:
            raise ec.EvidenceError(f"{where}: release_{method} has shape {np.shape(r)}, not (releases, {n} counties)")
        ec.check_values(r, where, f"release_{method}")
    return rel


def _county_spread(run: Run, **checks):
    """``e4_county_spread``.

    One row per (state, county, method), with ``checks`` (of :func:`~isdp_papers.evidence_checks.check_frame`) on its
    columns.
    """
    return ec.table(run, "e4_county_spread", dtype={"county": str}, key=["state", "county", "method"], **checks)


def _without_one_county(run: Run, table):
    one = _one_county_states(run)
    return table[~table["state"].isin(one)], (f" (left out: {', '.join(one)}, one county, no noise)" if one else "")


def _releases(run: Run):
    one = _one_county_states(run)
    states = [s for s in _selected(run) if s not in one]
    return [_load_releases(run, s) for s in states]


def _effective_size(run: Run, rel) -> np.ndarray:
    """Per county, the effective number of generalized Laplace releases (thinned MCMC, from E3's ESS)."""
    diag = (
        ec.table_at(
            run, f"e3/diagnostics_{rel.state}.csv", key="gisjoin", keys=rel.counties, positive=["ess_bulk_retained"]
        )
        .set_index("gisjoin")
        .loc[rel.counties]
    )
    n_ret = ec.json_values(run, f"e3/run_{rel.state}.json", positive=["n_retained"])["n_retained"]
    r = len(rel.releases["generalized_laplace"])
    return np.minimum(r, r * diag["ess_bulk_retained"].to_numpy() / n_ret)


def overlap(run: Run, paper, *, method: str, band: float, alpha: float) -> Measurement:
    """Counties whose error SD differs from generalized Laplace's by more than ``band`` beyond MC error.

    A county fails when |log(SD ratio)| > log(band) + z·SE, z the two-sided Bonferroni threshold at
    family-wise ``alpha`` over every county of every state, SE the standard error of the log SD
    ratio from ``e4_county_spread.csv`` (kurtosis-aware, with the MCMC reference's ESS; see
    :func:`isdp_papers.e4_projection_comparison.comparison.county_spread`).
    """
    sp, left_out = _without_one_county(run, _county_spread(run, filled=["state", "method", "name"]))
    g = sp[sp["method"] == method]
    if g.empty:
        raise ValueError(f"E4 has no method {method!r} in e4_county_spread.csv")
    ec.check_frame(g, str(run.path("tables/e4_county_spread.csv")), positive=["sd_ratio", "se_log_sd_ratio"])
    ratio, se = g["sd_ratio"].to_numpy(), g["se_log_sd_ratio"].to_numpy()
    z = z_threshold(alpha, len(g))
    outside = np.abs(np.log(ratio)) > np.log(band) + z * se
    worst = int(np.argmax(np.abs(np.log(ratio))))
    named = "; ".join(
        f"{s} {c} ({r:.1f}×)" for s, c, r in zip(g["state"][outside], g["name"][outside], ratio[outside], strict=True)
    )
    text = (
        f"{int(outside.sum())} of {len(g)} counties outside [1/{band:g}, {band:g}] beyond MC error "
        f"(z = {z:.2f}); SD ratio to generalized Laplace: median {np.median(ratio):.3f}, range "
        f"{ratio.min():.2f}–{ratio.max():.2f}, widest {g['state'].iloc[worst]} {g['name'].iloc[worst]}"
        + (f". Outside: {named}" if named else "")
        + left_out
    )
    return Measurement(int(outside.sum()), text)


def design_kept(run: Run, paper) -> Measurement:
    """Measure whether this run kept the design it was configured with.

    Read from the county spread table the comparison writes: every state E3 selected, every compared method in each,
    each with ``e4.n_releases`` releases. The value is the number of departures: a state or (state, method) missing, or
    another number of releases.
    """
    sp = _county_spread(run, filled=["state", "method"], count=["n_releases"])
    selected, n = _selected(run), int(run.config["e4"]["n_releases"])
    departures = []
    for state in selected:
        g = sp[sp["state"] == state]
        departures += [f"{state} {m}: missing" for m in METHODS if m not in set(g["method"])]
        for m, releases in sorted(set(zip(g["method"], g["n_releases"].astype(int), strict=True))):
            if releases != n:
                departures.append(f"{state} {m}: {releases} releases")
    departures += [f"{s}: not selected by E3" for s in sorted(set(sp["state"]) - set(selected))]
    text = f"configured: {n} releases per state and method ({len(METHODS)} methods, {len(selected)} states); " + (
        f"{len(departures)} departures: {'; '.join(departures)}" if departures else "all kept"
    )
    return Measurement(len(departures), text)


def integer_and_invariant(run: Run, paper) -> Measurement:
    """Integer-valued and invariant-exact per method, against what each method guarantees."""
    m, left_out = _without_one_county(run, _every_method(run))
    m = m[m["method"] != DAS]
    where = str(run.path("tables/e4_metrics.csv"))
    ec.check_frame(m, where, nonnegative=["invariant_max_residual"])
    for flag in ("integer_valued", "invariant_exact", "integer_by_construction"):
        ec.check_choices(m[flag], where, f"column {flag!r}", ("yes", "no"))
    ok, parts = True, []
    for method, g in m.groupby("method", sort=False):
        n_int, n_inv = int((g["integer_valued"] == "yes").sum()), int((g["invariant_exact"] == "yes").sum())
        by_construction = (g["integer_by_construction"] == "yes").all()
        ok &= n_inv == len(g) and (n_int == len(g) if by_construction else True)
        ok &= method != "projected_laplace" or n_int == 0
        parts.append(
            f"{method}: integer {n_int}/{len(g)}, invariant {n_inv}/{len(g)} (max residual "
            f"{g['invariant_max_residual'].max():.2g})"
        )
    return Measurement(bool(ok), "; ".join(parts) + left_out)


def unbiased_z(run: Run, paper, *, methods: Sequence[str] | None = None) -> Measurement:
    """Z = mean error / (SD/√R_eff) per county, method (all, or ``methods``) and state."""
    z = []
    for rel in _releases(run):
        for method in methods or rel.releases:
            e = rel.errors(method)
            size = _effective_size(run, rel) if method == "generalized_laplace" else len(e)
            sd = e.std(axis=0, ddof=1)
            z.append(np.where(sd > 0, e.mean(axis=0) / np.where(sd > 0, sd, 1) * np.sqrt(size), 0.0))
    z = np.concatenate(z)
    return Measurement(z, f"max |z| = {np.abs(z).max():.2f} over {z.size} county-method pairs")


def mechanism_slopes(run: Run, paper) -> Measurement:
    """p-values of the OLS slope of per-county mean error on log population, every mechanism and state."""
    m, left_out = _without_one_county(run, _every_method(run))
    mech = m[m["method"] != DAS]
    ec.check_frame(mech, str(run.path("tables/e4_metrics.csv")), probability=["slope_p_value"])
    parts = [f"{k}: min p {g['slope_p_value'].min():.3g}" for k, g in mech.groupby("method", sort=False)]
    return Measurement(mech["slope_p_value"].to_numpy(), f"{len(mech)} slopes; " + "; ".join(parts) + left_out)


def das_selected_significant(run: Run, paper) -> Measurement:
    """Return selected states whose DAS error slope on log population is negative with p < α."""
    sel = ec.table(
        run,
        "e3_selected_states",
        dtype={"state_fips": str},
        key="state_abbr",
        keys=_selected(run),
        columns=["slope", "p_value"],
    )
    # a selected state the audit regressed carries the audit's slope and p-value; the others (DC) none
    audit = ec.table(
        run, "e3_das_audit", dtype={"state_fips": str}, key="state_abbr", finite=["slope"], probability=["p_value"]
    ).set_index("state_abbr")
    fitted = sel["state_abbr"].isin(audit.index)
    where = str(run.path("tables/e3_selected_states.csv"))
    for column in ("slope", "p_value"):
        ec.check_consistent(
            sel.loc[fitted, column],
            audit.loc[sel.loc[fitted, "state_abbr"], column],
            where,
            f"{column} = the DAS audit's {column} of the state",
            rtol=1e-6,
            atol=1e-9,
        )
        if sel.loc[~fitted, column].notna().any():
            raise ec.EvidenceError(f"{where}: a {column} for a state the DAS audit did not regress")
    alpha = float(run.config["e3"]["audit"]["alpha"])
    sig = (sel["slope"] < 0) & (sel["p_value"] < alpha)
    return Measurement(
        int(sig.sum()),
        f"{int(sig.sum())} of {len(sel)} selected states ("
        + ", ".join(
            f"{s} {b:+.3f} (p {p:.2g})" for s, b, p in zip(sel["state_abbr"], sel["slope"], sel["p_value"], strict=True)
        )
        + ")",
    )


def scale_vs_das(run: Run, paper, *, state: str, method: str, sensitivity: float | None = None) -> Measurement:
    """Return a state's error spread of ``method`` over its DAS errors'.

    The SD over counties and releases of ``release − SF1`` over the SD over counties of ``DAS − SF1`` (the first ten
    releases, as the paper's ten runs, and all of them).

    ``sensitivity``: the ℓ1 sensitivity the document's mechanism is calibrated to, when it is not E4's
    (``e4.sensitivity``); the errors are rescaled by their ratio, exact for a mechanism whose noise is linear in
    its Laplace scale (the projected Laplace).
    """
    rel = _load_releases(run, state)
    configured = float(run.config["e4"]["sensitivity"])
    factor = 1.0 if sensitivity is None else float(sensitivity) / configured
    errors = rel.errors(method) * factor
    das = rel.errors(DAS).ravel()
    ratio = float(errors[:10].std() / das.std())
    scaled = (
        ""
        if factor == 1
        else (
            f" (at Laplace scale {sensitivity:g}/ε: this run's releases, drawn at {configured:g}/ε, times {factor:g})"
        )
    )
    return Measurement(
        ratio,
        f"{state}: SD of the {method.replace('_', ' ')} errors over counties and the first "
        f"{min(10, len(errors))} releases {errors[:10].std():.1f}{scaled} (all {len(errors)}: "
        f"{errors.std():.1f}) against the DAS errors' {das.std():.1f}: ratio {ratio:.2f}; ranges "
        f"{errors[:10].min():.0f}…{errors[:10].max():.0f} and {das.min():.0f}…{das.max():.0f}",
        note=vintage_note(run),
    )


def lp_concentration(run: Run, paper) -> Measurement:
    """Share of releases in which one county absorbs the whole ℓ1 discrepancy, per LP/MILP variant."""
    m, _ = _without_one_county(run, _every_method(run))
    ec.check_frame(
        m,
        str(run.path("tables/e4_metrics.csv")),
        probability=["single_county_share"],
        allow_missing=["single_county_share"],
    )
    pr = m[m["single_county_share"].notna() & (m["method"] != DAS)]
    parts = [
        f"{k}: {g['single_county_share'].min():.1%}–{g['single_county_share'].max():.1%} of releases"
        for k, g in pr.groupby("method", sort=False)
    ]
    return Measurement(float(pr["single_county_share"].max()), "one county absorbs it all — " + "; ".join(parts))


def budget_product(run: Run, paper, *, factors) -> Measurement:
    """Return the product of the printed budget factors, with the ε this workflow configures for E3/E4 in the note."""
    product = float(np.prod(list(factors.values())))
    return Measurement(
        product,
        " × ".join(f"{v:g} ({k})" for k, v in factors.items()) + f" = {product:.6g}",
        note=f"configured ε: E3 {run.config['e3']['eps']:g}",
    )


def rounding_breaks_total(run: Run, paper, *, method: str) -> Measurement:
    """Measure the smallest share over the selected states of releases whose rounded counts break the state total.

    The share is that of ``method``'s real-valued releases whose counts rounded to the nearest integer no longer sum to
    the state total, over the selected states with noise (more than one county); with each state's share and 1 −
    1/√(2πn/12), the share if the n rounding errors were independent uniforms.
    """
    shares = []
    for rel in _releases(run):
        rounded = np.rint(rel.releases[method]).astype(np.int64).sum(axis=1)
        n = len(rel.counties)
        shares.append((float(np.mean(rounded != rel.sf1.sum())), rel.state, n, len(rounded)))
    if not shares:
        raise ValueError("no selected state has more than one county: nothing to round")
    share, state, _, _ = min(shares)
    return Measurement(
        share,
        f"smallest share of rounded releases off the state total: {state} {share:.3f}; "
        + ", ".join(f"{s} {v:.3f} (n = {n}, uniform errors {1 - (np.pi * n / 6) ** -0.5:.2f})" for v, s, n, _ in shares)
        + f"; {shares[0][3]} releases per state",
    )


# --------------------------------------------------------------------------- Subspace DP §1, §6: non-negativity


def _noisy_counts(x: np.ndarray, eps: float, sensitivity: float, releases: int, seed: int) -> np.ndarray:
    """``releases`` rows of x + i.i.d. DG(ε/Δ₁) noise (a stylised state's raw noisy counts), from ``seed``."""
    from isdp.mcmc import DoubleGeometric

    return x + DoubleGeometric(eps / sensitivity).rvs((releases, len(x)), np.random.default_rng(seed))


def _size_trend(
    cells: np.ndarray, eps: float, sensitivity: float, releases: int, seed: int, nonnegative: bool, alternative: str
) -> dict:
    """Return the audit's regression on a post-processed release.

    ``cells`` (counties × cells per county) true counts, DG(ε/Δ₁) noise on every cell, the state total kept by the ℓ2
    projection over all cells with s ≥ 0 (``nonnegative``) or without (Π e, the projected mechanism); a county's error
    is the sum of its cells'. Returns the p-value of the OLS slope of the per-county mean error on log county count
    (one-sided for a negative slope, ``alternative="less"``, or two-sided), the slope, the per-county bias and the
    largest invariant residual.
    """
    from scipy import stats

    x, pop = cells.ravel().astype(float), cells.sum(axis=1)
    noisy = _noisy_counts(x, eps, sensitivity, releases, seed)
    total = float(x.sum())
    released = (
        nonnegative_total_projection(noisy, total)
        if nonnegative
        else noisy - (noisy.sum(axis=1, keepdims=True) - total) / x.size
    )
    bias = (released - x).reshape(releases, *cells.shape).sum(axis=2).mean(axis=0)
    fit = stats.linregress(np.log(pop), bias)
    t, df = fit.slope / fit.stderr, len(pop) - 2
    p = float(stats.t.cdf(t, df) if alternative == "less" else 2 * stats.t.sf(abs(t), df))
    return {
        "p": p,
        "slope": fit.slope,
        "bias": bias,
        "residual": float(np.abs(released.sum(axis=1) - total).max()),
        "what": "non-negative ℓ2 projection" if nonnegative else "ℓ2 projection without s ≥ 0",
        "sided": "one-sided" if alternative == "less" else "two-sided",
    }


def nonnegativity_bias(
    run: Run,
    paper,
    *,
    counties: int,
    smallest: float,
    largest: float,
    eps: float,
    sensitivity: float,
    releases: int,
    seed: int,
    nonnegative: bool = True,
    alternative: str = "less",
) -> Measurement:
    """:func:`_size_trend` on a stylised state.

    ``counties`` true counts log-spaced from ``smallest`` to ``largest`` (rounded), one cell each; the mean errors of
    the smallest and largest tenth beside it.
    """
    x = np.round(np.geomspace(smallest, largest, counties))
    r = _size_trend(x[:, None], eps, sensitivity, releases, seed, nonnegative, alternative)
    tenth = max(1, counties // 10)
    return Measurement(
        r["p"],
        f"{r['what']}: slope {r['slope']:+.3f} per log unit ({r['sided']} p {r['p']:.2g}); "
        f"mean error of the smallest tenth {r['bias'][:tenth].mean():+.2f}, largest tenth "
        f"{r['bias'][-tenth:].mean():+.2f}; largest |invariant residual| {r['residual']:.1e}",
        note=f"synthetic: {counties} counts {smallest:g}…{largest:g}, DG(ε/{sensitivity:g}) at "
        f"ε = {eps:g}, {releases} releases, seed {seed}",
    )


@ec.reads_committed
def histogram_nonnegativity_bias(
    run: Run,
    paper,
    *,
    eps: float,
    sensitivity: float,
    releases: int,
    seed: int,
    nonnegative: bool = True,
    alternative: str = "less",
) -> Measurement:
    """:func:`_size_trend` on a real state's cell structure.

    Illinois's 102 counties × 252-cell SF1 histograms (:data:`isdp_papers.nhgis.histograms.STATE_HISTOGRAMS_EXTRACT`),
    the projection over all its cells.
    """
    from isdp_papers.nhgis.histograms import (
        STATE_HISTOGRAMS_EXTRACT,
        STATE_HISTOGRAMS_SOURCE,
        load_state_histograms,
    )

    cells = load_state_histograms(ec.committed(run, STATE_HISTOGRAMS_EXTRACT))[STATE_HISTOGRAMS_SOURCE].to_numpy()
    r = _size_trend(cells, eps, sensitivity, releases, seed, nonnegative, alternative)
    order, tenth = np.argsort(cells.sum(axis=1)), len(cells) // 10
    return Measurement(
        r["p"],
        f"{r['what']} of Illinois's {cells.size:,} county cells ({(cells == 0).mean():.0%} "
        f"zero): slope {r['slope']:+.2f} persons per log unit of county population "
        f"({r['sided']} p {r['p']:.2g}); mean error of the smallest tenth of counties "
        f"{r['bias'][order[:tenth]].mean():+.1f}, largest tenth "
        f"{r['bias'][order[-tenth:]].mean():+.1f}",
        note=f"2010 SF1 cells (committed), DG(ε/{sensitivity:g}) at ε = {eps:g} per cell, {releases} "
        f"releases, seed {seed}",
        n=len(cells),
    )


# --------------------------------------------------------------------------- ISDP §1, App. E.4: projection bias


def _integer_l1_releases(
    x: np.ndarray, eps: float, sensitivity: float, releases: int, seed: int, nonnegative: bool
) -> np.ndarray:
    """DG + the integer ℓ1 projection onto {s.

    Σ s = Σ x} (and s ≥ 0 with ``nonnegative``) of a stylised state: the projection of ``isdp release --nonnegative``
    for one total (:func:`isdp.baselines.l1_total_projection`, the ℓ2-nearest of the ℓ1 optima, so the releases do not
    depend on a solver's tie-breaking).
    """
    from isdp.baselines import l1_total_projection

    return np.stack(
        [l1_total_projection(m, x.sum(), nonnegative) for m in _noisy_counts(x, eps, sensitivity, releases, seed)]
    )


def nonnegative_l1_bias(
    run: Run,
    paper,
    *,
    counts: list[int],
    smallest: int,
    releases: int,
    seed: int,
    alpha: float,
    nonnegative: bool = True,
) -> Measurement:
    """Measure the bias of the integer ℓ1 projection of DG noise under a state total, with s ≥ 0 or without.

    On a stylised state of ``counts``, with DG noise at E3's ε (E4's Δ₁) and the integer ℓ1 projection under the state
    total, with s ≥ 0 (``nonnegative``) or without: z = mean error / (SD/√R) of each of the ``smallest`` counties with
    the smallest counts; the value is the smallest of these z (beside it the one-sided Bonferroni threshold at ``alpha``
    and where the total takes the excess back).
    """
    from scipy import stats

    eps, sensitivity = float(run.config["e3"]["eps"]), float(run.config["e4"]["sensitivity"])
    x = np.asarray(counts, dtype=float)
    released = _integer_l1_releases(x, eps, sensitivity, releases, seed, nonnegative)
    errors = released - x
    sd = errors.std(axis=0, ddof=1)
    z = np.where(sd > 0, errors.mean(axis=0) / np.where(sd > 0, sd, 1) * np.sqrt(releases), 0.0)
    small, low = np.argsort(x, kind="stable")[:smallest], np.argsort(z, kind="stable")[:3]
    what = "integer ℓ1 projection with s ≥ 0" if nonnegative else "integer ℓ1 projection without s ≥ 0"
    return Measurement(
        float(z[small].min()),
        f"{what}: z of the {smallest} smallest counties "
        + ", ".join(f"{x[i]:.0f}: {z[i]:+.1f} (mean error {errors[:, i].mean():+.2f})" for i in small)
        + f" against the one-sided Bonferroni {stats.norm.isf(alpha / smallest):.2f}; the excess is "
        "taken back most from the counties of "
        + ", ".join(f"{x[i]:.0f} (z {z[i]:+.1f})" for i in low)
        + f"; largest county {x.max():.0f}: z {z[np.argmax(x)]:+.1f}; totals kept "
        f"{int((released.sum(axis=1) == x.sum()).sum())}/{releases}, smallest count "
        f"{released.min()}",
        note=f"synthetic: {len(x)} counties, DG(ε/{sensitivity:g}) at E3's ε = {eps:g}, "
        f"{releases} releases, seed {seed}",
        n=releases * smallest,
    )


def nonnegative_l1_data_dependence(
    run: Run, paper, *, counts: list[int], swap: list[int], releases: int, seed: int, nonnegative: bool = True
) -> Measurement:
    """Return the error law of one county under two inputs with the same total.

    ``counts``, and ``counts`` with the counties ``swap`` exchanged, each released ``releases`` times (DG at E3's ε, the
    integer ℓ1 projection as :func:`nonnegative_l1_bias`) from independent seeds; the value is the two-sample
    Kolmogorov–Smirnov p-value of county ``swap[0]``'s errors (conservative for integer errors: ties only raise it).
    """
    from scipy import stats

    eps, sensitivity = float(run.config["e3"]["eps"]), float(run.config["e4"]["sensitivity"])
    first = np.asarray(counts, dtype=float)
    second = first.copy()
    second[swap] = first[swap[::-1]]
    county = swap[0]
    errors = [
        (_integer_l1_releases(x, eps, sensitivity, releases, seed + i, nonnegative) - x)[:, county]
        for i, x in enumerate((first, second))
    ]
    p = float(stats.ks_2samp(*errors).pvalue)
    what = "integer ℓ1 projection with s ≥ 0" if nonnegative else "integer ℓ1 projection without s ≥ 0"
    return Measurement(
        p,
        f"{what}: county {county}'s error at count {first[county]:.0f} (mean "
        f"{errors[0].mean():+.2f}, SD {errors[0].std():.2f}, negative {np.mean(errors[0] < 0):.0%}) "
        f"and at count {second[county]:.0f} (mean {errors[1].mean():+.2f}, SD {errors[1].std():.2f}, "
        f"negative {np.mean(errors[1] < 0):.0%}), same total {first.sum():.0f}: two-sample KS p "
        f"{p:.2g}",
        note=f"synthetic: {len(first)} counties, DG(ε/{sensitivity:g}) at E3's ε = {eps:g}, "
        f"{releases} releases per input, seeds {seed}, {seed + 1}",
        n=2 * releases,
    )
