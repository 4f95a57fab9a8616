"""Swapping slides rows tested on the slides' own words: each matches (or differs) on the real measure and flips
under a plausibly wrong law or parameter.

Rows: SWAP-E8-min-epsilon, SWAP-E8-two-rates, SWAP-E8-varies-needs-budget, SWAP-E8-approximate-dp,
SWAP-E8-person-units, SWAP-E8-derived-products, SWAP-E8-tda-proper-subsets, SWAP-E8-finer-than-tda,
SWAP-E8-invariant-release.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, row_verdict
from scipy import optimize

from isdp.experiments import claims
from isdp.experiments.e8_privacy_accounting import tables
from isdp.experiments.e8_privacy_accounting.swap_audit import approximate_loss_per_unit, universe_log_laws

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
E8 = CONFIG["e8"]


def _run_with_minima(tmp_path) -> claims.Run:
    """A run whose e8_swap_min table is built, as the workflow does, for every b of the printed tables."""
    b_values = sorted(
        {int(b) for key in ("swap_ma1940", "swap_2020") for b in pd.read_csv(ROOT / E8["printed"][key])["b"]}
    )
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    minima = tables.swap_min_table(b_values, E8["swapping"]["two_rate_offsets"])
    minima.to_csv(tmp_path / "results" / "tables" / "e8_swap_min.csv", index=False)
    return claims.Run(tmp_path, CONFIG, repo=ROOT)


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


def test_varying_mechanism_needs_a_positive_budget_unless_the_divergence_is_no_metric():
    status, m = row_verdict("SWAP-E8-varies-needs-budget", None)
    assert status == "match" and "b = 2, p = 0.5" in m.note  # swapping or not equally likely: no variation
    assert row_verdict("SWAP-E8-varies-needs-budget", None, compare="invariants")[0] == "differs"


def test_approximate_loss_is_the_hockey_stick_root():
    h, k, p, delta = [0, 1, 2, 3], [0, 1, 2, 3], 0.05, 1e-2
    log_p, distance = universe_log_laws(h, k, p)
    prob, best = np.exp(log_p), 0.0
    for i, j in itertools.permutations(range(len(prob)), 2):

        def excess(e, i=i, j=j):
            return np.sum(np.maximum(prob[i] - np.exp(e) * prob[j], 0.0)) - delta

        eps = 0.0 if excess(0.0) <= 0 else optimize.brentq(excess, 0.0, 50.0, xtol=1e-14)
        best = max(best, eps / distance[i, j])
    assert approximate_loss_per_unit(h, k, p, delta) == pytest.approx(best, rel=1e-9)


def test_approximate_dp_shrinks_the_budget_only_with_a_positive_delta():
    assert row_verdict("SWAP-E8-approximate-dp", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-approximate-dp", None, deltas=[0.0])
    assert status == "differs" and m.value == 1.0


def test_person_units_lower_the_budget_only_for_households_of_several_persons():
    status, m = row_verdict("SWAP-E8-person-units", None)
    assert status == "match" and "× size 2: 1.000000" in m.text  # exactly ε_household / s
    singles = [[[[1, 0], [1, 1], [1, 2]], [0, 1, 2]]]
    status, m = row_verdict("SWAP-E8-person-units", None, strata=singles)
    assert status == "differs" and m.value == {"never_higher": True, "lower": False}


def test_derived_products_exceed_the_budget_when_they_read_the_unswapped_data():
    assert row_verdict("SWAP-E8-derived-products", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-derived-products", None, leak=0.9)
    assert status == "differs" and m.value > 1


def test_proper_subsets_keep_a_finite_budget_only_when_invariants_are_redundant():
    status, m = row_verdict("SWAP-E8-tda-proper-subsets", None)
    assert status == "differs" and m.value == 5
    non_redundant = {"state A population": ["A1", "A2"], "block A1 count": ["A1"]}
    assert row_verdict("SWAP-E8-tda-proper-subsets", None, invariants=non_redundant)[0] == "match"


def test_swapping_invariants_are_not_finer_with_an_empty_swap_key():
    assert row_verdict("SWAP-E8-finer-than-tda", None)[0] == "match"
    national = [[[], ["state", "county", "block"]]]  # households of any size swapped across states
    status, m = row_verdict("SWAP-E8-finer-than-tda", None, settings=national)
    assert status == "differs" and m.value["finer"] is False


def test_releasing_only_the_invariants_costs_nothing_but_releasing_the_swap_does():
    assert row_verdict("SWAP-E8-invariant-release", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-invariant-release", None, release="swapped")
    assert status == "differs" and m.value > 0


def test_largest_strata_b_are_housing_units_and_would_match_as_households(tmp_path):
    run = claims.Run(tmp_path, CONFIG, repo=ROOT)
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
