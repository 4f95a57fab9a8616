"""Readers of the run's own outputs for E1 and E2 (ISDP §5–6, App. D.2).

The convergence (L-lag TV bound), unbiasedness, ESS and validation tables, the draws files, the coupling certificates
and meeting times, and the config's own values. Each measure reads what a step wrote; none recomputes a law.

Both experiments share one set of outputs: ``results/<exp>/...`` and ``results/tables/<exp>_*.csv``; the ``exp``
argument ("e1" or "e2") picks the experiment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp.convergence import draws_attrs, load_draws
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.measure_helpers import draws_keep_invariants, fmt_list, max_abs_z


def _convergence(run: Run, exp: str):
    """``<exp>_convergence``: one row per (target, lag), lags and pair counts non-negative integers."""
    return ec.table(run, f"{exp}_convergence", key=["target", "lag"], filled=["target"], count=["lag", "pairs"])


def _lags_of(run: Run, exp: str, norm: str):
    """Return the convergence rows of target ``norm``.

    One per configured lag, each with its iteration of convergence.
    """
    conv = _convergence(run, exp)
    g = conv[conv["target"] == norm]
    ec.check_frame(
        g,
        str(run.path(f"tables/{exp}_convergence.csv")),
        key="lag",
        keys=[int(v) for v in run.config[exp]["targets"][norm]["lags"]],
        count=["converged_at"],
    )
    return g


def tv_bound_crossing_iteration(run: Run, paper, *, exp: str, norm: str) -> Measurement:
    """Return the iteration at which the L-lag TV bound first drops below the threshold, per lag.

    The value is the latest over the lags.
    """
    g = _lags_of(run, exp, norm)
    its = g["converged_at"].astype(int)
    return Measurement(
        int(its.max()),
        f"{int(its.max())} (lags {fmt_list(g['lag'])}: {fmt_list(its)}; {int(g['pairs'].iloc[0])} pairs)",
    )


def lag_spread(run: Run, paper, *, exp: str, norm: str) -> Measurement:
    """max/min over lags of the convergence iteration: the bound's stability across lags."""
    g = _lags_of(run, exp, norm)
    its = g["converged_at"].astype(int)
    spread = its.max() / max(its.min(), 1)
    return Measurement(
        float(spread),
        f"max/min convergence iteration across lags {fmt_list(g['lag'])} = {spread:.2f} ({fmt_list(its)})",
    )


def unbiased_z(run: Run, paper, *, exp: str) -> Measurement:
    """Z = mean / MC SE (ESS-based) of every cell and target."""
    unb = ec.table(
        run,
        f"{exp}_unbiasedness",
        key=["target", "cell"],
        finite=["mean", "z"],
        nonnegative=["sd", "mc_se"],
        positive=["ess_bulk"],
    )
    where = str(run.path(f"tables/{exp}_unbiasedness.csv"))
    ec.check_frame(unb.drop_duplicates("target"), where, key="target", keys=list(run.config[exp]["targets"]))
    # the SE and z of each cell from its mean, SD and ESS: recomputed, not trusted
    ec.check_consistent(unb["mc_se"], unb["sd"] / np.sqrt(unb["ess_bulk"]), where, "mc_se = sd/√ess_bulk", rtol=1e-6)
    moving = unb["mc_se"] > 0
    ec.check_consistent(
        unb.loc[moving, "z"], unb.loc[moving, "mean"] / unb.loc[moving, "mc_se"], where, "z = mean/mc_se", rtol=1e-6
    )
    return max_abs_z(unb["z"], "cell-target pairs (SE from the bulk ESS)")


def invariants_exact(run: Run, paper, *, exp: str) -> Measurement:
    """Every stored draw of every target is integer with A u = 0."""
    norms = list(run.config[exp]["targets"])
    return draws_keep_invariants(run, f"{exp}/problem.json", [f"{exp}/draws_{n}.nc" for n in norms])


