"""Klein's sampler compiled (``isdp.exact._compiled_klein``): the Python pass's blocks on the same words, the
hand-over of the blocks it cannot decide, and the exact lattice Gaussian against enumeration."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof, rows_to_categories

import isdp.exact._compiled_klein as compiled_klein
from isdp.exact import LatticeBlock
from isdp.exact._compiled_draws import WordSource
from isdp.exact._discrete_gaussian import geometric_in_doubles

SHAPES = [("total", (1, 5)), ("margins", (3, 4))]


def _reference(block, sigma2, count, stream):
    reader = WordSource(stream)
    draws = [block.draw(sigma2, reader) for _ in range(count)]
    return np.array([noise for noise, _ in draws]), sum(attempts for _, attempts in draws)


@pytest.mark.parametrize(("kind", "shape"), SHAPES)
@pytest.mark.parametrize("sigma2", [Fraction(9, 2), Fraction(1, 5)])  # 1/5: every block handed to Python
@pytest.mark.parametrize("first_words", [1 << 12, 5])  # 5: the words run out again and again, mid-block
def test_the_compiled_blocks_are_the_python_blocks_on_the_same_words(kind, shape, sigma2, first_words, monkeypatch):
    monkeypatch.setattr(compiled_klein, "_FIRST_WORDS", first_words)
    monkeypatch.setattr(compiled_klein, "_MAX_WORDS", max(first_words, 64))
    monkeypatch.setattr(compiled_klein, "_PYTHON_CELLS", 0)  # the kernel even for these few cells
    block = LatticeBlock(np.arange(shape[0] * shape[1]).reshape(shape), kind)
    fast, attempts = block.draw_blocks(sigma2, 200, ByteStream(1))
    slow, reference_attempts = _reference(block, sigma2, 200, ByteStream(1))
    assert np.array_equal(fast, slow) and attempts == reference_attempts
    assert not (fast.reshape(200, *shape).sum(axis=-1)).any()


def test_the_kernel_decides_the_integer_part_as_the_python_pass_does():
    """The compiled twin of :func:`isdp.exact._discrete_gaussian.geometric_in_doubles` on the same words and scales."""
    rng = np.random.default_rng(8)
    words = [*rng.integers(0, 2**63, 5_000).tolist(), 0, 1, 2**12 - 1, 2**12, 2**63 - 1]
    for t in (1, 2, 7, 1000, 2**40):
        assert [compiled_klein._geometric(w, t) for w in words] == [geometric_in_doubles(w, t) for w in words]


def test_the_word_comparison_can_fail(monkeypatch):
    monkeypatch.setattr(compiled_klein, "_PYTHON_CELLS", 0)
    block = LatticeBlock(np.arange(5).reshape(1, 5), "total")
    fast, _ = block.draw_blocks(Fraction(9, 2), 50, ByteStream(1))
    assert not np.array_equal(fast, _reference(block, Fraction(9, 2), 50, ByteStream(2))[0])


def test_only_the_blocks_it_cannot_decide_are_handed_over(monkeypatch):
    monkeypatch.setattr(compiled_klein, "_PYTHON_CELLS", 0)
    handed = []
    block = LatticeBlock(np.arange(12).reshape(3, 4), "margins")
    original = block._coordinates
    monkeypatch.setattr(LatticeBlock, "_coordinates", lambda self, *a: handed.append(1) or original(*a))
    block.draw_blocks(Fraction(9, 2), 300, ByteStream(3))
    assert handed == []  # at σ_k ≥ 1 the double-precision bounds decide (each fails with probability ~2**-40)
    block.draw_blocks(Fraction(1, 5), 30, ByteStream(3))
    assert len(handed) == 30  # narrow σ_k: no closed-form bound on the acceptance, so Python decides


@pytest.mark.parametrize(
    ("kind", "shape", "sigma2"), [("total", (1, 4), Fraction(3, 2)), ("margins", (3, 3), Fraction(2))]
)
def test_the_compiled_blocks_follow_the_lattice_gaussian(kind, shape, sigma2):
    """40,000 blocks in one call against D_{Λ,σ} enumerated on the coordinates' box [-6, 6]^dim (outside it
    < 1e-6 of the mass); the test can fail: the law at 1.2 σ² is refused on the same draws."""
    block = LatticeBlock(np.arange(shape[0] * shape[1]).reshape(shape), kind)
    noise, _ = block.draw_blocks(sigma2, 40_000, ByteStream(4, 1 << 26))
    z = np.array(list(itertools.product(range(-6, 7), repeat=block.dim)))
    points = np.array([block.noise(v.reshape((-1,) if kind == "total" else (shape[0] - 1, shape[1] - 1))) for v in z])
    categories = rows_to_categories(noise, points)
    for s2, expect in ((sigma2, True), (sigma2 * Fraction(6, 5), False)):
        log = -(points.astype(float) ** 2).sum(axis=1) / (2 * float(s2))
        probs = np.exp(log - log.max())
        assert (chisquare_gof(categories, probs / probs.sum()) > ALPHA) == expect


def test_a_million_cells_keep_their_totals_and_the_variance():
    block = LatticeBlock(np.arange(100).reshape(1, 100), "total")
    noise, attempts = block.draw_blocks(Fraction(36), 10_000, ByteStream(5, 1 << 26))
    assert attempts == 10_000 and not noise.sum(axis=1).any()
    variance = (noise.astype(float) ** 2).mean()
    expected = block.variances(Fraction(36))[0]  # σ²(1 − 1/n), the lattice's own at σ = 6 in double precision
    se = (noise.astype(float) ** 2).mean(axis=1).std(ddof=1) / math.sqrt(10_000)
    assert abs(variance - expected) < 4 * se


def test_a_few_cells_are_drawn_in_python_with_the_kernel_s_draws(monkeypatch):
    """Below _PYTHON_CELLS the kernel is not loaded (it costs more than the draws); the draws are the same."""
    block = LatticeBlock(np.arange(12).reshape(3, 4), "margins")
    assert 100 * 12 <= compiled_klein._PYTHON_CELLS
    python = block.draw_blocks(Fraction(9, 2), 100, ByteStream(6))
    monkeypatch.setattr(compiled_klein, "_PYTHON_CELLS", 0)
    kernel = block.draw_blocks(Fraction(9, 2), 100, ByteStream(6))
    assert np.array_equal(python[0], kernel[0]) and python[1] == kernel[1]
