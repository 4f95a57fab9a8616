"""Tests of one Fig 1 table (:func:`isdp_papers.e5_congenial_mis.mis_study.simulate_table`): its MIS chains run on,
a block of stored draws at a time, while their split R-hat reaches the gate, and at most ``max_blocks`` blocks."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e5_congenial_mis import mis_study as ms

from isdp.lattice import check_release

# a 2 × 3 table under E5's three invariants (total, first row, the last two columns); I^c = {0, 2, 5} is unimodular
A = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0], [0, 1, 1, 0, 1, 1]])
X = np.array([3, 1, 2, 2, 1, 3])
INDEX_SET = [1, 3, 4]
CERTIFICATE = {"pairs": 200, "threshold": 0.2, "max_iter": 100_000, "margin": 0.5}


def _table(r_hat_max: float, max_blocks: int):
    cfg = {
        "n_releases": 20,
        "eps_raw": 1.0,
        "eps_mis": 0.5,
        "mis": {
            "n_chains": 2,
            "burn_in": 200,
            "draws_per_chain": 50,
            "thin": 5,
            "r_hat_max": r_hat_max,
            "max_blocks": max_blocks,
        },
    }
    seeds = {"noise_seed": 1, "mis_seed": 2, "certificate_seed": 3}
    return ms.simulate_table(0, X, A, INDEX_SET, cfg, 0.6, certificate=CERTIFICATE, **seeds)


def test_chains_that_pass_the_gate_run_one_block():
    (_, _, mis, _), row, conv = _table(r_hat_max=100.0, max_blocks=3)
    assert row["blocks"] == 1 and conv["max_r_hat"] < 100.0
    assert mis.shape == (20, 6)
    check_release(mis, A, A @ X)


def test_chains_that_never_pass_run_every_block_then_the_step_fails():
    (_, _, mis, _), row, conv = _table(r_hat_max=1.0 + 1e-12, max_blocks=3)
    assert row["blocks"] == 3
    assert mis.shape == (20, 6)  # still n_releases, evenly spaced over the three blocks' draws
    check_release(mis, A, A @ X)
    assert mis.min() >= 0
    with pytest.raises(RuntimeError, match="after e5.simulation.mis.max_blocks blocks"):
        ms.check_converged(0, conv, 1.0 + 1e-12)


def test_a_table_with_blocks_is_seeded_and_certified_once():
    first = _table(r_hat_max=1.0 + 1e-12, max_blocks=2)
    again = _table(r_hat_max=1.0 + 1e-12, max_blocks=2)
    one = _table(r_hat_max=100.0, max_blocks=2)
    assert np.array_equal(first[0][2], again[0][2])  # same seeds, same releases
    assert first[1]["burn_in"] == one[1]["burn_in"]  # the certificate and burn-in come before any block
