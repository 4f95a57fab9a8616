"""Tests of :mod:`isdp_papers.e7_congenial_histogram.rounding`: Example 5.2's rounded count, its secrecy level
against brute force over the sums, and the projection onto S* that releases the query itself."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e7_congenial_histogram import rounding as rnd


def test_rounding_secrecy_singleton_and_a_wider_range():
    res = rnd.rounding_secrecy(21, 30, 10, 0.7)
    assert res["s_star"] == [3] and res["level"] == 0 and res["gamma"] == -1
    eps = 0.9
    res = rnd.rounding_secrecy(18, 33, 10, eps)
    assert res["s_star"] == [2, 3, 4]
    # brute force: conditional pmf on S* for each sum, largest log ratio between consecutive sums
    worst = 0.0
    for s in range(18, 33):
        p = [np.exp(-eps * abs(m - -(-s // 10))) for m in (2, 3, 4)]
        q = [np.exp(-eps * abs(m - -(-(s + 1) // 10))) for m in (2, 3, 4)]
        worst = max(worst, *(abs(np.log(pi / sum(p)) - np.log(qi / sum(q))) for pi, qi in zip(p, q, strict=True)))
    assert np.isclose(res["level"], worst) and 0 < res["level"] <= 2 * eps


def test_example52_projection_releases_the_query_itself():
    # the 'extreme scenario': S*(x) = {s(x)}, so f(M(x); S*(x)) = s(x) with certainty, at every ε
    out = np.arange(-1, 13)
    for total in (41, 50, 51):
        pmf = rnd.projected_rounding_pmf(total, 0.5, 10, [int(np.ceil(total / 10))], out)
        assert pmf[out == int(np.ceil(total / 10))][0] == 1.0 and pmf.sum() == 1.0
    # a multi-value S*: the clamp keeps DG's mass, piled at the ends
    pmf = rnd.projected_rounding_pmf(45, 1.0, 10, [4, 5, 6], out)
    assert pmf.sum() == pytest.approx(1.0) and pmf[out == 5][0] == pytest.approx((1 - np.exp(-1)) / (1 + np.exp(-1)))
    assert rnd.invariant_block(50, [41, 50]) == (41, 50) and rnd.invariant_block(51, [41, 50]) == (51, 60)
    assert rnd.invariant_block(0, [41, 50]) == (-9, 0)
