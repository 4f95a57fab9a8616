"""Tuned proposal parameters: the configured value per target beside the pilot's choice."""
import pandas as pd

from isdp.experiments.jobs import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
lo, hi = smk.params.acceptance_range
rows = []
for norm, path in zip(smk.params.norms, smk.input.pilots, strict=True):
    pilot = pd.read_csv(path)
    configured = smk.params.targets[norm]["proposal_eps"]
    at = pilot[(pilot["proposal_eps"] - configured).abs() < 1e-12]
    acceptance = float(at["acceptance"].iloc[0]) if len(at) else float("nan")
    rows.append({
        "target": norm,
        "proposal_eps": configured,
        "pilot_choice": float(pilot.loc[pilot["chosen"], "proposal_eps"].iloc[0]),
        "pilot_acceptance_at_configured": acceptance,
        "in_acceptance_range": bool(lo <= acceptance <= hi),
        "lags": " ".join(str(v) for v in smk.params.targets[norm]["lags"]),
    })
    if not lo <= acceptance <= hi:
        log.warning("%s: configured proposal eps %g has pilot acceptance %s, outside [%g, %g]",
                    norm, configured, acceptance, lo, hi)
pd.DataFrame(rows).to_csv(smk.output.table, index=False, lineterminator="\n")
