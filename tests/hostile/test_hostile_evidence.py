"""Hostile evidence: no empty, NaN, infinite, wrong-shaped or truncated evidence reads as `match`,
for every criterion kind (the claims evaluator, isdp_papers.claims); damaged draws (off the lattice, made
float, of another target, half their cells, a flipped byte in a compressed chunk) and damaged JSON make the rows
that read them `error` naming the file, and fail the workflow steps that read them."""

from __future__ import annotations

import functools
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from accounting_support import e8_run
from conftest import REGISTRY, ROOT
from criteria_support import judge
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from isdp_papers import claims, criteria
from isdp_papers.claims import Measurement
from isdp_papers.config import load_config
from isdp_papers.e8_privacy_accounting.tables import swap_table

# one criterion of every kind that can say `match` (or `calibrated`), with a paper value it accepts
CRITERIA = {
    "equal": ({"kind": "equal", "tol": 0.5}, 1.0),
    "within_se": ({"kind": "within_se", "k": 3}, 1.0),
    "interval": ({"kind": "interval", "min": -10, "max": 10}, "in range"),
    "zscores": ({"kind": "zscores", "alpha": 0.01}, "unbiased"),
    "pvalues": ({"kind": "pvalues", "alpha": 0.01}, "fits"),
    "ordering": ({"kind": "ordering", "order": ["a", "b"]}, "a < b"),
    "calibrated": ({"kind": "calibrated", "min": -10, "max": 10}, "chosen"),
}
BAD_VALUES = {
    "empty list": [],
    "empty array": np.array([]),
    "empty mapping": {},
    "None": None,
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "NaN in an array": np.array([0.1, math.nan]),
    "inf in a list": [0.5, math.inf],
    "NaN in a mapping": {"a": math.nan, "b": 1.0},
    "empty part": {"a": [], "b": 1.0},
}


def test_every_kind_that_can_match_is_probed():
    assert set(CRITERIA) == set(criteria.KINDS) - {"not-comparable"}


@pytest.mark.parametrize("kind", CRITERIA)
@pytest.mark.parametrize("label", BAD_VALUES)
def test_broken_evidence_is_an_error_never_a_match(kind, label):
    criterion, paper = CRITERIA[kind]
    m = Measurement(BAD_VALUES[label], "text", se=0.1)
    assert judge(criterion, paper, m) == "error"
    assert criteria.evidence_problem(criterion, m)


@pytest.mark.parametrize("kind", CRITERIA)
def test_a_measure_that_used_no_values_is_an_error(kind):
    criterion, paper = CRITERIA[kind]
    good = {
        "equal": 1.0,
        "within_se": 1.0,
        "interval": 0.0,
        "zscores": np.array([0.1]),
        "pvalues": np.array([0.5]),
        "ordering": {"a": 1, "b": 2},
        "calibrated": 0.0,
    }[kind]
    assert judge(criterion, paper, Measurement(good, "", se=0.1)) in ("match", "calibrated")  # the probe can pass
    assert judge(criterion, paper, Measurement(good, "", se=0.1, n=0)) == "error"


@pytest.mark.parametrize("se", [None, math.nan, math.inf, -0.1])
def test_within_se_needs_a_finite_standard_error(se):
    assert judge({"kind": "within_se", "k": 3}, 1.0, Measurement(1.0, "", se=se)) == "error"


@pytest.mark.parametrize(
    "criterion, value",
    [
        ({"kind": "pvalues", "alpha": 0.01}, np.array([0.5, 1.5])),  # not a p-value
        ({"kind": "interval", "max": 1}, np.array([0.5, 0.6])),  # one number expected
        ({"kind": "interval", "max": 1}, "small"),  # a string is not a number
        ({"kind": "zscores", "alpha": 0.01}, [True, False]),  # booleans are not z-scores
        ({"kind": "ordering", "order": ["a", "b"]}, {"a": 1}),  # a missing key
        ({"kind": "ordering", "order": ["a", "b"]}, [1, 2]),  # not named
    ],
)
def test_wrong_shaped_evidence_is_an_error(criterion, value):
    assert judge(criterion, "paper", Measurement(value, "")) == "error"


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["zscores", "pvalues"]),
    values=st.lists(finite, max_size=20),
    bad=non_finite,
    at=st.integers(0, 20),
)
def test_one_non_finite_value_anywhere_makes_an_array_criterion_an_error(kind, values, bad, at):
    values.insert(min(at, len(values)), bad)
    criterion, paper = CRITERIA[kind]
    assert judge(criterion, paper, Measurement(np.array(values), "")) == "error"


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(list(CRITERIA)),
    value=st.one_of(non_finite, hnp.arrays(float, st.integers(0, 0)), st.just([]), st.just({})),
)
def test_no_non_finite_or_empty_value_matches_any_kind(kind, value):
    criterion, paper = CRITERIA[kind]
    assert judge(criterion, paper, Measurement(value, "", se=1.0)) == "error"


