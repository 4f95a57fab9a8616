"""Klein's sampler of the discrete Gaussian on a total's or two margins' lattice: exact laws, structure.

The block laws are checked against D_{Λ,σ} enumerated on a box of lattice coordinates (the mass
outside is below 1e-12 at these σ), at σ² small enough that Klein's pass alone is far from it:
the same draws are also tested against the law of the pass without its rejection step, computed
here independently, and must fail that test (the test's power at the sample size used).
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ByteStream
from exact_support import finishes
from scipy import stats

from isdp.errors import ArgumentError
from isdp.exact import LatticeBlock, discrete_gaussian, lattice_block, seeded_source
from isdp.exact._compiled_draws import WordSource

ALPHA = 1e-3  # a correct sampler fails one of these tests with probability below 1e-3 each


def chi_square_p(counts: dict, law: dict, n: int) -> float:
    """p-value of Pearson's test of ``counts`` (n draws) against ``law``, bins below 5 expected pooled."""
    keys = sorted(law, key=law.get, reverse=True)
    observed, expected, pooled_o, pooled_e = [], [], 0, 0.0
    for k in keys:
        if law[k] * n >= 5:
            observed.append(counts.get(k, 0))
            expected.append(law[k] * n)
        else:
            pooled_o += counts.get(k, 0)
            pooled_e += law[k] * n
    pooled_o += sum(v for k, v in counts.items() if k not in law)  # draws outside the law's support
    observed.append(pooled_o)
    expected.append(max(pooled_e, 1e-12))
    expected = np.array(expected) * n / sum(expected)
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize(
    ("centre", "sigma2"),
    [(Fraction(1, 3), Fraction(4)), (Fraction(-7, 2), Fraction(1, 5)), (Fraction(5, 2), Fraction(30))],
)
def test_the_one_dimensional_draw_is_the_discrete_gaussian(centre, sigma2):
    rng, n = seeded_source(11), 8_000
    draws = [discrete_gaussian(centre, sigma2, rng) for _ in range(n)]
    support = range(math.floor(centre) - 60, math.ceil(centre) + 61)
    weights = {x: math.exp(-float((x - centre) ** 2 / (2 * sigma2))) for x in support}
    total = sum(weights.values())
    law = {x: w / total for x, w in weights.items()}
    counts = {x: draws.count(x) for x in set(draws)}
    assert chi_square_p(counts, law, n) > ALPHA
    shifted = {x + 1: p for x, p in law.items()}  # the same law one step off: the test must see it
    assert chi_square_p(counts, shifted, n) < 1e-6


def _klein_raw_probability(kind: str, shape: tuple[int, int], z: np.ndarray, sigma2: float) -> float:
    """P(Klein's pass returns coordinates z) without the rejection step, written out independently."""

    @functools.cache
    def rho_z(c, w):
        return sum(math.exp(-((k - c) ** 2) / (2 * w)) for k in range(-60, 61))

    p = 1.0
    if kind == "total":
        n = shape[1]
        zz = [0, *z.tolist(), 0]
        for i in range(n - 1, 0, -1):
            c, w = i / (i + 1) * zz[i + 1], sigma2 * i / (i + 1)
            p *= math.exp(-((zz[i] - c) ** 2) / (2 * w)) / rho_z(c, w)
        return p
    r, cc = shape
    zz = np.zeros((r + 1, cc + 1))
    zz[1:r, 1:cc] = z
    for i in range(r - 1, 0, -1):
        for j in range(cc - 1, 0, -1):
            c = j / (j + 1) * zz[i, j + 1] + i / (i + 1) * zz[i + 1, j] - i * j / ((i + 1) * (j + 1)) * zz[i + 1, j + 1]
            w = sigma2 * i * j / ((i + 1) * (j + 1))
            p *= math.exp(-((zz[i, j] - c) ** 2) / (2 * w)) / rho_z(c, w)
    return p


def _noise(kind, shape, z):
    r, c = shape
    if kind == "total":
        u = np.diff(np.concatenate([[0], z, [0]]))
        return -u
    full = np.zeros((r + 1, c + 1))
    full[1:r, 1:c] = z
    return np.diff(np.diff(full, axis=0), axis=1).astype(int)


@pytest.mark.parametrize(
    ("A", "kind", "shape", "sigma2", "n"),
    [
        (np.array([[1, 1, 1, 1]]), "total", (1, 4), Fraction(1, 4), 6_000),
        (
            np.kron(np.eye(3, dtype=int), np.ones(3, dtype=int)).tolist()
            + np.kron(np.ones(3, dtype=int), np.eye(3, dtype=int)).tolist(),
            "margins",
            (3, 3),
            Fraction(1, 2),
            2_500,
        ),
    ],
    ids=["total-4", "margins-3x3"],
)
def test_the_block_draws_follow_the_lattice_gaussian_and_the_pass_alone_does_not(A, kind, shape, sigma2, n):
    block = lattice_block(np.array(A))
    assert block.kind == kind and block.grid.shape == shape
    dim = block.dim
    exact, raw = {}, {}
    for z in itertools.product(range(-5, 6), repeat=dim):
        coords = np.array(z, dtype=float).reshape((dim,) if kind == "total" else (shape[0] - 1, shape[1] - 1))
        u = tuple(int(x) for x in np.asarray(_noise(kind, shape, coords)).ravel())
        exact[u] = math.exp(-sum(x * x for x in u) / (2 * float(sigma2)))
        raw[u] = raw.get(u, 0.0) + _klein_raw_probability(kind, shape, coords, float(sigma2))
    total = sum(exact.values())
    exact = {u: p / total for u, p in exact.items()}
    rng, counts, attempts = seeded_source(5), {}, 0
    for _ in range(n):
        noise, a = block.draw(sigma2, rng)
        attempts += a
        key = tuple(int(x) for x in noise[block.grid.ravel()])
        counts[key] = counts.get(key, 0) + 1
    assert np.array_equal(np.array(A) @ noise, np.zeros(len(A)))
    assert chi_square_p(counts, exact, n) > ALPHA
    assert chi_square_p(counts, raw, n) < ALPHA  # Klein's pass alone is a different law, and the test sees it
    assert attempts > n  # at this σ the rejection step rejects


