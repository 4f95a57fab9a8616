"""E7's tables (Congenial DP §4 Table 2, App. A-B).

They are built from the releases, noise laws and privacy levels of :mod:`.releases`, :mod:`.noise_laws`,
:mod:`.privacy_levels` and :mod:`.printed_dg`.

The exact Table 2 (:func:`table2_exact`), the attained privacy levels (:func:`privacy_table`), Table 2
by Monte Carlo at a fixed x (:func:`simulation_table`), M*'s law by conditioning on a thin slab
(:func:`conditioning_table`) and the App. B quantile sampler of the double geometric law
(:func:`dg_quantile_table`). Each random table draws from its own generators, seeded by
:func:`isdp_papers.jobs.derive_seed` of the step's seed and the table's keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from isdp.mcmc import DoubleGeometric
from isdp_papers.e7_congenial_histogram import noise_laws as nl
from isdp_papers.e7_congenial_histogram import printed_dg as pdg
from isdp_papers.e7_congenial_histogram import privacy_levels as pl
from isdp_papers.e7_congenial_histogram import releases as rel
from isdp_papers.jobs import derive_seed


def settings(betas: Sequence[float]) -> list[tuple[str, float | None]]:
    """Return the releases compared: (mechanism, β) for M*, f_L2 and f_L1 at each β."""
    return [("conditional", None), ("l2", None), *(("l1", b) for b in betas)]


def moments(m1: np.ndarray, exact_mean: float, exact_var: float) -> dict:
    """Return the sample mean and variance of m1 with their standard errors and their z-scores.

    The variance's standard error comes from the 4th moment; the z-scores are against the exact values.
    """
    c = m1 - m1.mean()
    var = m1.var(ddof=1)
    se_var = np.sqrt(max(np.mean(c**4) - np.mean(c**2) ** 2, 0.0) / len(m1))
    se_mean = np.sqrt(var / len(m1))
    return {
        "mean_m1": m1.mean(),
        "se_mean_m1": se_mean,
        "z_mean": (m1.mean() - exact_mean) / se_mean,
        "var_m1": var,
        "se_var_m1": se_var,
        "z_var": (var - exact_var) / se_var,
    }


def table2_exact(x, eps_grid: Sequence[float], labels: Mapping[str, str]) -> pd.DataFrame:
    """Table 2, exact.

    Each mechanism's expectation at ``x`` and ε² Var(m1) (low and high: f_L1's range over β), which must not depend on ε
    (a 1/ε² law); RuntimeError when it does.
    """
    x = np.asarray(x, dtype=float)
    rows = []
    for mech in rel.MECHANISMS:
        beta = 0.5 if mech == "l1" else None  # the mean does not depend on β
        mean = rel.exact_mean(mech, x, eps_grid[0], beta)
        if mech == "l1":
            coefs = np.array([np.array(rel.l1_variance_range(e)) * e**2 for e in eps_grid])
        else:
            coefs = np.array([[rel.exact_variance(mech, e) * e**2] * 2 for e in eps_grid])
        if np.ptp(coefs, axis=0).max() > 1e-12 * coefs.max():
            raise RuntimeError(f"{mech}: ε² Var(m1) varies with ε: {coefs.tolist()}")
        rows.append(
            {
                "mechanism": mech,
                "label": labels[mech],
                "mean_m1": mean[0],
                "mean_m2": mean[1],
                "var_coef_low": coefs[0, 0],
                "var_coef_high": coefs[0, 1],
            }
        )
    return pd.DataFrame(rows)


def privacy_table(eps_grid: Sequence[float], betas: Sequence[float], *, t_max: float, n_grid: int) -> pd.DataFrame:
    """Return the worst-case log likelihood ratio of each release for a unit shift of s1, per ε.

    On a grid of ``n_grid`` points up to ``t_max``, against the closed forms; levels also over ε.
    """
    rows = []
    for eps in eps_grid:
        for mech, beta in settings(betas):
            level, t = pl.privacy_level(mech, eps, beta, t_max=t_max, n_grid=n_grid)
            closed = pl.closed_form_level(mech, eps, beta)
            rows.append(
                {
                    "mechanism": mech,
                    "beta": beta,
                    "eps": eps,
                    "level": level,
                    "level_over_eps": level / eps,
                    "closed_form_over_eps": closed / eps,
                    "gap_over_eps": (closed - level) / eps,
                    "t_at_sup_times_eps": t * eps,
                }
            )
    return pd.DataFrame(rows)


def simulation_table(
    x, eps_grid: Sequence[float], betas: Sequence[float], n_draws: int, figure_eps: float, seed: int
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Table 2 by simulation.

    ``n_draws`` releases of each mechanism at ``x`` per ε — M* from its closed form, f_L2 and f_L1 by projecting base
    releases — with moments, z-scores, the largest total error, the projections' optimality gap and a KS test against
    the exact noise law.

    Returns the table and the arrays of the noise file: ``eps``, ``l2`` (f_L2's noise times ε at
    every ε), ``figure_eps``, ``conditional`` and ``l1`` (per β) at ``figure_eps``, ``betas``.
    The generator of (mechanism, β, ε) is seeded by ``derive_seed(seed, mechanism, β, ε)``.
    """
    from scipy import stats

    x = np.asarray(x, dtype=float)
    total = x.sum()
    rows, l2_noise, fig_noise = [], [], {}
    for eps in eps_grid:
        for mech, beta in settings(betas):
            rng = np.random.default_rng(derive_seed(seed, mech, beta, eps))
            if mech == "conditional":
                r = rel.release(mech, x, eps, n_draws, rng)
                gap = np.nan
            else:
                m = rel.unconstrained(x, eps, n_draws, rng)
                r = rel.project_l2(m, total) if mech == "l2" else rel.project_l1(m, total, beta)
                gap = (
                    np.abs((m - r) @ np.array([1.0, -1.0])).max()
                    if mech == "l2"  # residual ⟂ the line
                    else (np.abs(m - r).sum(axis=1) - np.abs(m.sum(axis=1) - total)).max()
                )  # L1 distance = minimum
            noise = r[:, 0] - x[0]
            exact_var = rel.exact_variance(mech, eps, beta)
            row = {
                "mechanism": mech,
                "beta": beta,
                "eps": eps,
                "n_draws": n_draws,
                "exact_mean_m1": x[0],
                "exact_var_m1": exact_var,
                **moments(r[:, 0], x[0], exact_var),
                "mean_m2": r[:, 1].mean(),
                "max_total_error": np.abs(r.sum(axis=1) - total).max(),
                "max_optimality_gap": gap,
                "ks_p": stats.kstest(noise, lambda t, m=mech, e=eps, b=beta: nl.noise_cdf(t, m, e, b)).pvalue,
            }
            row["var_coef"], row["se_var_coef"] = row["var_m1"] * eps**2, row["se_var_m1"] * eps**2
            rows.append(row)
            if mech == "l2":
                l2_noise.append((eps * noise).astype(np.float32))  # unitless: the laws scale with 1/ε
            if eps == figure_eps:
                fig_noise[(mech, beta)] = (eps * noise).astype(np.float32)
    noise = {
        "eps": np.asarray(eps_grid),
        "l2": np.stack(l2_noise),
        "figure_eps": figure_eps,
        "conditional": fig_noise[("conditional", None)],
        "betas": np.asarray(betas),
        "l1": np.stack([fig_noise[("l1", b)] for b in betas]),
    }
    return pd.DataFrame(rows), noise