# --------------------------------------------------------------------------- truncated results on disk


@functools.cache
def _registry():
    return claims.load_registry(REGISTRY)


def _claim(claim_id):
    return claims.claim(claim_id, _registry())


def _printed_ma1940() -> pd.DataFrame:
    return pd.read_csv(ROOT / load_config(ROOT / "config" / "config.yaml")["e8"]["printed"]["swap_ma1940"])


@pytest.mark.parametrize("damage", ["header only", "empty file", "missing", "binary junk"])
def test_a_truncated_results_table_gives_error_naming_the_file(tmp_path, damage):
    """The E8 swap-table claim reads results/tables/e8_swap_ma1940.csv: damaged, it is `error`."""
    run = e8_run(tmp_path)
    path = tmp_path / "results" / "tables" / "e8_swap_ma1940.csv"
    good = swap_table(_printed_ma1940())
    content = {"header only": ",".join(good.columns) + "\n", "empty file": "", "binary junk": "\x00\x01\x02\n\x03"}
    if damage in content:
        path.write_text(content[damage])
    rows = claims.evaluate([_claim("SWAP-E8-ma1940-table")], run)
    assert rows.loc[0, "status"] == "error"
    assert "e8_swap_ma1940.csv" in rows.loc[0, "note"]
    with pytest.raises(claims.ClaimErrors, match="SWAP-E8-ma1940-table"):
        claims.check_errors(rows)


def test_the_same_table_intact_is_judged(tmp_path):
    """Control for the test above: the claim can match on a good table."""
    run = e8_run(tmp_path)
    printed = _printed_ma1940()
    swap_table(printed).to_csv(tmp_path / "results" / "tables" / "e8_swap_ma1940.csv", index=False)
    rows = claims.evaluate([_claim("SWAP-E8-ma1940-table")], run)
    assert rows.loc[0, "status"] == "match"
    assert rows.loc[0, "evidence"] == (
        f"data/e8/paper_swap_ma1940.csv: {len(printed)} rows; results/tables/e8_swap_ma1940.csv: {len(printed)} rows"
    )


def test_the_summary_step_writes_nothing_on_an_error(tmp_path, monkeypatch):
    from isdp_papers.jobs import Job
    from isdp_papers.reporting import claims_summary

    config = e8_run(tmp_path).config
    (tmp_path / "results" / "tables" / "e8_swap_ma1940.csv").write_text(
        ",".join(swap_table(_printed_ma1940()).columns) + "\n"
    )
    registry = tmp_path / "claims.yaml"
    import yaml

    registry.write_text(yaml.safe_dump({"claims": [_claim("SWAP-E8-ma1940-table")]}, allow_unicode=True))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "results" / "tables" / "summary.csv"
    job = Job(
        input={"registry": str(registry)},
        output={"summary": str(out)},
        params={"experiment": "E8", "repo": str(ROOT)},
        config=config,
    )
    with pytest.raises(claims.ClaimErrors, match="header only"):
        claims_summary(job)
    assert not out.exists() and not list(out.parent.glob("*.tmp"))
    claims_summary(
        Job(input=job.input, output=job.output, params=job.params, config={**config, "claims": {"on_error": "report"}})
    )
    assert pd.read_csv(out)["status"].tolist() == ["error"]


# --------------------------------------------------------------------------- damaged draws

TAIL_ROWS = ("ISDP-E1-l1-tail-rate", "ISDP-E1-l1-tail-bound")
DRAWS = "results/e1/draws_l1.nc"


@pytest.fixture(scope="module")
def e1_sample():
    """E1's problem, its ε and ℓ1 draws from this project's sampler (4 chains × 400, 1.2 s): the tail rows match on
    them."""
    from isdp_papers.e1_intersecting.problem import intersecting_constraints_problem

    from isdp.lattice import generalized_laplace
    from isdp.mcmc import _samplers as samplers

    cfg = load_config(ROOT / "config" / "config.yaml")["e1"]
    problem = intersecting_constraints_problem(cfg["x"], cfg["records_per_region"])
    res = samplers.sample(
        problem.lattice(),
        generalized_laplace(cfg["eps"], "l1"),
        n_chains=4,
        n_draws=400,
        proposal_eps=cfg["targets"]["l1"]["proposal_eps"],
        seed=4,
        burn_in=2000,
        thin=20,
        progress=False,
    )
    return cfg, problem, res.draws


