"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.gaussian_laplace`: §3.3's Gaussian corollaries
inherit Lemma 3.4; the Laplace level rows (Lemma 3.7, Cor 3.8, Congenial DP's Laplace level) match at Def 2.1's scale
and differ at the per-unit scale; the extended Laplace (Cor 3.9) keeps the invariants with the stated per-cell variance,
matches, and fails with another basis's scale or as printed; the projected Laplace's heavier tails against simulation
and a Gaussian; Congenial DP's Example 4.1 spends exactly ε (CDP-E7-example41-budget) and a release spending more or
less fails."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import registry_row, row_status, row_status_value
from conftest import REGISTRY, row_verdict
from isdp_papers.claims import claim
from isdp_papers.e6_spatiotemporal_gaussian.measures import gaussian_laplace
from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import null_space_blocks
from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints
from scipy import stats


def test_gaussian_corollaries_inherit_lemma_34_and_pass_where_the_constant_suffices():
    assert row_status("SDP-E6-gaussian-corollaries-privacy") == "differs"
    assert registry_row("SDP-E6-gaussian-corollaries-privacy")["same_fact_as"] == "SDP-E6-lemma34"
    assert row_status("SDP-E6-gaussian-corollaries-privacy", eps=[0.5, 1.0], delta=[1e-3]) == "match"


# --------------------------------------------------------------------------- Lemma 3.7, Cor 3.8, Cor 3.9


@pytest.mark.parametrize(
    "claim_id", ["SDP-E6-laplace-lemma37", "SDP-E6-projected-laplace-privacy", "CDP-E7-laplace-level"]
)
def test_laplace_level_rows_match_at_def_21_scale_and_fail_at_the_per_unit_scale(claim_id):
    status, value = row_status_value(claim_id)
    assert status == "match" and value == pytest.approx(1.0, abs=1e-6)
    status, value = row_status_value(claim_id, sensitivity=1)  # ISDP's / E4's per-unit Laplace scale 1/ε
    assert status == "differs" and value == pytest.approx(2.0, abs=1e-6)


def test_extended_laplace_matches_and_fails_with_the_scale_of_another_basis():
    assert row_status_value("SDP-E6-extended-laplace")[0] == "match"
    status, value = row_status_value("SDP-E6-extended-laplace", noise_basis="scipy")
    assert status == "differs" and value == {"(ε, 0) on N": False, "keeps C y = C h": True}


def test_extended_laplace_as_printed_breaks_the_invariant_and_doubles_the_level():
    row = claim("SDP-E6-extended-laplace-as-printed", REGISTRY)
    assert row["cause"] == "paper error"
    status, value = row_status_value("SDP-E6-extended-laplace-as-printed")
    assert status == "differs" and value == {"(ε, 0) on N": False, "keeps C y = C h": False}
    assert row_status_value("SDP-E6-extended-laplace-as-printed", as_printed=False)[0] == "match"


def test_extended_laplace_keeps_the_invariants_with_the_stated_per_cell_variance():
    A, _ = group_hour_building_constraints(2, 3, 2)
    basis = null_space_blocks(A)
    x = np.arange(A.shape[1], dtype=float)
    y, b = gaussian_laplace._extended_laplace(x, 0.7, 40_000, np.random.default_rng(3), basis)
    np.testing.assert_allclose(y @ A.T - x @ A.T, 0.0, atol=1e-9)
    pi = np.zeros(x.size)
    for cells, Q in basis:
        pi[cells] = (Q**2).sum(axis=1)
    ratio = (y - x).var(axis=0) / (2 * b**2 * pi)
    assert np.abs(ratio - 1).max() < 0.05  # SE of a Laplace-mixture variance at 40,000 draws is about 1 %


# --------------------------------------------------------------------------- heavier tails


def test_projected_laplace_tail_agrees_with_simulation():
    e = np.random.default_rng(7).laplace(size=(2_000_000, 3))
    x = (2 * e[:, 0] - e[:, 1] - e[:, 2]) / 3
    sd = np.sqrt(2 * 6 / 9)
    for k in (1.0, 3.0):
        p = gaussian_laplace._projected_laplace_tail(k)
        assert abs((np.abs(x) > k * sd).mean() - p) <= 4 * np.sqrt(p * (1 - p) / x.size)


def test_tail_row_matches_and_a_gaussian_in_place_of_the_laplace_fails():
    assert row_status_value("SDP-E6-laplace-heavier-tails")[0] == "match"
    gaussian = lambda k: 2 * stats.norm.sf(k)  # noqa: E731
    assert row_status_value("SDP-E6-laplace-heavier-tails", laplace_tail=gaussian)[0] == "differs"
    assert row_status_value("SDP-E6-laplace-heavier-tails", ks=[1.0])[0] == "differs"  # the shoulders: lighter


# --------------------------------------------------------------------------- Example 4.1's budget (Congenial DP)


def test_example_41_spends_exactly_epsilon(run):
    status, m = row_verdict("CDP-E7-example41-budget", run)
    assert status == "match" and m.value == pytest.approx(1.0, abs=1e-9)


def test_a_release_spending_more_or_less_than_epsilon_fails(run):
    """Controls: Lap(1/ε) per bin spends 2ε, Lap(4/ε) spends ε/2 (levels in units of ε)."""
    for sensitivity, level in ((1.0, 2.0), (4.0, 0.5)):
        status, m = row_verdict("CDP-E7-example41-budget", run, sensitivity=sensitivity)
        assert status == "differs" and m.value == pytest.approx(level, rel=1e-6)
