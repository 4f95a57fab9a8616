"""E7 (Congenial DP §4 Table 2, App. A): the exact Table 2 and the attained privacy level of each release."""
import numpy as np
import pandas as pd

from isdp import congenial as cg
from isdp._workflow import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
x, eps_grid, betas = smk.params.x, smk.params.eps_grid, smk.params.betas
labels = smk.params.labels

# Table 2: expectation at x and ε² Var(m1), which must not depend on ε (a 1/ε² law)
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
    rows.append({"mechanism": mech, "label": labels[mech], "mean_m1": mean[0], "mean_m2": mean[1],
                 "var_coef_low": coefs[0, 0], "var_coef_high": coefs[0, 1]})
table2 = pd.DataFrame(rows)
table2.to_csv(smk.output.table2, index=False, lineterminator="\n")
log.info("Table 2 (exact, x = %s):\n%s", x, table2.to_string())

# privacy: worst-case log likelihood ratio for a unit shift of s1, against the closed forms
settings = [("conditional", None), ("l2", None), *(("l1", b) for b in betas)]
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
