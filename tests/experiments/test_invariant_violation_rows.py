"""Rows on what breaks the invariants or unbiasedness (E3, E4, E5) and on censored coupling pairs (E1–E3),
measured on hand-made runs: each criterion matches on the right law and differs on a plausibly wrong one."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, row_verdict

import isdp.double_geometric
from isdp.double_geometric import dg_pmf
from isdp.exact_laws import sample_sum_constraint_l1
from isdp.experiments import claims
from isdp.experiments.e3_census_counties import audit
from isdp.experiments.e3_census_counties.measures import truncation_bias
from isdp.experiments.e4_projection_comparison import comparison as cmp
from isdp.experiments.e5_congenial_mis.mis_study import sex_by_age_problem
from isdp.experiments.problems import read_table_csv
from isdp.lattice import sum_constraint
from isdp.mis import mis_exact_sample

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
COUNTIES = ROOT / "data" / "nhgis" / "county_population_v20210608.csv"


def _run(tmp_path, config: dict) -> claims.Run:
    for sub in ("tables", "data", "e3", "e4", "e5", "e1"):
        (tmp_path / "results" / sub).mkdir(parents=True, exist_ok=True)
    return claims.Run(tmp_path, {"seed": CONFIG["seed"], **config}, repo=ROOT)


# --------------------------------------------------------------------------- E5: raw DG and Algorithm 1


def _e5_problem(run: claims.Run):
    e5 = CONFIG["e5"]
    values, rows, cols = read_table_csv(ROOT / e5["table"])
    problem = sex_by_age_problem(values, rows, cols, e5["voting_age_from"], e5["index_complement"])
    problem.to_json(run.path("e5/problem.json"))
    return problem


def test_raw_dg_breaks_the_total_but_keeps_it_at_a_large_eps(tmp_path):
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    x = _e5_problem(run).x
    status, m = row_verdict("CDP-E5-raw-total-broken", run)
    # P(Σ U = 0) by direct convolution of the 46 pmfs, independent of the characteristic-function route
    k = np.arange(-60, 61)
    law = np.array([1.0])
    for _ in range(x.size):
        law = np.convolve(law, dg_pmf(k, CONFIG["e5"]["eps"]))
    assert m.value == pytest.approx(law[law.size // 2], abs=1e-12)
    assert status == "match"
    # a per-cell ε eight times E5's keeps the total in about a third of the releases
    run.config["e5"] = {**CONFIG["e5"], "eps": 8 * CONFIG["e5"]["eps"]}
    status, m = row_verdict("CDP-E5-raw-total-broken", run)
    assert m.value > 0.3 and status == "differs"


def test_raw_dg_goes_negative_but_a_one_sided_noise_does_not(tmp_path, monkeypatch):
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    _e5_problem(run)
    status, m = row_verdict("CDP-E5-raw-negative-cells", run)
    assert m.value > 0.5 and status == "match"
    real = isdp.double_geometric.dg_cdf
    monkeypatch.setattr(isdp.double_geometric, "dg_cdf", lambda k, eps: np.where(np.asarray(k) < 0, 0.0, real(k, eps)))
    status, m = row_verdict("CDP-E5-raw-negative-cells", run)  # noise ≥ 0: no count can go negative
    assert m.value == 0 and status == "differs"


def test_mis_releases_drawn_from_the_conditional_law_match_and_at_a_wrong_eps_differ(tmp_path):
    eps = CONFIG["e5"]["simulation"]["eps_mis"]
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    problem = _e5_problem(run)
    x, A, d = problem.x, problem.A, problem.x.size

    def releases(at_eps, seed):
        draws = mis_exact_sample(A, A @ x, x, eps=at_eps, index_set=problem.meta["index_set"], size=100, seed=seed,
                                 B=np.eye(d), b=np.zeros(d))
        np.savez(run.path("e5/fig1_releases.npz"), x=x[None], A=A, mis_conditional=draws[None])

    releases(eps, seed=11)
    assert row_verdict("CDP-E5-mis-exact", run)[0] == "match"
    releases(2 * eps, seed=12)  # the raw panel's ε (a) instead of ε₀: releases about half as far from x
    status, m = row_verdict("CDP-E5-mis-exact", run)
    assert m.value.min() < 1e-6 and status == "differs"


# --------------------------------------------------------------------------- E3: audit set, DAS totals, truncation


def _e3_run(tmp_path, counties: pd.DataFrame, states, eps=None, min_counties=5) -> claims.Run:
    e3 = {**CONFIG["e3"], "eps": CONFIG["e3"]["eps"] if eps is None else eps}
    run = _run(tmp_path, {"e3": e3, "data": CONFIG["data"]})
    counties.to_csv(run.path("data/counties.csv"), index=False)
    run.path("data/source.json").write_text(json.dumps({"vintage_used": CONFIG["data"]["vintage"], "reason": ""}))
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": list(states)}))
    audit.das_bias_regressions(counties, min_counties=min_counties).to_csv(run.path("tables/e3_das_audit.csv"),
                                                                            index=False)
    return run


def test_audit_leaves_out_the_four_areas_and_an_off_by_one_threshold_differs(tmp_path):
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    assert row_verdict("SDP-E3-audit-excluded", _e3_run(tmp_path, counties, []))[0] == "match"
    status, m = row_verdict("SDP-E3-audit-excluded", _e3_run(tmp_path, counties, [], min_counties=4))
    assert m.value == ["DC", "DE"] and status == "differs"


@pytest.mark.parametrize(
    "row", ["SDP-E3-das-state-invariant", "ISDP-E3-das-state-invariant", "SWAP-E3-tda-state-invariant",
            "TDA-E3-state-invariant", "TDA-E3-national-invariant"]
)
def test_das_keeps_every_state_total_in_the_run_s_file_and_one_county_off_differs(tmp_path, row):
    """The rows read the county file the run used (the extraction keeps a file that breaks a state total), so such
    a file reads differs instead of stopping the run; a repository file can be named instead."""
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    status, m = row_verdict(row, _e3_run(tmp_path / "ok", counties, []))
    assert status == "match" and m.value == 0, m.text
    counties.loc[0, "dp_pop"] += 1
    status, m = row_verdict(row, _e3_run(tmp_path / "broken", counties, []))
    assert m.value == 1 and status == "differs", m.text
    broken = tmp_path / "broken.csv"
    counties.to_csv(broken, index=False)
    status, m = row_verdict(row, _e3_run(tmp_path / "named", counties.iloc[0:0], []), file=str(broken))
    assert m.value == 1 and status == "differs", m.text


def test_truncation_bias_is_the_exact_samplers_clamped_mean():
    n, eps = 5, 0.5
    u = sample_sum_constraint_l1(n, eps, 20_000, seed=3)[:, 0]
    clamped = np.maximum(u, 0)  # a county of 0 people
    bias, sd = truncation_bias(0, n, eps)
    assert abs(clamped.mean() - bias) < 4 * clamped.std() / np.sqrt(u.size)
    assert sd == pytest.approx(u.std(), rel=0.04)  # 4 SE of an SD over 20,000 Laplace-like draws


def _state(sizes) -> pd.DataFrame:
    return pd.DataFrame({"gisjoin": [f"G{i}" for i in range(len(sizes))], "state_fips": "48", "state_abbr": "TX",
                         "county_fips": [f"{i:03d}" for i in range(len(sizes))], "name": "c", "sf1_pop": sizes,
                         "dp_pop": sizes, "vintage": CONFIG["data"]["vintage"]})


def test_truncation_is_invisible_at_the_smallest_county_but_not_at_10_people_or_a_tenth_of_eps(tmp_path):
    smallest = int(pd.read_csv(COUNTIES)["sf1_pop"].min())  # the country's least populous county
    sizes = np.geomspace(smallest, 2e5, 100).astype(int)
    assert row_verdict("ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(sizes), ["TX"]))[0] == "match"
    small = sizes.copy()
    small[0] = 10
    status, m = row_verdict("ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(small), ["TX"]))
    assert m.value > 1 and status == "differs"
    status, m = row_verdict("ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(sizes), ["TX"],
                                                                 eps=CONFIG["e3"]["eps"] / 10))
    assert m.value > 1 and status == "differs"


# --------------------------------------------------------------------------- E4: rounding


def _e4_run(tmp_path, n_counties: int) -> claims.Run:
    run = _run(tmp_path, {"e4": CONFIG["e4"]})
    sf1 = np.geomspace(100, 1e5, n_counties).astype(np.int64)
    rng = np.random.default_rng(5)
    rel = cmp.StateReleases("TX", [f"G{i}" for i in range(n_counties)], [f"c{i}" for i in range(n_counties)], sf1,
                            sf1, {"projected_laplace": cmp.projected_laplace(sf1, sum_constraint(n_counties),
                                                                             CONFIG["e3"]["eps"], 1000, rng)})
    cmp.save_releases(run.path("e4/releases_TX.nc"), rel)
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["TX"]}))
    pd.DataFrame({"state": ["TX"], "method": ["projected_laplace"], "n_counties": [n_counties]}).to_csv(
        run.path("tables/e4_metrics.csv"), index=False)
    return run


def test_rounding_breaks_the_total_in_a_large_state_and_never_in_a_two_county_state(tmp_path):
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 50))
    assert m.value > 0.7 and status == "match"
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 2))  # the two errors cancel
    assert m.value == 0 and status == "differs"


# --------------------------------------------------------------------------- E1–E3: censored coupling pairs


@pytest.mark.parametrize("censored", [0, 3])
def test_a_censored_pair_fails_the_coupling_rows(tmp_path, censored):
    run = _run(tmp_path, {"e1": {"targets": {"l1": {}}}, "e3": CONFIG["e3"]})
    summary = {"censored": censored, "pairs": 400, "lag": 100, "max_iter": 1000, "tau_minus_lag_max": 900}
    run.path("e1/certificate_l1.json").write_text(json.dumps({"summary": summary}))
    pd.DataFrame({"state": ["IL", "VT"], "censored": [0, censored], "pairs": 1000, "basis": "pair heat-bath",
                  "tau_minus_lag_max": 400}).to_csv(run.path("tables/e3_certificates.csv"), index=False)
    expected = "match" if censored == 0 else "differs"
    assert row_verdict("ISDP-E1-coupling-met", run)[0] == expected
    assert row_verdict("ISDP-E3-coupling-met", run)[0] == expected
