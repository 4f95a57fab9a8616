"""Hostile config values for the claims evaluation (`claims.on_error`): checked by the workflow's
config schema before any job runs, and by the summary step itself when called directly."""

from __future__ import annotations

import jsonschema
import pandas as pd
import pytest
import yaml
from conftest import ROOT
from isdp_papers import claims
from isdp_papers.config import load_config

SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())


@pytest.mark.parametrize(
    "value, message",
    [
        ({"on_error": "maybe"}, "'maybe' is not one of"),
        ({"on_error": True}, "True is not one of"),
        ({"on_eror": "fail"}, "'on_eror' was unexpected"),
        ("fail", "not of type 'object'"),
    ],
)
def test_a_bad_on_error_is_refused_by_the_schema(value, message):
    config = load_config(ROOT / "config" / "config.yaml")
    config["claims"] = value
    with pytest.raises(jsonschema.ValidationError, match=message):
        jsonschema.validate(config, SCHEMA)


def test_the_default_fails_on_an_error():
    assert load_config(ROOT / "config" / "config.yaml")["claims"]["on_error"] == "fail"


def test_check_errors_refuses_an_unknown_mode():
    rows = pd.DataFrame([{"id": "x", "status": "error", "note": "empty"}])
    with pytest.raises(ValueError, match="on_error = 'ignore'"):
        claims.check_errors(rows, "ignore")
