"""Entries of a table or constraint file read as integers.

An entry is ASCII digits with an optional sign, at most ±2**53; a refusal never quotes the entry: it may be a
confidential count.
"""

from __future__ import annotations

import re

from .._validate import COUNT_LIMIT
from ..errors import InvariantError

#: a count as a table or a constraint file writes it: ASCII digits with an optional sign (``int``
#: would also take ``1_0``, non-ASCII digits such as Arabic-Indic ``٤`` and surrounding spaces)
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: an integer in any digits (a label that may be a count)
_WHOLE = re.compile(r"[+-]?\d+")
#: a number in any digits, with or without a fraction or an exponent: an entry that is not an integer
#: but a number (its refusal says so), or a label that may be a count (``--format auto`` refuses it)
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _not_integer(text: str) -> str:
    """Return what is wrong with an entry that is not an integer, without quoting it.

    The entry may be a confidential count.
    """
    if not text:
        return "empty"
    if any(ch.isdigit() and not "0" <= ch <= "9" for ch in text):
        return "digits other than ASCII 0-9"
    if _DECIMAL.fullmatch(text):
        return "a fraction or an exponent"
    if re.fullmatch(r"[+-]?[0-9]+([_,' ][0-9]+)+", text):
        return "digits grouped with a separator"
    return "not a number"


def _integer(text: str) -> int | None:
    """``text`` as an integer if it is ASCII digits with an optional sign, else None.

    A number of more than 4,000 digits (leading zeros aside: ``int`` refuses strings of over
    4,300) reads as ±10**4000, beyond every limit and every value an invariant can take.
    """
    if not _INTEGER.fullmatch(text):
        return None
    if len(text.lstrip("+-").lstrip("0")) > 4000:
        return -(10**4000) if text.startswith("-") else 10**4000
    return int(text)


def _count(path, where: str, text: str, counts: bool) -> int:
    """Return an entry as an integer; the message of a refusal never quotes it (it may be a count)."""
    v = _integer(text)
    if v is None:
        raise InvariantError(
            f"{path}: {where}: not an integer{' count' if counts else ''} ({_not_integer(text)}; "
            f"{'counts' if counts else 'entries'} are ASCII digits 0-9 with an optional sign)"
        )
    if abs(v) > COUNT_LIMIT:
        raise InvariantError(f"{path}: {where}: the entry is too large (beyond ±2**53)")
    if counts and v < 0:
        raise InvariantError(f"{path}: {where}: negative count")
    return v
