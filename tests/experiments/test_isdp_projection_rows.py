"""ISDP rows on what post-processing and i.i.d. noise do to invariants and to the error law (E1–E4): non-negative
projection bias and data dependence, the release's data independence, the discrete Gaussian's broken totals and the
sparser lattice. Each criterion matches on the right law and differs on a plausibly wrong one."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.double_geometric import dg_pmf
from isdp.exact_laws import sum_constraint_acceptance
from isdp.experiments import claims
from isdp.experiments.e1_intersecting import problem as e1_problem
from isdp.experiments.lattice_study.theory import iid_invariant_probability

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="module")
def run() -> claims.Run:
    """The rows read only the config and committed inputs."""
    return claims.Run(ROOT, CONFIG, repo=ROOT)


# --------------------------------------------------------------------------- the exact probability


@pytest.mark.parametrize("n", [2, 5, 40])
def test_iid_invariant_probability_of_a_sum_is_the_closed_form(n):
    eps = 0.3
    k = np.arange(-200, 201)
    a = np.exp(-eps)
    p, bound, _ = iid_invariant_probability(np.ones((1, n)), dg_pmf(k, eps))
    assert bound <= 1e-12
    assert p == pytest.approx(sum_constraint_acceptance(n, eps) * (1 - a) / (1 + a), rel=1e-10)


def test_iid_invariant_probability_of_three_overlapping_counts_is_the_enumerated_one():
    """Three counts sharing cells (one with weight 2), against brute-force enumeration of i.i.d. DG on a box."""
    A = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 1], [0, 0, 2, 1, 1]])
    eps, radius = 2.0, 10  # DG mass beyond the box: below 1e-8 per cell
    k = np.arange(-radius, radius + 1)
    pmf = dg_pmf(k, eps)
    u = np.array(list(itertools.product(k, repeat=A.shape[1])))
    weight = np.prod(pmf[u + radius], axis=1)
    enumerated = weight[np.all(u @ A.T == 0, axis=1)].sum()
    p, bound, _ = iid_invariant_probability(A, dg_pmf(np.arange(-40, 41), eps))
    assert bound <= 1e-12
    assert p == pytest.approx(enumerated, rel=1e-6)


# --------------------------------------------------------------------------- E1: a sparser lattice


@pytest.mark.parametrize("row", ["ISDP-E1-sparser-dimension", "ISDP-E1-sparser-acceptance"])
def test_sparser_rows_fail_when_an_invariant_is_implied_by_the_others(run, row, monkeypatch):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    A = e1_problem.intersecting_constraints_problem(CONFIG["e1"]["x"], CONFIG["e1"]["records_per_region"]).A
    for implied in (A[0], A[0] + A[1]):  # the first count again; the sum of the first two
        monkeypatch.setattr(e1_problem, "intersecting_constraints_problem",
                            lambda *_, third=implied: SimpleNamespace(A=np.vstack([A[:2], third])))
        status, m = row_verdict(row, run)
        assert status == "differs", m.text
        assert m.value["k3"] == m.value["k2"]


# --------------------------------------------------------------------------- E2: the release's data independence


def test_release_data_independence_row_fails_with_the_nonnegative_post_processing(run):
    status, m = row_verdict("ISDP-E2-data-independence", run)
    assert (status, m.value) == ("match", 0), m.text
    status, m = row_verdict("ISDP-E2-data-independence", run, nonnegative=True)
    assert status == "differs" and m.value > 0, m.text


# --------------------------------------------------------------------------- E3: the discrete Gaussian's totals


def test_discrete_gaussian_total_row_fails_for_noise_too_small_to_move_a_count(run):
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", run)
    assert status == "match" and 0 < m.value < 0.5, m.text
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", run, sigma=0.3)
    assert status == "differs", m.text


# --------------------------------------------------------------------------- E4: non-negative projection


def test_nonnegative_projection_bias_row_fails_without_the_nonnegativity(run):
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run, nonnegative=False)
    assert status == "differs", m.text


def test_projection_data_dependence_row_fails_for_a_projection_whose_error_ignores_the_counts(run):
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run, nonnegative=False)
    assert status == "differs", m.text
