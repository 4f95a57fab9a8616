r"""A release as its readers have it: error bars for any linear query, and a check anyone can run.

From the public files alone — the released table and its privacy statement — the invariants, the route and its
parameter are rebuilt, and with them the law of the noise, which depends on nothing else
(:class:`PublishedRelease`, ``isdp query``); and the statement is checked against the table and the guarantee
against the mechanism (:func:`verify_release`, ``isdp verify``). docs/release.md, "For data users".

Examples
--------
>>> from isdp.published import PublishedRelease, verify_release
>>> PublishedRelease.read.__doc__.splitlines()[0]
'Read a release from its public files and rebuild its mechanism.'
"""

from ._published_release import PublishedRelease
from ._verification import verify_release

__all__ = ["PublishedRelease", "verify_release"]
