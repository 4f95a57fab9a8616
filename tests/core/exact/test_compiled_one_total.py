"""One-total blocks drawn directly (``isdp.exact._compiled_one_total``): the reference's blocks on the same words,
the exact laws against enumeration, uniform compositions, and the hand-over to Python integers when K is undecided."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof, rows_to_categories

import isdp.exact._compiled_one_total as one_total
from isdp.exact import seeded_source
from isdp.exact._compiled_draws import WordSource
from isdp.exact._one_total_law import one_total_law

CASES = [  # (the total's coefficients, ε, σ)
    (np.ones(4, dtype=np.int64), Fraction(1, 2), None),
    (np.array([1, -1, 1, 1, -1, 1, -1]), Fraction(1, 3), None),
    (np.ones(2, dtype=np.int64), Fraction(3), None),  # K mostly below n − 1: the stars are sampled
    (np.ones(50, dtype=np.int64), Fraction(1, 10), None),  # K in the hundreds: the bars are sampled
    (np.array([1, -1, 1]), Fraction(1, 3), Fraction(3)),
]


def _reference(signs, eps, count, stream, **kw):
    reader = WordSource(stream)
    rows = [one_total.reference_one_total(signs, eps, reader, **kw) for _ in range(count)]
    return [row for row, _ in rows], sum(attempts for _, attempts in rows)


@pytest.mark.parametrize(("signs", "eps", "sigma"), CASES)
@pytest.mark.parametrize("first_words", [1 << 12, 3])  # 3: the words run out again and again, mid-block
def test_the_compiled_blocks_are_the_reference_blocks_on_the_same_words(signs, eps, sigma, first_words, monkeypatch):
    monkeypatch.setattr(one_total, "_FIRST_WORDS", first_words)
    monkeypatch.setattr(one_total, "_MAX_WORDS", max(first_words, 64))
    monkeypatch.setattr(one_total, "_PYTHON_CELLS", 0)  # the kernel even for a few cells
    kw = {"max_attempts": 10**6, "sigma": sigma}
    fast, attempts = one_total.one_total_blocks(signs, eps, 300, ByteStream(1), **kw)
    rows, reference_attempts = _reference(signs, eps, 300, ByteStream(1), **kw)
    assert fast.tolist() == rows and attempts == reference_attempts
    assert not np.any(fast @ signs)
    assert attempts == 300 if sigma is None else attempts > 300


def test_the_word_comparison_can_fail(monkeypatch):
    monkeypatch.setattr(one_total, "_PYTHON_CELLS", 0)
    signs = np.ones(4, dtype=np.int64)
    fast, _ = one_total.one_total_blocks(signs, Fraction(1, 2), 100, ByteStream(1), max_attempts=1)
    assert fast.tolist() != _reference(signs, Fraction(1, 2), 100, ByteStream(2), max_attempts=1)[0]


def _enumerated(signs, eps, sigma, radius):
    """The exact law on the box's points of {Σ a_i u_i = 0}: ∝ exp(−ε‖u‖₁) or exp(−‖u‖²/2σ²)."""
    free = np.array(list(product(range(-radius, radius + 1), repeat=len(signs) - 1)), dtype=np.int64)
    last = -(free @ signs[:-1]) * signs[-1]
    u = np.column_stack([free, last])
    log = -float(eps) * np.abs(u).sum(axis=1) if sigma is None else -(u**2).sum(axis=1) / (2 * float(sigma) ** 2)
    p = np.exp(log - log.max())
    return u, p / p.sum()


@pytest.mark.parametrize(
    ("signs", "eps", "sigma"),
    [
        (np.array([1, 1, 1]), Fraction(1, 2), None),
        (np.array([1, -1, 1]), Fraction(1, 3), None),
        (np.array([1, 1, 1]), Fraction(1, 2), Fraction(2)),
    ],
)
def test_the_blocks_follow_the_exact_law(signs, eps, sigma):
    """40,000 blocks against the law enumerated on a box whose outside holds < 1e-6 of the mass; the test can
    fail: the law at 1.1 ε (σ/1.1) is refused on the same draws."""
    noise, _ = one_total.one_total_blocks(signs, eps, 40_000, seeded_source(5), max_attempts=10**6, sigma=sigma)
    points, probs = _enumerated(signs, eps, sigma, 40)
    categories = rows_to_categories(noise, points)
    assert chisquare_gof(categories, probs) > ALPHA
    wrong = _enumerated(signs, eps * Fraction(11, 10), None if sigma is None else sigma * Fraction(10, 11), 40)[1]
    assert chisquare_gof(categories, wrong) < ALPHA


