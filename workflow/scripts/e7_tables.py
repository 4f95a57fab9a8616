"""E7 (Congenial DP §4 Table 2, App. A-B): the exact Table 2 and privacy levels of M*, f_L2 and f_L1;
Monte Carlo releases at a fixed x; M*'s law by conditioning on a thin slab; the App. B DG sampler."""

import numpy as np
import pandas as pd
from scipy import stats

from isdp import derive_seed
from isdp.distributions import dg_variance
from isdp.experiments.e7_congenial_histogram import congenial as cg
from isdp.experiments.jobs import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
x = np.asarray(smk.params.x, dtype=float)
eps_grid, betas, n, fig_eps = smk.params.eps_grid, smk.params.betas, smk.params.n_draws, smk.params.figure_eps
if fig_eps not in eps_grid:
    raise ValueError(f"e7.figure_eps = {fig_eps} is not on e7.eps_grid {eps_grid}")
seed = derive_seed(*smk.params.seed)
total = x.sum()


def moments(m1, exact_mean, exact_var):
    """Sample mean and variance of m1 with their standard errors (the latter from the 4th moment)."""
    c = m1 - m1.mean()
    var = m1.var(ddof=1)
    se_var = np.sqrt(max(np.mean(c**4) - np.mean(c**2) ** 2, 0.0) / len(m1))
    se_mean = np.sqrt(var / len(m1))
    return {"mean_m1": m1.mean(), "se_mean_m1": se_mean, "z_mean": (m1.mean() - exact_mean) / se_mean,
            "var_m1": var, "se_var_m1": se_var, "z_var": (var - exact_var) / se_var}


settings = [("conditional", None), ("l2", None), *(("l1", b) for b in betas)]

# Table 2, exact: expectation at x and ε² Var(m1), which must not depend on ε (a 1/ε² law)
rows = []
for mech in cg.MECHANISMS:
    beta = 0.5 if mech == "l1" else None  # the mean does not depend on β
    mean = cg.exact_mean(mech, x, eps_grid[0], beta)
    if mech == "l1":
        coefs = np.array([np.array(cg.l1_variance_range(e)) * e**2 for e in eps_grid])
    else:
        coefs = np.array([[cg.exact_variance(mech, e) * e**2] * 2 for e in eps_grid])
    if np.ptp(coefs, axis=0).max() > 1e-12 * coefs.max():
        raise RuntimeError(f"{mech}: ε² Var(m1) varies with ε: {coefs.tolist()}")
    rows.append({"mechanism": mech, "label": smk.params.labels[mech], "mean_m1": mean[0], "mean_m2": mean[1],
                 "var_coef_low": coefs[0, 0], "var_coef_high": coefs[0, 1]})
table2 = pd.DataFrame(rows)
table2.to_csv(smk.output.table2, index=False, lineterminator="\n")
log.info("Table 2 (exact, x = %s):\n%s", x, table2.to_string())

# privacy: worst-case log likelihood ratio for a unit shift of s1, against the closed forms
rows = []
for eps in eps_grid:
    for mech, beta in settings:
        level, t = cg.privacy_level(mech, eps, beta, t_max=smk.params.privacy["t_max"],
                                    n_grid=smk.params.privacy["n_grid"])
        closed = cg.closed_form_level(mech, eps, beta)
        rows.append({"mechanism": mech, "beta": beta, "eps": eps, "level": level, "level_over_eps": level / eps,
                     "closed_form_over_eps": closed / eps, "gap_over_eps": (closed - level) / eps,
                     "t_at_sup_times_eps": t * eps})
privacy = pd.DataFrame(rows)
privacy.to_csv(smk.output.privacy, index=False, lineterminator="\n")
log.info("privacy levels:\n%s", privacy.to_string())

