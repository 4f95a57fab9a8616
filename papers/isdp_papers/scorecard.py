"""The scorecard.

Every figure and table of the five documents beside the verdicts of the claims that speak of it, built from the
experiment registry and one run's reproduction summary (docs/claims.md, "The scorecard").

Which figures and tables exist is the experiment registry's word: each experiment's ``register()`` call
(``workflow/rules/common.smk``) names the document items it reproduces — document, section, item
(``Fig 2``, ``Table 1``, or a slide's title), output file and report label — and
``results/tables/experiments.csv`` holds them (:func:`experiment_registry`). Which claims speak of an item is
read from each claim's ``location`` (:func:`parse_location`, :func:`speaks_of`): ``§5 Fig 2`` speaks of
ISDP's Fig 2, ``'What if the 2020 Census used swapping?', note`` of that slide's table. A location that names
a figure or table no experiment registers is listed as such (:func:`unregistered`).

The step :func:`scorecard` writes ``results/scorecard.html`` (a standalone page: thumbnails, small tables
inline, links relative to ``results/``) and the report's landing text (``results/report/scorecard.html``,
the same verdicts with links that open each result inside the Snakemake report).
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from isdp.files import write_table, write_text
from isdp_papers import claims
from isdp_papers.jobs import Job

SLIDE_DOCUMENTS = ("Swapping slides", "TopDown talk")
ITEM_FIELDS = ("document", "where", "item", "output", "label")
# Words that make a slide location name a figure or a table (not only a statement on the slide).
_FIGURE_WORDS = re.compile(r"\b(tables?|figures?|boxplots?|box plots?|plots?|charts?|graphs?)\b", re.I)
# A quoted passage: opens after a non-word character (so "§5's" opens nothing), closes before one.
_QUOTED = re.compile(r"(?<![\w'])'(.+?)'(?!\w)")
# A figure or table of a paper: "Fig 2", "Fig. 2 and 8", "Tables 1–3", with a panel "(left)", "(c)",
# "right" or "caption (left)"; not "after Fig 1" / "before Table 2", which place a statement, nor "the
# analogue of Table 1", which compares with it: neither names the item.
_NUMBERED = re.compile(
    r"(?<!after )(?<!before )(?<!analogue of )\b(Figs?\.?|Tables?)\s*(\d+(?:\s*(?:,|and|–|-)\s*\d+)*)"
    r"(?:\s+(?:caption\s+)?(?:\((left|right|top|bottom|[a-d])\)|(left|right)\b))?"
)


def documents() -> list[str]:
    """Return the five documents, in the claims registry schema's order (ISDP first)."""
    return list(claims.schema()["properties"]["claims"]["items"]["properties"]["document"]["enum"])


# --------------------------------------------------------------------------- locations


@dataclass(frozen=True)
class ItemRef:
    """One figure or table a location names.

    Attributes
    ----------
    kind : str
        ``"Fig"`` or ``"Table"`` in a paper, ``"slide"`` in the slides and the talk.
    name : str
        The item's number, or the quoted title of a slide (or of a table on a slide).
    part : str
        A paper item's panel (``"left"``, ``"c"``), or what a slide location says after the title
        (``"table caption"``, ``"figure notes 2"``); empty when none.
    lead : str
        Slides only: the words before the title in its clause (``"first slide"``, ``"against the table"``).
    """

    kind: str
    name: str
    part: str = ""
    lead: str = ""

    def __str__(self) -> str:
        if self.kind == "slide":
            return " ".join(s for s in (self.lead, f"'{self.name}'", self.part) if s)
        return f"{self.kind} {self.name}" + (f" ({self.part})" if self.part else "")


