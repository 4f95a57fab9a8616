"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.subspace_exact`: the truncated geometric law is the
clamped Double Geometric; the subspaces, their nesting and the neighbour pairs are what the rows say; the aligned
divergences are privacy_audit's; Theorem 3.1's release meets the invariant."""

from __future__ import annotations

import numpy as np
import pytest


def test_truncated_geometric_law_is_the_clamped_double_geometric():
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    from isdp.mcmc import DoubleGeometric

    law = se.truncated_geometric((0, 1, 2, 0), 1.0, 0, 3)
    assert law.probs.sum() == pytest.approx(1, abs=1e-14) and law.outside == 0
    # independent check: clamp a wide window of DG(ε/2) noise cell by cell
    e = np.arange(-60, 61)
    w = DoubleGeometric(0.5).pmf(e)
    for cell, hi in enumerate((0, 1, 2, 0)):
        direct = np.bincount(np.clip(hi + e, 0, 3), weights=w, minlength=4)
        marginal = np.bincount(law.points[:, cell], weights=law.probs, minlength=4)
        np.testing.assert_allclose(marginal, direct, atol=1e-12)


def test_subspaces_neighbours_and_fast_divergences_are_what_the_rows_say():
    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    from isdp.privacy import TruncatedLaw

    S = se.SUBSPACES
    assert not (se.C_ODD @ S["N(C)"]).any() and not (se.C_TOTAL @ S["N(1ᵀ)"]).any()
    assert not (np.vstack([se.C_ODD, se.C_TOTAL]) @ S["N(C) ∩ N(1ᵀ)"]).any()
    rank = np.linalg.matrix_rank
    for big, small in se.NESTED:
        assert rank(np.hstack([S[big], S[small]])) == rank(S[big]) > rank(S[small])
    assert rank(np.hstack([S["N(C)"], S["N(1ᵀ)"]])) > rank(S["N(C)"])  # N(1ᵀ) is not inside N(C)
    pairs = se.neighbours()
    assert len(set(pairs)) == len(pairs) and all((b, a) in pairs for a, b in pairs)
    assert all(sorted(np.subtract(b, a)) == [-1, 0, 0, 1] for a, b in pairs)
    # the aligned divergences are privacy_audit's on the same laws
    h, g = pairs[5]
    p, q = (
        se.project(se.invariant_respecting(se.truncated_geometric(k, 1.0, 0, 3), k, se.C_ODD), S["N(C)"])
        for k in (h, g)
    )
    v = se.aligned({h: p, g: q})
    assert TruncatedLaw.hockey_stick_divergence(v[h], v[g], 0.5) == pytest.approx(
        p.hockey_stick_bound(q, 0.5), abs=1e-15
    )
    assert se.level(v[h], v[g]) == pytest.approx(p.max_privacy_loss(q), abs=1e-12)
    # Thm 3.1's release meets the invariant on every support point, whatever the direction of projection
    for along in (None, [1, 1, 0, 0]):
        z = se.invariant_respecting(se.truncated_geometric(h, 1.0, 0, 3), h, se.C_ODD, along).points
        assert np.all(z @ se.C_ODD == (se.C_ODD @ (se.C_ODD if along is None else along)) * (se.C_ODD @ h))