# Table 2 by simulation: M* from its closed form, f_L2 and f_L1 by projecting base releases
rows, l2_noise, fig_noise = [], [], {}
for eps in eps_grid:
    for mech, beta in settings:
        rng = np.random.default_rng(derive_seed(seed, mech, beta, eps))
        if mech == "conditional":
            r = cg.release(mech, x, eps, n, rng)
            gap = np.nan
        else:
            m = cg.unconstrained(x, eps, n, rng)
            r = cg.project_l2(m, total) if mech == "l2" else cg.project_l1(m, total, beta)
            gap = (np.abs((m - r) @ np.array([1.0, -1.0])).max() if mech == "l2"  # residual ⟂ the line
                   else (np.abs(m - r).sum(axis=1) - np.abs(m.sum(axis=1) - total)).max())  # L1 distance = minimum
        noise = r[:, 0] - x[0]
        exact_var = cg.exact_variance(mech, eps, beta)
        row = {"mechanism": mech, "beta": beta, "eps": eps, "n_draws": n, "exact_mean_m1": x[0],
               "exact_var_m1": exact_var, **moments(r[:, 0], x[0], exact_var),
               "mean_m2": r[:, 1].mean(), "max_total_error": np.abs(r.sum(axis=1) - total).max(),
               "max_optimality_gap": gap,
               "ks_p": stats.kstest(noise, lambda t, m=mech, e=eps, b=beta: cg.noise_cdf(t, m, e, b)).pvalue}
        row["var_coef"], row["se_var_coef"] = row["var_m1"] * eps**2, row["se_var_m1"] * eps**2
        rows.append(row)
        if mech == "l2":
            l2_noise.append((eps * noise).astype(np.float32))  # unitless: the laws scale with 1/ε
        if eps == fig_eps:
            fig_noise[(mech, beta)] = (eps * noise).astype(np.float32)
sim = pd.DataFrame(rows)
sim.to_csv(smk.output.simulation, index=False, lineterminator="\n")
np.savez_compressed(smk.output.noise, eps=np.asarray(eps_grid), l2=np.stack(l2_noise), figure_eps=fig_eps,
                    conditional=fig_noise[("conditional", None)], betas=np.asarray(betas),
                    l1=np.stack([fig_noise[("l1", b)] for b in betas]))
log.info("simulation:\n%s", sim.to_string())

# (4.6) by brute force: u1 of base noise pairs with |u1 + u2| < window / ε, against Lap(1/ε)
cond = smk.params.conditioning
u1 = cg.condition_on_zero_sum(fig_eps, cond["window"], cond["n_accepted"],
                              np.random.default_rng(derive_seed(seed, "conditioning")))
c = u1 - u1.mean()
conditioning = pd.DataFrame([{
    "eps": fig_eps, "window": cond["window"], "n_accepted": len(u1), "mean": u1.mean(),
    "se_mean": u1.std(ddof=1) / np.sqrt(len(u1)), "var_coef": u1.var(ddof=1) * fig_eps**2,
    "se_var_coef": np.sqrt(np.mean(c**4) - np.mean(c**2) ** 2) / np.sqrt(len(u1)) * fig_eps**2,
    "exact_var_coef": cg.exact_variance("conditional", fig_eps) * fig_eps**2,
    "ks_p": stats.kstest(u1, lambda t: cg.noise_cdf(t, "conditional", fig_eps)).pvalue,
    "ks_p_base_law": stats.kstest(u1, stats.laplace(scale=cg.base_scale(fig_eps)).cdf).pvalue,
}])
conditioning.to_csv(smk.output.conditioning, index=False, lineterminator="\n")
log.info("conditioning check:\n%s", conditioning.to_string())

# App. B: inverse-CDF sampling with the printed quantile function
rows = []
for eps in smk.params.dg_check["eps"]:
    a = float(np.exp(-eps))
    v = np.random.default_rng(derive_seed(seed, "dg", eps)).uniform(size=smk.params.dg_check["n_draws"])
    ok = cg.dg_inverse_check(v, a)
    draws = cg.dg_quantile(v, a)
    chi2, dof, p = cg.dg_chisquare(draws, a)
    rows.append({"eps": eps, "a": a, "n_draws": len(v), "n_inverse_ok": int(ok.sum()), "chi2": chi2, "dof": dof,
                 "p_value": p, "mean": draws.mean(), "var": draws.var(ddof=1), "exact_var": dg_variance(a)})
dg = pd.DataFrame(rows)
dg.to_csv(smk.output.dg_quantile, index=False, lineterminator="\n")
log.info("App. B quantile check:\n%s", dg.to_string())