def _label(eps, norm):
    from isdp.lattice import generalized_laplace

    return generalized_laplace(eps, norm).label


def _e1_run(root, e1_sample, corrupt=None) -> claims.Run:
    """A run in ``root`` holding E1's problem and ℓ1 draws, the draws changed by ``corrupt`` (draws, target label →
    draws, target label)."""
    from isdp.convergence import save_draws

    cfg, problem, draws = e1_sample
    (root / "results" / "e1").mkdir(parents=True, exist_ok=True)
    problem.to_json(root / "results" / "e1" / "problem.json")
    draws, target = (corrupt or (lambda d, t: (d, t)))(draws, _label(cfg["eps"], "l1"))
    save_draws(root / DRAWS, draws, problem.cell_labels[: draws.shape[-1]], attrs={"target": target})
    return claims.Run(root, {"e1": cfg}, repo=ROOT)


CORRUPT_DRAWS = {  # each once left both tail rows `match`, or failed naming no file
    "noise + 1 (off the lattice)": (lambda d, t: (d + 1, t), "off the lattice: 1600 of 1600 draws break A u = 0"),
    "made float (+0.5)": (lambda d, t: (d + 0.5, t), "holds float64 values, not integers"),
    "integral floats": (lambda d, t: (d.astype(float), t), "holds float64 values, not integers"),
    "the ℓ2 draws' target": (lambda d, t: (d, t.replace("ℓ1", "ℓ2")), "holds draws of target 'Laplace ℓ2"),
    "7 of 14 cells": (lambda d, t: (d[..., :7], t), "7 cells per draw, the constraints have 14"),
}


def test_intact_e1_draws_match_the_tail_rows(tmp_path, e1_sample):
    """Control for the corruptions below: on the same draws intact, both rows match."""
    rows = claims.evaluate([_claim(c) for c in TAIL_ROWS], _e1_run(tmp_path, e1_sample))
    assert rows["status"].tolist() == ["match", "match"], rows["note"].tolist()


@pytest.mark.parametrize("corruption", list(CORRUPT_DRAWS))
def test_damaged_e1_draws_make_the_tail_rows_an_error_naming_the_file(tmp_path, e1_sample, corruption):
    corrupt, message = CORRUPT_DRAWS[corruption]
    rows = claims.evaluate([_claim(c) for c in TAIL_ROWS], _e1_run(tmp_path, e1_sample, corrupt))
    assert rows["status"].tolist() == ["error", "error"]
    for note in rows["note"]:
        assert f"{tmp_path / DRAWS}: {message}" in note, note


def test_a_flipped_byte_in_a_compressed_chunk_is_an_error_naming_the_file(tmp_path, e1_sample):
    """Before: a bare OSError ("filter returned failure during read") with no file named."""
    import h5py

    _e1_run(tmp_path, e1_sample)
    path = tmp_path / DRAWS
    with h5py.File(path, "r") as f:
        info = f["posterior/noise"].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    middle = info.byte_offset + info.size // 2
    data[middle : middle + 8] = bytes(b ^ 0xFF for b in data[middle : middle + 8])
    path.write_bytes(bytes(data))
    rows = claims.evaluate([_claim(c) for c in TAIL_ROWS], claims.Run(tmp_path, {"e1": e1_sample[0]}, repo=ROOT))
    assert rows["status"].tolist() == ["error", "error"]
    assert all(f"{path}: unreadable netCDF" in note for note in rows["note"])


def _unbiasedness_job(root, e1_sample):
    from isdp_papers.jobs import Job

    cfg = e1_sample[0]
    ess = root / "results" / "ess.csv"
    pd.DataFrame({"ess_bulk": np.full(14, 1000.0)}).to_csv(ess, index=False)
    return Job(
        input={
            "problem": str(root / "results" / "e1" / "problem.json"),
            "draws": [str(root / DRAWS)],
            "ess": [str(ess)],
        },
        output={"unbiasedness": str(root / "results" / "unbiasedness.csv")},
        params={"norms": ["l1"]},
        wildcards={"exp": "e1"},
        config={"e1": cfg},
    )


def test_the_unbiasedness_step_reads_intact_draws_as_before(tmp_path, e1_sample):
    from isdp_papers.lattice_study import steps
    from isdp_papers.unbiasedness import unbiasedness_table

    _e1_run(tmp_path, e1_sample)
    job = _unbiasedness_job(tmp_path, e1_sample)
    steps.unbiasedness(job)
    expected = unbiasedness_table(e1_sample[2], np.full(14, 1000.0), e1_sample[1].cell_labels)
    pd.testing.assert_frame_equal(
        pd.read_csv(job.output.unbiasedness).drop(columns="target"),
        pd.read_csv(_write(expected, tmp_path / "expected.csv")),
    )


