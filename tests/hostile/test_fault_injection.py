"""Fault injection: one corruption of what a claim's measure reads per test, each on the smallest evidence the
measure needs (built in tmp_path, no workflow run), each asserting that the affected registry row reads ``error``
naming the file (never ``match``), beside a control showing the intact evidence is judged.

The corruptions repeat earlier probes — NaN and infinite values in well-formed files, a stored ε tripled, a
printed row deleted or repeated, a negative residual, a committed county extract with 100 persons moved between two
counties — and one per measure module of the same kind (a p-value above 1, a stored summary its source does not
give, a stored z, bound or variance its columns contradict, a meeting time below its lag); the measures check what
they read through :mod:`isdp_papers.evidence_checks`."""

from __future__ import annotations

import functools
import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REGISTRY, ROOT
from isdp_papers import claims
from isdp_papers.evidence import EvidenceError, Run
from isdp_papers.evidence_checks import verify_committed

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
E8 = CONFIG["e8"]
COUNTIES = "data/nhgis/county_population_v20210608.csv"


@functools.cache
def _registry() -> dict[str, dict]:
    """The registry's rows by id, read once (the rows only: loading them is not what these tests probe)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {c["id"]: c for c in yaml.load(REGISTRY.read_text(), Loader=loader)["claims"]}


def _row(claim_id: str, run: Run) -> dict:
    return claims.evaluate_claim(_registry()[claim_id], run)


def _refused(claim_id: str, run: Run, file: str, reason: str = "") -> dict:
    """The row reads ``error``, its note naming ``file`` (and ``reason``)."""
    row = _row(claim_id, run)
    assert row["status"] == "error", (row["status"], row["reproduced_value"], row["note"])
    assert file in row["note"] and reason in row["note"], row["note"]
    return row


def _results(tmp_path, config: dict, repo=ROOT) -> Run:
    for sub in ("tables", "e1", "e3", "e5", "e6", "e8"):
        (tmp_path / "results" / sub).mkdir(parents=True, exist_ok=True)
    return Run(tmp_path, config, repo=repo)


# --------------------------------------------------------------------------- E6: the readings and the info file


def _readings(run: Run, **change) -> None:
    """``e6_readings`` of the reading ``rep_sd`` (the three printed statistics), consistent, with ``change``."""
    sd, n = 0.0015, 20
    rows = pd.DataFrame(
        {
            "reading": "rep_sd",
            "statistic": ["median", "q05", "q95"],
            "exact": [0.943, 0.928, 0.958],
            "mean": [0.9436, 0.9281, 0.9585],
            "study_sd": sd,
            "se_mean": sd / math.sqrt(n),
            "se": math.hypot(sd, sd / math.sqrt(n)),
            "n_studies": n,
        }
    )
    for column, value in change.items():
        rows[column] = value
    rows.to_csv(run.path("tables/e6_readings.csv"), index=False)


def test_e6_readings_intact_are_judged(tmp_path):
    run = _results(tmp_path, {})
    _readings(run)
    assert _row("SDP-E6-reading-release-sd", run)["status"] == "differs"  # the SDs are 0.94, not the printed 0.88


def test_e6_readings_with_nan_means_are_an_error(tmp_path):
    """The three rep_sd means NaN read as match (max(0.0, nan) is 0.0)."""
    run = _results(tmp_path, {})
    _readings(run, mean=math.nan)
    _refused("SDP-E6-reading-release-sd", run, "e6_readings.csv", "'mean' = nan")


def test_e6_readings_with_an_infinite_se_are_an_error(tmp_path):
    """se = inf read as match (every gap divided by it is 0)."""
    run = _results(tmp_path, {})
    _readings(run, se=math.inf)
    _refused("SDP-E6-reading-release-sd", run, "e6_readings.csv", "'se' = inf")


def test_e6_readings_with_an_se_its_spread_does_not_give_are_an_error(tmp_path):
    """A finite but inflated SE (every gap then shrinks below the criterion) is not its columns' SE."""
    run = _results(tmp_path, {})
    _readings(run, se=10.0)
    _refused("SDP-E6-reading-release-sd", run, "e6_readings.csv", "se = √(study_sd² + se_mean²)")


