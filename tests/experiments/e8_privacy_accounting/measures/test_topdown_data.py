"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_data`: the TopDown talk's counts from the
committed 2010 data — attribute sizes, state measurements, the workload, the GQ codes, the population — and the sizes
of the optimisation problems (TDA-E8-problem-size: differs in variables per problem, matches in people per problem)
and the national zero cells, read from the committed per-state support of the ethnicity × race × voting-age
histogram; each row flips under a plausibly wrong input or reading."""

from __future__ import annotations

import pandas as pd
import pytest
from accounting_support import e8_run
from conftest import REGISTRY, ROOT, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting.measures.topdown_data import workload_consistency
from isdp_papers.evidence import Run
from isdp_papers.nhgis.histograms import HISTOGRAM_SUPPORT_EXTRACT, N_RACES, NATION

# --------------------------------------------------------------------------- printed counts


def test_attribute_sizes_fail_without_some_other_race(tmp_path):
    run = e8_run(tmp_path)
    assert row_verdict("TDA-E8-attribute-sizes", run)[0] == "match"
    races = claims.claim("TDA-E8-attribute-sizes", REGISTRY)["args"]["races"]
    assert row_verdict("TDA-E8-attribute-sizes", run, races=races[:-1])[0] == "differs"
    codes = pd.read_csv(ROOT / "data/e8/census2010_gq_codes.csv")
    codes[codes["class"] == "institutional"].to_csv(tmp_path / "institutional.csv", index=False)
    assert row_verdict("TDA-E8-attribute-sizes", run, gq_codes=str(tmp_path / "institutional.csv"))[0] == "differs"


def test_state_measurements_fail_when_puerto_rico_is_counted(tmp_path):
    run = e8_run(tmp_path)
    assert row_verdict("TDA-E8-state-measurements", run)[0] == "match"
    status, m = row_verdict("TDA-E8-state-measurements", run, exclude=[])
    assert status == "differs" and m.value == claims.claim("TDA-E8-state-measurements", REGISTRY)["paper_value"] + 1


def test_workload_consistency_fails_over_the_six_levels_and_matches_a_large_enough_total(tmp_path):
    """The printed total is too small for 641 queries at every unit of the six levels (the tracts and block groups
    tip it); a total of 3.75 billion, or the blocks counted alone, would fit."""
    run = e8_run(tmp_path)
    c = claims.claim("TDA-E8-workload-consistency", REGISTRY)
    status, m = row_verdict("TDA-E8-workload-consistency", run)
    assert status == "differs" and round(m.value) == -99764 and c["cause"] == "reading", m.text
    assert "agree with the tallies' 51 and 3,143" in m.note and "the blocks (5.5 to 6.5 million) fit" in m.note
    larger = 3.75e9
    assert judge(c["criterion"], larger, workload_consistency(run, larger, **c["args"])) == "match"
    blocks_alone = {**c["args"]["tallies"], "tract": 0, "block_group": 0}
    status, m = row_verdict("TDA-E8-workload-consistency", run, tallies=blocks_alone)
    assert status == "match" and m.value > 0


def test_gq_codes_count_and_the_major_types_differ(run):
    assert row_verdict("TDA-E8-gq-codes", run)[0] == "match"
    status, m = row_verdict("TDA-E8-gq-codes", run, counted="major_type")
    assert status == "differs" and m.value == 7


def test_conservative_population_matches_and_fails_for_a_population_above_the_count(run, tmp_path):
    cid = "TDA-E8-population-conservative"
    assert row_verdict(cid, run)[0] == "match"
    counties = pd.read_csv(ROOT / run.config["data"]["embedded"], dtype=str)
    counties["sf1_pop"] = counties["sf1_pop"].astype(int) * 2  # 617 million people
    counties.to_csv(tmp_path / "doubled.csv", index=False)
    data = {**run.config["data"], "embedded": str(tmp_path / "doubled.csv")}
    doubled = Run(tmp_path, {**run.config, "data": data}, repo=ROOT)
    status, m = row_verdict(cid, doubled)
    assert status == "differs" and m.value > claims.claim(cid, REGISTRY)["paper_value"]


# --------------------------------------------------------------------------- problem sizes


ROW = "TDA-E8-problem-size"


def test_problem_size_differs_in_variables_and_matches_in_people(run):
    status, m = row_verdict(ROW, run)
    support = pd.read_csv(ROOT / HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr").drop(index="PR")
    states = support.drop(index=NATION)
    assert m.value["nation_state"] == len(states) * support.loc[NATION, "nonzero_cells"]
    assert m.value["largest_state_county"] == (states["counties"] * states["nonzero_cells"]).max()
    assert status == "differs" and claims.claim(ROW, REGISTRY)["cause"] == "reading"
    assert m.value["median_state_county"] > m.value["nation_state"]  # not one outlier state: the median is above too
    status, m = row_verdict(ROW, run, size="people")  # the other reading: the parent's population
    assert status == "match" and m.value["nation_state"] == support.loc[NATION, "sf1_pop"]


def test_problem_size_rejects_an_unknown_size(run):
    with pytest.raises(ValueError, match="size must be"):
        row_verdict(ROW, run, size="cells")


def test_national_zero_cells_counts_the_nations_das_histogram(run, tmp_path):
    row = "TDA-E8-national-zero-cells"
    status, m = row_verdict(row, run)
    support = pd.read_csv(ROOT / HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr")
    assert status == "differs" and m.value == 4 * N_RACES - support.loc[NATION, "dp_nonzero_cells"]
    assert m.value == 0 and "2,602 in all" in m.note  # no national zero; the states' histograms have zeros
    support.loc[NATION, "dp_nonzero_cells"] -= 3  # a national histogram with three zero cells
    (tmp_path / "data").mkdir()
    support.reset_index().to_csv(tmp_path / "data" / "support.csv", index=False)
    status, m = row_verdict(row, Run(tmp_path, config=run.config, repo=tmp_path), file="data/support.csv")
    assert status == "match" and m.value == 3 and "drops 153 of" in m.text
