"""The documentation site: its pages come from the public API and the run, and its search finds the API.

`make test` builds the site from the CI-profile run into ``$ISDP_CI_RESULTS/site`` (warnings are
errors); the ``workflow`` tests read that build. The others check the page writers on their own.
"""

from __future__ import annotations

import json
from pathlib import Path

import api_pages
import pytest
import run_pages
from ci_runs import ci_run_dir
from public_api_support import API_MODULES, documented_object, public_names

import isdp


def _search_index(site: Path) -> dict:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def object_search(index: dict, query: str) -> list[str]:
    """The API objects the site's search box lists for ``query``: like Sphinx's searchtools, every
    object whose full dotted name contains the query, case-insensitively."""
    names = [
        f"{prefix}.{entry[4]}" if prefix else entry[4]
        for prefix, entries in index["objects"].items()
        for entry in entries
    ]
    return sorted(n for n in names if query.lower() in n.lower())


def test_the_api_pages_list_the_parts_the_examples_test_holds_to_account():
    assert api_pages.parts() == list(API_MODULES) == isdp.__all__


def test_the_api_pages_list_every_name_of_each_all(tmp_path):
    (tmp_path / "samplers.rst").write_text("a page of the flat layout")
    api_pages.write(tmp_path)
    top = (tmp_path / "isdp.rst").read_text()
    assert all(f"   {part}\n" in top for part in isdp.__all__)
    assert not (tmp_path / "samplers.rst").exists()
    for module, name in public_names():
        page = (tmp_path / f"{module}.rst").read_text()
        assert f"   {name}\n" in page or f"autodata:: isdp.{module}.{name}\n" in page, (module, name)


def test_without_a_run_the_site_says_how_to_make_one(tmp_path):
    (tmp_path / "docs").mkdir()
    run_pages.write(tmp_path / "docs", tmp_path / "no-run")
    index = (tmp_path / "docs" / "run" / "index.md").read_text()
    assert "found no finished run" in index and "make reproduce" in index
    assert not (run_pages.EXTRA / "run").exists()


def test_a_run_s_notebooks_and_the_files_its_scorecard_links_are_copied(tmp_path):
    results = tmp_path / "run" / "results"
    (results / "notebooks").mkdir(parents=True)
    (results / "figures").mkdir()
    (results / "notebooks" / "e1_x.ipynb").write_text("{}")
    (results / "figures" / "f.png").write_bytes(b"png")
    (results / "scorecard.html").write_text('<a href="figures/f.png">f</a> <a href="../../outside">x</a>')
    (tmp_path / "docs").mkdir()
    try:
        run_pages.write(tmp_path / "docs", tmp_path / "run")
        assert (tmp_path / "docs" / "run" / "e1_x.ipynb").is_file()
        assert "e1_x" in (tmp_path / "docs" / "run" / "index.md").read_text()
        assert (run_pages.EXTRA / "run" / "figures" / "f.png").read_bytes() == b"png"
        assert not (run_pages.EXTRA / "outside").exists()  # a link out of the run is not followed
    finally:
        run_pages.write(tmp_path / "docs", tmp_path / "no-run")


def test_the_object_search_can_miss():
    index = {"objects": {"isdp.convergence": [[0, 1, 0, "-", "certify"]]}}
    assert object_search(index, "Certify") == ["isdp.convergence.certify"]
    assert object_search(index, "IntegerLattice") == []


@pytest.mark.workflow
def test_the_built_site_searches_renders_every_public_name_and_the_run():
    site = ci_run_dir("ISDP_CI_RESULTS") / "site"
    index = _search_index(site)
    assert "isdp.convergence.certify" in object_search(index, "certify")
    assert "isdp.lattice.IntegerLattice" in object_search(index, "IntegerLattice")
    assert "isdp.release.make_release" in object_search(index, "release")
    for module, name in public_names():
        if documented_object(module, name) is None:
            continue  # data: its #: comment is rendered on its module's page
        qualified = f"isdp.{module}.{name}"
        page = site / "api" / "generated" / f"{qualified}.html"
        assert page.is_file(), f"no page for {qualified}"
        assert ">Examples<" in page.read_text(encoding="utf-8"), f"{qualified}'s page shows no example"
    notebooks = sorted(p.name for p in (site / "run").glob("e*.html"))
    assert len(notebooks) == 8, notebooks
    assert (site / "run" / "scorecard.html").is_file()
    assert (site / "cli.html").read_text(encoding="utf-8").count("--epsilon") >= 1
