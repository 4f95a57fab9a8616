"""Tests of :mod:`isdp_papers.e7_congenial_histogram.measures.noise_laws`: the rows CDP-E7-remark1-weights (Remark
1's weights sum to one with opposite signs; unsigned weights fail) and CDP-E7-a1-region-integrals (I₁ + I₂ + I₃ is
(A.1); a wrong Jacobian fails)."""

from __future__ import annotations

import pytest
from closed_form_support import eps_grid_run, privacy_table_run
from conftest import row_verdict
from isdp_papers.e7_congenial_histogram import noise_laws as nl


def test_remark1_weights_sum_to_one_with_opposite_signs_and_unsigned_weights_fail(tmp_path, monkeypatch):
    run = privacy_table_run(tmp_path)
    assert row_verdict("CDP-E7-remark1-weights", run)[0] == "match"
    for beta in (0.2, 0.8):  # the printed weights at β and those of signed_weights (at max(β, 1 − β)) give one law
        assert sorted(nl.a1_weights(beta)) == pytest.approx(sorted(nl.signed_weights(beta)))
    monkeypatch.setattr(nl, "a1_weights", lambda b: (b**2 / abs(2 * b - 1), (1 - b) ** 2 / abs(2 * b - 1)))
    assert row_verdict("CDP-E7-remark1-weights", run)[0] == "differs"


def test_a1_region_integrals_match_and_a_wrong_jacobian_fails(tmp_path, monkeypatch):
    run = eps_grid_run(tmp_path)
    eps, beta, u = 0.8, 0.7, 2.0
    assert sum(nl.a1_region_integrals(u, eps, beta)) == pytest.approx(
        float(nl.noise_pdf(u, "l1", eps, beta)), rel=1e-12
    )  # I₁ + I₂ + I₃ = (A.1)
    status, m = row_verdict("CDP-E7-a1-region-integrals", run)
    assert status == "match" and m.value < 1e-12
    orig = nl.a1_joint_density
    monkeypatch.setattr(nl, "a1_joint_density", lambda u, u2, eps, beta: orig(u, u2, eps, beta) * beta**2)
    assert row_verdict("CDP-E7-a1-region-integrals", run)[0] == "differs"
