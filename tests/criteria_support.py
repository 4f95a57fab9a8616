"""Helpers of the tests that judge a measurement under a registry criterion (the criteria's own tests and the
measures' tests across the experiments)."""

from __future__ import annotations

from collections.abc import Mapping

from isdp_papers.criteria import verdict
from isdp_papers.evidence import Measurement


def judge(criterion: Mapping, paper, m: Measurement) -> str:
    """The status of a measurement against the paper's value under ``criterion``; ``error`` when its evidence
    cannot be judged (:func:`isdp_papers.criteria.verdict` says why)."""
    return verdict(criterion, paper, m)[0]
