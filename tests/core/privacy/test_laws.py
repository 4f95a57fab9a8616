"""Laws on a box (``isdp.privacy._laws``): the hockey-stick divergence is the largest set difference
P(B) − e^ε Q(B) over the sets B (and 0 between a law and itself at ε = 0), and a product law multiplies
probabilities and adds privacy losses."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.privacy import TruncatedLaw


def test_hockey_stick_is_the_largest_set_difference():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    best = max(p[list(b)].sum() - np.e * q[list(b)].sum() for b in ([0], [1], [0, 1], [2], [0, 2]))
    assert TruncatedLaw.hockey_stick_divergence(p, q, 1.0) == pytest.approx(max(best, 0.0))
    assert TruncatedLaw.hockey_stick_divergence(p, p, 0.0) == 0.0


def test_aligned_adds_up_each_laws_mass_on_the_union_of_points():
    rng = np.random.default_rng(5)
    for _ in range(50):
        k, d = rng.integers(1, 40, size=2), int(rng.integers(1, 4))
        laws = [TruncatedLaw(rng.integers(-2, 3, size=(n, d)), rng.random(n), 0.0) for n in k]
        a, b = laws[0].aligned_with(laws[1])
        # the union's points in lexicographic order, each law's probabilities summed on them
        union = sorted({tuple(row) for law in laws for row in law.points.tolist()})
        rows = [list(zip(map(tuple, law.points.tolist()), law.probs, strict=True)) for law in laws]
        want = [[sum(pr for row, pr in pairs if row == pt) for pt in union] for pairs in rows]
        assert np.allclose(a, want[0], rtol=0, atol=1e-12) and np.allclose(b, want[1], rtol=0, atol=1e-12)


def test_product_law_multiplies_probabilities_and_adds_privacy_losses():
    p = TruncatedLaw(np.array([[0], [1]]), np.array([0.25, 0.75]), 0.0)
    q = TruncatedLaw(np.array([[0], [1], [2]]), np.array([0.5, 0.3, 0.2]), 0.01)
    joint = p.product(q)
    assert joint.points.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    np.testing.assert_allclose(joint.probs, [0.125, 0.075, 0.05, 0.375, 0.225, 0.15])
    assert joint.outside == pytest.approx(0.01)
    p2 = TruncatedLaw(p.points, np.array([0.5, 0.5]), 0.0)
    q2 = TruncatedLaw(q.points, np.array([0.2, 0.3, 0.5]), 0.0)
    assert p.product(q).max_privacy_loss(p2.product(q2)) == pytest.approx(
        p.max_privacy_loss(p2) + q.max_privacy_loss(q2)
    )
