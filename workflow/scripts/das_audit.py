"""Snakemake glue: DAS bias audit (Subspace DP Fig 1 left) and the E3 state selection.

input:  counties     tidy county CSV (output of nhgis_fetch)
        info         optional: the nhgis_fetch JSON, whose vintage fields are copied into summary
output: regressions  per-state OLS of dp - sf1 on log(sf1) (CSV)
        summary      JSON: alpha, audit counts, selected states, selection rule/override, vintage
params: alpha (0.01), min_counties (5), n_target (11), always (["IL"]), override (list or None)
log:    one file
"""

import json
import logging
from pathlib import Path

from isdp.audit import audit_counts, das_bias_regressions, select_states
from isdp.nhgis import load_counties


def main(smk) -> None:
    logging.basicConfig(
        filename=smk.log[0], level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    log = logging.getLogger("isdp.audit")
    try:
        alpha = float(smk.params.get("alpha", 0.01))
        override = smk.params.get("override") or None
        counties = load_counties(smk.input.counties)
        reg = das_bias_regressions(counties, min_counties=int(smk.params.get("min_counties", 5)))
        reg.to_csv(smk.output.regressions, index=False, lineterminator="\n", float_format="%.10g")
        states = select_states(
            reg, alpha=alpha, n_target=int(smk.params.get("n_target", 11)),
            always=tuple(smk.params.get("always", ("IL",))), override=override,
        )
        summary = {
            "vintage": counties["vintage"].iloc[0],
            "alpha": alpha,
            **audit_counts(reg, alpha=alpha),
            "selected_states": states,
            "selection": "override" if override is not None else "rule",
        }
        if smk.input.get("info"):
            summary["data_source"] = json.loads(Path(smk.input.info).read_text())
        Path(smk.output.summary).write_text(json.dumps(summary, indent=2) + "\n")
        log.info("audit %s: selected %s", {k: summary[k] for k in summary if k.startswith("n_")}, states)
    except Exception:
        log.exception("das_audit failed")
        raise


main(snakemake)  # noqa: F821 -- injected by Snakemake's script directive
