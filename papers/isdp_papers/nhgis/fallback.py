"""The data policy.

:func:`fetch_or_fallback` makes the tidy county CSV of a vintage from a zip already in place, a download, or (``source``
auto, loudly) the committed extract, and says which vintage it used and why.

Used by the workflow's ``fetch`` rule (:func:`~isdp_papers.nhgis.steps.fetch_step`), whose county file E3's
measures read.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from isdp.files import atomic_write, file_sha256
from isdp_papers.evidence_checks import verify_committed
from isdp_papers.nhgis.counties import PAPER_VINTAGE, DataValidationError, extract, load_counties
from isdp_papers.nhgis.download import KNOWN_SHA256, DownloadError, download, url_for

log = logging.getLogger("isdp_papers.nhgis")  # one logger for the package: tests and runs capture it

_SOURCES = ("auto", "nhgis", "embedded")


def _use_embedded(
    embedded_csv: str | os.PathLike, out_csv: str | os.PathLike, verify: bool = True
) -> tuple[str, str, str]:
    """Check the committed extract against the SHA-256 its PROVENANCE.md publishes, validate it and copy it.

    It is checked unless ``verify`` is False (a user's own extract in its place); its bytes are copied to ``out_csv``.
    Return (vintage, sha256, a note when it was used unverified, else "").
    """
    note = verify_committed(embedded_csv, verify) or ""
    if note:
        log.warning("%s", note)
    vintage = load_counties(embedded_csv)["vintage"].iloc[0]
    data = Path(embedded_csv).read_bytes()
    atomic_write(out_csv, lambda tmp: tmp.write_bytes(data))
    return vintage, file_sha256(out_csv), note


def fetch_or_fallback(
    vintage: str,
    source: str = "auto",
    *,
    dest_zip: str | os.PathLike,
    embedded_csv: str | os.PathLike,
    out_csv: str | os.PathLike,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 2.0,
    url: str | None = None,
    expected_sha256: str | None = None,
    verify_committed: bool = True,
) -> dict:
    """Produce the tidy county CSV for ``vintage`` at ``out_csv`` under the data policy.

    - ``source="embedded"``: copy the committed extract; no network access at all.
    - ``source="auto"``: download ``url`` (default :func:`url_for`) to ``dest_zip`` and extract
      it; on any download or validation failure, log a loud WARNING and use the committed
      extract instead.
    - ``source="nhgis"``: as auto, but a failure raises (:class:`DownloadError` or
      :class:`DataValidationError`).

    An existing ``dest_zip`` is used without downloading, so a zip obtained by other means
    (e.g. the paper's v20201116) can be dropped in place. A downloaded zip that fails
    validation is removed. Returns ``vintage_requested``, ``vintage_used``, ``source_used``
    (``"download"`` or ``"embedded"``), ``reason``, ``url`` and the ``sha256`` of the input used.
    A vintage listed in :data:`KNOWN_SHA256` must match its published checksum, and the committed extract the
    SHA-256 its ``PROVENANCE.md`` publishes (:func:`~isdp_papers.evidence_checks.verify_committed`; an
    :class:`~isdp_papers.evidence.EvidenceError` naming the file) unless ``verify_committed`` is False (config
    ``data: {verify_committed: false}``, a user's own extract in its place): then the ``reason`` says it was used
    unverified.
    """
    if source not in _SOURCES:
        raise ValueError(f"source must be one of {_SOURCES}, got {source!r}")
    vintage = str(vintage)
    if source == "embedded":
        used, digest, note = _use_embedded(embedded_csv, out_csv, verify_committed)
        log.info("source='embedded': using the committed v%s extract %s", used, embedded_csv)
        return {
            "vintage_requested": vintage,
            "vintage_used": used,
            "source_used": "embedded",
            "reason": "source='embedded' configured; no download attempted" + (f"; {note}" if note else ""),
            "url": None,
            "sha256": digest,
        }

    url = url or url_for(vintage)
    expected_sha256 = expected_sha256 or KNOWN_SHA256.get(vintage)
    dest_zip = Path(dest_zip)
    downloaded = False
    try:
        if dest_zip.exists():
            log.info("using the zip already present at %s (not downloading)", dest_zip)
            if expected_sha256 and (actual := file_sha256(dest_zip)) != expected_sha256:
                raise DataValidationError(
                    f"{dest_zip}: sha256 {actual} is not the published v{vintage} zip's {expected_sha256}"
                )
            reason = f"zip already present at {dest_zip}"
        else:
            download(url, dest_zip, timeout=timeout, retries=retries, backoff=backoff, expected_sha256=expected_sha256)
            downloaded = True
            reason = f"downloaded from {url}"
        extract(dest_zip, out_csv, vintage=vintage)
    except (DownloadError, DataValidationError, OSError) as exc:
        if downloaded:
            dest_zip.unlink(missing_ok=True)
        if source == "nhgis":
            raise
        used, digest, note = _use_embedded(embedded_csv, out_csv, verify_committed)
        banner = "!" * 78
        log.warning(
            "\n%s\nNHGIS vintage v%s (the paper used v%s) could not be fetched or validated:\n  %s\n"
            "USING THE COMMITTED v%s EXTRACT %s INSTEAD. Results are NOT for the requested vintage.\n%s",
            banner,
            vintage,
            PAPER_VINTAGE,
            exc,
            used,
            embedded_csv,
            banner,
        )
        return {
            "vintage_requested": vintage,
            "vintage_used": used,
            "source_used": "embedded",
            "reason": f"fallback: v{vintage} unavailable ({exc})" + (f"; {note}" if note else ""),
            "url": url,
            "sha256": digest,
        }
    return {
        "vintage_requested": vintage,
        "vintage_used": vintage,
        "source_used": "download",
        "reason": reason,
        "url": url,
        "sha256": file_sha256(dest_zip),
    }
