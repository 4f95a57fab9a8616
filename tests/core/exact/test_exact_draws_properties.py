"""Properties of ``isdp.exact``'s public samplers over generated inputs (Hypothesis).

Valid inputs — ε as fractions and decimals near every boundary (tiny, huge, numerators and denominators
about the compiled kernels' 2**31), σ² from 2**-64 to 2**100, sizes from 0, seeds, integers of any
length — give integers of the right shape and type, on the lattice where there is one, and the compiled
draws equal the Python-integer reference draw for draw on the same stream of bits. Invalid inputs —
bools, NaN, infinities, numbers written in other forms, negatives, zero, values beyond the range served —
give an ``IsdpError`` with a message, and nothing else: no other exception, no silent result, and no
hang (each call runs under a deadline, :func:`exact_support.finishes`).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from conftest import ByteStream
from exact_support import finishes
from hypothesis import given
from hypothesis import strategies as st

import isdp.exact._compiled_klein as compiled_klein
from isdp._validate import positive
from isdp.errors import IsdpError
from isdp.exact import (
    IntegerL1Sampler,
    LatticeBlock,
    compiled_double_geometric,
    discrete_gaussian,
    double_geometric_array,
    seeded_source,
)
from isdp.exact._compiled_draws import WordSource
from isdp.exact._exact_draws import bernoulli_exp, double_geometric

LIMIT = 2**31  # the compiled kernels' bound on ε's numerator and denominator


def _near(value: int) -> st.SearchStrategy[int]:
    return st.integers(max(1, value - 2), value + 2)


#: integers ≥ 1 of every size, crowded about the compiled kernels' limits
PARTS = st.one_of(st.integers(1, 50), _near(LIMIT), _near(2**62), st.integers(1, 2**80))
#: ε as the callers write it: exact fractions, ints, decimals as text or Decimal, floats
EPSILONS = st.one_of(
    st.builds(Fraction, PARTS, PARTS),
    st.decimals(Decimal("1e-9"), Decimal("1e3"), allow_nan=False, places=10).filter(lambda d: d > 0),
    st.decimals(Decimal("1e-9"), Decimal("1e3"), allow_nan=False, places=10).filter(lambda d: d > 0).map(str),
    st.sampled_from(["0.1234567891", "0.3333333333", "2147483647/2147483648", "7/2000000000", "1e-6", 1, 0.5]),
)
#: ε the compiled double geometric serves: numerator and denominator below 2**31, scale below 2**20
COMPILED_EPSILONS = st.builds(
    Fraction, st.one_of(st.integers(1, 60), _near(LIMIT - 3)), st.one_of(st.integers(1, 60), _near(LIMIT - 3))
).filter(lambda e: e > Fraction(1, 2**20))
SIGMA2S = st.one_of(
    st.builds(Fraction, st.integers(1, 400), st.integers(1, 40)),
    st.sampled_from([Fraction(1, 2**64), Fraction(1, 8), Fraction(1, 7), Fraction(10**20), 2**100, "0.125", "1e-6"]),
)
SIZES = st.integers(0, 40)
SEEDS = st.integers(0, 2**64)

#: what is never an exact positive number, a size or a seed: bools, NaN, infinities, text in other forms
NOT_NUMBERS = st.sampled_from(
    [
        True,
        False,
        float("nan"),
        float("inf"),
        -float("inf"),
        "1_0",
        "\u0661",
        " 1",
        "",
        "0x10",
        "1e99999",
        "nan",
        "one",
        None,
        [1],
        b"1",
        1j,
        Decimal("NaN"),
    ]
)
NOT_POSITIVE = st.one_of(st.sampled_from([0, -1, 0.0, -0.5, "-1/3", "0", Fraction(-2)]), st.integers(max_value=0))
NOT_SIZES = st.one_of(NOT_NUMBERS, st.sampled_from([-1, 2.5, "3", 2**64, -(2**70)]))


def _refused(call) -> None:
    """``call()`` raises an IsdpError with a message, within the deadline, and nothing else."""
    with pytest.raises(IsdpError) as refused:
        finishes(call)
    assert str(refused.value).strip()


# ----------------------------------------------------------------------------------------- valid inputs


@given(eps=EPSILONS, seed=SEEDS)
def test_a_double_geometric_draw_is_an_integer_for_any_epsilon(eps, seed):
    assert isinstance(finishes(lambda: double_geometric(eps, seeded_source(seed))), int)


@given(eps=EPSILONS, size=SIZES, seed=SEEDS)
def test_the_array_sampler_gives_int64_of_its_size_for_any_epsilon_it_serves(eps, size, seed):
    if positive("value", eps) < Fraction(1, 2**50):  # refused: below
        return
    draws = finishes(lambda: double_geometric_array(eps, size, seeded_source(seed)))
    assert draws.dtype == np.int64 and draws.shape == (size,)


@given(eps=COMPILED_EPSILONS, size=SIZES, seed=st.integers(0, 1000))
def test_the_compiled_draws_are_the_reference_draws_on_the_same_stream(eps, size, seed):
    fast = finishes(lambda: compiled_double_geometric(eps, size, ByteStream(seed, 1 << 16)))
    reader = WordSource(ByteStream(seed, 1 << 16))
    assert fast.dtype == np.int64 and fast.tolist() == [double_geometric(eps, reader) for _ in range(size)]


@given(num=st.integers(0, 2**130), den=st.integers(1, 2**130), seed=SEEDS)
def test_bernoulli_exp_takes_integers_of_any_size(num, den, seed):
    outcome = finishes(lambda: bernoulli_exp(num, den, WordSource(seeded_source(seed))))
    assert isinstance(outcome, bool) and (outcome or num > 0)


@given(n=st.one_of(st.integers(1, 2**200), _near(2**64)), seed=SEEDS)
def test_a_word_source_draws_below_any_bound(n, seed):
    assert 0 <= finishes(lambda: WordSource(seeded_source(seed)).randbelow(n)) < n


@given(
    centre=st.one_of(
        st.builds(Fraction, st.integers(-(10**6), 10**6), st.integers(1, 10**6)),
        st.sampled_from([Fraction(1, 2), Fraction(-7, 2), "0.5", 3]),
    ),
    sigma2=SIGMA2S,
    seed=SEEDS,
)
def test_a_discrete_gaussian_draw_is_an_integer_for_any_variance_it_serves(centre, sigma2, seed):
    draw = finishes(lambda: discrete_gaussian(centre, sigma2, WordSource(seeded_source(seed))))
    assert isinstance(draw, int)
    if positive("sigma2", sigma2) <= Fraction(1, 2**32):  # all but exp(−4000) of the mass is on the nearest integer(s)
        assert abs(draw - Fraction(centre)) <= Fraction(1, 2)


@given(
    shape=st.sampled_from([(1, 2), (1, 7), (2, 2), (3, 4), (6, 5)]),
    sigma2=SIGMA2S,
    count=st.integers(0, 4),
    seed=st.integers(0, 1000),
)
def test_lattice_blocks_keep_their_invariants_and_the_compiled_draws_are_the_python_draws(shape, sigma2, count, seed):
    kind = "total" if shape[0] == 1 else "margins"
    block = LatticeBlock(np.arange(shape[0] * shape[1]).reshape(shape), kind)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled_klein, "_PYTHON_CELLS", 0)  # the kernel, even for these few cells
        noise, attempts = finishes(lambda: block.draw_blocks(sigma2, count, ByteStream(seed, 1 << 16)))
    assert noise.dtype == np.int64 and noise.shape == (count, shape[0] * shape[1]) and attempts >= count
    tables = noise.reshape(count, *shape)
    assert not tables.sum(axis=2).any() and (kind == "total" or not tables.sum(axis=1).any())
    reader = WordSource(ByteStream(seed, 1 << 16))
    python = [block.draw(sigma2, reader)[0] for _ in range(count)]
    assert noise.tolist() == [v.tolist() for v in python]


INVARIANTS = [
    np.array([[1, 1, 1]]),
    np.array([[1, 1, 0], [0, 1, 1]]),
    np.array([[1, 2, 3]]),
    np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]]),
]


@given(
    A=st.sampled_from(INVARIANTS),
    unit=st.sampled_from([Fraction(1, 2), Fraction(3), Fraction(2, 7), Fraction(LIMIT - 1, 2 * LIMIT - 1)]),
    gaussian=st.booleans(),
    accept=st.booleans(),
    count=st.integers(0, 30),
    seed=SEEDS,
)
def test_l1_and_gaussian_blocks_lie_on_the_lattice(A, unit, gaussian, accept, count, seed):
    sampler = IntegerL1Sampler.build(A)
    sigma = 1 / unit if gaussian else None
    noise, attempts = finishes(
        lambda: sampler.draw_blocks(unit, count, seeded_source(seed), max_attempts=10**6, sigma=sigma, accept=accept)
    )
    assert noise.dtype == np.int64 and noise.shape == (count, A.shape[1]) and attempts >= count
    assert not (noise @ A.T).any()


# --------------------------------------------------------------------------------------- invalid inputs


@given(eps=st.one_of(NOT_NUMBERS, NOT_POSITIVE))
def test_an_epsilon_that_is_not_a_positive_number_is_refused_everywhere(eps):
    _refused(lambda: double_geometric(eps, seeded_source(1)))
    _refused(lambda: double_geometric_array(eps, 3, seeded_source(1)))
    _refused(lambda: compiled_double_geometric(eps, 3, seeded_source(1)))
    _refused(lambda: IntegerL1Sampler.build(INVARIANTS[0]).draw_blocks(eps, 3, seeded_source(1), max_attempts=9))


@given(
    eps=st.one_of(
        st.builds(Fraction, st.integers(1, 3), st.integers(2**50 + 1, 2**90)),
        st.builds(Fraction, st.integers(LIMIT, 2**80), st.integers(1, 2**30)).filter(lambda e: e.numerator >= LIMIT),
    )
)
def test_an_epsilon_beyond_a_sampler_s_range_is_refused_with_the_range(eps):
    if eps < Fraction(1, 2**50):
        _refused(lambda: double_geometric_array(eps, 3, seeded_source(1)))
    _refused(lambda: compiled_double_geometric(eps, 3, seeded_source(1)))


@given(size=NOT_SIZES)
def test_a_size_that_is_not_a_count_is_refused_everywhere(size):
    _refused(lambda: double_geometric_array(Fraction(1, 2), size, seeded_source(1)))
    _refused(lambda: compiled_double_geometric(Fraction(1, 2), size, seeded_source(1)))
    _refused(lambda: IntegerL1Sampler.build(INVARIANTS[0]).draw_blocks(1, size, seeded_source(1), max_attempts=9))
    _refused(lambda: IntegerL1Sampler.build(INVARIANTS[0]).draw_blocks(1, 2, seeded_source(1), max_attempts=size))
    _refused(lambda: LatticeBlock(np.arange(4).reshape(1, 4), "total").draw_blocks(4, size, seeded_source(1)))


@given(
    sigma2=st.one_of(
        NOT_NUMBERS,
        NOT_POSITIVE,
        st.sampled_from([Fraction(1, 2**65), 2**100 + 1, 10**400, Fraction(1, 10**400), "1e-400"]),
    )
)
def test_a_variance_outside_the_range_served_is_refused_everywhere(sigma2):
    _refused(lambda: discrete_gaussian(0, sigma2, seeded_source(1)))
    _refused(lambda: LatticeBlock(np.arange(4).reshape(2, 2), "margins").draw(sigma2, seeded_source(1)))
    _refused(lambda: LatticeBlock(np.arange(4).reshape(1, 4), "total").draw_blocks(sigma2, 2, seeded_source(1)))


@given(sigma=st.one_of(NOT_NUMBERS.filter(lambda v: v is not None), NOT_POSITIVE))  # None: no σ, the ℓ1 law
def test_a_sigma_that_is_not_positive_is_refused_on_both_paths(sigma):
    sampler = IntegerL1Sampler.build(INVARIANTS[0])
    for count in (1, 100):  # in Python integers, and compiled
        _refused(
            lambda count=count: sampler.draw_blocks(
                Fraction(1, 2),
                count,
                seeded_source(1),
                max_attempts=9,
                sigma=sigma,
            )
        )


@given(
    num=st.one_of(NOT_NUMBERS, st.integers(max_value=-1), st.sampled_from([0.5, 2.5, Fraction(1, 2)])),
    den=st.one_of(st.just(1), NOT_NUMBERS, st.integers(max_value=0)),
)
def test_bernoulli_exp_refuses_anything_but_integers_in_range(num, den):
    _refused(lambda: bernoulli_exp(num, den, seeded_source(1)))
    _refused(lambda: bernoulli_exp(1, den if den != 1 else 0, seeded_source(1)))


@given(n=st.one_of(NOT_NUMBERS, st.integers(max_value=0), st.sampled_from([2.5, Fraction(3, 2)])))
def test_a_uniform_integer_below_no_positive_integer_is_refused_by_every_source(n):
    for source in (seeded_source(1), WordSource(seeded_source(1))):
        _refused(lambda: source.randbelow(n))  # noqa: B023


@given(seed=st.one_of(NOT_NUMBERS, st.integers(max_value=-1), st.sampled_from([2.0, "3", Fraction(3)])))
def test_a_seed_that_is_not_a_non_negative_integer_is_refused(seed):
    _refused(lambda: seeded_source(seed))
