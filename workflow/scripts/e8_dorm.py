"""E8, TopDown talk's college-town example: feasible town-wide totals and their implied bounds."""
from isdp.experiments.jobs import start
from isdp.experiments.e8_privacy_accounting.implied import feasible_totals, implied_bounds

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
cfg = smk.params.dorm
totals = feasible_totals(cfg["region_totals"], cfg["occupied"], cfg["types"])
totals.to_csv(smk.output.feasible, index=False, lineterminator="\n")
bounds = implied_bounds(totals, cfg["forms"])
bounds.to_csv(smk.output.bounds, index=False, lineterminator="\n")
log.info("%d feasible totals; implied bounds:\n%s", len(totals), bounds.to_string())
