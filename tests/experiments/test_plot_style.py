"""Tests of :mod:`isdp_papers.plot_style`: the collection-based box plot draws Matplotlib's own box-plot
statistics (quartiles, medians, whisker ends, fliers)."""

from __future__ import annotations

import numpy as np
import pytest


def test_box_collection_draws_matplotlib_boxplot_statistics():
    """The collection-based box plot uses Matplotlib's own quartiles and whisker ends."""
    import matplotlib.pyplot as plt
    from isdp_papers.plot_style import box_collection
    from matplotlib import cbook

    data = np.random.default_rng(3).standard_t(3, size=(200, 5))
    fig, ax = plt.subplots()
    box_collection(ax, data, np.arange(5), width=0.5, color="C0", fliers=True)
    boxes, whiskers, medians = ax.collections[:3]
    stats = cbook.boxplot_stats(data, whis=1.5)
    for k, s in enumerate(stats):
        ys = boxes.get_paths()[k].vertices[:, 1]
        assert ys.min() == pytest.approx(s["q1"]) and ys.max() == pytest.approx(s["q3"])
        assert medians.get_segments()[k][0, 1] == pytest.approx(s["med"])
        assert whiskers.get_segments()[k][1, 1] == pytest.approx(s["whislo"])
        assert whiskers.get_segments()[5 + k][1, 1] == pytest.approx(s["whishi"])
    assert len(ax.collections[3].get_offsets()) == sum(len(s["fliers"]) for s in stats)
    plt.close(fig)