def design_kept(run: Run, paper, *, exp: str) -> Measurement:
    """Whether this run kept the design it was configured with, read from its outputs.

    Per configured target, the draws file's chains (``draws.n_chains``) and retained draws (``draws.n_draws``), and the
    convergence table's lags (the target's ``lags``), each with ``coupling.n_pairs`` coupled pairs. The value is the
    number of departures: a target, lag, chain, draw or pair missing, or a count other than configured.
    """
    cfg = run.config[exp]
    chains, draws, pairs = (
        int(cfg["draws"]["n_chains"]),
        int(cfg["draws"]["n_draws"]),
        int(cfg["coupling"]["n_pairs"]),
    )
    conv = _convergence(run, exp)
    departures, kept = [], []
    for norm, target in cfg["targets"].items():
        path = run.path(f"{exp}/draws_{norm}.nc")
        if path.exists():
            c, per_chain = load_draws(path).shape[:2]
            if (c, c * per_chain) != (chains, draws):
                departures.append(f"{norm}: {c} chains, {c * per_chain} draws")
        else:
            departures.append(f"{norm}: no draws file")
        found = dict(
            zip(
                conv.loc[conv["target"] == norm, "lag"].astype(int),
                conv.loc[conv["target"] == norm, "pairs"].astype(int),
                strict=True,
            )
        )
        for lag in sorted(set(found) | {int(v) for v in target["lags"]}):
            if found.get(lag) != pairs or lag not in target["lags"]:
                departures.append(
                    f"{norm} lag {lag}: {found.get(lag, 'no')} pairs"
                    + ("" if lag in target["lags"] else " (lag not configured)")
                )
        kept.append(f"{norm} lags {fmt_list(target['lags'])}")
    text = f"configured: {chains} chains, {draws} draws and {pairs} pairs per lag per target ({'; '.join(kept)}); " + (
        f"{len(departures)} departures: {'; '.join(departures)}" if departures else "all kept"
    )
    return Measurement(len(departures), text)


def retained_share(run: Run, paper, *, exp: str) -> Measurement:
    """Return the share of sampler iterations kept as draws, 1/thin.

    From the draws files' own record of the thinning.
    """
    thins = set()
    for n in run.config[exp]["targets"]:
        path = run.path(f"{exp}/draws_{n}.nc")
        attrs = ec.load(path, draws_attrs, "draws file")
        if "thin" not in attrs:
            raise ec.EvidenceError(f"{path}: no 'thin' attribute")
        thins.add(int(ec.finite_number(attrs["thin"], str(path), "attribute 'thin'", "count")))
    thins = sorted(thins)
    if thins[0] < 1:
        raise ec.EvidenceError(f"{run.path(f'{exp}/draws_l1.nc')}: a thinning of {thins[0]}")
    if len(thins) != 1:
        raise ValueError(f"{exp}'s targets were thinned differently ({thins}); the row needs one design")
    return Measurement(1.0 / thins[0], f"1 in {thins[0]:,} iterations kept ({100 / thins[0]:g} %)")


def min_ess(run: Run, paper, *, exp: str) -> Measurement:
    """Return the smallest bulk ESS over cells and targets of the retained draws."""
    ess = pd.concat(
        ec.table(run, f"{exp}_ess_{n}", key="cell", positive=["ess_bulk"]) for n in run.config[exp]["targets"]
    )
    n = int(run.config[exp]["draws"]["n_draws"])
    return Measurement(
        float(ess["ess_bulk"].min()), f"min bulk ESS {ess['ess_bulk'].min():.0f} of {n} retained draws per target"
    )


def margins_from_cells(run: Run, paper, *, exp: str) -> Measurement:
    """Row and column totals and the grand total of the confidential table, from its cells."""
    t = run.table(f"{exp}_table2_confidential", index_col=0)
    where = str(run.path(f"tables/{exp}_table2_confidential.csv"))
    if "Total" not in t.index or "Total" not in t.columns or t.index.duplicated().any():
        raise ec.EvidenceError(f"{where}: not a table of labelled rows with its 'Total' row and column")
    ec.check_values(t.to_numpy(), where, "the counts", "count")
    cells = t.drop(index="Total", columns="Total")
    # the margins are the cells' sums: recomputed, not trusted
    ec.check_consistent(t.loc[cells.index, "Total"], cells.sum(axis=1), where, "Total column = the row sums", rtol=0)
    ec.check_consistent(t.loc["Total"], t.drop(index="Total").sum(axis=0), where, "Total row = the column sums", rtol=0)
    rows, cols = cells.sum(axis=1).astype(int).tolist(), cells.sum(axis=0).astype(int).tolist()
    total = int(cells.to_numpy().sum())
    return Measurement(
        {"rows": rows, "cols": cols, "total": total},
        f"rows {'/'.join(map(str, rows))}, cols {'/'.join(map(str, cols))}, total {total}",
    )


