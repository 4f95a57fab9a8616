"""DAS bias audit (Subspace DP, Gao, Gong & Yu AAAI-22, §1 Fig 1 left) and E3 state selection.

The TopDown algorithm's post-processing to non-negative integers with fixed state totals moves
population from large counties to small ones: the DAS error ``dp - sf1`` decreases with county
size. Per state, the audit regresses the error on ``log(sf1)``; the states with a significantly
negative slope are the ones the experiments show (docs/experiments/e3.md).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from isdp.experiments.nhgis import STATE_ABBR

log = logging.getLogger("isdp.experiments.audit")

REGRESSION_COLUMNS = ["state_fips", "state_abbr", "n_counties", "slope", "stderr", "p_value", "intercept"]


def das_bias_regressions(tidy_df: pd.DataFrame, min_counties: int = 5) -> pd.DataFrame:
    """OLS of the DAS error ``dp_pop - sf1_pop`` on ``log(sf1_pop)`` per state.

    Only states with more than ``min_counties`` counties are fitted (with the default 5, all
    50 states + DC + PR minus DC, DE, HI, RI: 48 regressions). ``p_value`` is the two-sided
    t-test of zero slope (:func:`scipy.stats.linregress`). Sorted by ``state_fips``.
    """
    rows = []
    for state_fips, group in tidy_df.groupby("state_fips", sort=True):
        if len(group) <= min_counties:
            continue
        sf1 = group["sf1_pop"].to_numpy(dtype=np.float64)
        if (sf1 <= 0).any():
            raise ValueError(f"state {state_fips}: SF1 population must be positive to take its log")
        error = (group["dp_pop"] - group["sf1_pop"]).to_numpy(dtype=np.float64)
        fit = stats.linregress(np.log(sf1), error)
        rows.append(
            {
                "state_fips": state_fips,
                "state_abbr": group["state_abbr"].iloc[0],
                "n_counties": len(group),
                "slope": fit.slope,
                "stderr": fit.stderr,
                "p_value": fit.pvalue,
                "intercept": fit.intercept,
            }
        )
    return pd.DataFrame(rows, columns=REGRESSION_COLUMNS)


def audit_counts(reg_df: pd.DataFrame, alpha: float = 0.01) -> dict[str, int]:
    """How many regressions, negative slopes, significant slopes (p < alpha, either sign)."""
    negative = reg_df["slope"] < 0
    significant = reg_df["p_value"] < alpha
    return {
        "n_regressions": len(reg_df),
        "n_negative": int(negative.sum()),
        "n_significant": int(significant.sum()),
        "n_significant_negative": int((negative & significant).sum()),
    }


def _known(abbrs: Iterable[str], what: str) -> list[str]:
    """Upper-cased abbreviations, each a known state (50 + DC + PR), without duplicates."""
    result = [str(a).strip().upper() for a in abbrs]
    unknown = [a for a in result if a not in STATE_ABBR.values()]
    if unknown:
        raise ValueError(f"{what}: unknown state abbreviation(s) {unknown}")
    dupes = sorted({a for a in result if result.count(a) > 1})
    if dupes:
        raise ValueError(f"{what}: duplicated state(s) {dupes}")
    return result


def select_states(
    reg_df: pd.DataFrame,
    alpha: float = 0.01,
    n_target: int = 11,
    always: Sequence[str] = ("IL",),
    override: Sequence[str] | str | None = None,
    available: Sequence[str] = (),
) -> list[str]:
    """States shown in E3/E4, by the selection rule of docs/experiments/e3.md, as USPS abbreviations.

    Rule: every state with a negative slope and ``p_value < alpha`` (all of them, even if more
    than ``n_target``); if fewer than ``n_target``, fill with the negative-slope states of next
    smallest p-value. The ``always`` states are then added if missing; to keep the total at
    ``n_target`` each addition drops the largest-p *filler* state (significant states are never
    dropped). Order: the ``always`` states first (as given), then the rest by increasing
    p-value (ties by FIPS). ``override`` replaces the rule and is returned as given (upper-cased)
    after checking every entry is a known state; ``override="all"`` selects every state in
    ``available`` (the data's states), the ``always`` ones first (the national run).
    """
    if isinstance(override, str):
        if override != "all":
            raise ValueError(f"override: a list of states or 'all', got {override!r}")
        always = _known(always, "always")
        return always + [s for s in _known(available, "available") if s not in always]
    if override is not None:
        return _known(override, "override")
    always = _known(always, "always")
    negative = reg_df[reg_df["slope"] < 0].sort_values(["p_value", "state_fips"], kind="stable")
    significant = list(negative.loc[negative["p_value"] < alpha, "state_abbr"])
    fillers = list(negative.loc[negative["p_value"] >= alpha, "state_abbr"])
    n_fill = max(0, n_target - len(significant))
    chosen_fillers = fillers[:n_fill]
    if len(significant) + len(chosen_fillers) < n_target:
        log.warning("only %d negative slopes: selecting fewer than %d states", len(negative), n_target)
    for state in always:
        if state in significant or state in chosen_fillers:
            continue
        if chosen_fillers and len(significant) + len(chosen_fillers) + 1 > n_target:
            dropped = chosen_fillers.pop()
            log.info("adding %s (always shown) in place of filler %s", state, dropped)
    # significant + chosen_fillers is already in (p_value, state_fips) order
    return always + [s for s in significant + chosen_fillers if s not in always]
