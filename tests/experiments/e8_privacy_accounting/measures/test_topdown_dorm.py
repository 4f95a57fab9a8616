"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_dorm`: the TopDown talk's dormitory
example — the implied constraints and the counterexample, the Fourier–Motzkin projection, and the network-flow
reduction — each matching on the talk's town and failing for other constraints, other regions or another town."""

from __future__ import annotations

import pytest
from accounting_support import CONFIG, E8, e8_run
from conftest import REGISTRY, ROOT, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting.implied import feasible_totals, implied_bounds
from isdp_papers.e8_privacy_accounting.measures.topdown_dorm import dorm_constraints
from isdp_papers.evidence import Run


def test_dorm_claims_fail_for_other_constraints(tmp_path):
    run = e8_run(tmp_path)
    d = E8["dorm"]
    totals = feasible_totals(d["region_totals"], d["occupied"], d["types"])
    totals.to_csv(run.path("e8/dorm_feasible_totals.csv"), index=False)
    implied_bounds(totals, d["forms"]).to_csv(run.path("tables/e8_dorm_bounds.csv"), index=False)
    c = claims.claim("TDA-E8-dorm-constraints", REGISTRY)
    assert judge(c["criterion"], c["paper_value"], dorm_constraints(run, c["paper_value"])) == "match"
    loose = {**c["paper_value"], "CF_min": c["paper_value"]["CF_min"] - 1}  # admits infeasible points
    m = dorm_constraints(run, loose)
    assert m.value["sufficient"] is False and judge(c["criterion"], loose, m) == "differs"
    feasible_point = {k: int(totals.iloc[0][k]) for k in ("F", "C", "M")}
    assert row_verdict("TDA-E8-dorm-counterexample", run, point=feasible_point)[0] == "differs"


def test_dorm_projection_matches_and_fails_on_other_regions_or_a_looser_set(run):
    cid = "TDA-E8-dorm-fme-projection"
    assert row_verdict(cid, run)[0] == "match"
    status, m = row_verdict(cid, run, region_totals={"R1": 120, "R2": 100})
    assert status == "differs" and m.value["F_max"] == pytest.approx(119) and m.value["CF_min"] == pytest.approx(121)
    c = claims.claim(cid, REGISTRY)
    looser = {**c["paper_value"], "CF_min": c["paper_value"]["C_min"]}  # C̃ + F̃ ≥ 101 left out
    m = claims.resolve_measure(c["measure"], cid)(run, looser)
    assert m.value["sufficient"] is False and "(1, 2, 197)" in m.text


def test_dorm_network_flow_matches_the_figure_and_fails_for_another_town(tmp_path):
    run = Run(tmp_path, {"e8": CONFIG["e8"], "data": CONFIG["data"]}, repo=ROOT)
    status, m = row_verdict("TDA-E8-dorm-network-flow", run)
    assert status == "match" and m.value["reduction_exact"]
    dorm = {**CONFIG["e8"]["dorm"], "occupied": {**CONFIG["e8"]["dorm"]["occupied"], "R1": ["F", "C", "M"]}}
    other = Run(tmp_path, {"e8": {**CONFIG["e8"], "dorm": dorm}, "data": CONFIG["data"]}, repo=ROOT)
    status, m = row_verdict("TDA-E8-dorm-network-flow", other)
    assert status == "differs" and m.value["infinite_arcs"] == 5 and m.value["reduction_exact"]
