"""Small exact rows on statements of the Swapping slides: SWAP-E8-one-day-unit. It matches on the exact computation and
flips under a plausibly wrong world. The Congenial DP and Subspace DP rows moved to
tests/experiments/e7_congenial_histogram/measures/ and tests/experiments/e6_spatiotemporal_gaussian/measures/."""

from __future__ import annotations

from conftest import REGISTRY, row_verdict

from isdp.experiments import claims


def test_one_day_units_lower_the_budget_unless_the_person_is_there_one_day():
    run = claims.Run(".", {})
    status, m = row_verdict("SWAP-E8-one-day-unit", run)
    assert status == "match"
    days = claims.claim("SWAP-E8-one-day-unit", REGISTRY)["args"]["days"]
    for t in days:  # the ratio is 1/T for a person present every day
        assert f"{1 / t:.4f} (T = {t}" in m.text
    status, m = row_verdict("SWAP-E8-one-day-unit", run, days_present=1)
    assert status == "differs" and m.value["lower"] is False