def conditioning_table(eps: float, window: float, n_accepted: int, seed: int) -> pd.DataFrame:
    """(4.6) by brute force.

    U1 of base noise pairs with |u1 + u2| < window / ε (generator seeded by ``derive_seed(seed, "conditioning")``), its
    moments and KS tests against M*'s law and Lap(1/ε).
    """
    from scipy import stats

    u1 = rel.condition_on_zero_sum(eps, window, n_accepted, np.random.default_rng(derive_seed(seed, "conditioning")))
    c = u1 - u1.mean()
    return pd.DataFrame(
        [
            {
                "eps": eps,
                "window": window,
                "n_accepted": len(u1),
                "mean": u1.mean(),
                "se_mean": u1.std(ddof=1) / np.sqrt(len(u1)),
                "var_coef": u1.var(ddof=1) * eps**2,
                "se_var_coef": np.sqrt(np.mean(c**4) - np.mean(c**2) ** 2) / np.sqrt(len(u1)) * eps**2,
                "exact_var_coef": rel.exact_variance("conditional", eps) * eps**2,
                "ks_p": stats.kstest(u1, lambda t: nl.noise_cdf(t, "conditional", eps)).pvalue,
                "ks_p_base_law": stats.kstest(u1, stats.laplace(scale=rel.base_scale(eps)).cdf).pvalue,
            }
        ]
    )


def dg_quantile_table(eps_values: Sequence[float], n_draws: int, seed: int) -> pd.DataFrame:
    """Return App. B's inverse-CDF sampling of the double geometric law with the printed quantile function.

    Per ε (uniforms seeded by ``derive_seed(seed, "dg", ε)``): how many draws invert exactly, a χ² test, and the moments
    against the exact variance.
    """
    rows = []
    for eps in eps_values:
        a = float(np.exp(-eps))
        v = np.random.default_rng(derive_seed(seed, "dg", eps)).uniform(size=n_draws)
        ok = pdg.dg_inverse_check(v, eps)
        draws = pdg.dg_quantile(v, eps)
        chi2, dof, p = pdg.dg_chisquare(draws, eps)
        rows.append(
            {
                "eps": eps,
                "a": a,
                "n_draws": len(v),
                "n_inverse_ok": int(ok.sum()),
                "chi2": chi2,
                "dof": dof,
                "p_value": p,
                "mean": draws.mean(),
                "var": draws.var(ddof=1),
                "exact_var": DoubleGeometric(eps).variance(),
            }
        )
    return pd.DataFrame(rows)
