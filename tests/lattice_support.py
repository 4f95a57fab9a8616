"""Helpers of the lattice study's tests (E1, E2 and their measures): the config's run and a registry row's verdict."""

from __future__ import annotations

from conftest import REGISTRY, ROOT, row_verdict
from criteria_support import judge
from isdp_papers.claims import claim
from isdp_papers.config import load_config
from isdp_papers.evidence import Run

CONFIG = load_config(ROOT / "config" / "config.yaml")  # the workflow's config, as the rows read it


def config_run() -> Run:
    """A run of the repository's config that reads only the config and committed inputs (no results)."""
    return Run(ROOT, load_config(ROOT / "config" / "config.yaml"), repo=ROOT)


def registry_row(claim_id: str) -> dict:
    """The registry's entry ``claim_id``."""
    return claim(claim_id, REGISTRY)


def row_status(c: dict, m) -> str:
    """The verdict of registry entry ``c``'s criterion on the measurement ``m``."""
    return judge(c["criterion"], c["paper_value"], m)


def assert_row_flips(row: str, run, flip: dict) -> None:
    """Registry row ``row`` matches on ``run`` and differs with its args overridden by ``flip`` (a plausibly wrong
    law; the row's `why` says why it is plausible)."""
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    status, m = row_verdict(row, run, **flip)
    assert status == "differs", m.text
