"""The result sentences of the report's captions, computed from a run instead of typed.

A caption (``workflow/report/<name>.rst``) says what is shown and how it was made; what this run found is
not written into it. It ends with ``.. include:: results/report/captions/<fragment>.rst``, a fragment that
:func:`caption_results` writes from the reproduction summary: the verdict counts of the rows the fragment
names and, per row, its status, this run's value, the paper's, and the cause of a ``differs``. Which rows
a fragment names is said where the caption is used, in the experiment's ``register(captions=…)``
(``workflow/rules/common.smk``): document items (``"ISDP Fig 2"``, the rows whose location names the
figure, :mod:`isdp_papers.scorecard`) or claim ids (``"SDP-E3-audit-*"``, glob patterns). A changed
verdict changes the fragment, so the caption never goes stale.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pandas as pd

from isdp.files import write_text
from isdp_papers import scorecard
from isdp_papers.jobs import Job

_RST_MARKUP = re.compile(r"([\\`*_|\[\]<>])")


def rst_escape(text) -> str:
    """``text`` on one line, with every character reStructuredText could read as markup escaped."""
    return _RST_MARKUP.sub(r"\\\1", " ".join(str(text).split()))


def select(rows: pd.DataFrame, selectors, items: pd.DataFrame) -> pd.DataFrame:
    """Return the rows (:func:`isdp_papers.scorecard.assign`) a fragment names, in summary order.

    Parameters
    ----------
    rows : DataFrame
        The summary rows with the items they speak of.
    selectors : list of str
        Document items as :func:`~isdp_papers.scorecard.item_key` names them (``"ISDP Fig 2"``), or
        claim ids, glob patterns allowed (``"CDP-E7-privacy-*"``).
    items : DataFrame
        The registered items (:func:`~isdp_papers.scorecard.registry_items`).

    Raises
    ------
    ValueError
        For a selector that names no registered item and matches no row id (a typo would otherwise leave
        a caption without its result).
    """
    keys = {scorecard.item_key(d, i) for d, i in zip(items["document"], items["item"], strict=True)}
    chosen = pd.Series(False, index=rows.index)
    for sel in selectors:
        if sel in keys:
            hit = rows.index.isin(scorecard.rows_of(rows, sel).index)
        else:
            hit = rows["id"].map(lambda i, p=sel: fnmatch.fnmatchcase(i, p)).to_numpy()
        if not hit.any():
            raise ValueError(f"caption selector {sel!r} names no registered item and no claim id")
        chosen |= hit
    return rows[chosen]


def fragment(rows: pd.DataFrame) -> str:
    """Return the result sentence of a caption, as reStructuredText.

    How many rows of the claims registry speak of it and with which verdicts, then one line per row (status, cause, this
    run's value, the paper's).
    """
    counts = scorecard.status_counts(rows)
    tally = " · ".join(f"{n} {s}" for s, n in counts.items() if n)
    lines = [f"**This run** ({len(rows)} row{'s' if len(rows) != 1 else ''} of the claims registry): {tally}.", ""]
    for _, r in rows.iterrows():
        cause = f" ({rst_escape(r['cause'])})" if r["cause"] and r["status"] in ("differs", "not-comparable") else ""
        lines.append(f"- ``{r['id']}`` **{r['status']}**{cause} — {rst_escape(scorecard.reason(r))}")
    return "\n".join(lines) + "\n"


def caption_results(job: Job) -> None:
    """Write each caption fragment ``output.fragments`` (``<name>.rst``).

    It is written from ``input.summary`` (the reproduction summary) and ``input.registry`` (``experiments.csv``, for the
    items), the rows it states named by ``params.captions[<name>]``.
    """
    rows, items, _ = scorecard.load(job.input.summary, job.input.registry)
    for path in job.outputs("fragments"):
        name = Path(path).stem
        chosen = select(rows, job.params.captions[name], items)
        write_text(fragment(chosen), path)
        job.log.info("%s: %s", name, scorecard.status_counts(chosen))


__all__ = ["caption_results", "fragment", "rst_escape", "select"]
