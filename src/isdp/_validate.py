"""The one set of argument checks every public entry point and the command line read their inputs through.

Numbers, sizes, seeds, levels and matrices are read here, each by one rule, and a value that breaks it
raises :class:`~isdp.errors.ArgumentError` (or the kind the caller names, such as the command line's
:class:`~isdp.errors.UsageError`) with a message that starts with the argument's name. The rules:

- an exact number is a ``Fraction``, an integer, a finite float read as it prints (``0.1`` is 1/10), a
  ``Decimal``, or text in one of :data:`NUMBER_FORMS`; a bool, NaN, an infinity, ``"1_0"`` or digits of
  another script are refused, not guessed;
- an integer is an int or a NumPy integer (a float only when whole): 2.5 is never truncated, ``True``
  is not 1;
- a matrix of invariants has integer entries only (1.5 is refused, not cast to 1), of a numeric dtype.

Below everything but :mod:`isdp.errors`, so that any part of the library can use it.
"""

from __future__ import annotations

import numbers
import os
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import ArgumentError, InvariantError

#: the forms in which an exact number is written as text: ``--epsilon``, ``--delta`` and every exact parameter
NUMBER_FORMS = (
    "an integer, a decimal, a decimal with an exponent or a fraction of two integers, in ASCII digits "
    "(1, 0.5, 1e-6, 1/3)"
)
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?|[0-9]+/[0-9]+")
_INT64_MAX = 2**63 - 1


def read_number(
    text: str, name: str = "value", *, error: type[ArgumentError] = ArgumentError, must: str = "be a number"
) -> Fraction:
    """``text`` as an exact fraction, in one of :data:`NUMBER_FORMS` only, an optional ``-`` before it.

    Python's ``Fraction`` and ``float`` also read ``1_0`` as 10, digits of other scripts, spaces,
    ``nan`` and ``inf``; a parameter typed in one of those is more likely a mistake than meant, so it is
    refused (``must`` says what the value must be, in the message). The form is checked before any
    arithmetic and an exponent has at most four digits, so no text makes the reading slow.
    """
    text = str(text)
    body = text[1:] if text.startswith("-") else text
    if len(body) > 100 or not _NUMBER.fullmatch(body):
        raise error(f"{name} must {must}, written as {NUMBER_FORMS}; got {text!r}", name)
    try:
        value = Fraction(body)
    except ZeroDivisionError:  # 1/0
        raise error(f"{name} must {must}; {text!r} divides by zero", name) from None
    return -value if body is not text else value


def _bound(b) -> str:
    return str(b) if Fraction(b).denominator == 1 else f"{float(b):g}"


def exact_number(
    name: str,
    value,
    *,
    low: Fraction | int | None = 0,
    low_closed: bool = False,
    high: Fraction | int | None = None,
    high_closed: bool = False,
    error: type[ArgumentError] = ArgumentError,
) -> Fraction:
    """``value`` as an exact ``Fraction`` within the given bounds (open unless ``*_closed``; None: unbounded)."""
    if low == 0 and not low_closed and high is None:
        must = "be a positive number"
    else:
        must = (
            f"lie in {'[' if low_closed else '('}{'-inf' if low is None else _bound(low)}, "
            f"{'inf' if high is None else _bound(high)}{']' if high_closed else ')'}"
        )
    if isinstance(value, Fraction):
        f = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        f = Fraction(int(value))
    elif isinstance(value, float | np.floating | Decimal | str):
        if isinstance(value, float | np.floating) and not np.isfinite(value):
            raise error(f"{name} must {must}, got {value!r}", name)
        text = str(value) if isinstance(value, str | Decimal) else repr(float(value))
        f = read_number(text, name, error=error, must=must)
    else:
        raise error(
            f"{name} must {must} (an int, a Fraction, a float or text such as '1/3'), got "
            f"{type(value).__name__} {value!r}",
            name,
        )
    if (low is not None and (f < low or (f == low and not low_closed))) or (
        high is not None and (f > high or (f == high and not high_closed))
    ):
        raise error(f"{name} must {must}, got {value!r}", name)
    return f


