"""Docstrings write |x| and ‖x‖ as mathematicians do; reStructuredText reads ``|x|`` as a substitution.

The ``autodoc-process-docstring`` hook escapes every bar outside inline literals, roles and
examples, so the docstrings stay readable as plain text (``help()``, an editor) and render the
same on the site.
"""

from __future__ import annotations

import re

#: inline literals, roles and interpreted text: their bars are not markup
_SPANS = re.compile(r"``.+?``|(?::[\w:.-]+:)?`[^`]*`")


def escape_bars(line: str) -> str:
    """``line`` with each ``|`` outside backquoted spans written ``\\|``; example lines unchanged.

    >>> escape_bars("the sum of |u_i| over ``a|b`` and :math:`|x|`")
    'the sum of \\\\|u_i\\\\| over ``a|b`` and :math:`|x|`'
    """
    if line.lstrip().startswith((">>>", "...")):
        return line
    out, end = [], 0
    for span in _SPANS.finditer(line):
        out += [line[end : span.start()].replace("|", r"\|"), span.group()]
        end = span.end()
    return "".join(out) + line[end:].replace("|", r"\|")


def _process(app, what, name, obj, options, lines):
    in_example = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            in_example = True
        elif not stripped:
            in_example = False
        if not in_example:
            lines[i] = escape_bars(line)


def setup(app):
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True}
