"""Tests of :mod:`isdp_papers.e3_census_counties.scheduling`: the per-state jobs' batches cover every state once
and balance their weights, and the national run puts Texas in a batch of its own."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from isdp_papers.config import load_config
from isdp_papers.e3_census_counties.scheduling import balanced_batches


def test_balanced_batches_cover_every_item_once_and_balance_the_weights():
    rng = np.random.default_rng(7)
    items = [f"s{i}" for i in range(40)]
    weights = dict(zip(items, rng.integers(1, 300, size=40) ** 2, strict=True))
    for n in (1, 3, 6, 40, 100):
        batches = balanced_batches(items, weights, n)
        assert len(batches) == min(n, 40)
        assert sorted(it for b in batches for it in b) == sorted(items)
        loads = [sum(weights[it] for it in b) for b in batches]
        # the guarantee of largest-first scheduling: no batch exceeds the lightest by more than one item
        assert max(loads) - min(loads) <= max(weights.values())
    assert balanced_batches(items, weights, None) == [[it] for it in sorted(items, key=lambda it: -weights[it])]
    assert balanced_batches(["a", "b", "c"], {"a": 1, "b": 1, "c": 1}, 2) == [["a", "c"], ["b"]]
    with pytest.raises(ValueError, match="at least 1"):
        balanced_batches(items, weights, 0)
    with pytest.raises(ValueError, match="no items"):
        balanced_batches([], {}, 2)


def test_the_national_batches_put_texas_alone():
    """config/national.yaml's state_jobs, weighted as the workflow does (squared county counts of the
    committed county file): Texas, the largest state by far to certify, runs in a batch of its own."""
    config = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "national.yaml")
    counts = pd.read_csv(ROOT / "data" / "nhgis" / "county_population_v20210608.csv")["state_abbr"].value_counts()
    batches = balanced_batches(list(counts.index), (counts**2).to_dict(), config["e3"]["state_jobs"])
    assert ["TX"] in batches
    assert len(batches) == config["e3"]["state_jobs"] < len(counts)
