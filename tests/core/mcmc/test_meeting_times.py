"""The meeting-times record and the point estimate of the L-lag bound (isdp.mcmc.MeetingTimes, tv_upper_bound,
convergence_iteration), by hand."""

from __future__ import annotations

import numpy as np

from isdp.mcmc import MeetingTimes
from isdp.mcmc._meeting_times import convergence_iteration, tv_upper_bound


def test_tv_upper_bound_arithmetic():
    tau, lag = np.array([3, 5, 10]), 2
    # ceil((τ - L - t)/L) by hand: t=0 → 1, 2, 4; t=1 → 0, 1, 4; t=2 → 0, 1, 3; t=3 → 0, 0, 3;
    # t=6 → 0, 0, 1; t=7 → 0, 0, 1 (ceil(1/2)); t=8 → 0
    ts = [0, 1, 2, 3, 6, 7, 8, 20]
    expected = np.array([7, 5, 4, 3, 1, 1, 0, 0]) / 3
    np.testing.assert_allclose(tv_upper_bound(tau, lag, ts), expected)
    np.testing.assert_allclose(tv_upper_bound(tau, lag, 3), [1.0])
    # lag 1: mean of max(0, τ - 1 - t)
    np.testing.assert_allclose(tv_upper_bound([2, 4], 1, [0, 1, 2, 3]), [2, 1, 0.5, 0])
    assert convergence_iteration(tau, lag, 0.5) == 6
    assert convergence_iteration(tau, lag, 1.5) == 2
    assert convergence_iteration(tau, lag, 0.01) == 8
    mt = MeetingTimes(tau=tau, met=np.ones(3, bool), lag=lag, seconds=0.0)
    np.testing.assert_allclose(mt.tv_bound(ts), expected)
    assert mt.convergence_iteration(0.5) == 6
