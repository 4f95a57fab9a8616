"""Tests of :mod:`isdp_papers.lattice_study.measures.privacy_theorems`: the generalized Laplace mechanism's
privacy (ISDP Thm 10, §3.2–3.3, Example 3, §2 footnote 1, App. E.4) on exact laws. Each row matches on the right law
and differs on a plausibly wrong one: ISDP-E1-no-invariant-reduction (not for the ℓ2 law),
ISDP-E1-privacy-theorem-l2 (not for a squared-norm target), ISDP-E1-singleton-bounded-dp (not for unbounded
neighbours), ISDP-E1-projection-privacy (not for a projection that reads the data),
ISDP-E1-smooth-dp-equivalence (not in ℓ2), ISDP-E1-nonnegative-unbiased-impossible (not without non-negativity) and
ISDP-E2-data-independence (not with the non-negative post-processing)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import row_verdict
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.measures import privacy_theorems
from lattice_support import assert_row_flips, config_run, registry_row, row_status

import isdp.lattice


def test_no_invariant_reduction_holds_for_the_l1_laplace_and_not_for_the_l2_one():
    """With no invariant the ℓ1 generalized Laplace law factorises into double geometric cells; the ℓ2 one
    (∝ exp(−ε‖u‖₂), also a generalized Laplace mechanism of Def 9) does not, so the row differs for it."""
    c = registry_row("ISDP-E1-no-invariant-reduction")
    m = privacy_theorems.no_invariant_reduction(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    m = privacy_theorems.no_invariant_reduction(Run(".", {}), c["paper_value"], **{**c["args"], "norm": "l2"})
    assert row_status(c, m) == "differs" and m.value > 0.1
    assert "product of Laplace densities 1.5e-01" in m.text  # the real-valued case fails on its own too


def test_the_l2_privacy_theorem_holds_and_a_squared_norm_target_fails(monkeypatch):
    c = registry_row("ISDP-E1-privacy-theorem-l2")
    run = config_run()
    assert row_status(c, privacy_theorems.privacy_theorem_l2(run, c["paper_value"], **c["args"])) == "match"
    monkeypatch.setattr(
        isdp.lattice,
        "generalized_laplace",  # exp(−ε‖u‖₂²): the norm squared by mistake
        lambda eps, norm="l1": isdp.lattice.Target("gaussian", "l2", (2 * eps) ** -0.5),
    )
    m = privacy_theorems.privacy_theorem_l2(run, c["paper_value"], **c["args"])
    assert m.value > 2 and row_status(c, m) == "differs"


def test_the_singleton_invariant_gives_bounded_dp_neighbours_and_not_unbounded_ones():
    c = registry_row("ISDP-E1-singleton-bounded-dp")
    m = privacy_theorems.singleton_bounded_dp(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match" and "loses 1.000000" in m.text
    m = privacy_theorems.singleton_bounded_dp(Run(".", {}), c["paper_value"], **{**c["args"], "distance": 1})
    assert row_status(c, m) == "differs"


FLIPS = {"ISDP-E1-projection-privacy": {"reads_data": True}}  # the projection looks at x itself


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    """ISDP-E1-projection-privacy matches for a projection of the release and differs for one that looks at x."""
    assert_row_flips(row, run, FLIPS[row])


def test_smooth_dp_equivalence_holds_in_l1_and_fails_in_l2(run):
    status, m = row_verdict("ISDP-E1-smooth-dp-equivalence", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E1-smooth-dp-equivalence", run, norm="l2")
    assert status == "differs" and m.value == pytest.approx(np.sqrt(3), rel=1e-9), m.text


def test_nonnegative_unbiased_row_fails_without_non_negativity(run):
    status, m = row_verdict("ISDP-E1-nonnegative-unbiased-impossible", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E1-nonnegative-unbiased-impossible", run, nonnegative=False, margin=200)
    assert status == "differs" and all(m.value.values()), m.text


def test_release_data_independence_row_fails_with_the_nonnegative_post_processing(run):
    status, m = row_verdict("ISDP-E2-data-independence", run)
    assert (status, m.value) == ("match", 0), m.text
    status, m = row_verdict("ISDP-E2-data-independence", run, nonnegative=True)
    assert status == "differs" and m.value > 0, m.text
