"""The compiled ℓ1 rejection (``isdp.exact._compiled_l1``): the reference's blocks on the same words, the
exact law against enumeration, the hand-over to Python integers, and the blocks that keep nothing."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof, rows_to_categories

import isdp.exact._compiled_l1 as compiled_l1
from isdp.exact import IntegerL1Sampler, seeded_source
from isdp.exact._compiled_draws import WordSource
from isdp.lattice import table_margins

TOTAL = np.array([[1, 1, 1, 1]])
CASES = [  # (invariants, ε, σ, accept)
    (TOTAL, Fraction(1, 2), None, True),
    (TOTAL, Fraction(1, 2), None, False),
    (table_margins(2, 3), Fraction(7, 5), None, True),
    (TOTAL, Fraction(1, 3), Fraction(3), True),
    (np.array([[1, 2, 3]]), Fraction(1), None, True),  # solve coefficients other than ±1
]


def _reference(sampler, eps, count, stream, **kw):
    reader = WordSource(stream)
    rows = [compiled_l1.reference_block(sampler.solve, sampler.in_norm, eps, reader, **kw) for _ in range(count)]
    return [row for row, _ in rows], sum(attempts for _, attempts in rows)


@pytest.mark.parametrize(("A", "eps", "sigma", "accept"), CASES)
@pytest.mark.parametrize("first_words", [1 << 12, 3])  # 3: the words run out again and again, mid-block
def test_the_compiled_blocks_are_the_reference_blocks_on_the_same_words(
    A, eps, sigma, accept, first_words, monkeypatch
):
    monkeypatch.setattr(compiled_l1, "_FIRST_WORDS", first_words)
    monkeypatch.setattr(compiled_l1, "_MAX_WORDS", max(first_words, 64))
    monkeypatch.setattr(compiled_l1, "_PYTHON_CELLS", 0)  # the kernel even for a few cells
    sampler = IntegerL1Sampler.build(A)
    kw = {"max_attempts": 10**6, "sigma": sigma, "accept": accept}
    fast, attempts = compiled_l1.compiled_blocks(sampler.solve, sampler.in_norm, eps, 300, ByteStream(1), **kw)
    rows, reference_attempts = _reference(sampler, eps, 300, ByteStream(1), **kw)
    assert fast.tolist() == rows and attempts == reference_attempts
    assert attempts == 300 or (accept and attempts > 300)


def test_the_word_comparison_can_fail(monkeypatch):
    monkeypatch.setattr(compiled_l1, "_PYTHON_CELLS", 0)
    sampler = IntegerL1Sampler.build(TOTAL)
    fast, _ = compiled_l1.compiled_blocks(
        sampler.solve, sampler.in_norm, Fraction(1, 2), 100, ByteStream(1), max_attempts=1000
    )
    rows, _ = _reference(sampler, Fraction(1, 2), 100, ByteStream(2), max_attempts=1000)
    assert fast.tolist() != rows


def test_a_block_whose_integers_could_overflow_is_drawn_in_python_integers_from_the_same_words(monkeypatch):
    """Solve coefficients near 2**58: the kernel hands such blocks to the reference, mid-stream."""
    X = np.array([[1 << 58, -(1 << 58) + 3], [1, 1]], dtype=np.int64)
    norm = np.array([True, True])
    kw = {"max_attempts": 10**6, "sigma": None, "accept": False}
    monkeypatch.setattr(compiled_l1, "_PYTHON_CELLS", 0)
    handed = []
    reference = compiled_l1.reference_block
    monkeypatch.setattr(compiled_l1, "reference_block", lambda *a, **k: handed.append(1) or reference(*a, **k))
    fast, _ = compiled_l1.compiled_blocks(X, norm, Fraction(1, 2), 50, ByteStream(3), **kw)
    reader = WordSource(ByteStream(3))
    rows = [reference(X, norm, Fraction(1, 2), reader, **kw)[0] for _ in range(50)]
    assert fast.tolist() == rows and 0 < len(handed) < 50
    assert any(abs(r[2]) > 2**60 for r in rows) and fast.dtype == np.int64


def test_an_epsilon_beyond_the_kernel_is_drawn_in_python_integers():
    sampler = IntegerL1Sampler.build(TOTAL)
    eps = Fraction(2**31 + 1, 2**30)  # numerator past the kernel's 2**31
    fast, attempts = compiled_l1.compiled_blocks(
        sampler.solve, sampler.in_norm, eps, 20, ByteStream(4), max_attempts=1000
    )
    rows, reference_attempts = _reference(sampler, eps, 20, ByteStream(4), max_attempts=1000)
    assert fast.tolist() == rows and attempts == reference_attempts


def _enumerated(sampler, eps, sigma, radius):
    """The exact law on the lattice points of the box: ∝ exp(−ε‖u‖₁) or exp(−‖u‖²/2σ²)."""
    grid = np.stack(np.meshgrid(*[np.arange(-radius, radius + 1)] * len(sampler.free), indexing="ij"), -1)
    z = grid.reshape(-1, len(sampler.free))
    u = np.zeros((len(z), sampler.A.shape[1]), dtype=np.int64)
    u[:, sampler.free], u[:, sampler.solved] = z, z @ sampler.solve.T
    log = -float(eps) * np.abs(u).sum(axis=1) if sigma is None else -(u**2).sum(axis=1) / (2 * float(sigma) ** 2)
    p = np.exp(log - log.max())
    return u, p / p.sum()


@pytest.mark.parametrize(("eps", "sigma"), [(Fraction(1, 2), None), (Fraction(1, 2), Fraction(2))])
def test_the_compiled_blocks_follow_the_exact_law(eps, sigma):
    """A total over three cells, 40,000 blocks in one call, against the law enumerated on a box whose outside
    holds < 1e-6 of the mass; the test can fail: the law at 1.1 ε is refused on the same draws."""
    sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
    noise, _ = sampler.draw_blocks(eps, 40_000, seeded_source(5), max_attempts=10**6, sigma=sigma)
    points, probs = _enumerated(sampler, eps, sigma, 30)
    categories = rows_to_categories(noise, points)
    assert chisquare_gof(categories, probs) > ALPHA
    wrong = _enumerated(sampler, eps * Fraction(11, 10), None if sigma is None else sigma * Fraction(10, 11), 30)[1]
    assert chisquare_gof(categories, wrong) < ALPHA


def test_blocks_that_keep_nothing_say_so_with_the_attempts_made():
    sampler = IntegerL1Sampler.build(table_margins(6, 6))  # about one proposal in a million kept at ε = 1/20
    assert sampler.draw_blocks(Fraction(1, 20), 5, seeded_source(1), max_attempts=7) == (None, 7)


def test_a_few_cells_are_drawn_in_python_with_the_kernel_s_draws(monkeypatch):
    sampler = IntegerL1Sampler.build(TOTAL)
    assert 10 * 4 <= compiled_l1._PYTHON_CELLS
    python = compiled_l1.compiled_blocks(
        sampler.solve, sampler.in_norm, Fraction(1, 2), 10, ByteStream(7), max_attempts=1000
    )
    monkeypatch.setattr(compiled_l1, "_PYTHON_CELLS", 0)
    kernel = compiled_l1.compiled_blocks(
        sampler.solve, sampler.in_norm, Fraction(1, 2), 10, ByteStream(7), max_attempts=1000
    )
    assert np.array_equal(python[0], kernel[0]) and python[1] == kernel[1]