@pytest.mark.parametrize(("K", "n"), [(2, 4), (4, 3), (3, 4)])  # stars sampled, bars sampled, K = n − 1: bars
def test_a_composition_is_uniform_over_the_weak_compositions(K, n):
    compositions = [c for c in product(range(K + 1), repeat=n) if sum(c) == K]
    rng = WordSource(seeded_source(11))
    draws = np.array([one_total._python_composition(K, n, rng) for _ in range(20_000)])
    assert not np.any(draws.sum(axis=1) - K) and draws.min() >= 0
    categories = rows_to_categories(draws, np.array(compositions))
    assert chisquare_gof(categories, np.full(len(compositions), 1 / len(compositions))) > ALPHA


class _Prefixed:
    """A source whose first 64-bit word is given (read highest bit first), then a seeded stream."""

    def __init__(self, word: int, seed: int):
        self.first, self.rest = word.to_bytes(8, "little"), ByteStream(seed)

    def randbytes(self, n: int) -> bytes:
        head, self.first = self.first[:n], self.first[n:]
        return head + (self.rest.randbytes(n - len(head)) if n > len(head) else b"")


def test_an_undecided_count_is_handed_to_python_integers_which_read_on_and_decide_it(monkeypatch):
    """A uniform whose 62 bits fall between a lower and an upper threshold: the kernel stops at the block, the
    reference reads 64 more bits, and its K satisfies the 126-bit thresholds; the rest of the blocks continue."""
    monkeypatch.setattr(one_total, "_PYTHON_CELLS", 0)
    signs, eps = np.ones(100, dtype=np.int64), Fraction(1, 2)
    law = one_total_law(100, eps, 62)
    i = len(law.lower) // 2
    a = int(law.lower[i])  # in the gap before upper_before[i + 1]
    assert law.decide(a) is None
    handed = []
    reference = one_total.reference_one_total
    monkeypatch.setattr(one_total, "reference_one_total", lambda *x, **k: handed.append(1) or reference(*x, **k))
    fast, attempts = one_total.one_total_blocks(signs, eps, 20, _Prefixed(a << 2, 9), max_attempts=1)
    assert len(handed) == 1 and attempts == 20
    rows, _ = _reference(signs, eps, 20, _Prefixed(a << 2, 9), max_attempts=1)
    assert fast.tolist() == rows
    count = one_total._python_count(100, eps, WordSource(_Prefixed(a << 2, 9)))
    assert count in (law.k_lo + i, law.k_lo + i + 1)
    assert int(np.clip(fast[0], 0, None).sum()) <= count  # Σ (g − g′)⁺ ≤ Σ g = K


def test_a_sigma_beyond_the_kernel_is_drawn_in_python_integers():
    signs, sigma = np.array([1, 1, 1]), Fraction(2**31 + 1, 2**30)  # numerator past the kernel's 2**31
    fast, attempts = one_total.one_total_blocks(signs, 1 / sigma, 20, ByteStream(4), max_attempts=1000, sigma=sigma)
    rows, reference_attempts = _reference(signs, 1 / sigma, 20, ByteStream(4), max_attempts=1000, sigma=sigma)
    assert fast.tolist() == rows and attempts == reference_attempts


def test_blocks_that_keep_nothing_say_so_with_the_attempts_made(monkeypatch):
    monkeypatch.setattr(one_total, "_PYTHON_CELLS", 0)
    signs = np.ones(400, dtype=np.int64)  # the Gaussian's rejection keeps about e^-100 of the ℓ1 draws at σ = 1/10
    assert one_total.one_total_blocks(
        signs, Fraction(10), 5, seeded_source(1), max_attempts=3, sigma=Fraction(1, 10)
    ) == (None, 3)
