"""Labels of a table file as they will look once published.

Margins known by their labels, labels that would look alike, column names that say they hold counts, and the file's
labelled lines.

The wide and long readers and the layout detection share these checks; each refusal is an
:class:`~isdp.errors.InvariantError` naming the file and the line or column, never quoting a count.
"""

from __future__ import annotations

import csv
import io
import os
import re
import unicodedata
from pathlib import Path

from ..errors import InvariantError, UsageError

#: A row or column whose label contains one of these words is a margin (``Total``, ``Grand total``,
#: ``Sum``, ``Overall``); ``All`` only as a label of its own or a first word (``All ages``).
_MARGIN_RE = re.compile(r"\b(total|totals|subtotal|sum|sums|overall|margin|margins)\b|^all\b", re.I)


def _is_margin(label: str) -> bool:
    return bool(_MARGIN_RE.search(label.strip()))


#: code points that display as nothing (Unicode's Default_Ignorable_Code_Point, besides the format
#: characters, category Cf, found by :func:`unicodedata.category`): zero-width spaces and joiners,
#: the byte-order mark, word joiners, variation selectors, Hangul fillers, tags
_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def _invisible(ch: str) -> bool:
    """Return a character that displays as nothing.

    A format or control character (not whitespace) or a default-ignorable code point.
    """
    if ch.isspace():
        return False
    o = ord(ch)
    return unicodedata.category(ch) in ("Cf", "Cc") or any(lo <= o <= hi for lo, hi in _IGNORABLE)


def _seen_as(label: str) -> str:
    """Return what a label looks like, for comparing labels.

    NFKC-normalised and case-folded, invisible characters removed, runs of whitespace as one space. Two labels that look
    the same in a published table (``é`` composed or not, ``A`` and ``A`` + U+200B, ``ﬁ`` and ``fi``, a no-break space
    and a space) are seen as the same.
    """
    if label.isascii() and label.isprintable():
        return " ".join(label.casefold().split())
    text = "".join(ch for ch in label if not _invisible(ch))
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join("".join(ch for ch in text if not _invisible(ch)).split())


def _distinct(path, what: str, items) -> None:
    """Refuse two of ``items``.

    (position, label or tuple of labels) — that look the same (:func:`_seen_as`), naming both positions, and a label
    with nothing visible in it.
    """
    seen: dict = {}
    looks: dict[str, str] = {}  # labels repeat (a long table's keys): each is normalised once
    for where, label in items:
        parts = label if isinstance(label, tuple) else (label,)
        key = tuple(looks[p] if p in looks else looks.setdefault(p, _seen_as(p)) for p in parts)
        if "" in key and any(p and not k for p, k in zip(parts, key, strict=True)):
            made = "has a field made" if isinstance(label, tuple) else "is made"
            raise InvariantError(
                f"{path}: {where}: the {what} {ascii(label)} {made} of invisible characters only "
                "(it would look empty in the published table)"
            )
        if key in seen:
            first_where, first = seen[key]
            if first == label:
                raise InvariantError(f"{path}: {where}: duplicate {what} {label!r}, as at {first_where}")
            firsts = first if isinstance(first, tuple) else (first,)
            if all(a.casefold() == b.casefold() for a, b in zip(parts, firsts, strict=True)):
                raise InvariantError(
                    f"{path}: {where}: duplicate {what} {label!r}, as {first!r} at {first_where} "
                    "(labels are compared ignoring case)"
                )
            raise InvariantError(
                f"{path}: {where}: duplicate {what} {ascii(label)}, as {ascii(first)} at "
                f"{first_where}: they differ only by Unicode normalisation (NFKC), case, spacing or "
                "invisible characters, so they would look the same in the published table"
            )
        seen[key] = (where, label)


#: a column name that says it holds counts: one of these words in it (``count``, ``person_count``,
#: ``Count of persons``) …
_COUNT_WORDS = frozenset({"count", "counts", "freq", "frequency", "frequencies"})
#: … or one of these names on its own
_COUNT_NAMES = frozenset(
    {"n", "nb", "num", "number", "pop", "population", "persons", "people", "total", "totals", "value", "values"}
)


def _count_like(name: str) -> bool:
    seen = _seen_as(name)
    return seen in _COUNT_NAMES or bool(_COUNT_WORDS.intersection(re.split(r"[\W_]+", seen)))


def table_path(path) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path`.

    A :class:`~isdp.errors.UsageError` names the argument when it is no file name (None, a number).
    """
    if not isinstance(path, str | os.PathLike):
        raise UsageError(f"path must be a table's file name (str or os.PathLike), got {type(path).__name__}", "path")
    return Path(path)


def _labelled_lines(path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Return the header and the (line number, fields) of every non-blank line, fields stripped."""
    try:
        text = table_path(path).read_bytes().decode("utf-8-sig")  # a byte-order mark is not part of a label
    except UnicodeDecodeError as err:
        raise InvariantError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise InvariantError(f"{path}: cannot read the table ({err.strerror or err})") from None
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        lines = [(reader.line_num, fields) for fields in (list(map(str.strip, row)) for row in reader) if any(fields)]
    except csv.Error as err:
        raise InvariantError(f"{path}: not a readable CSV table ({err})") from None
    if not lines:
        raise InvariantError(f"{path}: not a readable CSV table (the file is empty)")
    (_, header), body = lines[0], lines[1:]
    if len(header) < 2:
        raise InvariantError(f"{path}: the header {header} has no column labels: the file must be comma-separated")
    for k, label in enumerate(header[1:], start=2):
        if not label:
            raise InvariantError(f"{path}: column {k} has no label")
    if not body:
        raise InvariantError(f"{path}: the table has no cells")
    for lineno, fields in body:
        if len(fields) != len(header):
            raise InvariantError(f"{path}: line {lineno} has {len(fields)} fields, the header {len(header)}")
        if not fields[0]:
            raise InvariantError(f"{path}: line {lineno}: the row has no label")
    return header, body
