"""Tests of :mod:`isdp_papers.nhgis.fallback`: the data policy of
:func:`~isdp_papers.nhgis.fallback.fetch_or_fallback` — ``auto`` downloads and extracts or falls back loudly to
the committed extract (on a 404, a corrupt zip, another vintage's zip, a dropped-in zip failing its checksum),
``nhgis`` raises instead, ``embedded`` never contacts the server, and a zip in place is reused.

Network access is only ever to a local ThreadingHTTPServer on 127.0.0.1.
"""

import hashlib
import logging

import pytest
from census_support import EMBEDDED, FAST, ZIP_SHA256, requires_zip
from conftest import NHGIS_ZIP as SHARED_ZIP
from isdp_papers.nhgis.counties import DataValidationError
from isdp_papers.nhgis.download import DownloadError
from isdp_papers.nhgis.fallback import fetch_or_fallback


def _paths(tmp_path):
    return {"dest_zip": tmp_path / "cache" / "county.zip", "embedded_csv": EMBEDDED, "out_csv": tmp_path / "out.csv"}


def test_fetch_auto_falls_back_loudly(tmp_path, server, caplog):
    paths = _paths(tmp_path)
    with caplog.at_level(logging.WARNING, logger="isdp_papers.nhgis"):
        info = fetch_or_fallback("20201116", "auto", url=server.url("/gone.zip"), retries=2, **paths, **FAST)
    assert info["source_used"] == "embedded"
    assert info["vintage_requested"] == "20201116" and info["vintage_used"] == "20210608"
    assert "404" in info["reason"]
    assert paths["out_csv"].read_bytes() == EMBEDDED.read_bytes()
    assert not paths["dest_zip"].exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("v20201116" in m and "could not be fetched" in m and "v20210608 EXTRACT" in m for m in warnings)


def test_fetch_nhgis_raises(tmp_path, server):
    paths = _paths(tmp_path)
    with pytest.raises(DownloadError, match="404"):
        fetch_or_fallback("20201116", "nhgis", url=server.url("/gone.zip"), **paths, **FAST)
    assert server.hits["/gone.zip"] == 1
    assert not paths["out_csv"].exists()


def test_fetch_embedded_never_contacts_server(tmp_path, server):
    paths = _paths(tmp_path)
    server.routes["/county.zip"] = [(200, b"should not be fetched")]
    info = fetch_or_fallback("20201116", "embedded", url=server.url("/county.zip"), **paths, **FAST)
    assert server.hits == {}
    assert info["source_used"] == "embedded" and info["vintage_used"] == "20210608"
    assert info["sha256"] == hashlib.sha256(EMBEDDED.read_bytes()).hexdigest()
    assert paths["out_csv"].read_bytes() == EMBEDDED.read_bytes()


def test_fetch_rejects_unknown_source(tmp_path):
    with pytest.raises(ValueError, match="source must be one of"):
        fetch_or_fallback("20201116", "web", **_paths(tmp_path))


@requires_zip
def test_fetch_auto_downloads_and_extracts(tmp_path, server):
    server.routes["/county.zip"] = [(200, SHARED_ZIP.read_bytes())]
    paths = _paths(tmp_path)
    info = fetch_or_fallback(
        "20210608", "auto", url=server.url("/county.zip"), expected_sha256=ZIP_SHA256, **paths, **FAST
    )
    assert info["source_used"] == "download" and info["vintage_used"] == "20210608"
    assert info["sha256"] == ZIP_SHA256
    assert paths["out_csv"].read_bytes() == EMBEDDED.read_bytes()
    # a second call reuses the zip in place, without the network
    server.routes["/county.zip"] = [(404, b"")]
    info = fetch_or_fallback("20210608", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    assert info["source_used"] == "download" and "already present" in info["reason"]
    assert server.hits["/county.zip"] == 1


@requires_zip
def test_fetch_corrupt_zip(tmp_path, server, caplog):
    data = SHARED_ZIP.read_bytes()
    server.routes["/county.zip"] = [(200, data[: len(data) // 3])]
    paths = _paths(tmp_path)
    with pytest.raises(DownloadError, match="sha256 mismatch"):  # a known vintage: its checksum is checked
        fetch_or_fallback("20210608", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    with pytest.raises(DataValidationError, match="zip archive"):  # an unknown one: the content checks catch it
        fetch_or_fallback("20990101", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    assert not paths["dest_zip"].exists() and not paths["out_csv"].exists()
    with caplog.at_level(logging.WARNING, logger="isdp_papers.nhgis"):
        info = fetch_or_fallback("20210608", "auto", url=server.url("/county.zip"), **paths, **FAST)
    assert info["source_used"] == "embedded"
    assert any("could not be fetched" in r.getMessage() for r in caplog.records)


@requires_zip
def test_fetch_auto_wrong_vintage_falls_back(tmp_path, server):
    """A server answering with another vintage's zip must not pass as the paper's vintage."""
    server.routes["/county.zip"] = [(200, SHARED_ZIP.read_bytes())]
    info = fetch_or_fallback("20201116", "auto", url=server.url("/county.zip"), **_paths(tmp_path), **FAST)
    assert info["source_used"] == "embedded" and "vintage" in info["reason"]


def test_dropped_in_zip_of_a_known_vintage_must_match_its_checksum(tmp_path):
    paths = _paths(tmp_path)
    paths["dest_zip"].parent.mkdir(parents=True, exist_ok=True)
    paths["dest_zip"].write_bytes(b"not the published zip")
    with pytest.raises(DataValidationError, match="sha256"):
        fetch_or_fallback("20210608", "nhgis", url="http://127.0.0.1:9/unused", **paths, **FAST)
    info = fetch_or_fallback("20210608", "auto", url="http://127.0.0.1:9/unused", **paths, **FAST)
    assert info["source_used"] == "embedded" and "sha256" in info["reason"]
