"""TopDown talk statements tested on the committed 2010 county data: TDA-E3-nonnegative-integer-histogram ('Create
microdata … equivalent to histogram with nonnegative integer entries') and TDA-E3-sparse-histogram ('The data are
sparse'), on the committed per-county histogram-cells extract (re-derived from the NHGIS zip in test_nhgis.py).
Each row matches on the data and flips under a plausibly wrong world."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import NHGIS_ZIP as SHARED_ZIP
from conftest import REGISTRY, ROOT, row_verdict

from isdp.experiments import claims, nhgis

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
NEEDS_ZIP = pytest.mark.skipif(not SHARED_ZIP.exists(),
                               reason=f"real NHGIS zip not found at {SHARED_ZIP} (set ISDP_NHGIS_ZIP)")


@pytest.fixture(scope="module")
def run() -> claims.Run:
    return claims.Run(ROOT, CONFIG, repo=ROOT)


def test_histogram_cells_are_counts_of_the_252_cells():
    nonzero = nhgis.load_histogram_cells(ROOT / nhgis.HISTOGRAM_CELLS_EXTRACT)[["sf1_nonzero_cells",
                                                                                "dp_nonzero_cells"]].to_numpy()
    assert (nonzero >= 1).all() and (nonzero <= nhgis.HISTOGRAM_CELLS).all()  # every county has people


@pytest.mark.parametrize("row", ["TDA-E3-nonnegative-integer-histogram", "ISDP-E3-das-nonnegative"])
def test_the_das_histograms_are_consistent(run, row):
    status, m = row_verdict(row, run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)


@NEEDS_ZIP
def test_tables_noised_one_by_one_are_not_one_nonnegative_histogram(run, monkeypatch):
    """Each of P8–P11 with its own double geometric noise (ε = 1 per cell), as a release that is not microdata
    would be: the cells derived from them go negative where they are small."""
    counties, (sf1, pop, adults) = nhgis._county_histograms(SHARED_ZIP, None, ("sf",))["sf"]
    r = nhgis.N_RACES
    adult_nh, adult_h, child_nh, child_h = (sf1[:, i * r:(i + 1) * r] for i in range(4))
    tables = {"adult_not_hispanic": adult_nh, "adult": adult_nh + adult_h, "all_not_hispanic": adult_nh + child_nh,
              "all": adult_nh + adult_h + child_nh + child_h}
    rng = np.random.default_rng(20230207)
    a = np.exp(-1.0)
    noisy = {k: t + rng.geometric(1 - a, t.shape) - rng.geometric(1 - a, t.shape) for k, t in tables.items()}
    cells = np.hstack([noisy["adult_not_hispanic"], noisy["adult"] - noisy["adult_not_hispanic"],
                       noisy["all_not_hispanic"] - noisy["adult_not_hispanic"],
                       noisy["all"] - noisy["all_not_hispanic"] - (noisy["adult"] - noisy["adult_not_hispanic"])])
    summary = nhgis.histogram_cells_summary(counties, sf1, (cells, noisy["all"].sum(axis=1),
                                                            noisy["adult"].sum(axis=1)))
    monkeypatch.setattr(nhgis, "load_histogram_cells", lambda path: summary)
    for row in ("TDA-E3-nonnegative-integer-histogram", "ISDP-E3-das-nonnegative"):
        status, m = row_verdict(row, run)
        assert status == "differs" and m.value > 1000


def test_county_histograms_are_sparse_and_the_nations_is_not(run):
    status, m = row_verdict("TDA-E3-sparse-histogram", run)
    assert status == "match" and 0.5 < m.value < 1
    status, m = row_verdict("TDA-E3-sparse-histogram", run, level="nation")
    assert status == "differs" and m.value == 0
