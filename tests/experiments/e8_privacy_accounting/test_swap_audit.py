"""Tests of :mod:`isdp_papers.e8_privacy_accounting.swap_audit`: the approximate (δ > 0) privacy loss per unit
of permutation swapping is the root of the hockey-stick divergence, found here by brute force over every pair of
neighbouring datasets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from isdp_papers.e8_privacy_accounting.swap_audit import approximate_loss_per_unit, universe_log_laws
from scipy import optimize


def test_approximate_loss_is_the_hockey_stick_root():
    h, k, p, delta = [0, 1, 2, 3], [0, 1, 2, 3], 0.05, 1e-2
    log_p, distance = universe_log_laws(h, k, p)
    prob, best = np.exp(log_p), 0.0
    for i, j in itertools.permutations(range(len(prob)), 2):

        def excess(e, i=i, j=j):
            return np.sum(np.maximum(prob[i] - np.exp(e) * prob[j], 0.0)) - delta

        eps = 0.0 if excess(0.0) <= 0 else optimize.brentq(excess, 0.0, 50.0, xtol=1e-14)
        best = max(best, eps / distance[i, j])
    assert approximate_loss_per_unit(h, k, p, delta) == pytest.approx(best, rel=1e-9)
