"""Steps across experiments.

Each experiment's claims summary, the reproduction summary, the software versions and the review notebooks rendered to
HTML (the experiment registry table and the scorecard are :mod:`isdp_papers.scorecard`'s).
"""

from __future__ import annotations

import pandas as pd

from isdp.files import write_table, write_text
from isdp_papers import claims
from isdp_papers.jobs import Job

PACKAGES = (
    "isdp",
    "numpy",
    "scipy",
    "numba",
    "llvmlite",
    "sympy",
    "pandas",
    "xarray",
    "matplotlib",
    "seaborn",
    "snakemake",
    "qpsolvers",
    "clarabel",
    "highspy",
    "papermill",
)
#: ArviZ's distributions, by the generation installed (as isdp.convergence reads it): 1.x is split in two
ARVIZ = {0: ("arviz",), 1: ("arviz-base", "arviz-stats")}


def _arviz_generation() -> int:
    """1 when ``arviz-stats`` 1.x is installed (ArviZ 1.x serves isdp's diagnostics), else 0 (ArviZ 0.x)."""
    from importlib.metadata import PackageNotFoundError, version  # deferred: as software_versions, when reported

    try:
        return 1 if int(version("arviz-stats").split(".")[0]) >= 1 else 0
    except PackageNotFoundError:
        return 0


def software_versions() -> pd.DataFrame:
    """Python, platform and the versions of the packages the results depend on."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    rows = [("python", platform.python_version()), ("platform", f"{platform.system()} {platform.machine()}")]
    for name in PACKAGES + ARVIZ[_arviz_generation()]:
        try:
            rows.append((name, version(name)))
        except PackageNotFoundError:
            rows.append((name, "not installed"))
    return pd.DataFrame(rows, columns=["software", "version"])


def claims_summary(job: Job) -> None:
    """Write one experiment's rows of the reproduction summary (``params.experiment``, e.g. ``E3``).

    They are evaluated from the registry ``input.registry``; committed inputs are read under ``params.repo``.
    """
    run = claims.Run(".", job.config, repo=job.params.repo)
    rows = claims.evaluate(str(job.input.registry), run, experiment=job.params.experiment)
    job.log.info(
        "%s: %s\n%s",
        job.params.experiment,
        rows["status"].value_counts().to_dict(),
        rows[["id", "status", "reproduced_value", "evidence"]].to_string(),
    )
    # an `error` fails the job before anything is written, unless the config asks to report it
    claims.check_errors(rows, job.config.get("claims", {}).get("on_error", "fail"))
    write_table(rows, job.output.summary)


def reproduction_summary(job: Job) -> None:
    """Every experiment's summary rows in one table, in registry order.

    The claims of experiments not configured (``params.experiments``) listed as ``not-run``.
    """
    df = claims.combine(
        job.input.summaries, job.output.table, registry=str(job.input.registry), experiments=job.params.experiments
    )
    job.log.info("reproduction summary: %s", df["status"].value_counts().to_dict())


def claim_counts(summary: pd.DataFrame) -> pd.DataFrame:
    """Facts of the summary counted by kind (document claim or own check), status and cause.

    A row that restates another row's fact (``same_fact_as``) is counted once, under that row.
    """
    summary = summary[summary["same_fact_as"] == ""]
    df = summary.assign(cause=summary["cause"].where(summary["status"].isin(["differs", "not-comparable"]), ""))
    counts = df.groupby(["kind", "status", "cause"], sort=False).size().rename("count").reset_index()
    order = {k: i for i, k in enumerate(claims.STATUSES)}
    return counts.sort_values(
        ["kind", "status", "cause"],
        key=lambda c: c.map(order) if c.name == "status" else c,
        kind="stable",
        ignore_index=True,
    )


def counts_markdown(counts: pd.DataFrame, source: str, restated: int = 0) -> str:
    """Return the headline table of README and report.

    Statuses by kind, each with its causes, from ``counts``; ``restated``: the rows left out because they restate
    another row's fact.
    """
    kinds = (("claim", "the documents' claims"), ("check", "this project's own checks"))
    total = {k: int(counts.loc[counts["kind"] == k, "count"].sum()) for k, _ in kinds}
    lines = [f"| status | {' | '.join(f'{label} ({total[k]})' for k, label in kinds)} |", "|---|---|---|"]
    for status in claims.STATUSES:
        cells = []
        for k, _ in kinds:
            g = counts[(counts["kind"] == k) & (counts["status"] == status)]
            n = int(g["count"].sum())
            causes = ", ".join(f"{r.cause} {r.count}" for r in g.itertuples() if r.cause)
            cells.append(f"{n}" + (f" ({causes})" if causes else ""))
        lines.append(f"| {status} | {' | '.join(cells)} |")
    once = (
        f" {restated} further row{'s' if restated != 1 else ''} restate{'s' if restated == 1 else ''} another "
        f"row's fact (another document or wording) and {'is' if restated == 1 else 'are'} counted once, under it."
        if restated
        else ""
    )
    return "\n".join(lines) + f"\n\n<sub>Generated from {source}.{once}</sub>\n"


def claim_counts_table(job: Job) -> None:
    """Write the reproduction summary's counts by kind, status and cause, as a table and as Markdown."""
    summary = pd.read_csv(job.input.summary, dtype=str, keep_default_na=False)
    counts = claim_counts(summary)
    write_table(counts, job.output.table)
    source = (
        f"`{job.input.summary}` of a run with {' + '.join(job.params.configfiles) or 'the default config'}"
        f", base seed {job.config['seed']}"
    )
    restated = int((summary["same_fact_as"] != "").sum())
    write_text(counts_markdown(counts, source, restated=restated), job.output.markdown)
    job.log.info("\n%s", counts.to_string(index=False))


