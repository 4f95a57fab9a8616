"""Privacy parameters as exact fractions, read from text in a few strict forms only.

The exact samplers take ε as a fraction p/q (:func:`as_fraction`); ``isdp release`` reads
``--epsilon`` and ``--delta`` the same way (:data:`NUMBER_FORMS`), so ``0.1`` is 1/10 exactly and
a number in any other form is refused rather than guessed.
"""

from __future__ import annotations

import numbers
import re
from fractions import Fraction

#: the forms in which a privacy parameter is written as text: ``--epsilon``, ``--delta`` and :func:`as_fraction`
NUMBER_FORMS = ("an integer, a decimal, a decimal with an exponent or a fraction of two integers, in ASCII digits "
                "(1, 0.5, 1e-6, 1/3)")
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?|[0-9]+/[0-9]+")


def _read_number(text: str) -> Fraction:
    """``text`` as an exact fraction, in one of :data:`NUMBER_FORMS` only (ValueError otherwise).

    Python's ``Fraction`` and ``float`` also read ``1_0`` as 10, digits of other scripts (Arabic-Indic,
    full-width), signs, spaces, ``nan`` and ``inf``; a privacy parameter typed in one of those is
    more likely a mistake than meant, so it is refused. The form is checked before any arithmetic,
    and the exponent has at most four digits, so no text makes the reading slow.
    """
    text = str(text)
    if len(text) > 100 or not _NUMBER.fullmatch(text):
        raise ValueError(f"{text!r} is not written as {NUMBER_FORMS}")
    try:
        return Fraction(text)
    except ZeroDivisionError:  # 1/0
        raise ValueError(f"{text!r} divides by zero") from None


def as_fraction(value) -> Fraction:
    """``value`` as an exact positive fraction; strings are read exactly (``"0.1"`` is 1/10).

    Parameters
    ----------
    value : fractions.Fraction, int, float or str
        A positive number. A ``Fraction`` is returned as it is, an int as itself; anything else is
        read from its ``str`` in one of :data:`NUMBER_FORMS` (as ``isdp release`` reads
        ``--epsilon``), so a float is read as it prints (``0.1`` is 1/10, not the binary double
        nearest to it) and strings such as ``"1/3"`` or ``"1e-2"`` are exact.

    Returns
    -------
    fractions.Fraction
        The value, > 0.

    Raises
    ------
    ValueError
        When ``value`` is not written in one of :data:`NUMBER_FORMS` (``"1_0"``, ``"nan"``,
        digits of other scripts, a bool), or is not positive.

    Examples
    --------
    >>> from isdp.exact import as_fraction
    >>> as_fraction("0.1"), as_fraction(0.1), as_fraction("1/3"), as_fraction(2)
    (Fraction(1, 10), Fraction(1, 10), Fraction(1, 3), Fraction(2, 1))
    >>> as_fraction(0)
    Traceback (most recent call last):
    ...
    ValueError: 0 must be positive
    """
    if isinstance(value, Fraction):
        f = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        f = Fraction(int(value))
    else:
        text = str(value)
        f = _read_number(text[1:]) * -1 if text.startswith("-") else _read_number(text)
    if f <= 0:
        raise ValueError(f"{value!r} must be positive")
    return f
