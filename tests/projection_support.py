"""Helpers of the projection tests (tests/core/baselines, tests/core/release/test_nonnegative.py): E2's table, the
margins of a 4 × 4 table, one total and the ℓ1 distance."""

from __future__ import annotations

import numpy as np

# Delinquent children (ISDP §5 Table 1, experiment E2), row-major.
TABLE = np.array([15, 1, 3, 1, 20, 10, 10, 15, 3, 10, 10, 2, 12, 14, 7, 2])


def margins_4x4() -> np.ndarray:
    """8 × 16: the 4 row sums then the 4 column sums of a row-major 4 × 4 table."""
    A = np.zeros((8, 16), dtype=np.int64)
    for i in range(4):
        A[i, 4 * i : 4 * i + 4] = 1
        A[4 + i, i::4] = 1
    return A


def sum_row(n: int) -> np.ndarray:
    return np.ones((1, n), dtype=np.int64)


def l1(y, m) -> float:
    return float(np.abs(np.asarray(y, float) - np.asarray(m, float)).sum())
