"""The projected Gaussian of isdp.baselines under distributed privatization (Subspace DP §4): for a sum constraint one
agent needs only its entry. The rows SDP-E6-distributed-privatization and CDP-E7-postprocessing-within-level-set moved
to tests/experiments/e6_spatiotemporal_gaussian/measures/ and tests/experiments/e7_congenial_histogram/measures/."""

from __future__ import annotations

import numpy as np
import pytest


def test_one_agent_needs_only_its_entry_for_a_sum_constraint():
    # independent of the measure: for one total, Π e = e − mean(e), so agent i's entry is x_i + e_i − mean(e)
    from isdp.baselines import projected_gaussian

    x, A = np.arange(6, dtype=float), np.ones((1, 6), dtype=np.int64)
    e = np.random.default_rng(7).normal(0.0, 1.0, (1, 6))
    central = projected_gaussian(x, A, 1.0, 1, np.random.default_rng(7))
    for i in range(6):
        local = np.where(np.arange(6) == i, x, 0.0)
        agent = projected_gaussian(local, A, 1.0, 1, np.random.default_rng(7))[0, i]
        assert agent == central[0, i] == pytest.approx(x[i] + e[0, i] - e.mean())
