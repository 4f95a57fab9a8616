"""The helpers several experiments' measures share: the two-sample chi-square test of one law."""

from __future__ import annotations

import numpy as np
from isdp_papers.measure_helpers import two_sample_chi2


def test_two_sample_chi2_power_and_size():
    rng = np.random.default_rng(0)
    same = [two_sample_chi2(rng.poisson(5, 500), rng.poisson(5, 500))[2] for _ in range(200)]
    assert 0.02 < np.mean(np.array(same) < 0.05) < 0.1  # about the nominal size
    assert two_sample_chi2(rng.poisson(5, 500), rng.poisson(6, 500))[2] < 1e-3  # power
    assert two_sample_chi2(np.zeros(10), np.zeros(10)) == (0.0, 0, 1.0)


def test_two_sample_chi2_keeps_its_size_at_the_small_unequal_samples_of_the_mis_check():
    # CDP-E5-mis-exact compares 100 releases with 50 exact draws of a sparse integer cell (pooling values
    # seen fewer than 10 times); an anti-conservative test there would turn chance into a 'differs'
    rng = np.random.default_rng(1)
    cell = lambda n: rng.geometric(0.35, n) - rng.geometric(0.35, n) + 3  # noqa: E731 (a two-sided count)
    p = np.array([two_sample_chi2(cell(100), cell(50))[2] for _ in range(1000)])
    for alpha in (0.01, 0.05):  # at most the level plus 3 binomial SE of 1000 tests
        assert np.mean(p < alpha) <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / 1000)
