"""Release mode's exact ℓ1 sampler in integer arithmetic (isdp.exact.IntegerL1Sampler) and the tables in its norm.

The laws on larger lattices are tested against enumeration in tests/core/release/test_release.py; here the
lattice of one total over two cells, {(t, −t)}, where the laws of t are known in closed form.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof_integers
from scipy import stats

from isdp.errors import ArgumentError, InputError
from isdp.exact import IntegerL1Sampler, seeded_source
from isdp.exact._compiled_l1 import compiled_blocks
from isdp.lattice import table_margins

PAIR = np.array([[1, 1]])


def test_the_l1_law_on_a_pair_is_the_double_geometric_of_twice_epsilon():
    """π(t, −t) ∝ exp(−ε·2|t|): t ~ DG(2ε)."""
    draws = IntegerL1Sampler.build(PAIR).sample(Fraction(1, 2), 5000, seeded_source(3))
    assert not np.any(draws.sum(axis=1))
    support = np.arange(-30, 31)
    assert chisquare_gof_integers(draws[:, 0], support, stats.dlaplace.pmf(support, 1.0)) > ALPHA


def test_the_gaussian_law_on_a_pair_is_the_discrete_gaussian_of_its_norm():
    """π(t, −t) ∝ exp(−2t²/2σ²) = exp(−t²/σ²): the second rejection from the ℓ1 law."""
    sigma = Fraction(3, 2)
    draws = IntegerL1Sampler.build(PAIR).sample(1 / sigma, 5000, seeded_source(4), sigma=sigma)
    support = np.arange(-30, 31)
    pmf = np.exp(-(support**2) / float(sigma) ** 2)
    assert chisquare_gof_integers(draws[:, 0], support, pmf / pmf.sum()) > ALPHA


def test_without_acceptance_the_free_cells_are_the_proposal_and_the_variances_follow():
    sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
    noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2), max_attempts=1, accept=False)
    assert attempts == 1 and noise.sum() == 0
    r = math.exp(-0.5)
    v = 2 * r / (1 - r) ** 2  # DG(ε)'s variance
    assert np.allclose(sampler.variances(Fraction(1, 2)), [v, v, 2 * v])


def test_a_draw_that_accepts_nothing_says_so():
    sampler = IntegerL1Sampler.build(table_margins(6, 6))  # accepts about one proposal in a million at ε = 1/20
    assert sampler.draw(Fraction(1, 20), seeded_source(1), max_attempts=3) == (None, 3)


def test_derived_cells_are_solved_and_stay_outside_the_norm():
    A = np.array([[1, 1, 0, 0, 0, 0], [1, 0, -1, -1, 0, 0], [0, 1, 0, 0, -1, -1]])
    derived = ~IntegerL1Sampler.norm_tables(A, [np.arange(2), np.arange(2, 6)]).repeat([2, 4])
    sampler = IntegerL1Sampler.build(A, derived)
    assert set(sampler.solved[~sampler.in_norm].tolist()) == {0, 1} and not derived[sampler.free].any()
    free_only = sampler.log_acceptance(Fraction(1, 2))
    assert free_only < 0 and free_only > IntegerL1Sampler.build(A).log_acceptance(Fraction(1, 2))


def test_no_invariant_leaves_every_cell_free():
    sampler = IntegerL1Sampler.build(np.zeros((0, 3), dtype=np.int64))
    assert sampler.free.tolist() == [0, 1, 2] and sampler.log_acceptance(Fraction(1)) == 0.0


def test_near_dependent_rows_are_decided_exactly_within_the_limit_and_refused_beyond_it(monkeypatch):
    a = 2**31 - 1
    A = np.array([[a, a - 1, 1], [a - 1, a - 2, 1]])
    sampler = IntegerL1Sampler.build(A)
    noise, _ = sampler.draw(Fraction(1, 2), seeded_source(5), max_attempts=100)
    assert sampler.A.shape == (2, 3) and not np.any(A.astype(object) @ noise.astype(object))
    monkeypatch.setattr("isdp.exact._integer_l1_sampler.EXACT_SOLVE_LIMIT", 0)
    with pytest.raises(InputError, match="too close to linearly dependent"):
        IntegerL1Sampler.build(A)


def test_the_table_tied_to_another_by_its_totals_leaves_the_norm_and_one_table_always_stays():
    total = np.array([[1, 1]])
    assert IntegerL1Sampler.norm_tables(np.array([[1, -1]]), [np.array([0]), np.array([1])]).tolist() == [False, True]
    assert IntegerL1Sampler.norm_tables(total, [np.arange(2)]).tolist() == [True]


#: the σ of the release's Gaussian route at ε = 0.002, δ = 10⁻⁶ on the invariants [[1, 1, 0], [0, 1, 1]]
RELEASE_SIGMA = Fraction(1862306287, 1000000)


def test_the_gaussian_route_s_draws_succeed_on_every_seed():
    """At this σ, 2a² is near 2**62: the kernel hands the blocks to Python integers, whose uniform integers below
    2a²·k exceed 2**64, which the stream's reader failed on (43 of 200 seeds, 'negative shift count')."""
    sampler = IntegerL1Sampler.build(np.array([[1, 1, 0], [0, 1, 1]]))
    for seed in range(200):
        noise, attempts = sampler.draw(1 / RELEASE_SIGMA, seeded_source(seed), max_attempts=20_000, sigma=RELEASE_SIGMA)
        assert noise is not None and not (np.array([[1, 1, 0], [0, 1, 1]]) @ noise).any(), seed


