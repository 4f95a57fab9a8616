"""What a claim's measure reads and returns.

One run's outputs (:class:`Run`, refusing a damaged results file with :class:`EvidenceError`) and the value it hands to
the criterion (:class:`Measurement`).

Measures import these from :mod:`isdp_papers.claims`, their public home.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from isdp.errors import IsdpError


@dataclass(frozen=True)
class Measurement:
    """What a measure returns: the value a criterion checks and how to report it.

    ``value`` is a number, bool, string, sequence, or a mapping of named numbers (for ``ordering``);
    ``se`` its Monte Carlo standard error (required by ``within_se``); ``text`` the human-readable
    reproduced value; ``note`` extra context for the summary row; ``n`` how many values the
    measure used (when None, the evaluator counts the table rows it read through :class:`Run`).
    """

    value: Any
    text: str
    se: float | None = None
    note: str = ""
    n: int | None = None


class EvidenceError(IsdpError, ValueError):
    """A results file a claim (or a step) reads is missing, empty, header-only or unreadable; the message names it.

    A damaged draws file raises :class:`isdp.errors.DrawsError` (also a ``ValueError`` naming the file).
    """


class Run:
    """Read access to one workflow run's outputs (``<root>/results/...``), its config and the repository's data."""

    def __init__(self, root=".", config: Mapping | None = None, repo="."):
        self.root = Path(root)
        self.config = dict(config or {})
        self.repo = Path(repo)
        # files a measure opened since the last reset (its evidence): rows read, None when not a table
        self.reads: dict[str, int | None] = {}

    def path(self, rel) -> Path:
        """``results/<rel>`` of this run (recorded as evidence of the claim being evaluated)."""
        self.reads.setdefault(f"results/{rel}", None)
        return self.root / "results" / rel

    def table(self, name: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/tables/<name>.csv`` as a DataFrame (refused when empty or header-only)."""
        return self.table_at(f"tables/{name}.csv", **read_csv_kwargs)

    def table_at(self, rel: str, **read_csv_kwargs) -> pd.DataFrame:
        """``results/<rel>`` (any CSV of the run) as a DataFrame (refused when empty or header-only)."""
        df = read_results_csv(self.path(rel), **read_csv_kwargs)
        self.reads[f"results/{rel}"] = (self.reads[f"results/{rel}"] or 0) + len(df)
        return df

    def data(self, rel) -> Path:
        """Return a committed input of the repository (e.g. a paper's printed table under ``data/``)."""
        self.reads.setdefault(str(rel), None)
        return self.repo / rel

    def json(self, rel):
        """Return ``results/<rel>`` parsed as JSON.

        It is refused with :class:`EvidenceError` naming it when missing or unreadable (:func:`read_results_json`).
        """
        return read_results_json(self.path(rel))


def read_results_csv(path, **read_csv_kwargs) -> pd.DataFrame:
    """Read a results CSV, refused with :class:`EvidenceError` naming it when damaged.

    It is refused when missing, empty, header-only or unparsable: a damaged result never reads as a table without rows.
    """
    path = Path(path)
    try:
        df = pd.read_csv(path, **read_csv_kwargs)
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (run the workflow step that writes it)") from None
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise EvidenceError(f"{path}: damaged ({err}); delete it so the workflow rebuilds it") from None
    except OSError as err:  # a directory in its place, no permission, an I/O error
        raise EvidenceError(f"{path}: unreadable ({type(err).__name__}: {err.strerror or err})") from None
    if df.empty:
        raise EvidenceError(f"{path}: no data rows (header only); delete it so the workflow rebuilds it")
    return df


def read_results_json(path):
    """Return a results JSON file, parsed.

    Refused with :class:`EvidenceError` naming it when missing, unreadable or not JSON (``NaN`` and ``Infinity``, which
    the workflow writes for quantities a one-county state lacks, are read as floats: the criteria refuse them where a
    claim would use them).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EvidenceError(f"{path}: missing (run the workflow step that writes it)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise EvidenceError(
            f"{path}: unreadable ({type(err).__name__}: {err}); delete it so the workflow rebuilds it"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise EvidenceError(f"{path}: damaged, not JSON ({err}); delete it so the workflow rebuilds it") from None


__all__ = ["EvidenceError", "Measurement", "Run", "read_results_csv", "read_results_json"]