def validation_p(run: Run, paper, *, exp: str) -> Measurement:
    """p-values of the chi-square tests of MCMC against exact rejection sampling."""
    val = ec.table(
        run, f"{exp}_validation", key="statistic", filled=["table"], probability=["p_value"], positive=["eps"]
    )
    text = f"{val['table'].iloc[0]} table, ε {val['eps'].iloc[0]}: p = " + ", ".join(
        f"{s} {p:.3f}" for s, p in zip(val["statistic"], val["p_value"], strict=True)
    )
    return Measurement(val["p_value"].to_numpy(), text)


def coupling_censored(run: Run, paper, *, exp: str) -> Measurement:
    """Coupled pairs of every target's certificate that had not met by its ``max_iter`` (censored)."""
    from isdp.convergence import Certificate

    parts, censored = [], 0
    for norm in run.config[exp]["targets"]:
        path = run.path(f"{exp}/certificate_{norm}.json")
        record = ec.json_values(run, f"{exp}/certificate_{norm}.json", required=["summary"])
        s = record["summary"]
        if not isinstance(s, dict):
            raise ec.EvidenceError(f"{path}: 'summary' is not an object")
        for k in ("censored", "pairs", "lag", "max_iter"):
            ec.finite_number(s.get(k), str(path), f"summary.{k}", "count")
        if s["censored"] == 0 or s.get("tau_minus_lag_max") != float("inf"):  # inf: a pair that never met
            ec.finite_number(s.get("tau_minus_lag_max"), str(path), "summary.tau_minus_lag_max", "count")
        try:  # the summary derives from the record's meeting times, which must be a coupling's
            recomputed = Certificate.from_dict(record).summary()
        except (KeyError, TypeError, ValueError) as err:
            raise ec.EvidenceError(f"{path}: {err}") from None
        for k in ("censored", "pairs", "lag", "max_iter", "tau_minus_lag_max"):
            if s[k] != recomputed[k]:
                ec.check_consistent(s[k], recomputed[k], str(path), f"summary.{k} = the meeting times' {k}")
        if s["censored"] > s["pairs"] or s["pairs"] == 0:
            raise ec.EvidenceError(f"{path}: {s['censored']} censored of {s['pairs']} pairs")
        censored += int(s["censored"])
        latest = "never, for some" if s["censored"] else int(s["tau_minus_lag_max"])
        parts.append(
            f"{norm}: {int(s['censored'])} of {int(s['pairs'])} pairs (lag {int(s['lag'])}, max_iter "
            f"{int(s['max_iter'])}, latest meeting τ − L = {latest})"
        )
    return Measurement(censored, f"{censored} censored; " + "; ".join(parts))


def lag_tau_ks(run: Run, paper, *, exp: str) -> Measurement:
    """ISDP App. D.2.

    The lags are such that "the distribution of the L-lag coupling time, τ − L, appears to be empirically stable in L".
    Per target, two-sample Kolmogorov–Smirnov tests of τ − L between every two configured lags (the pairs of each lag
    are independent, from their own seeds); the value is their p-values.
    """
    import itertools

    from scipy.stats import ks_2samp

    pvalues, parts = [], []
    for norm in run.config[exp]["targets"]:
        meet = ec.table_at(run, f"{exp}/meeting_times_{norm}.csv", key=["lag", "pair"], count=["lag", "tau"])
        if (meet["tau"] < meet["lag"]).any():
            raise ec.EvidenceError(f"{run.path(f'{exp}/meeting_times_{norm}.csv')}: a meeting time τ below its lag")
        by_lag = {int(lag): (g["tau"] - lag).to_numpy() for lag, g in meet.groupby("lag")}
        tests = []
        for a, b in itertools.combinations(sorted(by_lag), 2):
            p = float(ks_2samp(by_lag[a], by_lag[b]).pvalue)
            pvalues.append(p)
            tests.append(f"{a}–{b} p {p:.3f}")
        means = ", ".join(f"L {lag}: {v.mean():.0f}" for lag, v in sorted(by_lag.items()))
        parts.append(f"{norm}: mean τ − L {means}; KS {', '.join(tests)}")
    return Measurement(
        np.asarray(pvalues),
        f"smallest KS p = {min(pvalues):.3f} over {len(pvalues)} lag pairs (" + "; ".join(parts) + ")",
    )


def configured_value(run: Run, paper, *, keys: list[str]) -> Measurement:
    """Return the project's own value of a setting the document states but our text copy lost.

    The config entries at the dotted ``keys`` (none: the project has no such value).
    """
    values = {}
    for key in keys:
        node = run.config
        for part in key.split("."):
            node = node[part]
        values[key] = node
    text = "; ".join(f"{k} = {v}" for k, v in values.items()) if values else "the project has no value of its own"
    return Measurement(text, f"this project: {text}")
