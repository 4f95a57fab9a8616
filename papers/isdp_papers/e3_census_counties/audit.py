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

from isdp_papers.nhgis.counties import STATE_ABBR

log = logging.getLogger(__name__)

REGRESSION_COLUMNS = ["state_fips", "state_abbr", "n_counties", "slope", "stderr", "p_value", "intercept"]


def das_bias_regressions(tidy_df: pd.DataFrame, min_counties: int = 5) -> pd.DataFrame:
    """OLS of the DAS error ``dp_pop - sf1_pop`` on ``log(sf1_pop)`` per state.

    Only states with more than ``min_counties`` counties are fitted (with the default 5, all
    50 states + DC + PR minus DC, DE, HI, RI: 48 regressions). ``p_value`` is the two-sided
    t-test of zero slope (:func:`scipy.stats.linregress`). Sorted by ``state_fips``.
    """
    from scipy import stats

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


# --------------------------------------------------------------------------- the audit's outputs


def available_states(counties: pd.DataFrame) -> list[str]:
    """Return the data's states (USPS abbreviations) in FIPS order: what ``override="all"`` selects."""
    return list(counties.drop_duplicates("state_abbr").sort_values("state_fips")["state_abbr"])


def selection_summary(
    counties: pd.DataFrame, reg_df: pd.DataFrame, states: Sequence[str], *, alpha: float, override, data_source: dict
) -> dict:
    """Return the audit's JSON record.

    Vintage, ``alpha``, the counts of :func:`audit_counts`, the selected states, whether they came from the rule, the
    override or ``"all"``, and the data source.
    """
    return {
        "vintage": counties["vintage"].iloc[0],
        "alpha": alpha,
        **audit_counts(reg_df, alpha=alpha),
        "selected_states": list(states),
        "selection": "all states" if override == "all" else "override" if override is not None else "rule",
        "data_source": data_source,
    }


def data_source_table(info: dict) -> pd.DataFrame:
    """One row: the NHGIS vintage requested and used (next to the paper's), the source and why, URL and hash."""
    from isdp_papers.nhgis.counties import PAPER_VINTAGE

    return pd.DataFrame(
        [
            {
                "vintage_requested": info["vintage_requested"],
                "vintage_used": info["vintage_used"],
                "paper_vintage": PAPER_VINTAGE,
                "source_used": info["source_used"],
                "reason": info["reason"],
                "url": info["url"] or "",
                "sha256": info["sha256"],
            }
        ]
    )


def audit_table(reg_df: pd.DataFrame, selected: Sequence[str], *, alpha: float, vintage: str) -> pd.DataFrame:
    """Return the regressions with ``significant`` (p < alpha), ``selected`` and the vintage added (a copy)."""
    reg = reg_df.copy()
    reg["significant"] = reg["p_value"] < alpha
    reg["selected"] = reg["state_abbr"].isin(selected)
    reg["vintage"] = vintage
    return reg


def audit_counts_table(selection: dict, *, alpha: float, vintage: str) -> pd.DataFrame:
    """Return the audit counts of a :func:`selection_summary` record as rows ``quantity, this_run, vintage``.

    The paper's counts and the verdicts are in the reproduction summary, claims SDP-E3-audit-*.
    """
    counts = pd.DataFrame(
        [
            {"quantity": "regressions (states with > 5 counties)", "this_run": selection["n_regressions"]},
            {"quantity": "negative slopes", "this_run": selection["n_negative"]},
            {"quantity": f"significant slopes (p < {alpha:g})", "this_run": selection["n_significant"]},
            {
                "quantity": f"significant negative slopes (p < {alpha:g})",
                "this_run": selection["n_significant_negative"],
            },
        ]
    )
    counts["vintage"] = vintage
    return counts


def selected_states_table(
    reg_df: pd.DataFrame, selection: dict, *, alpha: float, always: Iterable[str], vintage: str
) -> pd.DataFrame:
    """One row per selected state (in selection order).

    Its regression and why it was selected (override, significant, always shown, or filler).
    """
    sel = reg_df.set_index("state_abbr").reindex(selection["selected_states"])
    always = set(always)
    sel["reason"] = [
        "override"
        if selection["selection"] == "override"
        else "significant"
        if (r.slope < 0 and r.p_value < alpha)
        else "always shown"
        if s in always
        else "filler (next smallest p among negative slopes)"
        for s, r in sel.iterrows()
    ]
    sel = sel.reset_index()[["state_abbr", "state_fips", "n_counties", "slope", "stderr", "p_value", "reason"]]
    sel["vintage"] = vintage
    return sel
