"""Tests of :mod:`isdp_papers.problems`: an index set given by its complement is checked, and its errors name the
config key and the bad value."""

from __future__ import annotations

import pytest
from isdp_papers.problems import index_set_from_complement


@pytest.mark.parametrize(
    "complement, message",
    [([1, 23, 99], r"\[99\] outside the cells 1..46"), ([0, 23, 46], r"\[0\] outside"), ([1, 1, 46], "repeated")],
)
def test_index_complement_errors_name_the_key_and_value(complement, message):
    with pytest.raises(ValueError, match="e5.index_complement: " + message):
        index_set_from_complement(complement, 46, key="e5.index_complement")
