"""E5's figures: Fig 1 is the same picture on every run (its points' jitter comes from a fixed stream)."""

# ruff: noqa: NPY002 (the test sets and reads NumPy's legacy global stream, the one seaborn's jitter drew from)

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from isdp_papers.e5_congenial_mis.figures import plot_distances

METHODS = ("mis", "projection")
LABELS = {"mis": "MIS, exact", "projection": "projection + rounding"}


def _distances() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = [(t, m, *rng.uniform(1, 3, 2), 100) for t in range(12) for m in METHODS]
    return pd.DataFrame(rows, columns=["table", "method", "avg_l1", "avg_l2", "n_releases"])


def _png() -> tuple[bytes, list[np.ndarray]]:
    fig, axes = plt.subplots(1, 2)
    plot_distances(_distances(), METHODS, LABELS, axes)
    points = [collection.get_offsets() for collection in axes[0].collections if len(collection.get_offsets()) == 24]
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    plt.close(fig)
    return out.getvalue(), points


def test_fig1_is_the_same_picture_on_every_run_and_leaves_numpy_s_stream_alone():
    np.random.seed(1)
    before = np.random.random()
    np.random.seed(1)
    first, points = _png()
    assert np.random.random() == before  # the global stream was not drawn from
    np.random.seed(2)  # another global state must not change the picture
    second, _ = _png()
    assert first == second
    (offsets,) = points
    category = np.repeat([[0, 1]], 12, axis=0).ravel()
    assert np.all(np.abs(offsets[:, 0] - category) <= 0.2) and np.ptp(offsets[:, 0] - category) > 0.1
