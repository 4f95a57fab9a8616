"""E8, Swapping slides' TopDown row: a zCDP budget ρ converted to ε at δ by every conversion."""
import pandas as pd

from isdp.accounting import zcdp_to_dp
from isdp.experiments.jobs import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
rho, delta, r = smk.params.budget["rho"], smk.params.budget["delta"], smk.params.budget["rho_rounding"]
rows = [{"conversion": m, "rho": rho, "delta": delta, "epsilon": zcdp_to_dp(rho, delta, m),
         "epsilon_rho_low": zcdp_to_dp(rho - r, delta, m), "epsilon_rho_high": zcdp_to_dp(rho + r, delta, m)}
        for m in smk.params.methods]
table = pd.DataFrame(rows)
table.to_csv(smk.output.table, index=False, lineterminator="\n")
log.info("\n%s", table.to_string())
