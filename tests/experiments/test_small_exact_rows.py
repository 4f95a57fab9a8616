"""Small exact rows on statements of Congenial DP, Subspace DP and the Swapping slides:
CDP-E7-post-processing-one-to-one, CDP-E7-vacuous-conditioning-consensus, SDP-E6-exponential-not-additive,
SWAP-E8-one-day-unit. Each matches on the exact
computation and flips under a plausibly wrong world."""

from __future__ import annotations

import numpy as np
from conftest import REGISTRY, row_verdict

from isdp.experiments import claims


def test_post_processing_keeps_the_level_for_one_to_one_maps_and_a_merge_can_lower_it():
    run = claims.Run(".", {})
    status, m = row_verdict("CDP-E7-post-processing-one-to-one", run)
    assert status == "match"
    # parity's level in closed form: P(DG even) = (1 + a²)/(1 + a)², P(odd) = 2a/(1 + a)², swapped by the neighbour
    a = np.exp(-claims.claim("CDP-E7-post-processing-one-to-one", REGISTRY)["args"]["eps"])
    assert f"parity {np.log((1 + a**2) / (2 * a)):.4f}" in m.text
    # a world where no merging map lowers the level: 'only when g is one-to-one' would have no content
    status, m = row_verdict("CDP-E7-post-processing-one-to-one", run, many_to_one=["clamp", "halve", "sign"])
    assert status == "differs" and m.value["some_below"] is False


def test_the_exponential_mechanism_on_a_bounded_range_is_not_additive_and_on_the_integers_it_is():
    run = claims.Run(".", {})
    status, m = row_verdict("SDP-E6-exponential-not-additive", run)
    assert status == "match" and m.value > 0.1
    status, m = row_verdict("SDP-E6-exponential-not-additive", run, bounded=False)
    assert status == "differs" and m.value < 1e-12


def test_one_day_units_lower_the_budget_unless_the_person_is_there_one_day():
    run = claims.Run(".", {})
    status, m = row_verdict("SWAP-E8-one-day-unit", run)
    assert status == "match"
    days = claims.claim("SWAP-E8-one-day-unit", REGISTRY)["args"]["days"]
    for t in days:  # the ratio is 1/T for a person present every day
        assert f"{1 / t:.4f} (T = {t}" in m.text
    status, m = row_verdict("SWAP-E8-one-day-unit", run, days_present=1)
    assert status == "differs" and m.value["lower"] is False


def test_vacuous_conditioning_keeps_the_prior_unless_the_output_may_depend_on_the_data():
    run = claims.Run(".", {})
    status, m = row_verdict("CDP-E7-vacuous-conditioning-consensus", run)
    assert status == "match" and "defined at 0 of" in m.text
    status, m = row_verdict("CDP-E7-vacuous-conditioning-consensus", run, dependence="kernel")
    assert status == "differs" and "generalized bayes: NO" in m.text and "Bayes envelope 0.800" in m.text
    # a precise mechanism (DG-like likelihoods) moves the posterior under every rule
    status, m = row_verdict("CDP-E7-vacuous-conditioning-consensus", run, likelihood=[0.5, 0.3, 0.2, 0.2, 0.3, 0.5])
    assert status == "differs" and "dempster: NO" in m.text
