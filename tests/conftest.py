"""Shared helpers for the statistical test suite.

Conventions
-----------
- Every random test uses a fixed seed.
- Goodness of fit is judged by a chi-square test on pooled bins (every bin expects at least
  ``MIN_EXPECTED`` counts, sparse tail bins are merged) and must not reject at ``ALPHA``.
- Means are judged against ``Z_TOL`` standard errors, with the standard error taken from
  independent replicates (i.i.d. chains, one draw each) or from ArviZ's ESS for correlated
  MCMC output.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]  # the checkout
REGISTRY = ROOT / "config" / "claims.yaml"  # the claims registry (paper values)

# The one setting that locates the real v20210608 NHGIS county zip (not committed: see data/nhgis/PROVENANCE.md);
# tests that need it skip without it.
NHGIS_ZIP = Path(
    os.environ.get("ISDP_NHGIS_ZIP", ROOT.parent / "shared" / "data" / "nhgis" / "nhgis_ppdd_20210608_county.zip")
)

ALPHA = 1e-3  # rejection level of every goodness-of-fit test of seeded draws in the suite
# draws no seed fixes (OpenDP's, from the OS): a correct sampler fails once in 10⁷ runs, where ALPHA would fail one
# run in a thousand; a scale 10 % off still gives p < 1e-9 at 20,000 draws
UNSEEDED_ALPHA = 1e-7
Z_TOL = 4.0  # mean checks: |estimate - truth| < Z_TOL * standard error
MIN_EXPECTED = 5.0  # minimum expected count per chi-square bin after pooling


class ByteStream:
    """A random source whose bytes are one fixed stream, read in order whatever the sizes of the reads: two
    samplers given streams of one seed read the same words."""

    def __init__(self, seed: int, n: int = 1 << 22):
        self.data, self.pos = np.random.default_rng(seed).bytes(n), 0

    def randbytes(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            self.data += np.random.default_rng(len(self.data)).bytes(n)
        chunk, self.pos = self.data[self.pos : self.pos + n], self.pos + n
        return chunk


def row_verdict(claim_id: str, run, **override):
    """A registry row's status and measurement on ``run`` (an ``isdp_papers.evidence.Run``), with ``override``
    replacing the row's args (the measure handed the paper value only where the row declares it, as in the summary):
    how a test shows a row can match and can differ."""
    from isdp_papers import claims

    c = claims.claim(claim_id, REGISTRY)
    m = claims.measure_row(c, run, **override)
    return claims.verdict(c["criterion"], c["paper_value"], m)[0], m


# The property-based tests' profiles (Hypothesis): "ci", the default, runs a fixed set of examples
# (derandomized: the same examples on every run, so a red run is reproducible and randomness never decides
# whether CI passes), each with a deadline so that a hang fails as one; "fuzz" (`make fuzz`) searches far more
# examples from fresh randomness and keeps what it finds in .hypothesis/. HYPOTHESIS_PROFILE picks one.
settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=10_000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=2_000,
    deadline=60_000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    """Import ArviZ 0.x once before pytest-xdist starts its workers: it writes a once-a-day stamp file on import
    (write, then rename), and two workers importing it first thing on a new day race on that rename (1.x does not).
    A worker finds the stamp written and imports ArviZ only where a test needs it (2 s saved per worker)."""
    import os

    from isdp.convergence import _arviz_compat as arviz_compat

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return

    if arviz_compat.generation() == 0:
        import arviz  # noqa: F401


# --------------------------------------------------------------------------- chi-square


def _pool_sparse(expected: np.ndarray, observed: np.ndarray, min_expected: float):
    """Merge the bins with expected count < ``min_expected`` into one pooled bin.

    If the pooled bin itself is still too small it absorbs the smallest remaining bins until it
    is large enough. Returns (observed, expected) of the kept bins followed by the pooled bin
    (when it is non-empty).
    """
    expected = np.asarray(expected, dtype=float)
    observed = np.asarray(observed, dtype=float)
    order = np.argsort(expected, kind="stable")
    small = expected[order] < min_expected
    n_small = int(small.sum())
    pooled_e = expected[order[:n_small]].sum()
    # grow the pooled bin with the next-smallest bins until it is big enough itself
    while 0 < pooled_e < min_expected and n_small < len(order) - 1:
        pooled_e += expected[order[n_small]]
        n_small += 1
    pooled_idx = order[:n_small]
    keep_idx = order[n_small:]
    obs = list(observed[keep_idx])
    exp = list(expected[keep_idx])
    if n_small:
        obs.append(observed[pooled_idx].sum())
        exp.append(expected[pooled_idx].sum())
    return np.asarray(obs), np.asarray(exp)


def chisquare_gof(categories: np.ndarray, probs: np.ndarray, min_expected: float = MIN_EXPECTED):
    """Chi-square goodness-of-fit p-value of categorical draws against a law.

    ``categories``: draws as category indices in ``0..len(probs)-1``, or ``-1`` for a draw
    outside the listed support. ``probs``: the law on the listed categories; any missing mass
    ``1 - sum(probs)`` (a truncated tail) is the expected share of the ``-1`` category.
    Sparse bins are pooled (see :func:`_pool_sparse`). Draws in a category of probability 0
    give p = 0.
    """
    categories = np.asarray(categories)
    probs = np.asarray(probs, dtype=float)
    n = categories.size
    assert n > 0
    assert np.all(probs >= 0) and probs.sum() <= 1 + 1e-9
    outside = max(0.0, 1.0 - probs.sum())
    counts = np.bincount(categories[categories >= 0], minlength=len(probs)).astype(float)
    all_obs = np.append(counts, float((categories < 0).sum()))
    all_exp = np.append(probs, outside) * n
    if np.any((all_exp == 0) & (all_obs > 0)):
        return 0.0  # an impossible value was drawn
    nz = all_exp > 0
    obs, exp = _pool_sparse(all_exp[nz], all_obs[nz], min_expected)
    if len(obs) < 2:
        return 1.0  # a single bin: nothing to test (callers make sure this does not happen)
    exp = exp * obs.sum() / exp.sum()  # exact renormalisation of rounding in the truncation
    return float(stats.chisquare(obs, exp).pvalue)


def chisquare_gof_integers(values: np.ndarray, support: np.ndarray, probs: np.ndarray, **kw):
    """:func:`chisquare_gof` for integer draws and a law given on the integer ``support``."""
    values = np.asarray(values).ravel()
    support = np.asarray(support)
    lookup = {int(s): i for i, s in enumerate(support)}
    cats = np.array([lookup.get(int(v), -1) for v in values], dtype=np.int64)
    return chisquare_gof(cats, probs, **kw)


def rows_to_categories(rows: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Index of each row of ``rows`` among the distinct integer rows of ``points`` (``-1`` if absent)."""
    points = np.ascontiguousarray(points, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1, points.shape[1])
    if points.shape[0] == 0:
        return np.full(rows.shape[0], -1, dtype=np.int64)
    # each row as one opaque value (its bytes), so that a sort and a binary search find it
    row = np.dtype((np.void, points.dtype.itemsize * points.shape[1]))
    keys, queries = points.view(row).ravel(), rows.view(row).ravel()
    order = np.argsort(keys)
    found = order[np.minimum(np.searchsorted(keys, queries, sorter=order), keys.size - 1)]
    return np.where(keys[found] == queries, found, -1).astype(np.int64)