def test_the_gaussian_route_releases_at_a_thousandth(tmp_path):
    """ε = 0.001 failed on every seed."""
    from isdp.release import Request, make_release
    from isdp.tables import load_table

    path = tmp_path / "t.csv"
    path.write_text("row,a,b,c\nr,5,7,9\n")
    A = np.array([[1, 1, 0], [0, 1, 1]])
    release = make_release(
        load_table(path), A, ["ab", "bc"], Request(epsilon="0.001", norm="gaussian", delta=1e-6, seed=3)
    )
    assert (A @ release.values).tolist() == [12, 16]


@pytest.mark.parametrize("count", [3, 200])  # 3: in Python integers; 200: compiled
@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"sigma": Fraction(-2)}, "sigma"),
        ({"sigma": 0}, "sigma"),
        ({"sigma": float("nan")}, "sigma"),
        ({"sigma": Fraction(2), "eps": Fraction(1, 3)}, "epsilon"),
        ({"eps": 0}, "epsilon"),
        ({"eps": True}, "epsilon"),
        ({"eps": "1_0"}, "epsilon"),
        ({"max_attempts": 2.5}, "max_attempts"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"max_attempts": True}, "max_attempts"),
        ({"count": -1}, "count"),
        ({"count": 2.5}, "count"),
    ],
)
def test_both_paths_refuse_the_same_arguments_by_name(count, kw, name):
    """σ = −2 or 0 drew the ℓ1 law on the compiled path and raised ZeroDivisionError on the Python one;
    max_attempts = 2.5 was truncated on one and a TypeError on the other."""
    sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
    args = {"eps": Fraction(1, 2), "count": count, "max_attempts": 100, **kw}
    eps, count = args.pop("eps"), args.pop("count")
    with pytest.raises(ArgumentError, match=f"^{name} ") as refused:
        sampler.draw_blocks(eps, count, seeded_source(1), **args)
    assert refused.value.argument == name


def test_no_blocks_are_an_empty_array():
    noise, attempts = IntegerL1Sampler.build(np.array([[1, 1, 1]])).draw_blocks(
        Fraction(1, 2), 0, seeded_source(1), max_attempts=10
    )
    assert noise.shape == (0, 3) and attempts == 0