README_START, README_END = "<!-- claim-counts:start -->", "<!-- claim-counts:end -->"


def update_readme(readme, counts_md) -> None:
    """Replace the README's block between the claim-count markers with a run's ``claim_counts.md``."""
    from pathlib import Path

    readme, text = Path(readme), Path(counts_md).read_text(encoding="utf-8")
    old = readme.read_text(encoding="utf-8")
    if old.count(README_START) != 1 or old.count(README_END) != 1:
        raise ValueError(f"{readme}: expected one {README_START} … {README_END} block")
    head, rest = old.split(README_START)
    _, tail = rest.split(README_END)
    readme.write_text(f"{head}{README_START}\n{text}{README_END}{tail}", encoding="utf-8")


def software_table(job: Job) -> None:
    """Write the software versions behind this run's numbers, for the report."""
    table = software_versions()
    job.log.info("\n%s", table.to_string(index=False))
    write_table(table, job.output.table)


# The verdict badges of claims.claim_markdown that common fonts lack: Debian's default, DejaVu, has none of
# ✅ ❌ ➖ ⏸, and a browser without an emoji font draws an empty box. The rendered notebooks embed a font made
# of DejaVu Sans's ✔ ✘ − ‖ (and its ⚖ ⚠, so that all badges look alike) under the badges' code points.
BADGE_GLYPHS = {"✅": "✔", "❌": "✘", "➖": "−", "⏸": "‖", "⚖": "⚖", "⚠": "⚠"}
BADGE_FONT = "isdp badges"


def badge_font() -> bytes:
    """Return a TrueType font drawing each badge of :data:`BADGE_GLYPHS` with its DejaVu Sans glyph.

    The glyphs are those of the copy matplotlib ships; the font is byte-identical from run to run.
    """
    import io
    import logging
    from pathlib import Path

    import matplotlib
    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools.subset").setLevel(logging.WARNING)  # not a line a table into the step's log
    font = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", recalcTimestamp=False)
    glyph = {badge: font.getBestCmap()[ord(char)] for badge, char in BADGE_GLYPHS.items()}
    options = subset.Options()
    options.drop_tables += ["FFTM"]  # FontForge's timestamps
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(char) for char in BADGE_GLYPHS.values()])
    subsetter.subset(font)
    cmap = font["cmap"].getcmap(3, 1)  # Windows Unicode BMP, the one subtable browsers need
    cmap.cmap = {ord(badge): name for badge, name in glyph.items()}
    font["cmap"].tables = [cmap]
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def badge_css() -> str:
    """CSS embedding :func:`badge_font` ahead of the notebook theme's fonts, for the badges' code points only."""
    import base64

    data = base64.b64encode(badge_font()).decode("ascii")
    ranges = ", ".join(f"U+{ord(badge):04X}" for badge in BADGE_GLYPHS)
    # set on body, these override the theme's :root values for the whole page; they name other variables
    # of the theme, so they never refer to themselves
    return (
        f'@font-face {{ font-family: "{BADGE_FONT}"; src: url(data:font/ttf;base64,{data}) format("truetype");'
        f" unicode-range: {ranges}; }}\n"
        f'body {{ --jp-content-font-family: "{BADGE_FONT}", var(--jp-ui-font-family);'
        f' --jp-code-font-family: "{BADGE_FONT}", var(--jp-code-font-family-default); }}'
    )


def notebook_html(job: Job) -> None:
    """Make an executed review notebook (``params.notebook``) publishable, in place, and render it to HTML.

    Snakemake's preamble and the machine's paths are left out (:func:`isdp_papers.notebook.publishable`); the HTML is
    for the report, its verdict badges drawn by an embedded font (:func:`badge_css`).
    """
    from pathlib import Path

    import nbformat
    from nbconvert import HTMLExporter

    from isdp_papers.notebook import publishable

    path = Path(job.params.notebook)
    notebook = publishable(nbformat.read(path, as_version=4), path.stem)
    write_text(nbformat.writes(notebook), path)
    body, _ = HTMLExporter().from_notebook_node(notebook, resources={"metadata": {"name": path.stem}})
    # after the template's own styles (its CSS hook, resources["inlining"], is overwritten by the template)
    body = body.replace("</head>", f'<style type="text/css">\n{badge_css()}\n</style>\n</head>', 1)
    write_text(body, job.output.html)
    job.log.info("%s -> %s (%d bytes)", path, job.output.html, len(body))


# make readme-numbers: python -m isdp_papers.reporting README.md <run>/results/claim_counts.md
if __name__ == "__main__":
    import sys

    update_readme(*sys.argv[1:3])