def chisquare_two_sample(x: np.ndarray, y: np.ndarray, min_expected: float = MIN_EXPECTED) -> float:
    """Two-sample chi-square p-value (homogeneity) for two samples of integers.

    Values are binned in increasing order, consecutive values merged until every bin's expected
    count in the *smaller* sample is at least ``min_expected``; the binning uses only the pooled
    sample, so it is the same under any relabelling of the two samples.
    """
    x = np.asarray(x).ravel()
    y = np.asarray(y).ravel()
    values, pooled_counts = np.unique(np.concatenate([x, y]), return_counts=True)
    share = min(len(x), len(y)) / (len(x) + len(y))
    edges = []  # right edges (inclusive) of the bins
    acc = 0.0
    for v, c in zip(values, pooled_counts, strict=True):
        acc += c * share
        if acc >= min_expected:
            edges.append(v)
            acc = 0.0
    if not edges:
        return 1.0
    edges[-1] = values[-1]  # the last partial bin joins the previous one
    bins_x = np.searchsorted(edges, x, side="left")
    bins_y = np.searchsorted(edges, y, side="left")
    k = len(edges)
    table = np.vstack([np.bincount(bins_x, minlength=k), np.bincount(bins_y, minlength=k)])
    if k < 2:
        return 1.0
    return float(stats.chi2_contingency(table, correction=False).pvalue)


