"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.swapping_tables`: the Swapping slides' tables and
figure rows, each matching on the real measure and flipping under a plausibly wrong input — a printed cell off by one
unit, two block-group sizes exchanged, a county table swapped at a tenth instead of a half, a decrease on the left
branch of the ε curves, the left branch read for every rate (minimum and two rates), and the 2020 strata's b read as
households or a mislabelled stratum."""

from __future__ import annotations

import numpy as np
import pandas as pd
from accounting_support import CONFIG, E8, e8_run
from conftest import ROOT, row_verdict
from isdp_papers.e8_privacy_accounting import tables
from isdp_papers.e8_privacy_accounting.tables import swap_table
from isdp_papers.evidence import Run


def test_swap_table_claims_fail_on_a_cell_off_by_one_printed_unit(tmp_path):
    run = e8_run(tmp_path)
    printed = pd.read_csv(ROOT / E8["printed"]["swap_ma1940"])
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    assert row_verdict("SWAP-E8-ma1940-table", run)[0] == "match"
    printed.loc[0, "epsilon"] += 0.01  # a transcription typo: the run's printed input and its table both carry it
    printed.to_csv(tmp_path / "typo.csv", index=False)
    run.config["e8"] = {**run.config["e8"], "printed": {**E8["printed"], "swap_ma1940": str(tmp_path / "typo.csv")}}
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    status, m = row_verdict("SWAP-E8-ma1940-table", run)
    assert status == "differs" and "(printed" in m.text


def test_strata_nesting_fails_for_two_block_group_sizes_exchanged(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("SWAP-E8-census2020-strata-nesting", run)
    assert status == "match" and m.n == 12, m.text
    printed = pd.read_csv(ROOT / E8["printed"]["swap_2020"])
    printed["b"] = printed["b"].replace({21535: 11691, 11691: 21535})
    printed.to_csv(tmp_path / "exchanged.csv", index=False)
    status, m = row_verdict("SWAP-E8-census2020-strata-nesting", run, printed=str(tmp_path / "exchanged.csv"))
    assert status == "differs" and m.value == 1, m.text


def _county_instance(tmp_path, p, seed):
    """The printed 1940 'before' table swapped by the county-level model at rate p (binomial draws)."""
    rng = np.random.default_rng(seed)
    t = pd.read_csv(ROOT / E8["printed"]["ma1940_counties"]).set_index("county").drop(index="total")
    s = t["owned"].sum() / t["total"].sum()
    t["owned_swapped"] = rng.binomial(t["owned"], 1 - p * (1 - s)) + rng.binomial(t["rented"], p * s)
    t["rented_swapped"] = t["total"] - t["owned_swapped"]
    t["total_swapped"] = t["total"]
    t.loc["total"] = t.sum()
    path = tmp_path / f"counties_{p:g}.csv"
    t.reset_index().to_csv(path, index=False)
    return str(path)


def test_ma1940_rate_tells_a_half_swap_from_a_tenth(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("SWAP-E8-ma1940-rate", run, file=_county_instance(tmp_path, 0.5, seed=3))
    assert status == "match" and m.se > 0
    status, m = row_verdict("SWAP-E8-ma1940-rate", run, file=_county_instance(tmp_path, 0.1, seed=3))
    assert status == "differs" and m.value < 0.2


def test_larger_b_fails_on_a_decrease_on_the_left_branch(tmp_path):
    from isdp_papers.e8_privacy_accounting.tables import swap_curves

    run = e8_run(tmp_path)
    b_values = sorted(
        {int(b) for key in ("swap_ma1940", "swap_2020") for b in pd.read_csv(ROOT / E8["printed"][key])["b"]}
    )
    curves = swap_curves(b_values, E8["swapping"]["rate_grid"])  # as the workflow: every b of the printed tables
    curves.to_csv(run.path("e8/swap_curves.csv"), index=False)
    status, m = row_verdict("SWAP-E8-larger-b", run)
    assert status == "match" and "equal, ln o" in m.text
    low = curves["swap_rate"] == curves["swap_rate"].min()
    curves.loc[low & (curves["b"] == max(b_values)), "epsilon"] -= 20  # the largest b below the others
    curves.to_csv(run.path("e8/swap_curves.csv"), index=False)
    assert row_verdict("SWAP-E8-larger-b", run)[0] == "differs"


def _run_with_minima(tmp_path) -> Run:
    """A run whose e8_swap_min table is built, as the workflow does, for every b of the printed tables."""
    b_values = sorted(
        {int(b) for key in ("swap_ma1940", "swap_2020") for b in pd.read_csv(ROOT / E8["printed"][key])["b"]}
    )
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    minima = tables.swap_min_table(b_values, E8["swapping"]["two_rate_offsets"])
    minima.to_csv(tmp_path / "results" / "tables" / "e8_swap_min.csv", index=False)
    return Run(tmp_path, CONFIG, repo=ROOT)


def test_min_epsilon_and_two_rates_fail_for_the_left_branch_read_for_every_rate(tmp_path, monkeypatch):
    run = _run_with_minima(tmp_path / "slides")
    assert row_verdict("SWAP-E8-min-epsilon", run)[0] == "match"
    assert row_verdict("SWAP-E8-two-rates", run)[0] == "match"
    # the two-case formula without its max: ε = ln(b + 1) − ln o at every p keeps falling towards p = 1
    monkeypatch.setattr(tables, "swapping_epsilon_from_log_odds", lambda t, b: np.log1p(b) - np.asarray(t))
    run = _run_with_minima(tmp_path / "one_branch")
    status, m = row_verdict("SWAP-E8-min-epsilon", run)
    assert status == "differs" and m.value == {"positive": False, "attained_inside": False}
    status, m = row_verdict("SWAP-E8-two-rates", run)
    assert status == "differs" and "root counts [1]" in m.text


def test_largest_strata_b_are_housing_units_and_would_match_as_households(tmp_path):
    run = Run(tmp_path, CONFIG, repo=ROOT)
    status, m = row_verdict("SWAP-E8-census2020-largest-strata", run)
    assert status == "differs" and m.value["state_b_is_housing_units"] and m.value["county_b_is_housing_units"]
    # the same table with b = the 2010 households of the named strata (the words' reading) matches
    housing = pd.read_csv(ROOT / "data/nhgis/county_housing_v20210608.csv", dtype={"county_fips": str})
    households = {
        "state": housing.loc[housing["state_abbr"] == "CA", "sf1_occupied_units"].sum(),
        "county": housing.loc[
            (housing["state_abbr"] == "CA") & (housing["county_fips"] == "037"), "sf1_occupied_units"
        ].sum(),
    }
    printed = pd.read_csv(ROOT / E8["printed"]["swap_2020"])
    printed["b"] = [households.get(v, b) for v, b in zip(printed["v_match"], printed["b"], strict=True)]
    printed.to_csv(tmp_path / "households.csv", index=False)
    assert row_verdict("SWAP-E8-census2020-largest-strata", run, printed=str(tmp_path / "households.csv"))[0] == "match"
    # a mislabelled stratum fails the rank
    status, m = row_verdict("SWAP-E8-census2020-largest-strata", run, strata={"state": "TX", "county": "CA 037"})
    assert status == "differs" and m.value["state_largest_by_households"] is False
