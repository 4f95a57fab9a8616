"""Congenial DP statement rows of E7 (§1.3, §4, §5.1): CDP-E7-postprocessing-outside-theorem, CDP-E7-l1-interval-law,
CDP-E7-gamma-one-loose, CDP-E7-example41-density, CDP-E7-dg-pmf-printed. Each measure against an independent
computation where one is short, and each row's status both ways: it matches on the real measure and differs under a
plausibly wrong law or parameter."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.experiments.e7_congenial_histogram import congenial as cg
from isdp.privacy_audit import hockey_stick_divergence


@pytest.fixture(scope="module")
def run():
    from isdp.experiments.claims import Run

    return Run(ROOT, config=yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))


def test_hockey_stick_is_the_largest_set_difference():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    best = max(p[list(b)].sum() - np.e * q[list(b)].sum() for b in ([0], [1], [0, 1], [2], [0, 2]))
    assert hockey_stick_divergence(p, q, 1.0) == pytest.approx(max(best, 0.0))
    assert hockey_stick_divergence(p, p, 0.0) == 0.0


def test_example52_projection_releases_the_query_itself():
    # the 'extreme scenario': S*(x) = {s(x)}, so f(M(x); S*(x)) = s(x) with certainty, at every ε
    out = np.arange(-1, 13)
    for total in (41, 50, 51):
        pmf = cg.projected_rounding_pmf(total, 0.5, 10, [int(np.ceil(total / 10))], out)
        assert pmf[out == int(np.ceil(total / 10))][0] == 1.0 and pmf.sum() == 1.0
    # a multi-value S*: the clamp keeps DG's mass, piled at the ends
    pmf = cg.projected_rounding_pmf(45, 1.0, 10, [4, 5, 6], out)
    assert pmf.sum() == pytest.approx(1.0) and pmf[out == 5][0] == pytest.approx((1 - np.exp(-1)) / (1 + np.exp(-1)))
    assert cg.invariant_block(50, [41, 50]) == (41, 50) and cg.invariant_block(51, [41, 50]) == (51, 60)
    assert cg.invariant_block(0, [41, 50]) == (-9, 0)


def test_postprocessing_row_matches_and_a_fixed_public_projection_fails(run):
    status, m = row_verdict("CDP-E7-postprocessing-outside-theorem", run)
    assert status == "match" and m.value == pytest.approx(1.0)
    # the post-processing theorem's g: every x projected onto one database's S*, a function that does not depend on x
    status, m = row_verdict("CDP-E7-postprocessing-outside-theorem", run, confidential_total=50)
    assert status == "differs" and m.value < 1e-9


def test_l1_interval_row_matches_and_fails_at_the_conditional_scale(run):
    status, m = row_verdict("CDP-E7-l1-interval-law", run)
    assert status == "match"
    status, m = row_verdict("CDP-E7-l1-interval-law", run, printed_scale=1.0)  # M*'s Lap(1/ε)
    assert status == "differs" and m.value.min() < 1e-10


def test_gamma_one_row_matches_and_fails_at_gamma_zero(run):
    status, m = row_verdict("CDP-E7-gamma-one-loose", run)
    assert status == "match" and m.value > 0.5
    status, m = row_verdict("CDP-E7-gamma-one-loose", run, gamma=0.0)
    assert status == "differs"


def test_example41_density_row_matches_and_fails_at_the_wrong_scale(run):
    assert row_verdict("CDP-E7-example41-density", run)[0] == "match"
    status, m = row_verdict("CDP-E7-example41-density", run, bin_scale=1.0)
    assert status == "differs" and m.value > 1


def test_dg_pmf_row_matches_and_a_wrong_constant_fails(run, monkeypatch):
    assert row_verdict("CDP-E7-dg-pmf-printed", run)[0] == "match"
    original = cg.dg_logpmf_printed

    def half_constant(u, eps, sensitivity=1.0):  # (1 − a)/2 in place of (1 − a)/(1 + a)
        a = np.exp(-eps / sensitivity)
        return original(u, eps, sensitivity) + np.log((1 + a) / 2)

    monkeypatch.setattr(cg, "dg_logpmf_printed", half_constant)
    status, m = row_verdict("CDP-E7-dg-pmf-printed", run)
    assert status == "differs" and m.value["total mass"] < 0.95


def test_noise_improper_row_matches_and_a_law_with_a_proper_limit_fails(run, monkeypatch):
    assert row_verdict("CDP-E7-noise-improper-limit", run)[0] == "match"
    original = cg.dg_logpmf_printed  # a DG whose spread stops growing below ε = 1: its limit is a proper law
    monkeypatch.setattr(cg, "dg_logpmf_printed", lambda u, eps, sensitivity=1.0: original(u, 1.0, sensitivity))
    status, m = row_verdict("CDP-E7-noise-improper-limit", run)
    assert status == "differs" and m.value > 1e3


def test_posterior_limit_row_matches_and_fails_with_epsilon_as_the_scale(run, monkeypatch):
    status, m = row_verdict("CDP-E7-posterior-limit", run)
    assert status == "match" and 0 < m.value <= 1e-4
    monkeypatch.setattr(cg, "base_scale", lambda eps: 2.0 * eps)  # noise shrinking with ε: the release pins x_i
    status, m = row_verdict("CDP-E7-posterior-limit", run)
    assert status == "differs" and m.value > 0.1


def test_null_set_level_against_the_closed_form_and_a_too_small_scale_fails(run):
    status, m = row_verdict("CDP-E7-null-set-conditioning", run)
    # restricted to the plane, moving a record from bin i to j changes Σ|v| by at most 2: level ε/2 · 2 = ε
    assert status == "match" and m.value == pytest.approx(1.0, abs=1e-9)
    status, m = row_verdict("CDP-E7-null-set-conditioning", run, bin_scale=0.5)
    assert status == "differs" and m.value == pytest.approx(4.0, abs=1e-9)
