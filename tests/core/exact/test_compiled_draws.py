"""The compiled double geometric (``isdp.exact._compiled_draws``): the same draws as the reference sampler in
Python integers on the same words, the exact law against the DG pmf, and its refusals."""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof_integers
from exact_support import finishes
from scipy import stats

import isdp.exact._compiled_draws as compiled_draws
from isdp.errors import ArgumentError
from isdp.exact import compiled_double_geometric, seeded_source, system_source
from isdp.exact._compiled_draws import WordSource
from isdp.exact._exact_draws import double_geometric
from isdp.mcmc import DoubleGeometric


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 3), Fraction(7, 5), Fraction(5, 2), Fraction(1, 1000)])
@pytest.mark.parametrize("bits_per_draw", [32, 1])  # 1: the buffer runs out again and again, mid-draw
def test_the_compiled_draws_are_the_reference_draws_on_the_same_words(eps, bits_per_draw, monkeypatch):
    monkeypatch.setattr(compiled_draws, "_BITS_PER_DRAW", bits_per_draw)
    monkeypatch.setattr(compiled_draws, "_READ_AHEAD", 1)
    monkeypatch.setattr(compiled_draws, "_CHUNK", 700)  # several buffers, words carried from one to the next
    fast = compiled_double_geometric(eps, 3000, ByteStream(1))
    words = WordSource(ByteStream(1))
    assert fast.tolist() == [double_geometric(eps, words) for _ in range(3000)]


def test_the_word_comparison_can_fail():
    """Another stream, or the reference on the source's own integers, gives other draws."""
    fast = compiled_double_geometric(Fraction(1, 3), 500, ByteStream(1))
    assert fast.tolist() != [double_geometric(Fraction(1, 3), WordSource(ByteStream(2))) for _ in range(500)]
    assert fast.tolist() != [double_geometric(Fraction(1, 3), seeded_source(1)) for _ in range(500)]


@pytest.mark.parametrize("eps", [Fraction(1, 3), Fraction(7, 5)])
def test_the_law_is_the_double_geometric(eps):
    draws = compiled_double_geometric(eps, 200_000, seeded_source(3))
    support = np.arange(-80, 81)
    assert chisquare_gof_integers(draws, support, DoubleGeometric(float(eps)).pmf(support)) > ALPHA
    # the test can fail: the law at a tenth more ε is refused on the same draws
    assert chisquare_gof_integers(draws, support, DoubleGeometric(1.1 * float(eps)).pmf(support)) < ALPHA


def test_publication_draws_come_from_the_operating_system():
    first, second = (compiled_double_geometric(1, 1000, system_source()) for _ in range(2))
    assert first.dtype == np.int64 and first.shape == (1000,)
    assert not np.array_equal(first, second)
    assert compiled_double_geometric("1/2", 0, system_source()).shape == (0,)


@pytest.mark.parametrize(
    ("eps", "size", "name"),
    [
        (0, 10, "epsilon"),
        (-1, 10, "epsilon"),
        (Fraction(1, 2**31), 10, "epsilon"),
        (2**31, 10, "epsilon"),
        (1, -1, "size"),
        (1, 2.5, "size"),
        # read as as_fraction reads numbers: not a bool, not "1_0" as 10, not digits of another script, not NaN
        (True, 10, "epsilon"),
        ("1_0", 10, "epsilon"),
        ("\u0661", 10, "epsilon"),
        (float("nan"), 10, "epsilon"),
        ("inf", 10, "epsilon"),
        (1, True, "size"),
        (1, "3", "size"),
    ],
)
def test_out_of_range_arguments_are_refused_naming_the_argument(eps, size, name):
    with pytest.raises(ArgumentError, match=f"^{name} ") as refused:
        compiled_double_geometric(eps, size, seeded_source(1))
    assert refused.value.argument == name


def test_a_source_that_returns_too_few_bytes_is_refused_not_waited_for():
    class Short:
        def __init__(self, keep):
            self.keep = keep

        def randbytes(self, n):
            return bytes(min(n, self.keep))

    for keep in (0, 8):
        with pytest.raises(ArgumentError, match="^rng returned .* bytes when .* were asked"):
            finishes(lambda: compiled_double_geometric(Fraction(1, 2), 10, Short(keep)))  # noqa: B023
        with pytest.raises(ArgumentError, match="^rng returned"):
            finishes(lambda: WordSource(Short(keep)).randbelow(3))  # noqa: B023


