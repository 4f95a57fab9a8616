"""Tests of :mod:`isdp.experiments.lattice_study.measures.stopped_chain`: the chain stopped after finitely many
iterations (ISDP §4). ISDP-E1-stopped-chain-cost matches (a stopped chain started at 0 loses more privacy than its
target) and differs for a chain started at the target, which stays there."""

from __future__ import annotations

import numpy as np
from lattice_support import registry_row, row_status

import isdp.privacy_audit
from isdp.exact_laws import enumerate_target
from isdp.experiments.evidence import Run
from isdp.experiments.lattice_study.measures import stopped_chain
from isdp.privacy_audit import Law


def test_a_stopped_chain_costs_more_than_its_target_and_a_chain_started_at_the_target_does_not(monkeypatch):
    c = registry_row("ISDP-E1-stopped-chain-cost")
    m = stopped_chain.stopped_chain_loss(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match" and m.value > 1.01, m.text

    def stationary(lattice, target, proposal_eps, iterations, radius):  # started from π, the chain stays there
        points, probs, _ = enumerate_target(lattice, target, radius)
        return [Law(np.asarray(points, dtype=np.int64), probs, 0.0) for _ in iterations]

    monkeypatch.setattr(isdp.privacy_audit, "chain_noise_path", stationary)
    m = stopped_chain.stopped_chain_loss(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "differs" and abs(m.value - 1) < 1e-9, m.text
