"""Tests of :mod:`isdp_papers.nhgis.download`: a vintage's URL, the SHA-256 of the real zip, and
:func:`~isdp_papers.nhgis.download.download` against a local server — a checksum mismatch leaves nothing, a 404
is final, transient errors and cut connections are retried, a slow or trickling server is abandoned at the deadline,
and a SIGTERM mid-download leaves no partial file.

Network access is only ever to a local ThreadingHTTPServer on 127.0.0.1.
"""

import hashlib
import logging
import re
import socket
import time
from pathlib import Path

import pytest
from census_support import FAST, ZIP_SHA256, requires_zip
from conftest import NHGIS_ZIP as SHARED_ZIP
from isdp_papers.nhgis.download import DownloadError, download, url_for

from isdp.files import file_sha256


def test_url_of_a_vintage():
    assert url_for("20201116") == (
        "https://assets.nhgis.org/differential-privacy/v20201116/nhgis_ppdd_20201116_county.zip"
    )


@requires_zip
def test_shared_zip_checksum():
    assert file_sha256(SHARED_ZIP) == ZIP_SHA256


def test_download_success_with_checksum(tmp_path, server):
    body = b"arbitrary bytes " * 5000
    server.routes["/blob"] = [(200, body)]
    dest = tmp_path / "d" / "blob.bin"
    download(server.url("/blob"), dest, expected_sha256=hashlib.sha256(body).hexdigest(), **FAST)
    assert dest.read_bytes() == body
    assert list(dest.parent.iterdir()) == [dest]
    assert server.hits["/blob"] == 1


def test_download_checksum_mismatch_leaves_nothing(tmp_path, server):
    server.routes["/blob"] = [(200, b"tampered")]
    dest = tmp_path / "blob.bin"
    with pytest.raises(DownloadError, match=re.escape(server.url("/blob")) + ".*sha256 mismatch"):
        download(server.url("/blob"), dest, expected_sha256="0" * 64, retries=2, **FAST)
    assert list(tmp_path.iterdir()) == []
    assert server.hits["/blob"] == 2


def test_download_404_is_final(tmp_path, server):
    dest = tmp_path / "x.zip"
    dest.write_bytes(b"old")
    with pytest.raises(DownloadError, match="404") as err:
        download(server.url("/missing.zip"), dest, retries=3, **FAST)
    assert server.url("/missing.zip") in str(err.value)
    assert server.hits["/missing.zip"] == 1
    assert dest.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [dest]


def test_download_retries_transient_500(tmp_path, server, caplog):
    server.routes["/flaky"] = [(500, b"oops"), (200, b"payload")]
    dest = tmp_path / "flaky.bin"
    with caplog.at_level(logging.INFO, logger="isdp_papers.nhgis"):
        download(server.url("/flaky"), dest, retries=3, **FAST)
    assert dest.read_bytes() == b"payload"
    assert server.hits["/flaky"] == 2
    attempts = [r for r in caplog.records if "attempt" in r.getMessage() and r.name == "isdp_papers.nhgis"]
    assert any("HTTP 500" in r.getMessage() and r.levelno == logging.WARNING for r in attempts)
    assert any("attempt 2/3" in r.getMessage() for r in attempts)


def test_download_gives_up_after_retries(tmp_path, server):
    server.routes["/down"] = [(503, b"")]
    with pytest.raises(DownloadError, match="503"):
        download(server.url("/down"), tmp_path / "x", retries=3, **FAST)
    assert server.hits["/down"] == 3
    assert list(tmp_path.iterdir()) == []


def test_download_cut_connection_is_retried(tmp_path, server):
    server.routes["/cut"] = [(299, b"partial")]
    with pytest.raises(DownloadError):
        download(server.url("/cut"), tmp_path / "x", retries=2, **FAST)
    assert server.hits["/cut"] == 2
    assert list(tmp_path.iterdir()) == []


def test_download_timeout(tmp_path, server):
    server.routes["/slow"] = [(200, b"late")]
    server.delay["/slow"] = 1.0
    # the socket timeout or the deadline, whichever comes first
    with pytest.raises(DownloadError, match="timed out|deadline"):
        download(server.url("/slow"), tmp_path / "x", timeout=0.2, retries=1, backoff=0.01)
    assert list(tmp_path.iterdir()) == []


def test_download_connection_refused(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DownloadError, match=f"127.0.0.1:{port}"):
        download(f"http://127.0.0.1:{port}/x.zip", tmp_path / "x", retries=2, **FAST)


def _no_partial_files(folder):
    return not any(p.name.endswith(".tmp") for p in Path(folder).rglob("*"))


@pytest.mark.parametrize("part", ["body", "headers"])
def test_trickling_server_is_abandoned_at_the_deadline(tmp_path, server, part):
    """One byte every 50 ms would take 20 s; the 1 s deadline bounds the whole attempt, the status
    line and headers included (a header byte every 50 ms used to reset the per-read timeout)."""
    if part == "body":
        server.routes["/slow"] = [(200, b"x" * 400)]
        server.trickle["/slow"] = 0.05
    else:
        server.header_trickle["/slow"] = 0.05
    tick = time.monotonic()
    with pytest.raises(DownloadError, match="deadline"):
        download(server.url("/slow"), tmp_path / "x.zip", timeout=1.0, retries=1)
    assert time.monotonic() - tick < 5
    assert _no_partial_files(tmp_path) and not (tmp_path / "x.zip").exists()


def test_sigterm_during_download_leaves_no_partial_file(tmp_path, server):
    import signal
    import subprocess
    import sys

    server.routes["/trickle"] = [(200, b"x" * 400)]
    server.trickle["/trickle"] = 0.05
    code = (
        f"from isdp_papers.nhgis.download import download; download({server.url('/trickle')!r}, "
        f"{str(tmp_path / 'x.zip')!r}, timeout=30, retries=1)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 20
    while server.hits.get("/trickle", 0) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) != 0
    assert _no_partial_files(tmp_path) and not (tmp_path / "x.zip").exists()
