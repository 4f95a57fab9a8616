"""Tests of :mod:`isdp_papers.e3_census_counties.audit`: the per-state DAS bias regressions (against a closed
form, on planted slopes), the audit counts, and the E3 state-selection rule (filling by p-value, forcing Illinois, the
override and ``all``), on synthetic tables and on the committed v20210608 county file."""

import numpy as np
import pandas as pd
import pytest
from census_support import EMBEDDED
from isdp_papers.e3_census_counties import audit
from isdp_papers.nhgis.counties import STATE_ABBR, load_counties
from scipy import stats


def synthetic_counties(sizes: dict[str, int], slope: float, seed: int = 1) -> pd.DataFrame:
    """Tidy-shaped counties whose DAS error is round(2 + slope * log(sf1) + N(0, 1))."""
    rng = np.random.default_rng(seed)
    frames = []
    for fips, n in sizes.items():
        sf1 = np.round(np.exp(rng.uniform(4, 13, n))).astype(np.int64)
        error = np.round(2.0 + slope * np.log(sf1) + rng.normal(0, 1, n)).astype(np.int64)
        frames.append(
            pd.DataFrame(
                {
                    "gisjoin": [f"G{fips}0{3 * i + 1:03d}0" for i in range(n)],
                    "state_fips": fips,
                    "state_abbr": STATE_ABBR[fips],
                    "county_fips": [f"{3 * i + 1:03d}" for i in range(n)],
                    "name": [f"County {i}" for i in range(n)],
                    "sf1_pop": sf1,
                    "dp_pop": sf1 + error,
                    "vintage": "test",
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def closed_form(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """OLS by numpy lstsq: slope, intercept, its standard error and two-sided p-value."""
    design = np.column_stack([np.ones_like(x), x])
    (intercept, slope), rss, *_ = np.linalg.lstsq(design, y, rcond=None)
    n = len(x)
    se = np.sqrt(rss[0] / (n - 2) / np.sum((x - x.mean()) ** 2))
    p = 2 * stats.t.sf(abs(slope / se), n - 2)
    return slope, intercept, se, p


def test_regression_matches_closed_form_and_recovers_slope():
    df = synthetic_counties({"17": 102, "50": 14}, slope=-0.8)
    reg = audit.das_bias_regressions(df)
    assert list(reg.columns) == audit.REGRESSION_COLUMNS
    assert reg["state_abbr"].tolist() == ["IL", "VT"]
    for _, row in reg.iterrows():
        state = df[df["state_fips"] == row["state_fips"]]
        x = np.log(state["sf1_pop"].to_numpy(float))
        y = (state["dp_pop"] - state["sf1_pop"]).to_numpy(float)
        slope, intercept, se, p = closed_form(x, y)
        assert row["n_counties"] == len(state)
        np.testing.assert_allclose(
            [row["slope"], row["intercept"], row["stderr"], row["p_value"]], [slope, intercept, se, p], rtol=1e-9
        )
    il = reg.set_index("state_abbr").loc["IL"]
    assert abs(il["slope"] + 0.8) < 4 * il["stderr"]  # the planted slope, within noise
    assert il["p_value"] < 1e-6


def test_only_states_with_more_than_min_counties():
    df = synthetic_counties({"10": 3, "11": 1, "44": 5, "50": 6, "17": 20}, slope=-1.0)
    reg = audit.das_bias_regressions(df)
    assert reg["state_abbr"].tolist() == ["IL", "VT"]  # sorted by FIPS: 17 < 50
    assert reg["state_abbr"].tolist() == reg.sort_values("state_fips")["state_abbr"].tolist()
    assert audit.das_bias_regressions(df, min_counties=4)["state_abbr"].tolist() == ["IL", "RI", "VT"]


def test_nonpositive_population_is_rejected():
    df = synthetic_counties({"17": 10}, slope=0.0)
    df.loc[0, ["sf1_pop", "dp_pop"]] = 0
    with pytest.raises(ValueError, match="positive"):
        audit.das_bias_regressions(df)


def reg_table(rows: list[tuple[str, float, float]]) -> pd.DataFrame:
    """A regression table from (abbr, slope, p_value) rows."""
    fips_of = {abbr: fips for fips, abbr in STATE_ABBR.items()}
    return pd.DataFrame(
        {
            "state_fips": [fips_of[a] for a, _, _ in rows],
            "state_abbr": [a for a, _, _ in rows],
            "n_counties": 10,
            "slope": [s for _, s, _ in rows],
            "stderr": 0.1,
            "p_value": [p for _, _, p in rows],
            "intercept": 0.0,
        }
    ).sort_values("state_fips", ignore_index=True)


# 2 significant negatives, 1 significant positive, 12 non-significant negatives, IL positive
TABLE = reg_table(
    [("VT", -1.0, 0.004), ("AL", -0.5, 0.0001), ("MD", 0.6, 0.001), ("IL", 0.01, 0.97)]
    + [
        (a, -0.2, 0.02 + 0.05 * i)
        for i, a in enumerate(["TX", "OH", "MA", "OK", "MO", "NV", "SC", "CA", "MI", "MT", "WA", "NY"])
    ]
)


def test_audit_counts():
    assert audit.audit_counts(TABLE) == {
        "n_regressions": 16,
        "n_negative": 14,
        "n_significant": 3,
        "n_significant_negative": 2,
    }
    assert audit.audit_counts(TABLE, alpha=0.05)["n_significant_negative"] == 3


def test_selection_fills_by_p_value_and_forces_illinois():
    chosen = audit.select_states(TABLE, n_target=11)
    # 2 significant negatives + 9 fillers by p (TX .. MI) = 11; forcing IL (positive slope)
    # drops the largest-p filler, MI, to keep 11. MD (significant but positive) never enters.
    assert chosen == ["IL", "AL", "VT", "TX", "OH", "MA", "OK", "MO", "NV", "SC", "CA"]


def test_selection_without_forced_state():
    chosen = audit.select_states(TABLE, always=())
    assert chosen == ["AL", "VT", "TX", "OH", "MA", "OK", "MO", "NV", "SC", "CA", "MI"]


def test_forced_state_already_selected_is_not_duplicated():
    table = TABLE.copy()
    table.loc[table["state_abbr"] == "IL", ["slope", "p_value"]] = [-0.3, 0.03]
    chosen = audit.select_states(table)
    assert chosen[0] == "IL" and chosen.count("IL") == 1 and len(chosen) == 11
    assert chosen[1:] == ["AL", "VT", "TX", "OH", "MA", "OK", "MO", "NV", "SC", "CA"]


def test_all_significant_are_kept_beyond_n_target():
    table = TABLE.assign(p_value=np.where(TABLE["slope"] < 0, 0.001, TABLE["p_value"]))
    chosen = audit.select_states(table)
    assert len(chosen) == 1 + 14 and chosen[0] == "IL"


def test_fewer_negative_slopes_than_target():
    table = reg_table([("VT", -1.0, 0.2), ("IL", 1.0, 0.5), ("TX", 0.3, 0.01)])
    assert audit.select_states(table) == ["IL", "VT"]


def test_override_replaces_the_rule_and_is_validated():
    assert audit.select_states(TABLE, override=["ny", "IL", "DE"]) == ["NY", "IL", "DE"]
    with pytest.raises(ValueError, match=r"override.*\['XX'\]"):
        audit.select_states(TABLE, override=["IL", "XX"])
    with pytest.raises(ValueError, match="duplicated"):
        audit.select_states(TABLE, override=["IL", "il"])
    with pytest.raises(ValueError, match="always"):
        audit.select_states(TABLE, always=("ZZ",))


@pytest.mark.skipif(not EMBEDDED.exists(), reason=f"committed extract {EMBEDDED} is missing")
def test_real_v20210608_audit():
    reg = audit.das_bias_regressions(load_counties(EMBEDDED))
    assert len(reg) == 48
    assert set(STATE_ABBR.values()) - set(reg["state_abbr"]) == {"DC", "DE", "HI", "RI"}
    counts = audit.audit_counts(reg)
    assert counts["n_regressions"] == 48
    assert counts["n_significant_negative"] == 1  # v20210608: the rule finds 1 state
    chosen = audit.select_states(reg)
    assert len(chosen) == 11 and chosen[0] == "IL" and len(set(chosen)) == 11
    negative = set(reg.loc[reg["slope"] < 0, "state_abbr"])
    assert set(chosen) - {"IL"} <= negative


def test_override_all_selects_every_available_state_with_the_always_ones_first():
    available = ["AL", "AK", "DC", "IL", "PR"]
    assert audit.select_states(TABLE, override="all", available=available) == ["IL", "AL", "AK", "DC", "PR"]
    with pytest.raises(ValueError, match="'all'"):
        audit.select_states(TABLE, override="everything", available=available)
