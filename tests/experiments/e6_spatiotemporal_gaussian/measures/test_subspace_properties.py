"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.subspace_properties`: the rows of §2.3 and
Theorems 3.1, 3.3 on exact laws (subspace DP, projection privacy, nestedness, composition, post-processing, mixture, the
extension's converse, a consistent release): each matches and differs on a plausibly wrong mechanism, translation or
source of the total."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import registry_row, row_status
from conftest import row_verdict


def test_section_23_and_theorem_31_rows_match_and_fail_on_wrong_mechanisms(monkeypatch):
    from criteria_support import judge
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se
    from isdp_papers.evidence import Measurement

    ids = [
        "SDP-E6-subspace-dp",
        "SDP-E6-projection-privacy",
        "SDP-E6-nestedness",
        "SDP-E6-composition",
        "SDP-E6-post-processing",
        "SDP-E6-mixture",
    ]
    assert all(row_status(i) == "match" for i in ids)
    original = {
        name: getattr(se, name)
        for name in ("dp_implies_subspace_dp", "projection_privacy", "nestedness", "post_processing", "mixture")
    }
    wrong = {
        # a base mechanism at the scale of Δ₁ = 1: level 2ε
        "SDP-E6-subspace-dp": (
            "dp_implies_subspace_dp",
            lambda eps: original["dp_implies_subspace_dp"](eps, sensitivity=1),
        ),
        # a projection onto N along (1, 1, 0, 0), not the row space: the invariant holds, privacy on N does not
        "SDP-E6-projection-privacy": (
            "projection_privacy",
            lambda eps: original["projection_privacy"](eps, along={"C = (1,0,1,0)": [1, 1, 0, 0]}),
        ),
        # a subspace that is not inside N(C)
        "SDP-E6-nestedness": ("nestedness", lambda eps: original["nestedness"](eps, nested=(("N(C)", "N(1ᵀ)"),))),
        # a map that writes the invariant component into N
        "SDP-E6-post-processing": (
            "post_processing",
            lambda eps: original["post_processing"](eps, maps={"reads C z": lambda a, c: a + c * np.array([0, 1, 0])}),
        ),
        # a choice between the two mechanisms that depends on the data
        "SDP-E6-mixture": (
            "mixture",
            lambda eps, lam: original["mixture"](eps, lambda h: 0.2 if (h[0] + h[2]) % 2 == 0 else 0.8),
        ),
    }
    for claim_id, (name, replacement) in wrong.items():
        with monkeypatch.context() as m:
            m.setattr(se, name, replacement)
            assert row_status(claim_id) == "differs", claim_id
    # composition claimed at max(ε₁, ε₂) instead of ε₁ + ε₂
    row = registry_row("SDP-E6-composition")
    out = se.composition(*row["args"]["eps"])
    assert out["level"] == pytest.approx(sum(row["args"]["eps"]))
    assert judge(row["criterion"], row["paper_value"], Measurement(out["delta_max"], "")) == "differs"


def test_extension_converse_matches_and_other_translations_fail(run):
    assert row_verdict("SDP-E6-extension-converse", run)[0] == "match"
    status, m = row_verdict("SDP-E6-extension-converse", run, translate="query")  # A(x): image in N, not DP
    assert status == "differs" and m.value == {"image in N": True, "(ε, 0)-DP on ℝⁿ": False}
    status, m = row_verdict("SDP-E6-extension-converse", run, translate="none")  # 𝓜 itself: off N
    assert status == "differs" and m.value == {"image in N": False, "(ε, 0)-DP on ℝⁿ": False}


@pytest.mark.parametrize("row", ["SDP-E6-consistency-compatible", "ISDP-E6-consistency-compatible"])
def test_consistency_from_the_release_is_dp_but_from_the_data_is_not(run, row):
    assert row_verdict(row, run)[0] == "match"
    status, m = row_verdict(row, run, total_from="data")  # an invariant
    assert status == "differs" and m.value == pytest.approx(1.0)
