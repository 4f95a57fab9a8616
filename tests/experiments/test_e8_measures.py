"""E8 measures on hand-made runs: each registry criterion can fail when the accounting is wrong."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from conftest import REGISTRY, ROOT

from isdp.experiments import claims
from isdp.experiments.e8_privacy_accounting import measures as e8
from isdp.experiments.e8_privacy_accounting.implied import feasible_totals, implied_bounds
from isdp.experiments.e8_privacy_accounting.tables import swap_table, variance_table

REPO = ROOT
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
E8 = CONFIG["e8"]


def _run(tmp_path, conversion="standard") -> claims.Run:
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "e8").mkdir(parents=True, exist_ok=True)
    cfg = {"e8": {**E8, "tda": {**E8["tda"], "conversion": conversion}}, "data": CONFIG["data"]}
    return claims.Run(tmp_path, cfg, repo=REPO)


def _verdict(claim_id, run, **override):
    c = claims.claim(claim_id, REGISTRY)
    m = claims.resolve_measure(c["measure"])(run, c["paper_value"], **{**c.get("args", {}), **override})
    return claims.judge(c["criterion"], c["paper_value"], m), m


def test_swap_table_claims_fail_on_a_cell_off_by_one_printed_unit(tmp_path):
    run = _run(tmp_path)
    printed = pd.read_csv(REPO / E8["printed"]["swap_ma1940"])
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    assert _verdict("SWAP-E8-ma1940-table", run)[0] == "match"
    printed.loc[0, "epsilon"] += 0.01
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    status, m = _verdict("SWAP-E8-ma1940-table", run)
    assert status == "differs" and "(printed" in m.text


@pytest.mark.parametrize("conversion, expected",
                         [("standard", "match"), ("cks", "differs"), ("gaussian-exact", "differs")])
def test_gaussian_variance_claims_tell_the_conversions_apart(tmp_path, conversion, expected):
    run = _run(tmp_path, conversion)
    table = variance_table(pd.read_csv(REPO / E8["printed"]["tda_variance"]), E8["tda"]["levels"],
                           E8["tda"]["changed_cells"], [conversion])
    table.to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    for cid in ("TDA-E8-gaussian-variance-d14", "TDA-E8-gaussian-variance-d9", "TDA-E8-gaussian-variance-d6"):
        assert _verdict(cid, run)[0] == expected, cid
    assert _verdict("TDA-E8-laplace-variance", run)[0] == "match"


def test_integer_orders_miss_the_moderate_delta_table(tmp_path):
    run = _run(tmp_path, "integer-orders")
    variance_table(pd.read_csv(REPO / E8["printed"]["tda_variance"]), E8["tda"]["levels"], E8["tda"]["changed_cells"],
                   ["integer-orders"]).to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    assert _verdict("TDA-E8-gaussian-variance-d6", run)[0] == "differs"


def test_dorm_claims_fail_for_other_constraints(tmp_path):
    run = _run(tmp_path)
    d = E8["dorm"]
    totals = feasible_totals(d["region_totals"], d["occupied"], d["types"])
    totals.to_csv(run.path("e8/dorm_feasible_totals.csv"), index=False)
    implied_bounds(totals, d["forms"]).to_csv(run.path("tables/e8_dorm_bounds.csv"), index=False)
    c = claims.claim("TDA-E8-dorm-constraints", REGISTRY)
    assert claims.judge(c["criterion"], c["paper_value"], e8.dorm_constraints(run, c["paper_value"])) == "match"
    loose = {**c["paper_value"], "CF_min": c["paper_value"]["CF_min"] - 1}  # admits infeasible points
    m = e8.dorm_constraints(run, loose)
    assert m.value["sufficient"] is False and claims.judge(c["criterion"], loose, m) == "differs"
    feasible_point = {k: int(totals.iloc[0][k]) for k in ("F", "C", "M")}
    assert _verdict("TDA-E8-dorm-counterexample", run, point=feasible_point)[0] == "differs"


def test_tda_epsilon_rejects_a_conversion_outside_the_rounding(tmp_path):
    from isdp.accounting import CONVERSIONS, zcdp_to_dp

    c = claims.claim("SWAP-E8-tda-epsilon", REGISTRY)
    a = c["args"]
    for method, expected in (("standard", "match"), ("cks", "differs")):
        run = _run(tmp_path, method)
        pd.DataFrame([{"conversion": m, "rho": a["rho"], "delta": a["delta"],
                       "epsilon": zcdp_to_dp(a["rho"], a["delta"], m),
                       "epsilon_rho_low": zcdp_to_dp(a["rho"] - a["rho_rounding"], a["delta"], m),
                       "epsilon_rho_high": zcdp_to_dp(a["rho"] + a["rho_rounding"], a["delta"], m)}
                      for m in CONVERSIONS]).to_csv(run.path("tables/e8_tda_conversion.csv"), index=False)
        assert _verdict("SWAP-E8-tda-epsilon", run)[0] == expected, method