def _clauses(location: str) -> list[str]:
    """Return the ``;``-separated clauses of ``location`` with their parenthesised remarks removed.

    A quoted passage is kept or dropped whole (a title may hold parentheses or a semicolon).
    """
    clauses, out, depth, i = [], [], 0, 0
    while i < len(location):
        m = _QUOTED.match(location, i)
        if m:
            if depth == 0:
                out.append(m.group(0))
            i = m.end()
            continue
        c = location[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif c == ";" and depth == 0:
            clauses.append("".join(out))
            out = []
        elif depth == 0:
            out.append(c)
        i += 1
    clauses.append("".join(out))
    return [c.strip() for c in clauses if c.strip()]


def _words(text: str) -> str:
    return " ".join(text.replace(",", " ").replace(":", " ").split())


def _slide_refs(location: str) -> list[ItemRef]:
    refs = []
    for clause in _clauses(location):
        titles = list(_QUOTED.finditer(clause))
        for i, m in enumerate(titles):
            lead = clause[titles[i - 1].end() if i else 0 : m.start()]
            part = clause[m.end() : titles[i + 1].start() if i + 1 < len(titles) else len(clause)]
            refs.append(ItemRef("slide", m.group(1), _words(part), _words(lead)))
    return refs


def _paper_refs(location: str) -> list[ItemRef]:
    text = _QUOTED.sub(" ", location)  # the documents' own words are quoted, not named items
    refs = []
    for m in _NUMBERED.finditer(text):
        kind = "Fig" if m.group(1).startswith("Fig") else "Table"
        part = m.group(3) or m.group(4) or ""
        refs += [ItemRef(kind, n, part) for n in re.findall(r"\d+", m.group(2))]
    return refs


def parse_location(document: str, location: str) -> list[ItemRef]:
    """Return the figures and tables a claim's ``location`` names, in order, each once.

    Parameters
    ----------
    document : str
        The claim's document (the registry's ``document``); the slides and the talk name slides by their
        quoted titles, the papers name numbered figures and tables.
    location : str
        The registry's ``location``, e.g. ``"§5 Fig 2; App. E.4 Fig 8"`` or
        ``"'Numerical demonstration: 1940 Census full count data', table caption"``.

    Returns
    -------
    list of ItemRef
        In a paper, every ``Fig N`` / ``Table N`` outside quoted passages (``Fig. 2 and 8`` gives two, a
        panel such as ``(left)`` or ``right`` is kept, ``after Fig 1`` is a position and names nothing); in
        the slides, every quoted title outside parentheses with the words around it.
    """
    refs = _slide_refs(location) if document in SLIDE_DOCUMENTS else _paper_refs(location)
    return list(dict.fromkeys(refs))


def speaks_of(ref: ItemRef, item: ItemRef) -> bool:
    """Whether a location's reference ``ref`` is about the registered ``item``.

    A paper item matches its kind and number; a panel on either side must agree when both give one
    (``Fig 1`` speaks of ``Fig 1 (left)``). A slide item matches its title; when the item names a part
    (``table``) the reference must name it too or something of it (``table caption``).
    """
    if (ref.kind, ref.name) != (item.kind, item.name):
        return False
    if item.kind == "slide":
        return not item.part or ref.part == item.part or ref.part.startswith(item.part + " ")
    return not (ref.part and item.part) or ref.part == item.part


def names_figure_or_table(ref: ItemRef) -> bool:
    """Return whether ``ref`` names a figure or table, as opposed to a statement on a slide.

    Every paper reference does; a slide reference does when its words say table, figure, box plots …
    """
    return ref.kind != "slide" or bool(_FIGURE_WORDS.search(f"{ref.lead} {ref.part}"))


def split_source(source: str) -> tuple[str, str]:
    """Return a summary row's ``source`` (``"<document> <location>"``) as (document, location)."""
    for document in sorted(documents(), key=len, reverse=True):
        if source.startswith(document + " "):
            return document, source[len(document) + 1 :]
    raise ValueError(f"source {source!r} names none of the documents {documents()}")


# --------------------------------------------------------------------------- the experiment registry


def experiment_registry(job: Job) -> None:
    """Write the workflow's experiment registry (``params.experiments``, common.smk) as a table, one row per experiment.

    Title (its report category), review notebook, outputs, and the document items it reproduces as JSON (``items``:
    document, section, item, output, report label; read by :func:`registry_items`).
    """
    rows = [
        {
            "experiment": exp,
            "title": e["title"],
            "notebook": e["notebook"],
            "outputs": ";".join(e["outputs"]),
            "items": json.dumps([{k: i[k] for k in ITEM_FIELDS} for i in e.get("items", [])], ensure_ascii=False),
        }
        for exp, e in job.params.experiments.items()
    ]
    write_table(pd.DataFrame(rows), job.output.table)


def _section_key(where: str) -> tuple:
    """Sort key of a section.

    The body (``§5.1``) before the appendix (``App. E.3``), each by its numbers and letters; no section (a slide) last,
    in registration order.
    """
    where = where.strip()
    if not where:
        return (2,)
    appendix = where.startswith("App")
    tokens = re.findall(r"\d+|[A-Z]", where.removeprefix("App.").removeprefix("App"))
    return (int(appendix), *((0, int(t), "") if t.isdigit() else (1, 0, t) for t in tokens))


def registry_items(registry: pd.DataFrame) -> pd.DataFrame:
    """Return the document items of the experiment registry (``experiments.csv`` as a DataFrame), one row each.

    In the documents' order (:func:`documents`) and each document's order: by section, then as registered.

    Each row also holds its parsed reference (``ref``) and ``experiment``; raises ``ValueError`` for an
    item that names no single figure or table, or for two registrations of the same item.
    """
    rows = [
        {"experiment": exp, **item}
        for exp, entry in registry.set_index("experiment").iterrows()
        for item in json.loads(entry.get("items", "[]") or "[]")
    ]
    items = pd.DataFrame(rows, columns=["experiment", *ITEM_FIELDS])
    refs = []
    for it in items.itertuples():
        parsed = parse_location(it.document, it.item)
        if len(parsed) != 1:
            raise ValueError(
                f"{it.experiment}: item {it.item!r} of {it.document} names {len(parsed)} figures or "
                "tables; name exactly one (e.g. 'Fig 2', or a slide's quoted title)"
            )
        refs.append(parsed[0])
    items["ref"] = refs
    dup = items[items.duplicated(["document", "item"], keep=False)]
    if len(dup):
        raise ValueError(f"items registered twice: {dup[['experiment', 'document', 'item']].to_dict('records')}")
    order = {d: i for i, d in enumerate(documents())}
    items["_key"] = [(order[d], _section_key(w)) for d, w in zip(items["document"], items["where"], strict=True)]
    items["_reg"] = range(len(items))
    return items.sort_values(["_key", "_reg"], kind="stable").drop(columns=["_key", "_reg"]).reset_index(drop=True)


def item_key(document: str, item: str) -> str:
    """How a document item is named across the scorecard and the caption selectors: ``"ISDP Fig 2"``."""
    return f"{document} {item}"


# --------------------------------------------------------------------------- rows and items


def assign(summary: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Return the summary rows with their ``document``, ``location``, items and unregistered references.

    The items are those they speak of (``items``: a tuple of :func:`item_key` names); the unregistered references are
    the figures or tables they name that no registered item is (``unregistered``: a tuple of references as text).
    """
    out = summary.copy()
    docs, locs, spoken, missing = [], [], [], []
    for source in summary["source"]:
        document, location = split_source(source)
        refs = parse_location(document, location)
        mine = items[items["document"] == document]
        hit = [item_key(document, it.item) for it in mine.itertuples() if any(speaks_of(r, it.ref) for r in refs)]
        if document in SLIDE_DOCUMENTS:  # a slide reference next to a registered one is its context
            lost = [] if hit else [str(r) for r in refs if names_figure_or_table(r)]
        else:
            lost = [str(r) for r in refs if not any(speaks_of(r, it.ref) for it in mine.itertuples())]
        docs.append(document)
        locs.append(location)
        spoken.append(tuple(hit))
        missing.append(tuple(lost))
    return out.assign(document=docs, location=locs, items=spoken, unregistered=missing)


def rows_of(rows: pd.DataFrame, key: str) -> pd.DataFrame:
    """Return the rows (of :func:`assign`) that speak of the item named ``key`` (:func:`item_key`)."""
    return rows[rows["items"].map(lambda spoken: key in spoken)]


def unregistered(rows: pd.DataFrame) -> pd.DataFrame:
    """Return the rows (of :func:`assign`) whose location names a figure or table that no experiment registers.

    Id, document, location and what it names.
    """
    lost = rows[rows["unregistered"].map(len) > 0]
    return pd.DataFrame(
        {
            "id": lost["id"],
            "document": lost["document"],
            "location": lost["location"],
            "names": lost["unregistered"].map("; ".join),
        }
    ).reset_index(drop=True)


def status_counts(rows: pd.DataFrame) -> dict[str, int]:
    """Return the number of ``rows`` of each status, every status of the registry present (0 if none)."""
    counts = Counter(rows["status"])
    return {s: counts.get(s, 0) for s in claims.STATUSES}


def _shorten(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def reason(row) -> str:
    """Return a one-line reason for a verdict: this run's value against the paper's, then the start of the note."""
    text = f"this run {_shorten(row['reproduced_value'], 110)}; paper {_shorten(row['paper_value'], 60)}"
    note = str(row.get("note", ""))
    return text + (f" — {_shorten(note, 90)}" if note else "")


# --------------------------------------------------------------------------- HTML

#: what each status says (docs/claims.md, "Criteria"); the scorecard's legend
STATUS_MEANINGS = {
    "match": "this run's value meets the row's criterion against the paper's value",
    "differs": "it does not; the row gives a cause",
    "calibrated": "it agrees, but the paper's value chose a parameter or a reading of its words: not evidence",
    "not-comparable": "there is no printed value to compare with (the cause says why); this run's value is shown",
    "error": "the evidence could not be judged (a missing, empty or damaged file): never a match",
    "not-run": "the row's experiment is not configured in this run",
}
#: what each cause says (the claims registry's ``cause``; docs/claims.md)
CAUSE_MEANINGS = {
    "paper error": "the paper's own numbers, by arithmetic, disagree with the printed value",
    "data vintage": "the data differ from the paper's, not the method",
    "reading": "the paper's words admit readings that disagree",
    "Monte Carlo": "a run-to-run error, this run's or the paper's",
    "design": "this run departs from the paper's printed design on purpose (the config says why)",
    "not printed": "the document draws it but states no number",
    "value lost": "the document states it as mathematics that the project's text copy dropped",
    "not public": "the data are not public",
    "offline": "the data are public but not reachable from this machine, nor in the repository",
    "bug": "a fault of this project, to be fixed",
}


def legend() -> str:
    """Return the statuses and causes the scorecard uses, each in one line (a ``<details>`` block).

    Examples
    --------
    >>> from isdp_papers.scorecard import legend
    >>> "calibrated" in legend() and "value lost" in legend()
    True
    """
    statuses = "".join(f'<li><span class="chip s-{s}">{s}</span> {_esc(m)}</li>' for s, m in STATUS_MEANINGS.items())
    causes = "".join(f"<li><b>{_esc(c)}</b>: {_esc(m)}</li>" for c, m in CAUSE_MEANINGS.items())
    return (
        f'<details class="legend"><summary>How to read the verdicts</summary><ul>{statuses}</ul>'
        f"<div>The cause of a row that differs or cannot be compared:</div><ul>{causes}</ul></details>"
    )


def data_line(source: dict | None) -> str:
    """Return the county data this run used, said plainly where it is not the vintage asked for.

    Read from ``source.json`` of the fetch step; empty when the run read no county data.

    Examples
    --------
    >>> from isdp_papers.scorecard import data_line
    >>> line = data_line({"source_used": "embedded", "vintage_used": "20210608", "vintage_requested": "20201116",
    ...                   "reason": "no download attempted"})
    >>> "not the vintage 20201116 the paper used" in line
    True
    """
    if not source:
        return ""
    used, asked = source.get("vintage_used"), source.get("vintage_requested")
    what = (
        "the NHGIS file downloaded"
        if source.get("source_used") == "download"
        else "the NHGIS extract committed to the repository"
    )
    text = f"County data: {what}, vintage {_esc(used)} ({_esc(source.get('reason', ''))})."
    if used != asked:
        text += (
            f" <b>This is not the vintage {_esc(asked)} the paper used</b>: rows that depend on it and differ "
            "give the cause <i>data vintage</i>."
        )
    return f'<div class="data-source">{text}</div>'


_CSS = """
.isdp-sc{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2933;line-height:1.35;font-size:14px}
.isdp-sc h1{font-size:22px;margin:0 0 6px}.isdp-sc h2{font-size:18px;margin:22px 0 6px;border-bottom:2px solid #cbd2d9}
.isdp-sc h3{font-size:15px;margin:0 0 4px}.isdp-sc h4{font-size:14px;margin:10px 0 2px}
.isdp-sc small,.isdp-sc .meta{color:#52606d;font-weight:normal}
.isdp-sc .item{display:flex;gap:14px;padding:10px 0;border-bottom:1px solid #e4e7eb}
.isdp-sc .thumb{flex:0 0 auto;max-width:540px;overflow-x:auto}.isdp-sc .thumb img{width:320px;border:1px solid #cbd2d9}
.isdp-sc h3.doc{margin-top:16px}
.isdp-sc .body{flex:1;min-width:0}
.isdp-sc .chip{display:inline-block;padding:0 6px;margin:0 3px 3px 0;border-radius:9px;font-size:12px;
  white-space:nowrap}
.isdp-sc .zero{opacity:.35}
.isdp-sc .s-match{background:#c6f7d0;color:#05400a}.isdp-sc .s-differs{background:#ffd0d0;color:#610316}
.isdp-sc .s-calibrated{background:#fff1b8;color:#513c06}.isdp-sc .s-not-comparable{background:#e4e7eb;color:#323f4b}
.isdp-sc .s-error{background:#e6d0ff;color:#44056e}
.isdp-sc .s-not-run{background:#f5f7fa;color:#616e7c;border:1px dashed #9aa5b1}
.isdp-sc ul{margin:4px 0 4px 18px;padding:0}.isdp-sc li{margin:2px 0}
.isdp-sc code{font-size:12px;background:#f0f4f8;padding:0 3px}
.isdp-sc table.data{border-collapse:collapse;font-size:12px;margin:2px 0}
.isdp-sc table.data td,.isdp-sc table.data th{border:1px solid #cbd2d9;padding:1px 5px;text-align:right}
.isdp-sc table.rows td{vertical-align:top;padding:1px 6px;font-size:12px;border-bottom:1px solid #f0f4f8}
.isdp-sc nav a{margin-right:10px}
.isdp-sc .data-source{margin:6px 0;padding:4px 8px;background:#fff8e1;border-left:3px solid #f0b429}
.isdp-sc details.legend{margin:6px 0}.isdp-sc details.legend ul{list-style:none;margin-left:4px}
.isdp-sc code::before,.isdp-sc code::after{content:none}
"""
# Inside the Snakemake report the landing view centres its content vertically (a long description
# would lose its top) and narrows the description; these rules apply only to a view holding the scorecard.
_REPORT_CSS = """
div.h-screen:has(.isdp-sc){align-items:flex-start}
div.items-start:has(.isdp-sc){flex-wrap:wrap}
.prose:has(.isdp-sc){max-width:62rem}
"""


def chips(counts: dict[str, int]) -> str:
    """Return the verdict counts as coloured chips (a zero is shown faded, so every status is always there)."""
    return "".join(f'<span class="chip s-{s}{"" if n else " zero"}">{n} {s}</span>' for s, n in counts.items())


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _link(target: str, text: str) -> str:
    return f'<a href="{_esc(target)}">{text}</a>'


class _Links:
    """Where a scorecard's links point.

    Files relative to the page (``results/``), or results of the Snakemake report (its ``app`` and ``results`` objects,
    in the report's landing text).
    """

    def __init__(self, base: str | None):
        self.base = base  # the page's directory; None: inside the Snakemake report

    def __call__(self, path: str) -> str:
        if self.base is not None:
            return Path(os.path.relpath(path, self.base)).as_posix()
        p = json.dumps(path)
        view = {".png": "img", ".svg": "img", ".html": "html", ".pdf": "pdf"}.get(Path(path).suffix)
        if view is None:  # tables: shown as text in the report (decoded from their data URI, UTF-8)
            return (
                f"javascript:app.setView({{navbarMode:'resultinfo',resultPath:{p},content:'text',"
                f"contentText:new TextDecoder().decode(Uint8Array.from(atob(results[{p}].data_uri.split(',')[1]),"
                "c=>c.charCodeAt(0)))})"
            )
        return (
            f"javascript:app.setView({{navbarMode:'resultinfo',resultPath:{p},content:'{view}',"
            f"contentPath:results[{p}].data_uri}})"
        )


def thumbnail(path, width: int = 320) -> str:
    """Return a figure (PNG) shrunk to ``width`` pixels as a ``data:`` URI (JPEG).

    So the page carries its own thumbnails also when shown inside the report.
    """
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGBA")
        flat = Image.new("RGB", im.size, "white")
        flat.paste(im, mask=im.getchannel("A"))
        flat.thumbnail((width, 4 * width))
        buf = io.BytesIO()
        flat.save(buf, format="JPEG", quality=82)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return _esc(_shorten(v, 40))


def table_html(path, max_rows: int = 8, max_cols: int = 8) -> str:
    """Return the first rows and columns of a CSV table as HTML, saying how much is left out."""
    df = pd.read_csv(path)
    shown = df.iloc[:max_rows, :max_cols]
    head = "".join(f"<th>{_esc(c)}</th>" for c in shown.columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>" for r in shown.itertuples(index=False))
    more = []
    if len(df) > max_rows:
        more.append(f"{len(df) - max_rows} more rows")
    if df.shape[1] > max_cols:
        more.append(f"{df.shape[1] - max_cols} more columns")
    note = f'<div class="meta">{", ".join(more)} in the CSV</div>' if more else ""
    return f'<table class="data"><tr>{head}</tr>{body}</table>{note}'


def _differs(rows: pd.DataFrame) -> str:
    d = rows[rows["status"] == "differs"]
    if d.empty:
        return ""
    lis = "".join(
        f"<li><code>{_esc(r['id'])}</code> <b>{_esc(r['cause'] or 'no cause given')}</b>: {_esc(reason(r))}</li>"
        for _, r in d.iterrows()
    )
    return f'<ul class="differs">{lis}</ul>'


def _all_rows(rows: pd.DataFrame) -> str:
    trs = "".join(
        f'<tr><td><code>{_esc(r["id"])}</code></td><td><span class="chip s-{r["status"]}">'
        f"{_esc(r['status'])}</span></td><td>{_esc(_shorten(r['claim'], 120))}</td>"
        f"<td>{_esc(_shorten(r['reproduced_value'], 100))}</td></tr>"
        for _, r in rows.iterrows()
    )
    summary = f"the {len(rows)} rows" if len(rows) > 1 else "the row"
    return (
        f'<details><summary>{summary}</summary><table class="rows"><tr><th>id</th><th>status</th>'
        f"<th>claim</th><th>this run</th></tr>{trs}</table></details>"
    )


def _notebook(exp: str) -> str:
    return f"results/notebooks/{exp}_review.html"


def _item_html(it, rows: pd.DataFrame, link: _Links, full: bool, titles: dict[str, str]) -> str:
    figure = Path(it.output).suffix == ".png"
    links = [
        _link(link(it.output), "figure" if figure else "table"),
        _link(link(_notebook(it.experiment)), "review notebook"),
    ]
    pdf = str(Path(it.output).with_suffix(".pdf"))
    if full and figure and Path(pdf).exists():
        links.insert(1, _link(link(pdf), "PDF"))
    head = (
        f'<h3 id="{_esc(re.sub(r"[^A-Za-z0-9]+", "-", item_key(it.document, it.item)))}">'
        f"{_link(link(it.output), _esc(it.item))} <small>{_esc(it.where)} · {_esc(it.experiment.upper())}"
        f" · {_esc(it.label)}</small></h3>"
    )
    body = (
        f"{head}<div>{chips(status_counts(rows))}</div>{_differs(rows)}"
        f'<div class="meta">{_count(len(rows), "row")} · {" · ".join(links)}'
        f"{' · in the report: ' + _esc(titles[it.experiment]) + ' › ' + _esc(it.label) if full else ''}</div>"
    )
    if not full:
        return f'<div class="item"><div class="body">{body}</div></div>'
    shown = (
        f'<a href="{_esc(link(it.output))}"><img src="{thumbnail(it.output)}" alt="{_esc(it.label)}"></a>'
        if figure
        else table_html(it.output)
    )
    return f'<div class="item"><div class="thumb">{shown}</div><div class="body">{body}{_all_rows(rows)}</div></div>'


def render(
    rows: pd.DataFrame, items: pd.DataFrame, titles: dict[str, str], *, base: str | None, source: dict | None = None
) -> str:
    """Return the scorecard as HTML.

    Per document its items in order with their verdicts, then the rows that speak of no item, grouped by document and
    experiment, then the locations naming unregistered items.

    Parameters
    ----------
    rows : DataFrame
        The summary rows as :func:`assign` returns them.
    items : DataFrame
        The registered items (:func:`registry_items`).
    titles : dict
        Experiment id -> report category (the registry's ``title``).
    base : str or None
        The page's directory, to which its links are relative (the standalone page, with thumbnails and
        tables); None for the report's landing text (links open results inside the report, no images).
    source : dict, optional
        The county data's ``source.json`` (:func:`data_line`); None when the run read none.
    """
    full = base is not None
    link = _Links(base)
    out = [f'<div class="isdp-sc"><style>{_CSS}{"" if full else _REPORT_CSS}</style>']
    claims_only = rows[rows["kind"] == "claim"]
    restated = int((claims_only["same_fact_as"].fillna("").astype(str) != "").sum())
    out.append(
        f"<h1>Scorecard: {len(rows)} rows of the claims registry on this run</h1>"
        f"<div>{chips(status_counts(rows))}</div>"
        f'<div class="meta">{len(claims_only)} statements of the documents '
        f"({' '.join(f'{n} {s}' for s, n in status_counts(claims_only).items() if n)}), "
        f"{len(rows) - len(claims_only)} checks of this project. Of the statements, {restated} restate "
        f"another row's fact (in another document or wording): the README's table counts each fact once, "
        f"{len(claims_only) - restated} claims. Each figure and table below lists "
        "the rows whose location names it; every <i>differs</i> gives its cause and this run's value. "
        + (
            _link(link("results/tables/reproduction_summary.csv"), "All rows (CSV)") + "."
            if full
            else "Figures open here; the full scorecard with thumbnails is "
            + _link(link("results/scorecard.html"), "results/scorecard.html")
            + "."
        )
        + "</div>"
    )
    out.append(data_line(source) + legend())
    nav = [f'<a href="#doc-{i}">{_esc(d)}</a>' for i, d in enumerate(documents())]
    if full:
        out.append(f'<nav>{" ".join(nav)} <a href="#statements">statements without a figure or table</a></nav>')
    for i, document in enumerate(documents()):
        mine = items[items["document"] == document]
        doc_rows = rows[rows["document"] == document]
        sizes = f"{_count(len(mine), 'figure or table', 'figures and tables')}, {_count(len(doc_rows), 'row')}"
        out.append(f'<h2 id="doc-{i}">{_esc(document)} <small>{sizes}</small></h2>')
        if mine.empty:
            out.append('<div class="meta">no figure or table of this document is reproduced in this run</div>')
        for it in mine.itertuples():
            out.append(_item_html(it, rows_of(rows, item_key(document, it.item)), link, full, titles))
    out.append('<h2 id="statements">Statements that belong to no figure or table</h2>')
    loose = rows[rows["items"].map(len) == 0]
    for document in documents():
        doc_rows = loose[loose["document"] == document]
        if doc_rows.empty:
            continue
        out.append(f'<h3 class="doc">{_esc(document)} <small>{_count(len(doc_rows), "row")}</small></h3>')
        for exp, group in doc_rows.groupby("experiment", sort=False):
            notebook = _link(link(_notebook(exp.lower())), "review notebook") if exp.lower() in titles else ""
            out.append(
                f"<h4>{_esc(exp)} <small>{_count(len(group), 'row')} {notebook}</small></h4>"
                f"<div>{chips(status_counts(group))}</div>{_differs(group)}" + (_all_rows(group) if full else "")
            )
    lost = unregistered(rows)
    if len(lost):
        lis = "".join(
            f"<li><code>{_esc(r.id)}</code> ({_esc(r.document)}): {_esc(r.names)}</li>" for r in lost.itertuples()
        )
        out.append(f"<h2>Locations naming a figure or table no experiment registers</h2><ul>{lis}</ul>")
    out.append("</div>")
    return "\n".join(out)


# The standalone page's links are relative to results/. Shown inside the Snakemake report it is a data: URL,
# against which they resolve to nothing (Chromium shows about:blank#blocked): there they are made inert and a
# note says where they work.
_FRAMED = """<script>
if (!/^(file|https?):$/.test(location.protocol)) {
  document.querySelectorAll('a[href]:not([href^="#"]):not([href^="data:"])').forEach(a => {
    a.removeAttribute('href'); a.title = 'open results/scorecard.html from disk to follow this link'; });
  document.body.insertAdjacentHTML('afterbegin', '<p class="framed-note" style="background:#fff8e1;padding:4px 8px">'
    + 'This copy of the scorecard is shown inside the report, where its links cannot open: use the report\\'s '
    + 'landing page (the same verdicts, with links that open each result here), or open results/scorecard.html '
    + 'from disk.</p>');
}
</script>"""


def page(body: str, title: str = "Scorecard") -> str:
    """Return a standalone HTML page around ``body`` (its links made inert where it is shown as a data: URL)."""
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title></head>'
        f'<body style="margin:16px 24px;max-width:1200px">\n{body}\n{_FRAMED}\n</body></html>\n'
    )


def load(summary_path, registry_path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """Load a run's summary rows (:func:`assign`), its registered items and its report categories.

    The items are :func:`registry_items`'; they are read from ``reproduction_summary.csv`` and ``experiments.csv``.
    """
    registry = pd.read_csv(registry_path, dtype=str, keep_default_na=False)
    items = registry_items(registry)
    rows = assign(claims.load_summary(summary_path).reset_index(drop=True), items)
    return rows, items, dict(zip(registry["experiment"], registry["title"], strict=True))


def scorecard(job: Job) -> None:
    """Write the scorecard of a run.

    ``output.html`` (standalone, links relative to its directory) and ``output.landing`` (the report's landing text,
    links into the report), from ``input.summary`` (the reproduction summary), ``input.registry`` (``experiments.csv``)
    and, where the run read county data, ``input.source`` (its ``source.json``); the figures, tables and notebooks it
    links are the rule's other inputs.
    """
    rows, items, titles = load(job.input.summary, job.input.registry)
    source = json.loads(Path(job.input.source).read_text()) if job.input.get("source") else None
    base = os.path.dirname(str(job.output.html)) or "."
    write_text(page(render(rows, items, titles, base=base, source=source)), job.output.html)
    write_text(render(rows, items, titles, base=None, source=source) + "\n", job.output.landing)
    lost = unregistered(rows)
    job.log.info(
        "scorecard: %d items, %d rows (%d on no item); %d rows name an unregistered figure or table%s",
        len(items),
        len(rows),
        int((rows["items"].map(len) == 0).sum()),
        len(lost),
        "".join(f"\n  {r.id}: {r.names}" for r in lost.itertuples()),
    )


__all__ = [
    "CAUSE_MEANINGS",
    "ItemRef",
    "STATUS_MEANINGS",
    "assign",
    "data_line",
    "documents",
    "experiment_registry",
    "item_key",
    "legend",
    "load",
    "names_figure_or_table",
    "parse_location",
    "reason",
    "registry_items",
    "render",
    "rows_of",
    "scorecard",
    "speaks_of",
    "split_source",
    "status_counts",
    "unregistered",
]
