"""Rows added after the fourth independent gap hunt: each matches on the paper's setting and fails where the
statement would be false (a chain that stops improving, spherical or uncorrelated Gaussian noise, a release that
spends less than ε); CDP-E5-age-buckets is tested with the other E5 statement rows, SWAP-E8-rho-composition in
tests/experiments/e8_privacy_accounting/measures/test_swapping_topdown.py."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.experiments.claims import Run
from isdp.experiments.lattice_study import measures as lattice_measures


@pytest.fixture(scope="module")
def run():
    return Run(ROOT, config=yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))


def test_more_iterations_buy_a_smaller_delta(run):
    status, m = row_verdict("ISDP-E1-iterations-delta-tradeoff", run)
    assert status == "match" and m.value < 0.9


def test_a_chain_that_stops_improving_fails_the_tradeoff(run, monkeypatch):
    """Control: the law after one iteration repeated at every t (a stuck chain) keeps its δ, ratio 1."""
    stopped = lattice_measures._stopped_chain

    def stuck(eps, proposal_eps, radius, iterations):
        x, v, budget, pi, laws = stopped(eps, proposal_eps, radius, iterations[:1])
        return x, v, budget, pi, [(t, laws[0][1]) for t in iterations]

    monkeypatch.setattr(lattice_measures, "_stopped_chain", stuck)
    status, m = row_verdict("ISDP-E1-iterations-delta-tradeoff", run)
    assert status == "differs" and m.value == pytest.approx(1.0)


def test_projection_is_not_conditioning_for_unequal_variances(run):
    status, m = row_verdict("SDP-E6-nonspherical-gaussian", run)
    assert status == "match" and m.value == pytest.approx(1 / 6)


@pytest.mark.parametrize("covariance", [np.eye(3), np.eye(3) + 0.5 * np.ones((3, 3)), np.diag([2.0, 2.0, 2.0])])
def test_spherical_or_uncorrelated_parts_give_the_conditional_law(run, covariance):
    """Controls: Thm 4.2's spherical case, and equicorrelated cells under a total (null-space and invariant parts
    uncorrelated), where projection does give the conditional law; the row fails on them."""
    status, m = row_verdict("SDP-E6-nonspherical-gaussian", run, covariance=covariance.tolist())
    assert status == "differs" and m.value < 1e-12


def test_example_41_spends_exactly_epsilon(run):
    status, m = row_verdict("CDP-E7-example41-budget", run)
    assert status == "match" and m.value == pytest.approx(1.0, abs=1e-9)


def test_a_release_spending_more_or_less_than_epsilon_fails(run):
    """Controls: Lap(1/ε) per bin spends 2ε, Lap(4/ε) spends ε/2 (levels in units of ε)."""
    for sensitivity, level in ((1.0, 2.0), (4.0, 0.5)):
        status, m = row_verdict("CDP-E7-example41-budget", run, sensitivity=sensitivity)
        assert status == "differs" and m.value == pytest.approx(level, rel=1e-6)


def test_county_tables_keep_logical_relationships_even_when_noised_independently(run):
    """Why ISDP-E3-das-logical-relationships is not comparable: the DAS output breaks no relation, and neither do
    the SF1 tables with double geometric noise at ε = 0.1 added to each table independently."""
    import pandas as pd

    from isdp.baselines import double_geometric_noise
    from isdp.experiments import nhgis
    from isdp.experiments.e3_census_counties.measures import relational_breaks

    status, m = row_verdict("ISDP-E3-das-logical-relationships", run)
    assert status == "not-comparable" and m.value == 0
    c = pd.read_csv(ROOT / run.config["data"]["embedded"]).set_index("gisjoin")
    h = nhgis.load_housing(ROOT / nhgis.HOUSING_EXTRACT).set_index("gisjoin").loc[c.index]
    g = nhgis.load_group_quarters(ROOT / nhgis.GROUP_QUARTERS_EXTRACT).set_index("gisjoin").loc[c.index]
    gq = g[[f"sf1_gq_{t}" for t in nhgis.GROUP_QUARTERS_TYPES]].sum(axis=1).to_numpy()
    rng = np.random.default_rng(5)
    noised = [x + double_geometric_noise(len(c), 0.1, 1, rng, 1)[0]
              for x in (c["sf1_pop"].to_numpy(), gq, h["sf1_housing_units"].to_numpy(), h["sf1_occupied_units"])]
    assert not any(v.any() for v in relational_breaks(*noised).values())
    # the relations can fail: occupied units above housing units break the first in every county
    broken = relational_breaks(c["sf1_pop"], gq, h["sf1_housing_units"], h["sf1_housing_units"] + 1)
    assert broken["occupied > housing units"].all()
