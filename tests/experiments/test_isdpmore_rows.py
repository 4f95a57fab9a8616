"""ISDP App. E.4's 'none of the 1000 instantiations triggers the truncation in any county of any state' under the
mechanism's law (ISDP-E3-no-truncation-probable), on a hand-made run of the committed county file: the tail bound
is an upper bound on the exact marginal, the row matches at E3's ε and differs at a quarter and a tenth of it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.double_geometric import dg_pmf
from isdp.exact_laws import sum_constraint_l1_marginal
from isdp.experiments import claims
from isdp.experiments.e3_census_counties import audit
from isdp.experiments.e3_census_counties.measures import negative_count_bound

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
E3 = CONFIG["e3"]
COUNTIES = ROOT / "data" / "nhgis" / "county_population_v20210608.csv"
ROW = "ISDP-E3-no-truncation-probable"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> claims.Run:
    """The committed county file and the states E3's audit selects from it, as a run's results."""
    root = tmp_path_factory.mktemp("run")
    for sub in ("data", "e3"):
        (root / "results" / sub).mkdir(parents=True)
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    counties.to_csv(root / "results" / "data" / "counties.csv", index=False)
    sel = E3["selection"]
    states = audit.select_states(audit.das_bias_regressions(counties, min_counties=E3["audit"]["min_counties"]),
                                 alpha=E3["audit"]["alpha"], n_target=sel["n_states"], always=sel["always"])
    (root / "results" / "e3" / "selection.json").write_text(json.dumps({"selected_states": states}))
    return claims.Run(root, {"seed": CONFIG["seed"], "e3": E3, "data": CONFIG["data"]}, repo=ROOT)


@pytest.mark.parametrize(("n", "eps", "x"), [(2, 0.5, 0), (3, 0.5, 2), (4, 1.0, 1), (3, 0.2, 6)])
def test_tail_bound_is_above_the_brute_force_marginal(n, eps, x):
    """P(u_1 ≤ −x − 1) summed over the lattice {Σu = 0} by brute force (the other n − 1 cells on a box whose
    left-out mass is below 1e-12), against the bound and the exact marginal."""
    r = int(np.ceil(30 / eps))
    k = np.arange(-r, r + 1)
    grids = np.meshgrid(*[k] * (n - 1), indexing="ij")
    last = -sum(grids)
    weight = np.prod([dg_pmf(g, eps) for g in grids], axis=0) * dg_pmf(last, eps)
    tail = weight[grids[0] <= -x - 1].sum() / weight.sum()
    assert tail == pytest.approx(sum_constraint_l1_marginal(n, eps, np.arange(-r, -x)).sum(), rel=1e-9)
    assert tail <= negative_count_bound([x], n, eps)[0] < 10 * tail


def _upper(run: claims.Run, eps: float, releases: int) -> float:
    """P(no negative count) ≤ that of Texas's smallest county alone (exact marginal)."""
    c = pd.read_csv(run.path("data/counties.csv"))
    tx = c.loc[c["state_abbr"] == "TX", "sf1_pop"]
    x = int(tx.min())
    p = sum_constraint_l1_marginal(len(tx), eps, np.arange(-x - 1 - int(60 / eps), -x)).sum()
    return (1 - p) ** releases


def test_no_truncation_is_probable_at_e3s_eps(run):
    status, m = row_verdict(ROW, run)
    assert status == "match", m.text
    assert m.value <= _upper(run, E3["eps"], claims.claim(ROW, ROOT / "config" / "claims.yaml")["args"]["releases"])


@pytest.mark.parametrize("divisor", [4, 10])  # the county × population shares without the total of 4; ten times
def test_wider_noise_makes_no_truncation_improbable(run, divisor):
    releases = claims.claim(ROW, ROOT / "config" / "claims.yaml")["args"]["releases"]
    eps = E3["eps"] / divisor
    assert "TX" in run.json("e3/selection.json")["selected_states"]
    status, m = row_verdict(ROW, run, eps=eps)
    assert status == "differs", m.text
    # the upper bound is below the threshold too: the verdict is not the lower bound's slack
    criterion = claims.claim(ROW, ROOT / "config" / "claims.yaml")["criterion"]
    assert m.value <= _upper(run, eps, releases) < criterion["min"]