def _write(df, path):
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("corruption", list(CORRUPT_DRAWS))
def test_a_step_that_reads_damaged_draws_fails_naming_the_file(tmp_path, e1_sample, corruption):
    """docs/reliability.md: the job fails naming the file; before, the unbiasedness table was written from them."""
    from isdp_papers.lattice_study import steps

    from isdp.errors import DrawsError

    corrupt, message = CORRUPT_DRAWS[corruption]
    _e1_run(tmp_path, e1_sample, corrupt)
    job = _unbiasedness_job(tmp_path, e1_sample)
    with pytest.raises(DrawsError, match=re.escape(f"{tmp_path / DRAWS}: {message}")):
        steps.unbiasedness(job)
    assert not (tmp_path / "results" / "unbiasedness.csv").exists()


# --------------------------------------------------------------------------- damaged JSON and unreadable tables


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"max_invariant_residual": ', "damaged, not JSON"),
        (None, "missing"),
        (b"\xff\xfe\x00{", "unreadable"),
    ],
)
def test_a_damaged_json_result_names_the_file(tmp_path, content, message):
    """Before: a bare JSONDecodeError or FileNotFoundError from json.loads / read_text."""
    path = tmp_path / "results" / "e6" / "info.json"
    path.parent.mkdir(parents=True)
    if isinstance(content, str):
        path.write_text(content)
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(claims.EvidenceError, match=re.escape(f"{path}: {message}")):
        claims.Run(tmp_path).json("e6/info.json")


def test_json_nan_is_read_and_then_refused_by_the_criteria(tmp_path):
    """The workflow writes NaN for what a one-county state lacks; a row that uses such a value is `error`."""
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "info.json").write_text(json.dumps({"residual": math.nan}))
    value = claims.Run(tmp_path).json("info.json")["residual"]
    assert math.isnan(value)
    assert judge({"kind": "interval", "max": 1e-9}, "words", Measurement(value, "")) == "error"


def test_a_directory_in_place_of_a_results_table_names_it(tmp_path):
    path = tmp_path / "results" / "tables" / "e8_swap_ma1940.csv"
    path.mkdir(parents=True)
    with pytest.raises(claims.EvidenceError, match=re.escape(f"{path}: unreadable")):
        claims.Run(tmp_path).table("e8_swap_ma1940")


@pytest.mark.parametrize(
    "change",
    [{"target": "another"}, {"proposal_eps": 0.5}, {"start": "u = x"}, {"basis": "path"}, None],
    ids=["another target", "another proposal", "another start", "another basis", "no chain recorded"],
)
def test_the_draws_step_refuses_a_certificate_of_another_chain(tmp_path, e1_sample, change):
    """A certificate file did not say what it certifies, so "pairs started like the chains" could be checked only in
    the code. It records the chain, and the draws step compares it with its own before using it."""
    from isdp_papers.jobs import Job
    from isdp_papers.lattice_study import steps

    from isdp.convergence import Certificate
    from isdp.lattice import generalized_laplace

    cfg = e1_sample[0]
    _e1_run(tmp_path, e1_sample)
    proposal = cfg["targets"]["l1"]["proposal_eps"]
    chain = steps._chain(e1_sample[1].lattice(), generalized_laplace(cfg["eps"], "l1"), proposal)
    cert = Certificate(
        basis="smith",
        lag=2,
        n_pairs=100,
        max_iter=50,
        level=0.95,
        threshold=0.01,
        tau=np.full(100, 3),
        met=np.ones(100, dtype=bool),
        seconds=0.1,
    )
    record = {**cert.to_dict(), **({"chain": {**chain, **change}} if change else {})}
    (tmp_path / "cert.json").write_text(json.dumps(record))
    pd.DataFrame({"target": ["l1"], "converged_at": [5]}).to_csv(tmp_path / "conv.csv", index=False)
    job = Job(
        input={
            "problem": str(tmp_path / "results" / "e1" / "problem.json"),
            "convergence": str(tmp_path / "conv.csv"),
            "certificate": str(tmp_path / "cert.json"),
        },
        output={"draws": str(tmp_path / "d.nc"), "ess": str(tmp_path / "ess.csv")},
        params={
            "eps": cfg["eps"],
            "target": {"proposal_eps": proposal},
            "draws": {"n_draws": 8, "n_chains": 2, "thin": 1},
        },
        wildcards={"exp": "e1", "norm": "l1"},
        config={"e1": cfg},
    )
    with pytest.raises(ValueError, match="certifies the chain .*, not the draws'"):
        steps.draws(job)
    assert not (tmp_path / "d.nc").exists()
