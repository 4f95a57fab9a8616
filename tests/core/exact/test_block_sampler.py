"""The release's exact sampler block by block (isdp.exact.ExactSampler): blocks, shared samplers, routes.

Its joint law is tested against enumeration in tests/core/release/test_release.py.
"""

from __future__ import annotations

from fractions import Fraction
from random import Random

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

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
    noise, attempts = sampler.draw(Fraction(1), seeded_source(6), max_attempts=1000, on_block=blocks_done.append)
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


def test_a_block_beyond_the_dense_limit_is_refused_before_its_solve(monkeypatch):
    """Both margins of 1000 × 1000 became a dense 2000 × 10⁶ matrix (14.9 GiB) and a MemoryError; 300 × 300 was
    refused by the forecast after 138 s and 2.9 GB. Here with the limit lowered to 1,000 rows × cells: a 30 × 30
    block's 60 × 900 is refused at once, with its size and the limit; the Gaussian route draws it by Klein's."""
    import time

    from scipy import sparse

    from isdp.errors import UncertifiableError
    from isdp.exact import _block_sampler

    assert _block_sampler.DENSE_BLOCK_LIMIT == 2 * 10**7
    monkeypatch.setattr(_block_sampler, "DENSE_BLOCK_LIMIT", 1000)
    margins = sparse.csr_array(table_margins(30, 30))
    start = time.perf_counter()
    with pytest.raises(UncertifiableError, match="a block of 900 cells under 60 invariants .* limit of 1,000 rows"):
        ExactSampler.build(margins)
    assert time.perf_counter() - start < 1
    assert isinstance(ExactSampler.build(margins, gaussian=True).parts[0][1], LatticeBlock)
    assert ExactSampler.build(sparse.csr_array(table_margins(6, 6))).n_free == 25  # 12 × 36: within the limit


#: blocks whose samplers build with no derived cell or any one (the weighted total's cell of 2 never derived): totals,
#: a weighted total, and rows over 4 cells: two alike in rows, cells and non-zeros, unlike in their cells, and two
#: whose rows' cells read the same one after the other, unlike in where each row ends
_TEMPLATES = [
    [[1, 1]],
    [[1, 1, 1]],
    [[1, 2, 1]],
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]],
    [[1, 1, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0]],
    [[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 1, 1]],
    [[1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 1, 1]],
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, len(_TEMPLATES) - 1), st.integers(-1, 3)), min_size=1, max_size=12),
    st.booleans(),
    st.randoms(use_true_random=False),
)
@example(chosen=[(5, -1), (6, -1), (5, -1)], interleave=False, random=Random(0))  # the last two only in row ends
def test_blocks_share_a_sampler_exactly_when_their_invariants_and_derived_cells_are_alike(chosen, interleave, random):
    """Blocks compared at once with the first of their shape: the same sampler object for the same rows, local cells,
    coefficients and derived cells, another wherever one differs."""
    from scipy import sparse

    chosen = [(t, -1 if (t, d) == (2, 1) else d) for t, d in chosen]
    parts = [np.array(_TEMPLATES[t]) for t, _ in chosen]
    A = sparse.block_diag(parts).toarray()
    derived = np.concatenate(
        [np.arange(p.shape[1]) == (d if d < p.shape[1] else -1) for p, (_, d) in zip(parts, chosen, strict=True)]
    )
    order = list(range(A.shape[1]))
    if interleave:  # blocks' cells interleaved: each block's local cells follow the global order
        random.shuffle(order)
    A, derived = A[:, order], derived[order]
    sampler = ExactSampler.build(sparse.csr_array(A), derived=derived)

    def key(cells):
        local = A[:, cells]
        return local[local.any(axis=1)].tobytes(), local.shape, derived[cells].tobytes()

    keys = [key(cells) for cells, _ in sampler.parts]
    for i, (_, a) in enumerate(sampler.parts):
        for j, (_, b) in enumerate(sampler.parts):
            assert (a is b) == (keys[i] == keys[j]), (i, j)
