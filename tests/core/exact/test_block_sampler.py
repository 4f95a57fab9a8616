"""The release's exact sampler block by block (isdp.exact.ExactSampler): blocks, shared samplers, routes.

Its joint law is tested against enumeration in tests/core/release/test_release.py.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from isdp.exact import ExactSampler, IntegerL1Sampler, LatticeBlock, seeded_source
from isdp.lattice import table_margins

TWO_TOTALS_AND_A_FREE_CELL = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])


def test_blocks_with_the_same_invariants_share_one_sampler_vetted_once_largest_first():
    vetted = []
    sampler = ExactSampler.build(TWO_TOTALS_AND_A_FREE_CELL, vet=vetted.append)
    cells = [c.tolist() for c, _ in sampler.parts]
    assert cells == [[0, 1], [2, 3], [4]] and sampler.parts[0][1] is sampler.parts[1][1]
    assert [len(v.free) + len(v.solved) for v in vetted] == [2, 1]
    assert sampler.solved.tolist() == [1, 3] and sampler.n_free == 3


def test_a_block_without_an_integral_solve_leaves_no_sampler():
    assert ExactSampler.build(np.array([[1, 1, 0, 0], [0, 0, 2, 3]])) is None


def test_each_block_keeps_its_invariants_and_reports_its_progress():
    sampler, blocks_done = ExactSampler.build(TWO_TOTALS_AND_A_FREE_CELL), []
    noise, attempts = sampler.draw(Fraction(1), seeded_source(6), max_attempts=1000,
                                   on_block=blocks_done.append)
    assert not np.any(TWO_TOTALS_AND_A_FREE_CELL @ noise) and attempts >= 3 and sum(blocks_done) == 3


def test_the_gaussian_route_draws_totals_and_margins_by_klein_s_sampler_only():
    sampler = ExactSampler.build(TWO_TOTALS_AND_A_FREE_CELL, gaussian=True)
    kinds = [type(sub) for _, sub in sampler.parts]
    assert kinds == [LatticeBlock, LatticeBlock, IntegerL1Sampler] and sampler.n_free == 3
    sigma = Fraction(2)
    noise, _ = sampler.draw(1 / sigma, seeded_source(7), max_attempts=1000, sigma=sigma)
    assert not np.any(TWO_TOTALS_AND_A_FREE_CELL @ noise)
    with pytest.raises(ValueError, match="Gaussian route only"):
        sampler.draw(Fraction(1), seeded_source(7), max_attempts=10)
    with pytest.raises(ValueError, match="a Gaussian route's sampler has none"):
        sampler.variances(Fraction(1))
    margins = ExactSampler.build(table_margins(2, 3), gaussian=True)
    assert isinstance(margins.parts[0][1], LatticeBlock) and margins.n_free == 2
