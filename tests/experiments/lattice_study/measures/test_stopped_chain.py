"""Tests of :mod:`isdp_papers.lattice_study.measures.stopped_chain`: the chain stopped after finitely many
iterations (ISDP §4). ISDP-E1-stopped-chain-cost matches (a stopped chain started at 0 loses more privacy than its
target) and differs for a chain started at the target, which stays there; ISDP-E1-iterations-delta-tradeoff matches
(more iterations buy a smaller δ) and differs for a chain that stops improving after one iteration."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import row_verdict
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.measures import stopped_chain
from lattice_support import registry_row, row_status

import isdp.privacy
from isdp.exact import enumerate_target
from isdp.privacy import TruncatedLaw


@pytest.fixture
def uncached():
    """Clears the chain the module caches per process, for a test that patches what computes it; and after it."""
    stopped_chain._stopped_chain_cached.cache_clear()
    yield stopped_chain._stopped_chain_cached.cache_clear
    stopped_chain._stopped_chain_cached.cache_clear()


def test_a_stopped_chain_costs_more_than_its_target_and_a_chain_started_at_the_target_does_not(monkeypatch, uncached):
    c = registry_row("ISDP-E1-stopped-chain-cost")
    m = stopped_chain.stopped_chain_loss(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match" and m.value > 1.01, m.text

    def stationary(lattice, target, proposal_eps, iterations, radius):  # started from π, the chain stays there
        points, probs, _ = enumerate_target(lattice, target, radius)
        return [TruncatedLaw(np.asarray(points, dtype=np.int64), probs, 0.0) for _ in iterations]

    monkeypatch.setattr(isdp.privacy, "chain_noise_path", stationary)
    uncached()
    m = stopped_chain.stopped_chain_loss(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "differs" and abs(m.value - 1) < 1e-9, m.text


# --------------------------------------------------------------------------- ISDP-E1-iterations-delta-tradeoff


def test_more_iterations_buy_a_smaller_delta(run):
    status, m = row_verdict("ISDP-E1-iterations-delta-tradeoff", run)
    assert status == "match" and m.value < 0.9


def test_a_chain_that_stops_improving_fails_the_tradeoff(run, monkeypatch):
    """Control: the law after one iteration repeated at every t (a stuck chain) keeps its δ, ratio 1."""
    stopped = stopped_chain._stopped_chain

    def stuck(eps, proposal_eps, radius, iterations):
        x, v, budget, pi, laws = stopped(eps, proposal_eps, radius, iterations[:1])
        return x, v, budget, pi, [(t, laws[0][1]) for t in iterations]

    monkeypatch.setattr(stopped_chain, "_stopped_chain", stuck)
    status, m = row_verdict("ISDP-E1-iterations-delta-tradeoff", run)
    assert status == "differs" and m.value == pytest.approx(1.0)
