"""The site's benchmark figures (docs/_ext/benchmark_figures.py): drawn from the committed CSVs at each build, each
linked from its page, each showing what its CSV holds."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("benchmark_figures", ROOT / "docs" / "_ext" / "benchmark_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def drawn(figures, tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    return out, figures.write_all(out)


def _csv(name: str) -> list[dict]:
    with open(ROOT / "benchmarks" / "results" / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_figure_is_drawn_and_linked_from_a_page(figures, drawn):
    out, series = drawn
    pages = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    assert set(series) == set(figures.FIGURES)
    for name in figures.FIGURES:
        text = (out / name).read_text()
        assert text.startswith("<?xml") and "<svg" in text, name
        assert f"](_figures/{name})" in pages, f"{name} is linked from no page of docs/"


def test_the_speed_figure_draws_every_release_row_of_its_csv(drawn):
    rows = _csv("release_throughput.csv")
    speed = drawn[1]["release_speed.svg"]
    for sampler, points in speed.items():
        assert points == sorted((int(r["cells"]), float(r["seconds"])) for r in rows if r["sampler"] == sampler)
    every = {"isdp-release-l1-parquet-local", "isdp-release-nested-parquet-local", "opendp-laplace"}
    assert every | {"isdp-release-nested-unequal-parquet-local"} <= set(speed)


def test_the_proposals_figure_is_the_acceptance_study(drawn):
    rows = _csv("exact_acceptance.csv")
    drawn_series = drawn[1]["exact_proposals.svg"]
    margins = [(int(r["cells"]), float(r["log10_expected_proposals"])) for r in rows if "margins" in r["invariants"]]
    assert drawn_series["both margins"] == margins and len(margins) >= 5


def test_the_error_figure_holds_every_released_route(drawn):
    rows = [r for r in _csv("release_error.csv") if r["status"] == "released"]
    error = drawn[1]["error_vs_opendp.svg"]
    assert {(case, route) for case, routes in error.items() for route in routes} == {
        (r["case"], r["route"]) for r in rows
    }


def test_the_released_table_keeps_its_totals(drawn):
    table = drawn[1]["released_table.svg"]
    assert table["cells"] == 46 and table["totals_kept"] and 0 <= table["covered"] <= 46