def positive(name: str, value, *, error: type[ArgumentError] = ArgumentError) -> Fraction:
    """``value`` as an exact fraction > 0 (:func:`exact_number`)."""
    return exact_number(name, value, low=0, error=error)


def probability(name: str, value, *, error: type[ArgumentError] = ArgumentError) -> Fraction:
    """``value`` as an exact fraction in the open interval (0, 1): a δ, a miss probability."""
    return exact_number(name, value, low=0, high=1, error=error)


def level(name: str, value, *, error: type[ArgumentError] = ArgumentError) -> float:
    """``value`` as a float in (0, 1): a confidence or coverage level (1.5 and NaN are refused, not clipped)."""
    return float(exact_number(name, value, low=0, high=1, error=error))


def integer(
    name: str, value, low: int | None = None, high: int | None = None, *, error: type[ArgumentError] = ArgumentError
) -> int:
    """``value`` as an int in [``low``, ``high``]: an int or NumPy integer, or a whole finite float."""
    if isinstance(value, bool | np.bool_):
        raise error(f"{name} must be an integer, got {value!r}", name)
    if isinstance(value, numbers.Integral):
        n = int(value)
    elif isinstance(value, float | np.floating) and np.isfinite(value) and float(value).is_integer():
        n = int(value)
    else:
        raise error(f"{name} must be an integer, got {type(value).__name__} {value!r}", name)
    if (low is not None and n < low) or (high is not None and n > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise error(f"{name} must be an integer in {bounds}, got {value!r}", name)
    return n


def choice(name: str, value, options, *, error: type[ArgumentError] = ArgumentError) -> str:
    """``value`` as one of the names ``options`` (text only: a number or bytes is refused, not converted)."""
    if not isinstance(value, str) or value not in options:
        raise error(f"{name} must be one of {', '.join(options)}; got {value!r}", name)
    return value


def folder(name: str, value, *, error: type[ArgumentError] = ArgumentError) -> Path:
    """``value`` as a folder's path: text or ``os.PathLike``, not empty, not a file's (it may not exist yet)."""
    if not isinstance(value, str | os.PathLike) or str(value) == "":
        raise error(f"{name} must be a folder's path, got {type(value).__name__} {value!r}", name)
    path = Path(value)
    if "\x00" in str(path):
        raise error(f"{name} must be a folder's path, got {str(path)!r}", name)
    if path.exists() and not path.is_dir():
        raise error(f"{name} {str(path)!r} is a file, not a folder", name)
    return path


#: the largest count magnitude a table's counts, its invariants and a release may have
#: (:func:`isdp.lattice.check_release`): every integer up to it is exact in a float
COUNT_LIMIT = 2**53
#: the largest squared distance ‖v‖² between neighbours the Gaussian route's privacy profile is computed for: it
#: sums s residue classes for every s ≤ the limit, a cost growing as its square; a change of two persons under a
#: table's margins has ‖v‖² = 4, a weighted invariant tens
MAX_SHIFT = 200

#: the largest size :func:`size` admits: every count of iterations, draws or cells is exact in a float and an int64
MAX_SIZE = 2**53


def size(name: str, value, low: int = 0, high: int = MAX_SIZE, *, error: type[ArgumentError] = ArgumentError) -> int:
    """``value`` as a count of things (iterations, chains, draws, cells, attempts): an integer in [low, high]."""
    return integer(name, value, low, high, error=error)


def seed(value, name: str = "seed", *, error: type[ArgumentError] = ArgumentError) -> int:
    """``value`` as a non-negative int.

    A string, a float or a negative seed is refused, as two seeds that a cast would make equal would give the same
    draws.
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_) and int(value) >= 0
    if not ok:  # a whole float is not a seed either: 1e20 is not exact
        raise error(f"{name} must be a non-negative integer, got {type(value).__name__} {value!r}", name)
    return int(value)


def integer_matrix(name: str, A, *, error: type[ArgumentError] | type[InvariantError] = InvariantError):
    """Return ``A`` (array-like or SciPy sparse) as int64 of the same kind, refusing any entry that is not an integer.

    Accepted: integer dtypes within int64, floats with whole finite values, Python ints in an object array.
    Refused: a bool matrix, a non-whole, non-finite or out-of-int64 entry, and non-numeric entries; the
    message names the first bad entry.
    """
    from scipy import sparse  # deferred: SciPy costs a second at import, and most callers pass arrays

    if sparse.issparse(A):
        coo = sparse.coo_array(A)
        data = _integer_entries(name, np.asarray(coo.data), lambda i: (int(coo.row[i]), int(coo.col[i])), error)
        out = sparse.csr_array((data, (coo.row, coo.col)), shape=coo.shape, dtype=np.int64)
        return out
    try:
        arr = np.asarray(A)
    except (ValueError, TypeError) as err:  # ragged rows
        raise error(f"{name} must be a rectangular matrix of integers ({err})") from None
    if arr.ndim != 2 or arr.size == 0:
        raise error(f"{name} must be a non-empty 2-D matrix, got shape {arr.shape}")
    return _integer_entries(
        name, arr.ravel(), lambda i: tuple(int(k) for k in np.unravel_index(i, arr.shape)), error
    ).reshape(arr.shape)


def _integer_entries(name: str, flat: np.ndarray, where, error) -> np.ndarray:
    """Return the entries of a flat array as int64, or ``error`` naming the first that is not an integer."""
    if flat.dtype == bool:
        raise error(f"{name} must hold integers, not booleans")
    if np.issubdtype(flat.dtype, np.integer):
        if flat.dtype == np.uint64 and flat.size and flat.max() > _INT64_MAX:
            i = int(np.argmax(flat > _INT64_MAX))
            raise error(f"{name} must hold int64 integers; entry {where(i)} is {flat[i]}, beyond the int64 range")
        return flat.astype(np.int64, copy=False)
    if np.issubdtype(flat.dtype, np.floating):
        bad = ~np.isfinite(flat) | (np.rint(flat) != flat) | (np.abs(flat) > 2.0**63)
        if bad.any():
            i = int(np.argmax(bad))
            raise error(f"{name} must be integer-valued; entry {where(i)} is {flat[i]}")
        return flat.astype(np.int64)
    if flat.dtype == object:
        out = np.empty(flat.size, dtype=np.int64)
        for i, x in enumerate(flat):
            ok = isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)
            ok = ok or (isinstance(x, float | np.floating) and np.isfinite(x) and float(x).is_integer())
            if not ok or abs(int(x)) > _INT64_MAX:
                raise error(f"{name} must be integer-valued; entry {where(i)} is {x!r}")
            out[i] = int(x)
        return out
    raise error(f"{name} must be numeric, got dtype {flat.dtype}")


def vector(name: str, v, *, length: int | None = None, integer: bool = False) -> np.ndarray:
    """Return ``v`` as a finite 1-D vector (int64 if ``integer``, else float), or an :class:`InvariantError`.

    ``length`` fixes its size; otherwise it must be non-empty. An integer vector's entries are read as
    :func:`integer_matrix` reads a matrix's (1.5 is refused, not truncated).
    """
    arr = np.asarray(v)
    if arr.ndim != 1 or (arr.size == 0 if length is None else arr.size != length):
        expected = "non-empty" if length is None else f"of length {length}"
        raise InvariantError(f"{name} must be a 1-D vector {expected}, got shape {arr.shape}")
    if integer:
        return integer_matrix(name, arr[None, :])[0]
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or not np.all(np.isfinite(arr)):
        raise InvariantError(f"{name} must be finite and numeric")
    return arr.astype(float)