@pytest.mark.parametrize("bad", [0, -1, -(2**70), 2.5, True, "3", float("nan")])
def test_a_uniform_integer_below_no_positive_integer_is_refused_not_waited_for(bad):
    with pytest.raises(ArgumentError, match="^n must be an integer"):
        finishes(lambda: WordSource(ByteStream(1)).randbelow(bad))


@pytest.mark.parametrize("n", [2**64 + 1, 2**63 * 3, 2**130 - 5])
def test_a_uniform_integer_of_more_than_64_bits_reads_them_from_the_stream_highest_first(n):
    """The reference samplers ask for bounds above 2**64 (Bernoulli(exp(−γ)) at γ's denominator near 2**63): the
    bits of one read of b bits are the stream's next b bits, across as many words as they take."""
    words = np.frombuffer(ByteStream(7).randbytes(8 * 16), dtype="<u8").tolist()
    stream = int("".join(f"{w:064b}" for w in words), 2)  # the words' bits in order, highest first
    reader = WordSource(ByteStream(7))
    reader.randbelow(8)  # three bits in: the reads straddle the words
    b, at = (n - 1).bit_length(), 3
    while (expected := (stream >> (64 * 16 - at - b)) & ((1 << b) - 1)) >= n:
        at += b
    assert reader.randbelow(n) == expected and reader.pos == at + b


def test_uniform_integers_of_more_than_64_bits_are_uniform():
    """20,000 draws below 2**64 + 2**63 (a bound of 65 bits): each of 8 equal bins holds an eighth."""
    n, reader = 2**64 + 2**63, WordSource(ByteStream(8))
    bins = np.bincount([reader.randbelow(n) * 8 // n for _ in range(20_000)], minlength=8)
    assert stats.chisquare(bins).pvalue > ALPHA


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_fork_s_child_draws_other_words_than_its_parent():
    """Words read ahead before a fork are the parent's and the child's; the child drops them."""
    compiled_double_geometric(Fraction(1, 100), 1, system_source())  # the kernel loaded before the fork
    reader = WordSource(system_source())
    reader.ensure(8)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next draws, through the pipe, and out without pytest's clean-up
        os.write(write, compiled_double_geometric(Fraction(1, 100), 64, reader).tobytes())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        child = np.frombuffer(pipe.read(), dtype=np.int64)
    os.waitpid(pid, 0)
    parent = compiled_double_geometric(Fraction(1, 100), 64, reader)
    assert child.size == 64 and not np.array_equal(parent, child)  # the same draws with probability below 1e-100


def test_a_word_source_hands_a_compiled_sampler_its_unread_bits_first():
    source = WordSource(ByteStream(4))
    source.randbytes(8)  # one word used, hundreds read ahead
    stream = ByteStream(4)
    stream.randbytes(8)
    expected = compiled_double_geometric(Fraction(1, 3), 2000, stream)
    assert compiled_double_geometric(Fraction(1, 3), 2000, source).tolist() == expected.tolist()
    # three bits used: the compiled sampler reads on from the fourth, across the words' boundaries
    first, second = WordSource(ByteStream(5)), WordSource(ByteStream(5))
    assert first.randbelow(8) == second.randbelow(8)
    fast = compiled_double_geometric(Fraction(1, 3), 2000, first)
    assert fast.tolist() == [double_geometric(Fraction(1, 3), second) for _ in range(2000)]
    with pytest.raises(ValueError, match="whole 8-byte words"):
        source.randbytes(5)


def test_a_uniform_integer_uses_the_bits_it_needs():
    """randbelow(m) reads (m − 1).bit_length() bits, highest first: none for m = 1, 63 for 2**63."""
    first, second = np.frombuffer(ByteStream(6).randbytes(16), dtype="<u8").tolist()
    reader = WordSource(ByteStream(6))
    assert reader.randbelow(1) == 0 and reader.pos == 0
    assert reader.randbelow(2) == first >> 63
    assert reader.randbelow(1 << 63) == first & ((1 << 63) - 1) and reader.pos == 64
    assert reader.randbelow(1 << 62) == second >> 2 and reader.pos == 126


def test_a_draw_uses_about_eleven_bits_at_half():
    """The entropy docs/method.md §11 states: about 11 bits per DG(1/2) draw (200,000 draws: the mean's standard
    error is about 0.02 bits)."""
    words = np.random.default_rng(0).integers(0, 2**64, size=1 << 18, dtype=np.uint64)
    out = np.empty(200_000, dtype=np.int64)
    done, bits = compiled_draws._fill(np.int64(1), np.int64(2), words, np.int64(0), out, 0)
    assert done == out.size and 10.5 <= bits / done <= 11.5
