"""Tests of :mod:`isdp_papers.e4_projection_comparison.figures`: Fig 10 draws one collection of boxes per
method, with one box per county."""

from __future__ import annotations

import numpy as np
from isdp_papers.e4_projection_comparison import comparison as cmp
from isdp_papers.e4_projection_comparison.figures import plot_fig10

from isdp.exact import sample_sum_constraint_l1


def test_plot_fig10_smoke():
    import matplotlib.pyplot as plt

    sf1 = np.array([30, 400, 5000, 60000])
    gl = sample_sum_constraint_l1(4, 0.192, 30, seed=2)
    rel = cmp.releases_for_state("ZZ", sf1, sf1, gl, eps=0.192, n_releases=30, seed=1)
    fig, ax = plt.subplots()
    plot_fig10(rel, ax=ax, title="t")
    from matplotlib.collections import PolyCollection

    boxes = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(boxes) == len(rel.releases)  # one collection of boxes per method …
    assert all(len(c.get_paths()) == 4 for c in boxes)  # … with one box per county
    plt.close(fig)
