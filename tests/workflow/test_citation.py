"""CITATION.cff describes this release of the software and the five works it reproduces, in valid CFF 1.2.0.

The version and the license are read from pyproject.toml's [project] table, so a release that bumps the
version there and not here fails. The schema is the CFF 1.2.0 JSON schema that check-jsonschema (a dev
dependency) ships for its ``vendor.citation-file-format`` check, so no network is needed; on the command line
the same check is ``check-jsonschema --builtin-schema vendor.citation-file-format CITATION.cff``.
Needs no workflow run: it runs in the unit session.
"""

from __future__ import annotations

import datetime
import json
import tomllib
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CITATION = ROOT / "CITATION.cff"
N_WORKS = 5  # the main paper, Subspace DP, Congenial DP, the Swapping slides and the TopDown talk


def _citation() -> dict:
    return yaml.safe_load(CITATION.read_text(encoding="utf-8"))


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _as_strings(value):
    """YAML dates as the ISO strings the CFF schema expects (its note to implementers says to cast them)."""
    if isinstance(value, dict):
        return {k: _as_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_strings(v) for v in value]
    return value.isoformat() if isinstance(value, datetime.date) else value


def test_the_citation_is_cff_1_2_0_of_this_release():
    cff = _citation()
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] == "software"
    assert str(cff["version"]) == _project()["version"], "CITATION.cff's version is not pyproject.toml's"
    assert cff["license"] == _project()["license"], "CITATION.cff's license is not pyproject.toml's"
    if ".dev" in _project()["version"]:  # main between releases (docs/changelog.md): no release has that date
        assert "date-released" not in cff
    else:
        assert isinstance(cff["date-released"], datetime.date)


def test_the_citation_names_the_main_paper_and_the_five_works():
    cff = _citation()
    references = cff["references"]
    assert len(references) == N_WORKS
    assert len({r["title"] for r in references}) == N_WORKS
    assert cff["preferred-citation"] in references, "the preferred citation is one of the works reproduced"
    assert cff["preferred-citation"]["title"] == "Integer Subspace Differential Privacy"


def _cff_schema() -> dict:
    try:
        path = files("check_jsonschema.builtin_schemas.vendor").joinpath("citation-file-format.json")
    except ModuleNotFoundError:
        pytest.skip("check-jsonschema (a dev dependency, which ships the CFF schema) is not installed")
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_citation_validates_against_the_cff_schema():
    schema = _cff_schema()
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(_as_strings(_citation()))
    ]
    assert not errors, "CITATION.cff is not valid CFF 1.2.0:\n" + "\n".join(errors)


def test_the_schema_check_can_fail():
    schema = _cff_schema()
    bad = _as_strings(_citation()) | {"doi": "not-a-doi", "date-released": "26 Nov 2026"}
    paths = {e.absolute_path[0] for e in jsonschema.Draft7Validator(schema).iter_errors(bad)}
    assert paths == {"doi", "date-released"}
