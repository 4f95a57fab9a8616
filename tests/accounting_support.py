"""Helpers of the E8 (privacy accounting) tests: the workflow's configuration and the runs the registry rows are
judged on (a temporary results directory beside the committed data of the checkout)."""

from __future__ import annotations

import yaml
from conftest import ROOT
from isdp_papers.evidence import Run

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
E8 = CONFIG["e8"]


def e8_run(tmp_path, conversion="standard") -> Run:
    """A run in ``tmp_path`` (its results/tables and results/e8 folders made) on E8's configuration, with the TopDown
    talk's zCDP → (ε, δ) ``conversion``."""
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "e8").mkdir(parents=True, exist_ok=True)
    cfg = {"e8": {**E8, "tda": {**E8["tda"], "conversion": conversion}}, "data": CONFIG["data"]}
    return Run(tmp_path, cfg, repo=ROOT)


def tda_run(tmp_path) -> Run:
    """A run in ``tmp_path`` on E8's configuration as written, nothing made in it: for rows that read only the
    committed data."""
    return Run(tmp_path, {"e8": CONFIG["e8"], "data": CONFIG["data"]}, repo=ROOT)