def _info(run: Run, residual: float) -> None:
    run.path("e6/info.json").write_text(
        json.dumps({"max_invariant_residual": residual, "max_abs_invariant": 153.0, "n_studies": 20, "n_reps": 50})
    )


def test_e6_invariant_residual_intact_matches(tmp_path):
    run = _results(tmp_path, {})
    _info(run, 8.5e-14)
    assert _row("SDP-E6-invariants", run)["status"] == "match"


def test_e6_negative_invariant_residual_is_an_error(tmp_path):
    """max_invariant_residual = −5 matched ('max |A y − A x| = -5.0e+00')."""
    run = _results(tmp_path, {})
    _info(run, -5.0)
    _refused("SDP-E6-invariants", run, "info.json", "'max_invariant_residual' = -5")


# --------------------------------------------------------------------------- E8: the swap-rate tables


def _swap_run(tmp_path, printed: pd.DataFrame | None = None) -> Run:
    """A run whose e8_swap_ma1940 reproduces ``printed`` (the committed table by default, else a copy of the run's
    printed input)."""
    from isdp_papers.e8_privacy_accounting.tables import swap_table

    e8 = dict(E8)
    if printed is None:
        printed = pd.read_csv(ROOT / E8["printed"]["swap_ma1940"])
    else:
        printed.to_csv(tmp_path / "printed.csv", index=False)
        e8["printed"] = {**E8["printed"], "swap_ma1940": str(tmp_path / "printed.csv")}
    run = _results(tmp_path, {"e8": e8})
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    return run


def _edit_swap(run: Run, edit) -> None:
    path = run.path("tables/e8_swap_ma1940.csv")
    edit(pd.read_csv(path)).to_csv(path, index=False)


def test_swap_table_intact_matches(tmp_path):
    assert _row("SWAP-E8-ma1940-table", _swap_run(tmp_path))["status"] == "match"


def test_swap_table_with_epsilon_tripled_in_one_row_is_an_error(tmp_path):
    """ε × 3 in one row matched beside 'ε 51.24 (printed 17.08)': the measure read only the stored gap."""
    run = _swap_run(tmp_path)
    _edit_swap(run, lambda t: t.assign(epsilon=t["epsilon"].where(t.index != 0, 3 * t["epsilon"])))
    _refused("SWAP-E8-ma1940-table", run, "e8_swap_ma1940.csv", "the slides' formula")


def test_swap_table_with_a_stored_gap_edited_is_an_error(tmp_path):
    run = _swap_run(tmp_path)
    _edit_swap(run, lambda t: t.assign(gap=0.0, epsilon_printed=t["epsilon_printed"] + 1))
    _refused("SWAP-E8-ma1940-table", run, "e8_swap_ma1940.csv", "epsilon_printed")


def test_swap_table_with_a_row_deleted_is_an_error(tmp_path):
    """One row deleted matched 'over 3 cells' (the claim names 4 swap rates)."""
    run = _swap_run(tmp_path)
    _edit_swap(run, lambda t: t.drop(index=1))
    _refused("SWAP-E8-ma1940-table", run, "e8_swap_ma1940.csv", "missing")


def test_swap_table_with_a_row_repeated_is_an_error(tmp_path):
    """A duplicated row matched 'over 5 cells'."""
    run = _swap_run(tmp_path)
    _edit_swap(run, lambda t: pd.concat([t, t.iloc[[2]]]))
    _refused("SWAP-E8-ma1940-table", run, "e8_swap_ma1940.csv", "repeated")


def test_printed_swap_table_with_a_row_deleted_is_an_error(tmp_path):
    """The committed data/e8/paper_swap_ma1940.csv with a row deleted (and the run's table made from it)
    matched over 3 cells: the claim's paper value says 4."""
    printed = pd.read_csv(ROOT / E8["printed"]["swap_ma1940"]).drop(index=0)
    _refused("SWAP-E8-ma1940-table", _swap_run(tmp_path, printed), "printed.csv", "3 printed cells")


