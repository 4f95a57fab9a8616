"""Helpers of the Census tests (E3, E4, E5, the NHGIS data package and the shared experiment modules): the committed
county file and the real NHGIS zip, a local HTTP server for the download tests, the workflow's configuration, the
hand-made runs the registry rows are judged on, and a fresh Python process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from conftest import NHGIS_ZIP, ROOT
from isdp_papers.e5_congenial_mis import small_lattice as sl
from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints
from isdp_papers.evidence import Run
from isdp_papers.nhgis.counties import load_counties

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())  # the workflow's configuration

# --------------------------------------------------------------------------- the county data

EMBEDDED = ROOT / "data" / "nhgis" / "county_population_v20210608.csv"  # the committed county file (v20210608)
ZIP_SHA256 = "3a85a873d66d0a5852d49739c820bd9a057c14566c0630365625ac3b440ed7df"  # of the real v20210608 zip

requires_zip = pytest.mark.skipif(
    not NHGIS_ZIP.exists(), reason=f"real NHGIS zip not found at {NHGIS_ZIP} (set ISDP_NHGIS_ZIP)"
)


def assert_rederived(extractor, path, tmp_path) -> None:
    """``extractor`` run on the real zip remakes the committed extract ``path`` (relative to the checkout) byte for
    byte."""
    out = tmp_path / "extract.csv"
    extractor(NHGIS_ZIP, out)
    assert out.read_bytes() == (ROOT / path).read_bytes()


def assert_the_county_files_counties(path, loader) -> None:
    """The committed extract ``path``, read by ``loader``, lists the committed county file's counties in its order."""
    assert list(loader(ROOT / path)["gisjoin"]) == list(load_counties(EMBEDDED)["gisjoin"])


# --------------------------------------------------------------------------- a local HTTP server


FAST = {"timeout": 2.0, "backoff": 0.01}  # download settings that keep a failing test short


class Server:
    """Local HTTP server: each path serves a sequence of (status, body) answers, the last repeating."""

    def __init__(self) -> None:
        self.routes: dict[str, list[tuple[int, bytes]]] = {}
        self.hits: dict[str, int] = {}
        self.delay: dict[str, float] = {}
        self.trickle: dict[str, float] = {}  # seconds between single bytes of the body
        self.header_trickle: dict[str, float] = {}  # seconds between single bytes of a header
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                n = owner.hits.get(self.path, 0)
                owner.hits[self.path] = n + 1
                time.sleep(owner.delay.get(self.path, 0.0))
                if self.path in owner.header_trickle:
                    try:
                        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                        for _ in range(400):  # one header line, a byte at a time (bounded: 400 bytes)
                            self.wfile.write(b"a")
                            self.wfile.flush()
                            time.sleep(owner.header_trickle[self.path])
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                answers = owner.routes.get(self.path, [(404, b"not found")])
                status, body = answers[min(n, len(answers) - 1)]
                if status == 299:  # a 200 announcing more bytes than are sent: a cut connection
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body) + 1000))
                else:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if self.path in owner.trickle:
                        for byte in body:  # bounded by the body's length
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(owner.trickle[self.path])
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serving():
    """A :class:`Server` for the length of a test: the body of a ``server`` fixture, ``yield from serving()``."""
    srv = Server()
    try:
        yield srv
    finally:
        srv.close()


# --------------------------------------------------------------------------- runs and problems


A6, _ = sex_by_age_constraints(("F", "M"), sl.COLS, sl.COLS[1])  # E5's invariants (1)–(3) on the 2 × 3 lattices


def results_run(tmp_path, config: dict) -> Run:
    """A run in ``tmp_path`` with the results folders the E1, E3, E4 and E5 rows read (empty), on the workflow's seed
    and ``config``."""
    for sub in ("tables", "data", "e3", "e4", "e5", "e1"):
        (tmp_path / "results" / sub).mkdir(parents=True, exist_ok=True)
    return Run(tmp_path, {"seed": CONFIG["seed"], **config}, repo=ROOT)


# --------------------------------------------------------------------------- a fresh process


def python_output(code: str) -> str:
    """What ``code`` prints, run by a fresh Python on the checkout's sources without ``NUMBA_NUM_THREADS`` set."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("NUMBA_NUM_THREADS", None)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