# --------------------------------------------------------------------------- Monte Carlo error


def iid_se(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """Standard error of the mean of i.i.d. replicates along ``axis``."""
    x = np.asarray(x, dtype=float)
    return x.std(axis=axis, ddof=1) / np.sqrt(x.shape[axis])


def ess_se(draws: np.ndarray) -> np.ndarray:
    """Standard error of the per-cell mean of MCMC draws (chains, draws, cells) from ArviZ's ESS.

    SE = sd / sqrt(ESS_mean), the effective sample size for the mean accounting for
    autocorrelation within and disagreement between chains.
    """
    from isdp.convergence import ess as arviz_ess

    draws = np.asarray(draws, dtype=float)
    ess = arviz_ess(draws, method="mean")
    sd = draws.reshape(-1, draws.shape[2]).std(axis=0, ddof=1)
    return sd / np.sqrt(ess)


def assert_mean_zero(draws: np.ndarray, se: np.ndarray, what: str = "mean") -> None:
    """Assert |mean| < Z_TOL · se for every component."""
    mean = np.asarray(draws, dtype=float).reshape(-1, np.shape(draws)[-1]).mean(axis=0)
    z = np.abs(mean) / se
    assert np.all(z < Z_TOL), f"{what}: |mean|/SE = {np.round(z, 2)} (means {np.round(mean, 3)})"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def umask():
    """Set the process's umask to the usual 022 for one test (a publishable file's mode follows it), then restore it;
    the test may set another with ``umask(mask)``."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.fixture(scope="session")
def isdp():
    """The library under test (imported once; the numba kernels load from their cache)."""
    import isdp as _isdp

    return _isdp


@pytest.fixture(scope="module")
def registry():
    """The claims registry (config/claims.yaml), loaded once per test module."""
    from isdp_papers import claims  # deferred: only the paper layer's tests read the registry

    return claims.load_registry(REGISTRY)


@pytest.fixture
def release_cli(tmp_path):
    """`isdp release` run in-process on one table, seeded (not for publication) and without a progress line.

    ``release_cli(table, *args, out="out.csv", name="t.csv", seed=3)`` writes ``table`` to ``tmp_path / name`` when it
    is CSV text (a path is released where it is), passes ``args`` to the command, writes the release to
    ``tmp_path / out`` and returns the command's exit code.
    """
    from isdp.cli import main  # deferred: as in the isdp fixture, the library loads for the tests that use it

    def release(table, *args, out="out.csv", name="t.csv", seed=3) -> int:
        if isinstance(table, str):
            (tmp_path / name).write_text(table, encoding="utf-8")
            table = tmp_path / name
        seeded = ["--seed", str(seed), "--reproducible-not-for-publication", "--no-progress"]
        return main(["release", str(table), *map(str, args), "-o", str(tmp_path / out), *seeded])

    return release


@pytest.fixture(scope="session")
def sum3(isdp):
    """Λ for one sum constraint over 3 cells (a 2-D lattice)."""
    return isdp.lattice.IntegerLattice.from_constraints(isdp.lattice.sum_constraint(3))


@pytest.fixture(scope="session")
def sum2(isdp):
    """Λ for one sum constraint over 2 cells (the 1-D lattice spanned by (1, -1))."""
    return isdp.lattice.IntegerLattice.from_constraints(isdp.lattice.sum_constraint(2))


@pytest.fixture(scope="session")
def table22(isdp):
    """Λ for the margins of a 2×2 table (the 1-D lattice spanned by (1, -1, -1, 1))."""
    return isdp.lattice.IntegerLattice.from_constraints(isdp.lattice.table_margins(2, 2))
