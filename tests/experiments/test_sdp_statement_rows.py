"""Subspace DP statements tested on the document's own terms, with their same-fact rows in other documents:
SDP-E3-housing-units-invariant (and SWAP-E3-tda-housing-invariant, TDA-E3-housing-invariant),
SDP-E3-gq-facilities-invariant (and SWAP-E3-tda-gq-invariant, TDA-E3-gq-facilities-invariant),
SDP-E3-noisy-tabulation-breaks-total, SDP-E6-extension-converse, SDP-E6-projection-not-conditioning,
SDP-E6-data-independence-all, SDP-E6-invariants-incompatible, SDP-E6-binary-invariants-additive,
SDP-E6-margins-linkage, SDP-E6-consistency-compatible, SDP-E6-independent-rows, SDP-E4-inequality-invariants-bias,
SDP-E6-projected-sensitivity.
The committed extracts they read are re-derived from the NHGIS zip in test_nhgis.py. Each row matches on the real
measure and flips under a plausibly wrong law or parameter."""

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


# --------------------------------------------------------------------------- E6 rows


def test_extension_converse_matches_and_other_translations_fail(run):
    assert row_verdict("SDP-E6-extension-converse", run)[0] == "match"
    status, m = row_verdict("SDP-E6-extension-converse", run, translate="query")  # A(x): image in N, not DP
    assert status == "differs" and m.value == {"image in N": True, "(ε, 0)-DP on ℝⁿ": False}
    status, m = row_verdict("SDP-E6-extension-converse", run, translate="none")  # 𝓜 itself: off N
    assert status == "differs" and m.value == {"image in N": False, "(ε, 0)-DP on ℝⁿ": False}


def test_projection_is_not_conditioning_for_laplace_but_is_for_the_gaussian(run):
    status, m = row_verdict("SDP-E6-projection-not-conditioning", run)
    assert status == "match" and m.value < 1e-10
    status, m = row_verdict("SDP-E6-projection-not-conditioning", run, noise="gaussian")  # Thm 4.2's case
    assert status == "differs" and m.value > 0.05


def test_noise_is_data_independent_unless_clipped(run):
    status, m = row_verdict("SDP-E6-data-independence-all", run)
    assert status == "match" and m.value < 1e-12
    status, m = row_verdict("SDP-E6-data-independence-all", run, clip_at=0.0)  # non-negativity post-processing
    assert status == "differs" and m.value > 1


def test_nontrivial_invariants_force_delta_one_on_one_size_but_not_on_every_size(run):
    status, m = row_verdict("SDP-E6-invariants-incompatible", run)
    assert status == "match" and m.value == 1
    status, m = row_verdict("SDP-E6-invariants-incompatible", run, sizes=[0, 1, 2, 3])  # X*: the total is nontrivial
    assert status == "differs" and m.value == 0 and "(1, 1, 1, 1)" in m.text


def test_binary_outputs_leave_no_additive_noise_but_integer_outputs_do(run):
    assert row_verdict("SDP-E6-binary-invariants-additive", run)[0] == "match"
    status, m = row_verdict("SDP-E6-binary-invariants-additive", run, outputs="integer")  # the linear case
    assert status == "differs" and m.value > 0


def test_binary_noise_brute_force_on_two_records():
    """n = 2, k = 1: the fibre is {(0, 1), (1, 0)}; e = (1, −1) sends (1, 0) to (2, −1), e = (−1, 1) sends (0, 1) to
    (−1, 2): no nonzero e keeps both binary."""
    from isdp.experiments.e6_spatiotemporal_gaussian import measures as m6

    assert m6.binary_invariant_additive_noise(None, None, sizes=[2]).value == 0
    assert m6.binary_invariant_additive_noise(None, None, sizes=[2], outputs="integer").value == 3 * 4


def test_composed_margins_fix_tables_that_one_margin_does_not(run):
    status, m = row_verdict("SDP-E6-margins-linkage", run)
    assert status == "match" and m.value > 0
    status, m = row_verdict("SDP-E6-margins-linkage", run, second="rows")  # the age margin twice: nothing new
    assert status == "differs" and m.value == 0


def test_margins_fix_a_2x2_table_exactly_when_it_is_degenerate():
    """A 2 × 2 table is fixed by both margins iff all its n individuals lie in one row or one column: 4 lines × (n + 1)
    splits, the 4 one-cell tables counted twice; the age margin alone fixes none (a row total n ≥ 1 splits n + 1
    ways)."""
    from isdp.experiments.e6_spatiotemporal_gaussian import measures as m6

    m = m6.margins_linkage(None, None, shapes=[[2, 2]], max_total=3)
    assert m.value == sum(4 * (n + 1) - 4 for n in range(1, 4))


@pytest.mark.parametrize("row", ["SDP-E6-consistency-compatible", "ISDP-E6-consistency-compatible"])
def test_consistency_from_the_release_is_dp_but_from_the_data_is_not(run, row):
    assert row_verdict(row, run)[0] == "match"
    status, m = row_verdict(row, run, total_from="data")  # an invariant
    assert status == "differs" and m.value == pytest.approx(1.0)


def test_inequality_invariant_biases_the_projection_and_equality_alone_does_not(run):
    assert row_verdict("SDP-E4-inequality-invariants-bias", run)[0] == "match"
    status, m = row_verdict("SDP-E4-inequality-invariants-bias", run, nonnegative=False)
    assert status == "differs" and m.value > 0.01


def test_independent_rows_give_the_same_invariant_but_too_few_do_not(run):
    status, m = row_verdict("SDP-E6-independent-rows", run)
    assert status == "match" and "760 rows of rank 740" in m.text
    status, m = row_verdict("SDP-E6-independent-rows", run, drop=1)  # one row fewer than the rank per building
    assert status == "differs" and m.value > 0.1


def test_projected_sensitivity_is_at_most_the_querys_and_a_basis_not_orthonormal_raises_it(run, monkeypatch):
    import isdp.baselines

    status, m = row_verdict("SDP-E6-projected-sensitivity", run)
    assert status == "match" and m.value < 1, m.text
    real = isdp.baselines.null_space_blocks
    monkeypatch.setattr(isdp.baselines, "null_space_blocks", lambda A: [(c, 1.5 * Q) for c, Q in real(A)])
    status, m = row_verdict("SDP-E6-projected-sensitivity", run)
    assert status == "differs" and m.value > 1.4, m.text