def test_printed_swap_table_with_a_row_repeated_is_an_error(tmp_path):
    printed = pd.read_csv(ROOT / E8["printed"]["swap_ma1940"])
    _refused(
        "SWAP-E8-ma1940-table", _swap_run(tmp_path, pd.concat([printed, printed.iloc[[0]]])), "printed.csv", "repeated"
    )


# --------------------------------------------------------------------------- the committed county extract


def _moved_extract(tmp_path):
    """A copy of data/nhgis (its PROVENANCE.md included) whose county extract has 100 persons moved from one county
    to another of the same state: every total, and every identity check of the extract, is kept."""
    data = tmp_path / "data" / "nhgis"
    shutil.copytree(ROOT / "data" / "nhgis", data)
    t = pd.read_csv(data / "county_population_v20210608.csv", dtype=str, keep_default_na=False)
    assert t.loc[0, "state_abbr"] == t.loc[1, "state_abbr"]
    t.loc[0, "sf1_pop"] = str(int(t.loc[0, "sf1_pop"]) - 100)
    t.loc[1, "sf1_pop"] = str(int(t.loc[1, "sf1_pop"]) + 100)
    t.to_csv(data / "county_population_v20210608.csv", index=False, lineterminator="\n")
    return data / "county_population_v20210608.csv"


def test_the_committed_extracts_are_the_published_ones():
    for csv in sorted((ROOT / "data" / "nhgis").glob("*.csv")):
        assert verify_committed(csv) is None, csv


def test_a_changed_county_extract_is_refused_by_the_fetch_step_naming_it(tmp_path):
    from isdp_papers.nhgis.fallback import fetch_or_fallback

    extract, out = _moved_extract(tmp_path), tmp_path / "counties.csv"
    with pytest.raises(EvidenceError, match=r"county_population_v20210608\.csv: sha256 .* is not the .* published"):
        fetch_or_fallback("20201116", "embedded", dest_zip=tmp_path / "z.zip", embedded_csv=extract, out_csv=out)
    assert not out.exists()


def test_a_changed_county_extract_is_used_with_the_opt_out_and_the_run_says_so(tmp_path, caplog):
    from isdp_papers.nhgis.fallback import fetch_or_fallback

    extract, out = _moved_extract(tmp_path), tmp_path / "counties.csv"
    info = fetch_or_fallback(
        "20201116", "embedded", dest_zip=tmp_path / "z.zip", embedded_csv=extract, out_csv=out, verify_committed=False
    )
    assert out.read_bytes() == extract.read_bytes()
    assert "used unverified" in info["reason"] and "verify_committed is false" in info["reason"]
    assert any("used unverified" in r.getMessage() for r in caplog.records)


def test_a_changed_county_extract_is_an_error_in_the_rows_that_read_it(tmp_path):
    _moved_extract(tmp_path)
    run = _results(tmp_path / "run", {"e8": E8, "data": CONFIG["data"]}, repo=tmp_path)
    assert _row("TDA-E8-state-measurements", Run(tmp_path / "run", run.config, repo=ROOT))["status"] == "match"
    _refused("TDA-E8-state-measurements", run, COUNTIES, "published")
    opted_out = Run(
        tmp_path / "run", {**run.config, "data": {**CONFIG["data"], "verify_committed": False}}, repo=tmp_path
    )
    row = _row("TDA-E8-state-measurements", opted_out)
    assert row["status"] == "match" and "used unverified" in row["note"], row["note"]


# --------------------------------------------------------------------------- one corruption per other measure module


def test_e3_audit_with_a_p_value_above_one_is_an_error(tmp_path):
    run = _results(tmp_path, {"data": {"vintage": "20201116"}, "e3": {"audit": {"alpha": 0.01}}})
    run.path("data").mkdir(exist_ok=True)
    run.path("data/source.json").write_text(json.dumps({"vintage_used": "20201116", "reason": ""}))
    audit = pd.DataFrame(
        {
            "state_abbr": ["AL", "AK", "AZ"],
            "slope": [0.5, 0.2, -0.1],
            "stderr": 0.2,
            "p_value": [0.01, 0.3, 0.6],
            "n_counties": [67, 29, 15],
        }
    )
    audit.to_csv(run.path("tables/e3_das_audit.csv"), index=False)
    assert _row("SDP-E3-caption-direction", run)["status"] == "match"
    audit.assign(p_value=[0.01, 1.5, 0.6]).to_csv(run.path("tables/e3_das_audit.csv"), index=False)
    _refused("SDP-E3-caption-direction", run, "e3_das_audit.csv", "'p_value' = 1.5")


