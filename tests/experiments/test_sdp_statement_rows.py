"""Subspace DP statements tested on the document's own terms, with their same-fact rows in other documents:
SDP-E3-housing-units-invariant (and SWAP-E3-tda-housing-invariant, TDA-E3-housing-invariant),
SDP-E3-gq-facilities-invariant (and SWAP-E3-tda-gq-invariant, TDA-E3-gq-facilities-invariant),
SDP-E3-noisy-tabulation-breaks-total, SDP-E4-inequality-invariants-bias. The committed extracts they read are re-derived
from the NHGIS zip in test_nhgis.py. Each row matches on the real measure and flips under a plausibly wrong law or
parameter. The E6 rows moved to tests/experiments/e6_spatiotemporal_gaussian/measures/."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import REGISTRY, ROOT, row_verdict

from isdp.double_geometric import dg_pmf
from isdp.experiments import claims, nhgis

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="module")
def run() -> claims.Run:
    """The rows read only the config and committed inputs."""
    return claims.Run(ROOT, CONFIG, repo=ROOT)


# --------------------------------------------------------------------------- E3 rows


@pytest.mark.parametrize(
    "row", ["SDP-E3-housing-units-invariant", "SWAP-E3-tda-housing-invariant", "TDA-E3-housing-invariant"]
)
def test_housing_units_invariant_matches_and_occupied_units_differ(run, row):
    status, m = row_verdict(row, run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)
    status, m = row_verdict(row, run, units="occupied")  # a count the DAS does not hold invariant
    assert status == "differs" and m.value > 3000


def test_same_fact_rows_point_at_the_subspace_dp_row():
    for row in ("SWAP-E3-tda-housing-invariant", "TDA-E3-housing-invariant"):
        assert claims.claim(row, REGISTRY)["same_fact_as"] == "SDP-E3-housing-units-invariant"


# --------------------------------------------------------------------------- the group-quarters rows


def test_group_quarters_types_add_up_to_at_most_the_population():
    gq = nhgis.load_group_quarters(ROOT / nhgis.GROUP_QUARTERS_EXTRACT)
    counties = nhgis.load_counties(ROOT / CONFIG["data"]["embedded"])
    types = [f"sf1_gq_{t}" for t in nhgis.GROUP_QUARTERS_TYPES]  # P42's universe is a part of the population
    assert (gq[types].sum(axis=1).to_numpy() <= counties["sf1_pop"].to_numpy()).all()


GQ_ROWS = ["SDP-E3-gq-facilities-invariant", "SWAP-E3-tda-gq-invariant", "TDA-E3-gq-facilities-invariant"]


@pytest.mark.parametrize("row", GQ_ROWS)
def test_group_quarters_presence_is_kept_and_noise_without_the_invariant_breaks_it(run, row, monkeypatch):
    status, m = row_verdict(row, run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)
    # The DAS without a facility invariant: its counts are SF1 plus double geometric noise, kept nonnegative
    # (ε = 1 per cell, far less noise than the county-level DAS of a 2010 demonstration run).
    honest = nhgis.load_group_quarters(ROOT / nhgis.GROUP_QUARTERS_EXTRACT)
    noisy = honest.copy()
    rng = np.random.default_rng(20230207)
    a = np.exp(-1.0)
    for t in nhgis.GROUP_QUARTERS_TYPES:
        sf1 = honest[f"sf1_gq_{t}"].to_numpy()
        noise = rng.geometric(1 - a, sf1.size) - rng.geometric(1 - a, sf1.size)
        noisy[f"dp_gq_{t}"] = np.maximum(sf1 + noise, 0)
    monkeypatch.setattr(nhgis, "load_group_quarters", lambda path: noisy)
    status, m = row_verdict(row, run)
    assert status == "differs" and m.value > 1000


def test_group_quarters_population_itself_is_not_invariant():
    """The stronger reading the words do not make (the people in group quarters held fixed) fails on the data."""
    gq = nhgis.load_group_quarters(ROOT / nhgis.GROUP_QUARTERS_EXTRACT)
    sf1 = gq[[f"sf1_gq_{t}" for t in nhgis.GROUP_QUARTERS_TYPES]].to_numpy()
    das = gq[[f"dp_gq_{t}" for t in nhgis.GROUP_QUARTERS_TYPES]].to_numpy()
    occupied = sf1 > 0
    assert (das[occupied] == sf1[occupied]).mean() < 0.1


def test_gq_same_fact_rows_point_at_the_subspace_dp_row():
    for row in GQ_ROWS[1:]:
        assert claims.claim(row, REGISTRY)["same_fact_as"] == GQ_ROWS[0]


def test_noisy_tabulation_breaks_the_total_unless_the_noise_is_tiny(run):
    status, m = row_verdict("SDP-E3-noisy-tabulation-breaks-total", run)
    assert status == "match" and m.value < 0.05
    # Delaware's 3 counties: P(u1 + u2 + u3 = 0) by direct convolution of the DG law
    args = claims.claim("SDP-E3-noisy-tabulation-breaks-total", REGISTRY)["args"]
    k = np.arange(-600, 601)
    p = dg_pmf(k, args["eps"] / args["sensitivity"])
    three = np.convolve(np.convolve(p, p), p)
    assert m.value == pytest.approx(three[three.size // 2], rel=1e-9)
    status, m = row_verdict("SDP-E3-noisy-tabulation-breaks-total", run, eps=20.0)  # noise too small to move a count
    assert status == "differs" and m.value > 0.99


# --------------------------------------------------------------------------- E4 row


def test_inequality_invariant_biases_the_projection_and_equality_alone_does_not(run):
    assert row_verdict("SDP-E4-inequality-invariants-bias", run)[0] == "match"
    status, m = row_verdict("SDP-E4-inequality-invariants-bias", run, nonnegative=False)
    assert status == "differs" and m.value > 0.01