def test_the_forecast_holds_a_bounded_chunk_of_proposals_whatever_the_block(monkeypatch):
    """The 1,000 pilot proposals were held at once: 1.1 GB for a total over 65,536 cells, a MemoryError at 10⁶.
    Drawn a chunk at a time they hold at most _PILOT_ENTRIES entries; within one chunk the estimate is unchanged."""
    import tracemalloc

    from isdp.exact import _integer_l1_sampler

    row = np.ones((1, 20_000), dtype=np.int64)
    row[0, 0] = 2  # not a ±1 total, which is drawn directly: the rejection's forecast
    sampler = IntegerL1Sampler.build(row)
    whole = sampler.log_acceptance(Fraction(5))  # 1,000 × 19,999 entries: one chunk of the default
    monkeypatch.setattr(_integer_l1_sampler, "_PILOT_ENTRIES", 2**16)
    tracemalloc.start()
    chunked = sampler.log_acceptance(Fraction(5))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5 * 10**6  # 3 proposals at a time; all at once held 1,000 × 19,999 × 8 bytes per array
    assert abs(chunked - whole) < 0.5  # two estimates from 1,000 proposals each of an acceptance near e^-2.9


def test_no_iid_double_geometric_proposal_accepts_more_often_than_the_sampler_s_own():
    """docs/method.md, "The proposal's parameter": free cells i.i.d. DG(ε′), ε′ ≤ ε, accepted with the target's
    density over the proposal's, accept with probability c(ε′)^k · Z (c the DG's mass at 0), largest at ε′ = ε;
    the rejection sampler's proposals per block are 1 / that probability (a one-total block is drawn directly
    by the sampler: the rejection is run here by itself)."""
    eps, k, box = 0.5, 2, 60  # one total over 3 cells: 2 free cells; the box holds all but e^-30 of the mass
    z = np.arange(-box, box + 1)
    z1, z2 = np.meshgrid(z, z, indexing="ij")
    free, solved = np.abs(z1) + np.abs(z2), np.abs(z1 + z2)
    mass = np.exp(-eps * (free + solved)).sum()  # Z: does not depend on the proposal

    def acceptance(prime):
        c = (1 - math.exp(-prime)) / (1 + math.exp(-prime))
        q = c**k * np.exp(-prime * free)  # the proposal's law on the box
        return (q * np.exp(-(eps - prime) * free - eps * solved)).sum(), c**k * mass

    rates = []
    for prime in (0.2, 0.35, 0.5):
        enumerated, closed = acceptance(prime)
        assert enumerated == pytest.approx(closed, rel=1e-12)
        rates.append(enumerated)
    assert rates[0] < rates[1] < rates[2]
    sampler = IntegerL1Sampler.build(np.ones((1, 3), dtype=np.int64))
    blocks = 20_000
    _, attempts = compiled_blocks(
        sampler.solve, sampler.in_norm, Fraction(1, 2), blocks, seeded_source(5), max_attempts=10_000
    )
    p = rates[2]  # attempts per block are geometric(p): mean 1/p, sd √(1 − p)/p
    assert abs(attempts / blocks - 1 / p) <= 4 * math.sqrt(1 - p) / p / math.sqrt(blocks)


def test_a_total_at_a_tiny_epsilon_is_drawn_by_rejection_and_forecast_so():
    """K's spread grows like √n/ε: past the thresholds' limit the block keeps the rejection (the same law), and the
    forecast is the rejection's, not one draw."""
    total = IntegerL1Sampler.build(np.ones((1, 3), dtype=np.int64))
    tiny = Fraction(1, 10**7)
    assert total.direct_signs(Fraction(1, 2)) is not None and total.direct_signs(tiny) is None
    assert total.log_acceptance(Fraction(1, 2)) == 0.0 and total.log_acceptance(tiny) < math.log(0.9)
    noise, attempts = total.draw_blocks(tiny, 50, seeded_source(2), max_attempts=10**6)
    assert not np.any(noise.sum(axis=1)) and attempts > 50
