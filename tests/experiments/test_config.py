"""Tests of :mod:`isdp.experiments.config`: the fast YAML reader reads every YAML file the project reads exactly as
PyYAML's ``safe_load`` does."""

from __future__ import annotations

import pytest
from conftest import ROOT


@pytest.mark.parametrize("rel", ["config/claims.yaml", "config/config.yaml", "config/ci.yaml",
                                 "src/isdp/experiments/claims.schema.yaml"])
def test_the_c_yaml_reader_reads_what_the_python_one_reads(rel):
    """read_yaml takes libyaml's parser for speed; on every YAML file the project reads it must give
    exactly PyYAML's safe_load (types included: a .nan, a date or a bare 1e-3 would tell them apart)."""
    import yaml

    from isdp.experiments.config import read_yaml

    text = (ROOT / rel).read_text(encoding="utf-8")
    assert repr(read_yaml(text)) == repr(yaml.safe_load(text))
