"""Privacy parameters as exact fractions (:func:`as_fraction`), read as ``isdp release`` reads ``--epsilon``.

The exact samplers take ε as a fraction p/q; the reading is :mod:`isdp._validate`'s, so ``0.1`` is 1/10
exactly and a number in any other form than :data:`~isdp._validate.NUMBER_FORMS` is refused rather than
guessed.
"""

from __future__ import annotations

from fractions import Fraction

from .. import _validate as check


def as_fraction(value, name: str = "value") -> Fraction:
    """``value`` as an exact positive fraction; strings are read exactly (``"0.1"`` is 1/10).

    Parameters
    ----------
    value : fractions.Fraction, int, float or str
        A positive number. A ``Fraction`` is returned as it is, an int as itself; anything else is
        read from its ``str`` in one of :data:`NUMBER_FORMS` (as ``isdp release`` reads
        ``--epsilon``), so a float is read as it prints (``0.1`` is 1/10, not the binary double
        nearest to it) and strings such as ``"1/3"`` or ``"1e-2"`` are exact.
    name : str, default "value"
        The argument's name in the error message.

    Returns
    -------
    fractions.Fraction
        The value, > 0.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, when ``value`` is not written in one of the number forms (``"1_0"``, ``"nan"``,
        digits of other scripts, a bool), or is not positive.

    Examples
    --------
    >>> from isdp.exact import as_fraction
    >>> as_fraction("0.1"), as_fraction(0.1), as_fraction("1/3"), as_fraction(2)
    (Fraction(1, 10), Fraction(1, 10), Fraction(1, 3), Fraction(2, 1))
    >>> as_fraction(0)
    Traceback (most recent call last):
    ...
    isdp.errors.ArgumentError: value must be a positive number, got 0
    """
    return check.positive(name, value)