def test_e4_metrics_with_a_nan_slope_p_value_are_an_error(tmp_path):
    from isdp_papers.e4_projection_comparison.comparison import DAS, METHODS

    run = _results(tmp_path, {})
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["IL"]}))
    p = np.linspace(0.2, 0.9, len(METHODS) + 1)
    metrics = pd.DataFrame({"state": "IL", "method": [*METHODS, DAS], "n_counties": 102, "slope_p_value": p})
    metrics.to_csv(run.path("tables/e4_metrics.csv"), index=False)
    assert _row("ISDP-E4-mechanisms-flat", run)["status"] == "match"
    metrics.assign(slope_p_value=np.where(metrics["method"] == "dg_l1_lp", np.nan, p)).to_csv(
        run.path("tables/e4_metrics.csv"), index=False
    )
    _refused("ISDP-E4-mechanisms-flat", run, "e4_metrics.csv", "'slope_p_value' = nan")


def test_e4_metrics_without_a_method_are_an_error(tmp_path):
    from isdp_papers.e4_projection_comparison.comparison import DAS, METHODS

    run = _results(tmp_path, {})
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["IL"]}))
    pd.DataFrame({"state": "IL", "method": [*METHODS[:-1], DAS], "n_counties": 102, "slope_p_value": 0.5}).to_csv(
        run.path("tables/e4_metrics.csv"), index=False
    )
    _refused("ISDP-E4-mechanisms-flat", run, "e4_metrics.csv", "missing")


def test_e5_fig1_medians_their_tables_do_not_give_are_an_error(tmp_path):
    run = _results(tmp_path, {})
    per_table = pd.DataFrame(
        [
            {"table": t, "method": m, "avg_l1": v + t}
            for t in range(3)
            for m, v in (("raw_dg_eps1", 40.0), ("mis_conditional", 73.0), ("raw_dg_eps05", 87.0))
        ]
    )
    per_table.to_csv(run.path("e5/fig1_distances.csv"), index=False)
    medians = pd.DataFrame(
        {"method": ["raw_dg_eps1", "mis_conditional", "raw_dg_eps05"], "avg_l1_median": [41.0, 74.0, 88.0]}
    )
    medians.to_csv(run.path("tables/e5_fig1_distances.csv"), index=False)
    assert _row("CDP-E5-fig1-order-l1", run)["status"] == "match"
    medians.assign(avg_l1_median=[41.0, 40.0, 88.0]).to_csv(run.path("tables/e5_fig1_distances.csv"), index=False)
    _refused("CDP-E5-fig1-order-l1", run, "e5_fig1_distances.csv", "the median over tables")


def test_e7_simulation_with_a_stored_z_its_columns_do_not_give_is_an_error(tmp_path):
    run = _results(tmp_path, {"e7": {"eps_grid": [1.0], "betas": [0.5]}})
    sim = pd.DataFrame(
        {
            "mechanism": ["conditional", "l2", "l1"],
            "beta": [math.nan, math.nan, 0.5],
            "eps": 1.0,
            "exact_mean_m1": 30.0,
            "mean_m1": [30.01, 29.98, 30.02],
            "se_mean_m1": 0.02,
            "exact_var_m1": [2.0, 4.0, 4.0],
            "var_m1": [2.01, 3.99, 4.03],
            "se_var_m1": 0.03,
            "max_total_error": 0.0,
            "max_optimality_gap": [math.nan, 0.0, 0.0],
        }
    )
    sim["z_mean"] = (sim["mean_m1"] - sim["exact_mean_m1"]) / sim["se_mean_m1"]
    sim["z_var"] = (sim["var_m1"] - sim["exact_var_m1"]) / sim["se_var_m1"]
    sim.to_csv(run.path("tables/e7_simulation.csv"), index=False)
    assert _row("CDP-E7-table2-simulation", run)["status"] == "match"
    sim.assign(mean_m1=[30.5, 29.98, 30.02]).to_csv(run.path("tables/e7_simulation.csv"), index=False)  # z kept
    _refused("CDP-E7-table2-simulation", run, "e7_simulation.csv", "z_mean")


