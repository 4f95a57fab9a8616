"""Tests of :mod:`isdp_papers.lattice_study.measures.tail_rates`: the ℓ1 noise's sub-exponential tail (ISDP
Thm 12 (7)). ISDP-E1-l1-tail-bound is one-sided where the sampler check ISDP-E1-l1-tail-rate is two-sided, and
ISDP-E1-l1-tail-exact matches on the exact ℓ1 law and fails for a law at half the rate or with heavier tails on the
same lattice points."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import row_verdict
from isdp_papers.evidence import Measurement, Run
from isdp_papers.lattice_study.measures import tail_rates
from lattice_support import registry_row, row_status

import isdp.privacy
from isdp.privacy import TruncatedLaw

ROW = "ISDP-E1-l1-tail-exact"


def test_the_tail_bound_is_one_sided_where_the_sampler_check_is_two_sided(monkeypatch):
    bound, check = registry_row("ISDP-E1-l1-tail-bound"), registry_row("ISDP-E1-l1-tail-rate")
    assert bound["kind"] == "claim" and check["kind"] == "check"
    run = Run(".", {})
    for rate, bound_status, check_status in (
        (1.0, "match", "match"),
        (1.3, "match", "differs"),
        (0.5, "differs", "differs"),
    ):  # exact, lighter and heavier tails
        fit = Measurement(rate, "", se=0.03)
        monkeypatch.setattr(tail_rates, "l1_tail_rate", lambda *a, fit=fit, **k: fit)
        m = tail_rates.l1_tail_rate_floor(run, bound["paper_value"], **bound["args"])
        assert row_status(bound, m) == bound_status and row_status(check, fit) == check_status


# --------------------------------------------------------------------------- ISDP-E1-l1-tail-exact


def test_the_exact_l1_law_has_the_theorems_tail():
    status, m = row_verdict(ROW, Run(".", {}))
    assert status == "match" and m.n == 6


def test_a_law_at_half_the_rate_fails():
    status, m = row_verdict(ROW, Run(".", {}), law_scale=0.5)  # ∝ exp(−ε‖u‖₁/2)
    assert status == "differs" and m.value == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize(
    "reweight, below",
    [
        (lambda norm, probs: probs * norm, 0.95),  # ∝ ‖u‖₁ e^(−ε‖u‖₁): one more power of t than Lemma 11's count
        (lambda norm, probs: (1.0 + norm) ** -5.0, 0.2),  # polynomial: ∝ (1 + ‖u‖₁)^−5 on the same box
    ],
)
def test_heavier_tails_on_the_same_lattice_points_fail(monkeypatch, reweight, below):
    real = isdp.privacy.exact_route_noise

    def heavier(*args, **kwargs):  # the same points, reweighted: a law on the box (nothing left out)
        law = real(*args, **kwargs)
        probs = reweight(np.abs(law.points).sum(axis=1).astype(float), law.probs)
        return TruncatedLaw(law.points, probs / probs.sum(), 0.0)

    monkeypatch.setattr(isdp.privacy, "exact_route_noise", heavier)
    status, m = row_verdict(ROW, Run(".", {}))
    assert status == "differs" and m.value < below