def test_the_variance_is_even_and_the_invariants_hold_at_scale():
    r, c, sigma2 = 30, 20, Fraction(4)
    block = LatticeBlock(np.arange(r * c).reshape(r, c), "margins")
    rng = seeded_source(3)
    draws = np.array([block.draw(sigma2, rng)[0] for _ in range(12)]).reshape(12, r, c)
    assert not draws.sum(axis=1).any() and not draws.sum(axis=2).any()
    expected = block.variances(sigma2)[0]
    assert expected == pytest.approx(4 * (1 - 1 / 30) * (1 - 1 / 20))
    per_draw = (draws.astype(float) ** 2).mean(axis=(1, 2))
    se = per_draw.std(ddof=1) / math.sqrt(len(per_draw))
    assert abs(per_draw.mean() - expected) < 4 * se + 1e-9
    corner, inner = (draws[:, -1, -1].astype(float) ** 2).mean(), (draws[:, 1:-1, 1:-1].astype(float) ** 2).mean()
    assert corner < 3 * inner  # no cell absorbs the others' noise (a solved corner would carry ~ r c / 4 times)


@pytest.mark.parametrize(("sigma", "below"), [(1, (0.13, 0.15)), (2, (1e-7, 3e-7)), (3, (0, 1e-12))])
def test_the_continuous_variance_against_the_2x2_lattices_exact_one(sigma, below):
    """A 2 × 2 table's lattice is Z·v, ‖v‖² = 4: a cell's noise is ±z with z ∝ exp(−2z²/σ²), whose variance is
    summed exactly here; variances() states σ²/4, relatively above it by what its docstring says."""
    margins = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    z = np.arange(-200, 201)
    w = np.exp(-2.0 * z**2 / sigma**2)
    exact = float((z**2 * w).sum() / w.sum())
    stated = float(lattice_block(margins).variances(Fraction(sigma**2))[0])
    assert below[0] - 1e-12 <= 1 - exact / stated <= below[1]  # (rounding at σ = 3)


@pytest.mark.parametrize(
    ("sigma2", "count", "message"),
    [
        (10**40, 100, r"\[2\*\*-64, 2\*\*100\]"),
        (0, 3, "positive"),
        (Fraction(-2), 3, "positive"),
        (float("nan"), 3, ""),
        (True, 3, ""),
        ("1_0", 3, ""),
        (Fraction(4), -1, "count"),
        (Fraction(4), 2.5, "count"),
    ],
)
def test_a_variance_or_count_outside_what_the_sampler_serves_is_refused_by_name(sigma2, count, message):
    """σ² = 10⁴⁰ made the compiled pass's scale leave int64 and loop forever on a negative bit length."""
    block = lattice_block(np.ones((1, 100), dtype=int))
    name = "count" if message == "count" else "sigma2"
    with pytest.raises(ArgumentError, match=f"^{name} .*{message if name == 'sigma2' else ''}"):
        finishes(lambda: block.draw_blocks(sigma2, count, seeded_source(1)))
    if name == "sigma2":
        with pytest.raises(ArgumentError, match=f"^{name} "):
            finishes(lambda: block.draw(sigma2, seeded_source(1)))


@pytest.mark.parametrize("grid", [(1, 5), (3, 4)])
def test_no_blocks_are_an_empty_array(grid):
    block = LatticeBlock(np.arange(grid[0] * grid[1]).reshape(grid), "total" if grid[0] == 1 else "margins")
    noise, attempts = block.draw_blocks(Fraction(4), 0, seeded_source(1))
    assert noise.shape == (0, grid[0] * grid[1]) and noise.dtype == np.int64 and attempts == 0


@pytest.mark.parametrize("sigma2", [Fraction(10**20), Fraction(2**100), Fraction(1, 2**64), Fraction(1, 7)])
@pytest.mark.parametrize(("kind", "grid"), [("total", (1, 40)), ("margins", (12, 12))])
def test_the_compiled_pass_and_the_python_pass_serve_the_same_variances_with_the_same_draws(
    sigma2, kind, grid, monkeypatch
):
    """σ² = 10²⁰: the compiled pass drew while the Python pass refused (a message about an ε); at 2**100 the
    centres' numerators of a 12 × 12 grid leave int64 unless handed over first; below 1/8 the Python pass takes
    the least rejection bound and the kernel hands every block to it."""
    import isdp.exact._compiled_klein as compiled_klein

    monkeypatch.setattr(compiled_klein, "_PYTHON_CELLS", 0)
    block = LatticeBlock(np.arange(grid[0] * grid[1]).reshape(grid), kind)
    fast, attempts = finishes(lambda: block.draw_blocks(sigma2, 3, ByteStream(2)))
    reader = WordSource(ByteStream(2))
    slow = [block.draw(sigma2, reader) for _ in range(3)]
    assert np.array_equal(fast, np.array([noise for noise, _ in slow])) and attempts == sum(a for _, a in slow)
    tables = fast.reshape(3, *grid)
    assert not tables.sum(axis=-1).any() and (kind == "total" or not tables.sum(axis=-2).any())
    if sigma2 >= 10**20:
        assert np.abs(fast).max() > 10**8
