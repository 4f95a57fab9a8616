"""Rows SDP-E6-distributed-privatization (Subspace DP §4, distributed privatization with a common seed) and
CDP-E7-postprocessing-within-level-set (Congenial DP §4 (4.4) over Thm 2.1's pairs, beside
CDP-E7-postprocessing-outside-theorem): each row's status on the real measure and its flip under a wrong premise."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict


@pytest.fixture(scope="module")
def run():
    from isdp.experiments.claims import Run

    return Run(ROOT, config=yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))


def test_distributed_row_matches_with_a_common_seed(run):
    status, m = row_verdict("SDP-E6-distributed-privatization", run)
    assert status == "match" and m.value < 1e-12
    assert "projected Laplace 0.0e+00" in m.text  # the assembled releases equal the central ones bit for bit


def test_distributed_row_fails_when_agents_seed_their_own_generators(run):
    status, m = row_verdict("SDP-E6-distributed-privatization", run, shared_seed=False)
    assert status == "differs" and m.value > 1.0


def test_distributed_row_fails_when_the_release_loses_the_invariant(run):
    # clipping at 0 is local (the agents still agree with the central release) but breaks C x
    status, m = row_verdict("SDP-E6-distributed-privatization", run, clip_at=0.0)
    assert status == "differs" and m.value > 1.0
    assert "projected Gaussian 0.0e+00" in m.text


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


def test_within_level_set_row_differs_and_all_pairs_match(run):
    status, m = row_verdict("CDP-E7-postprocessing-within-level-set", run)
    assert status == "differs" and m.value < 1e-9
    # the other a-priori reading (every §1.3 pair, across level sets too): the sister row's δ = 1
    status, m = row_verdict("CDP-E7-postprocessing-within-level-set", run, pairs="all")
    assert status == "match" and m.value == pytest.approx(1.0)
    assert row_verdict("CDP-E7-postprocessing-outside-theorem", run)[1].value == pytest.approx(1.0)


def test_pairs_keyword_is_checked(run):
    with pytest.raises(ValueError, match="pairs"):
        row_verdict("CDP-E7-postprocessing-within-level-set", run, pairs="across")
