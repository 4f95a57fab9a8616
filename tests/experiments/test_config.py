"""Tests of :mod:`isdp_papers.config`: the fast YAML reader reads every YAML file the project reads exactly as
PyYAML's ``safe_load`` does."""

from __future__ import annotations

import pytest
from conftest import ROOT


@pytest.mark.parametrize(
    "rel", ["config/claims.yaml", "config/config.yaml", "config/ci.yaml", "papers/isdp_papers/claims.schema.yaml"]
)
def test_the_c_yaml_reader_reads_what_the_python_one_reads(rel):
    """read_yaml takes libyaml's parser for speed; on every YAML file the project reads it must give
    exactly PyYAML's safe_load (types included: a .nan, a date or a bare 1e-3 would tell them apart)."""
    import yaml
    from isdp_papers.config import read_yaml

    text = (ROOT / rel).read_text(encoding="utf-8")
    assert repr(read_yaml(text)) == repr(yaml.safe_load(text))


@pytest.mark.parametrize(
    "text, key", [("eps: 1\nn: 2\neps: 3\n", "'eps'"), ("e1:\n  draws:\n    thin: 1\n    thin: 2\n", "'thin'")]
)
def test_a_key_given_twice_in_one_mapping_is_refused_naming_its_line(tmp_path, text, key):
    """PyYAML keeps the last of two equal keys; the config and the registry are read refusing them instead."""
    import yaml
    from isdp_papers.config import load_config

    (tmp_path / "c.yaml").write_text(text)
    with pytest.raises(yaml.YAMLError, match=f"the key {key} is given twice") as err:
        load_config(tmp_path / "c.yaml")
    assert "line" in str(err.value)
