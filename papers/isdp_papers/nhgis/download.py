"""Downloading an NHGIS county zip.

:func:`download` (retries, an overall deadline per attempt enforced by a socket watchdog, SIGTERM/SIGHUP turned into an
exception, an atomic write checked against a SHA-256), the official URL of a vintage (:func:`url_for`), the checksums
this project has verified (:data:`KNOWN_SHA256`) and :class:`DownloadError`.

Used by the data policy (:mod:`.fallback`), hence by the workflow's ``fetch`` rule, whose county file E3, E4 and the
E3 claims rows read.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from http.client import HTTPException
from pathlib import Path

from isdp.files import atomic_write

log = logging.getLogger("isdp_papers.nhgis")  # one logger for the package: tests and runs capture it

#: SHA-256 of the official county zips whose content this project has verified; a download
#: or a dropped-in zip of these vintages must match.
KNOWN_SHA256 = {"20210608": "3a85a873d66d0a5852d49739c820bd9a057c14566c0630365625ac3b440ed7df"}
URL_TEMPLATE = "https://assets.nhgis.org/differential-privacy/v{v}/nhgis_ppdd_{v}_county.zip"


class DownloadError(RuntimeError):
    """A download failed after all attempts; the message names the URL and the last cause."""


def url_for(vintage: str) -> str:
    """Official NHGIS download URL of a vintage's county zip (no account needed)."""
    return URL_TEMPLATE.format(v=vintage)


class _BadBody(OSError):
    """Downloaded bytes are incomplete or do not match the expected SHA-256 (retryable)."""


class _Deadline(TimeoutError):
    """The attempt's overall deadline passed (a slow or trickling server)."""


class _Watchdog:
    """Shuts the attempt's sockets down when its deadline passes.

    Socket timeouts bound each read, not the attempt: a server sending its status line, a
    header or the body a byte at a time resets them on every byte. Shutting the socket down
    wakes whatever read urllib is blocked in (status line, headers, body), in any thread.
    """

    def __init__(self, timeout: float):
        self.sockets: list[socket.socket] = []  # not the connections: they drop theirs once the headers are in
        self.fired = False
        self.timer = threading.Timer(timeout, self._fire)
        self.timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def opener(self) -> urllib.request.OpenerDirector:
        """Return an opener whose every connection (redirects included) is watched."""
        watchdog = self

        def watched(http_class):
            class Watched(http_class):
                def connect(self):
                    super().connect()
                    watchdog.sockets.append(self.sock)

            return Watched

        class HTTP(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        class HTTPS(urllib.request.HTTPSHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        return urllib.request.build_opener(HTTP, HTTPS)


def _fetch_once(url: str, tmp: Path, timeout: float, expected_sha256: str | None) -> int:
    """One attempt, bounded by ``timeout`` seconds in total (connection, headers and body)."""
    request = urllib.request.Request(url, headers={"User-Agent": "isdp (python urllib)"})
    digest = hashlib.sha256()
    size = 0
    watchdog = _Watchdog(timeout)
    watchdog.timer.start()
    try:
        with watchdog.opener().open(request, timeout=timeout) as resp, open(tmp, "wb") as out:
            expected_size = resp.headers.get("Content-Length")
            while chunk := resp.read1(1 << 16):  # whatever has arrived: a trickle cannot stall a full-size read
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
        if watchdog.fired:  # a shut-down socket can also read as a clean end of headers or body
            raise TimeoutError("shut down at the deadline")
        if expected_size is not None and size != int(expected_size):
            raise _BadBody(f"incomplete body: got {size} of {expected_size} bytes")
    except (OSError, HTTPException) as exc:
        if watchdog.fired:  # the shutdown surfaced as a reset, a short body or a bad status line
            raise _Deadline(f"attempt exceeded its {timeout:g} s deadline after {size} bytes") from exc
        raise
    finally:
        watchdog.timer.cancel()
    if expected_sha256 is not None and digest.hexdigest() != expected_sha256.lower():
        raise _BadBody(f"sha256 mismatch: got {digest.hexdigest()}, expected {expected_sha256}")
    return size


@contextlib.contextmanager
def _signals_raise():
    """Turn SIGTERM/SIGHUP into an exception while downloading, so ``finally`` removes the partial file.

    (SIGINT already raises KeyboardInterrupt.) Only the main thread can install handlers;
    elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise SystemExit(f"download interrupted by signal {signum}")

    saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def download(
    url: str,
    dest: str | os.PathLike,
    *,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 2.0,
    expected_sha256: str | None = None,
) -> Path:
    """Download ``url`` to ``dest`` atomically, with retries.

    ``retries`` is the total number of attempts and ``timeout`` bounds each attempt as a whole
    (connection and every read), so a server that trickles bytes is abandoned in time; the wait
    before attempt k+1 is ``backoff * 2**(k-1)`` seconds. The partial file is removed on any
    failure, including SIGTERM/SIGHUP/SIGINT. HTTP 4xx answers are final (no retry). The body is
    streamed into a temporary file next to ``dest`` and renamed onto ``dest`` only once it is
    complete and, if ``expected_sha256`` is given, matches it, so ``dest`` is never half-written.
    Raises :class:`DownloadError` naming the URL and the last cause.
    """
    if retries < 1:
        raise ValueError(f"retries must be >= 1, got {retries}")
    dest = Path(dest)
    last: Exception | None = None
    for attempt in range(1, retries + 1):
        log.info("GET %s (attempt %d/%d, deadline %g s)", url, attempt, retries, timeout)
        try:
            with _signals_raise():
                atomic_write(dest, lambda tmp: _fetch_once(url, tmp, timeout, expected_sha256))
            log.info("downloaded %s (%d bytes) to %s", url, dest.stat().st_size, dest)
            return dest
        except urllib.error.HTTPError as exc:
            last = exc
            if 400 <= exc.code < 500:
                log.error("GET %s: HTTP %d %s (client error, not retried)", url, exc.code, exc.reason)
                break
            log.warning("GET %s failed on attempt %d/%d: HTTP %d %s", url, attempt, retries, exc.code, exc.reason)
        except (OSError, HTTPException) as exc:  # URLError, timeouts, resets, bad checksum
            last = exc
            log.warning("GET %s failed on attempt %d/%d: %r", url, attempt, retries, exc)
        if attempt < retries:
            time.sleep(backoff * 2 ** (attempt - 1))
    raise DownloadError(f"could not download {url}: {last!r}") from last