def _dorm_run(tmp_path) -> Run:
    from isdp_papers.e8_privacy_accounting.implied import feasible_totals, implied_bounds

    run = _results(tmp_path, {"e8": E8})
    d = E8["dorm"]
    totals = feasible_totals(d["region_totals"], d["occupied"], d["types"])
    totals.to_csv(run.path("e8/dorm_feasible_totals.csv"), index=False)
    implied_bounds(totals, d["forms"]).to_csv(run.path("tables/e8_dorm_bounds.csv"), index=False)
    return run


def test_e8_dorm_bounds_their_feasible_totals_do_not_give_are_an_error(tmp_path):
    run = _dorm_run(tmp_path)
    assert _row("TDA-E8-dorm-constraints", run)["status"] == "match"
    path = run.path("tables/e8_dorm_bounds.csv")
    b = pd.read_csv(path)
    b.loc[b["form"] == "F", "max"] += 1
    b.to_csv(path, index=False)
    _refused("TDA-E8-dorm-constraints", run, "e8_dorm_bounds.csv", "the bounds of F")


def test_e8_variance_tripled_in_one_row_is_an_error(tmp_path):
    from isdp_papers.e8_privacy_accounting.tables import variance_table

    run = _results(tmp_path, {"e8": E8})
    table = variance_table(
        pd.read_csv(ROOT / E8["printed"]["tda_variance"]), E8["tda"]["levels"], E8["tda"]["changed_cells"], ["standard"]
    )
    table.to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    assert _row("TDA-E8-laplace-variance", run)["status"] == "match"
    table.loc[0, "variance"] *= 3
    table["gap"] = table["variance"] - table["printed"]  # the gap follows: only the formula tells
    table.to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    _refused("TDA-E8-laplace-variance", run, "e8_tda_variance.csv", "the formula")


def test_e1_meeting_time_below_its_lag_is_an_error(tmp_path):
    run = _results(tmp_path, {"e1": {"targets": {"l1": {}}}})
    gaps = np.arange(60) % 17
    meet = pd.DataFrame(
        {
            "target": "l1",
            "lag": np.repeat([100, 200], 60),
            "pair": np.tile(np.arange(60), 2),
            "tau": np.concatenate([100 + gaps, 200 + gaps]),
        }
    )
    meet.to_csv(run.path("e1/meeting_times_l1.csv"), index=False)
    assert _row("ISDP-E1-lag-tau-stable", run)["status"] == "match"
    meet.loc[0, "tau"] = 50
    meet.to_csv(run.path("e1/meeting_times_l1.csv"), index=False)
    _refused("ISDP-E1-lag-tau-stable", run, "meeting_times_l1.csv", "below its lag")


def test_e1_unbiasedness_with_a_stored_z_its_columns_do_not_give_is_an_error(tmp_path):
    run = _results(tmp_path, {"e1": {"targets": {"l1": {}}}})
    unb = pd.DataFrame({"target": "l1", "cell": ["r1", "r2"], "mean": [0.2, -0.1], "sd": 4.8, "ess_bulk": 230.0})
    unb["mc_se"] = unb["sd"] / np.sqrt(unb["ess_bulk"])
    unb["z"] = unb["mean"] / unb["mc_se"]
    unb.to_csv(run.path("tables/e1_unbiasedness.csv"), index=False)
    assert _row("ISDP-E1-unbiased", run)["status"] == "match"
    unb.assign(mean=[9.0, -0.1]).to_csv(run.path("tables/e1_unbiasedness.csv"), index=False)  # z kept at 0.6
    _refused("ISDP-E1-unbiased", run, "e1_unbiasedness.csv", "z = mean/mc_se")
