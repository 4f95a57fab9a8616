"""isdp.experiments.nhgis: extraction, validation, atomic download and the data fallback policy.

Network access is only ever to a local ThreadingHTTPServer on 127.0.0.1. Tests that need the
real NHGIS zip read its path from the environment variable ``ISDP_NHGIS_ZIP`` (default: the
data folder next to the repository) and skip when it is absent.
"""

import hashlib
import io
import logging
import re
import socket
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest
from conftest import NHGIS_ZIP

from isdp.experiments import nhgis
from isdp.experiments.nhgis import DataValidationError, DownloadError

REPO = Path(__file__).resolve().parents[2]
SHARED_ZIP = NHGIS_ZIP
ZIP_SHA256 = "3a85a873d66d0a5852d49739c820bd9a057c14566c0630365625ac3b440ed7df"
EMBEDDED = REPO / "data" / "nhgis" / "county_population_v20210608.csv"
MEMBER = "nhgis_ppdd_20210608_county.csv"

requires_zip = pytest.mark.skipif(
    not SHARED_ZIP.exists(), reason=f"real NHGIS zip not found at {SHARED_ZIP} (set ISDP_NHGIS_ZIP)"
)


# ---------------------------------------------------------------- helpers and fixtures


@pytest.fixture(scope="module")
def raw_subset() -> pd.DataFrame:
    """The real county CSV reduced to the columns extract() reads (strings, as in the file)."""
    if not SHARED_ZIP.exists():
        pytest.skip(f"real NHGIS zip not found at {SHARED_ZIP}")
    return nhgis.read_county_csv(SHARED_ZIP)


def write_zip(path: Path, df: pd.DataFrame, member: str = MEMBER) -> Path:
    """A zip holding ``df`` as a Latin-1 CSV, like an NHGIS download."""
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, buf.getvalue().encode("latin-1"))
    return path


def set_value(df: pd.DataFrame, gisjoin: str, column: str, delta: int) -> pd.DataFrame:
    out = df.copy()
    row = out["gisjoin"] == gisjoin
    assert row.sum() == 1
    out.loc[row, column] = str(int(out.loc[row, column].iloc[0]) + delta)
    return out


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


@pytest.fixture
def server():
    srv = Server()
    yield srv
    srv.close()


FAST = {"timeout": 2.0, "backoff": 0.01}


# ---------------------------------------------------------------- extraction and the committed CSV


def test_url_and_vintage_inference():
    assert nhgis.url_for("20201116") == (
        "https://assets.nhgis.org/differential-privacy/v20201116/nhgis_ppdd_20201116_county.zip"
    )
    assert nhgis.infer_vintage("/x/nhgis_ppdd_20200527_county.zip") == "20200527"
    assert nhgis.infer_vintage("counties.zip") is None


@requires_zip
def test_shared_zip_checksum():
    assert nhgis.sha256sum(SHARED_ZIP) == ZIP_SHA256


@requires_zip
def test_extract_reproduces_committed_csv(tmp_path):
    out = tmp_path / "counties.csv"
    tidy = nhgis.extract(SHARED_ZIP, out)
    assert out.read_bytes() == EMBEDDED.read_bytes()
    assert list(tidy.columns) == nhgis.COLUMNS


def test_committed_csv_loads_and_matches_provenance():
    df = nhgis.load_counties(EMBEDDED)
    assert list(df.columns) == nhgis.COLUMNS
    assert df["sf1_pop"].dtype == "int64" and df["dp_pop"].dtype == "int64"
    assert (df["state_fips"].str.len() == 2).all() and (df["county_fips"].str.len() == 3).all()
    assert df.loc[df["gisjoin"] == "G0100010", ["state_fips", "county_fips"]].values.tolist() == [["01", "001"]]
    assert df["gisjoin"].is_monotonic_increasing
    assert set(df["vintage"]) == {"20210608"}
    assert set(df["state_abbr"]) == set(nhgis.STATE_ABBR.values())
    assert "Doña Ana County" in set(df["name"])
    digest = hashlib.sha256(EMBEDDED.read_bytes()).hexdigest()
    assert digest in (EMBEDDED.parent / "PROVENANCE.md").read_text()


def test_embedded_has_no_windows_line_endings():
    assert b"\r" not in EMBEDDED.read_bytes()


@requires_zip
def test_vintage_mismatch_is_an_error():
    with pytest.raises(DataValidationError, match="vintage"):
        nhgis.read_county_csv(SHARED_ZIP, vintage="20201116")


@requires_zip
def test_h7v_columns_and_vintage_from_member_name(tmp_path, raw_subset):
    old = raw_subset.rename(columns={"H72001_sf": "H7V001_sf", "H72001_dp": "H7V001_dp"})
    zpath = write_zip(tmp_path / "download.zip", old, member="nhgis_ppdd_20200527_county.csv")
    tidy = nhgis.extract(zpath, tmp_path / "out.csv")
    assert set(tidy["vintage"]) == {"20200527"}
    assert tidy["sf1_pop"].sum() == nhgis.NATIONAL_SF1


def test_tidy_uses_statea_countya_and_checks_state_column():
    raw = pd.DataFrame(
        {
            "gisjoin": ["G4803010", "G1700310"],
            "STATEA": ["48", "17"],
            "COUNTYA": ["301", "031"],
            "state": ["48", "17"],
            "name": [" Loving County", "Cook County"],
            "H72001_sf": ["82", "5194675"],
            "H72001_dp": ["80", "5194677"],
        }
    )
    tidy = nhgis.tidy_extract(raw, "20201116")
    assert tidy["gisjoin"].tolist() == ["G1700310", "G4803010"]
    assert tidy["state_abbr"].tolist() == ["IL", "TX"]
    assert tidy["name"].tolist() == ["Cook County", "Loving County"]
    with pytest.raises(DataValidationError, match="state code"):
        nhgis.tidy_extract(raw.assign(state=["17", "17"]), "20201116")
    with pytest.raises(DataValidationError, match="columns"):
        nhgis.tidy_extract(raw.drop(columns="H72001_dp"), "20201116")
    with pytest.raises(DataValidationError, match="gisjoin format"):
        nhgis.tidy_extract(raw.assign(gisjoin=["G480301", "G1700310"]), "20201116")


def _drop_illinois_rows(df):
    return df.drop(df.index[df["gisjoin"].str.startswith("G17")][:3])


def _break_vermont_dp(df):
    return set_value(df, "G5000010", "H72001_dp", 5)


def _cook_changed(df):
    return set_value(set_value(df, "G1700310", "H72001_sf", 1), "G1700310", "H72001_dp", 1)


def _blank_dp(df):
    out = df.copy()
    out.loc[out["gisjoin"] == "G0100010", "H72001_dp"] = ""
    return out


def _duplicate_row(df):
    return pd.concat([df, df.iloc[[5]]], ignore_index=True)


@requires_zip
@pytest.mark.parametrize(
    ("corrupt", "checks"),
    [
        (_drop_illinois_rows, ["row count", "Illinois county count", "national SF1 sum"]),
        (_cook_changed, ["Cook County IL (G1700310) SF1", "national SF1 sum"]),
        (_blank_dp, ["missing values", "G0100010"]),
        (_duplicate_row, ["unique gisjoin"]),
    ],
)
def test_corrupted_data_is_rejected_and_nothing_written(tmp_path, raw_subset, corrupt, checks):
    zpath = write_zip(tmp_path / "bad.zip", corrupt(raw_subset))
    outdir = tmp_path / "out"
    outdir.mkdir()
    with pytest.raises(DataValidationError) as err:
        nhgis.extract(zpath, outdir / "counties.csv")
    for check in checks:
        assert check in str(err.value)
    assert list(outdir.iterdir()) == []


@requires_zip
def test_a_das_file_breaking_a_state_total_is_kept_for_the_registry(tmp_path, raw_subset, caplog):
    """The DAS's state totals are a claim under test, not a mark of a valid file: the extraction keeps a file that
    breaks them and says so, and the stored file shows it (the registry's rows count it)."""
    out = tmp_path / "counties.csv"
    with caplog.at_level(logging.WARNING, logger="isdp.experiments.nhgis"):
        nhgis.extract(write_zip(tmp_path / "vt.zip", _break_vermont_dp(raw_subset)), out)
    assert "VT (dp-sf1 = +5)" in caplog.text
    stored = pd.read_csv(out, dtype={"state_fips": str, "county_fips": str})
    assert nhgis.das_claims_broken(stored) == ["state totals not kept: VT (dp-sf1 = +5)"]
    assert nhgis.das_claims_broken(pd.read_csv(EMBEDDED, dtype={"state_fips": str})) == []


@requires_zip
def test_unmodified_subset_passes(tmp_path, raw_subset):
    """Control for the corruption tests: the rewritten zip itself is fine."""
    nhgis.extract(write_zip(tmp_path / "ok.zip", raw_subset), tmp_path / "ok.csv")
    assert (tmp_path / "ok.csv").read_bytes() == EMBEDDED.read_bytes()


@requires_zip
def test_truncated_zip_keeps_previous_output(tmp_path):
    zpath = tmp_path / "nhgis_ppdd_20210608_county.zip"
    data = SHARED_ZIP.read_bytes()
    zpath.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out" / "counties.csv"
    out.parent.mkdir()
    out.write_text("previous\n")
    with pytest.raises(DataValidationError, match="zip archive"):
        nhgis.extract(zpath, out)
    assert out.read_text() == "previous\n"
    assert list(out.parent.iterdir()) == [out]


def test_zip_without_county_csv(tmp_path):
    zpath = tmp_path / "nhgis_ppdd_20210608_state.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("nhgis_ppdd_20210608_state.csv", "gisjoin\n")
    with pytest.raises(DataValidationError, match="zip contents"):
        nhgis.read_county_csv(zpath)


def test_load_counties_rejects_tampered_csv(tmp_path):
    text = EMBEDDED.read_text(encoding="utf-8")
    tampered = tmp_path / "tampered.csv"
    tampered.write_text(text.replace("G4803010,48,TX,301,Loving County,82,", "G4803010,48,TX,301,Loving County,83,"))
    with pytest.raises(DataValidationError, match=r"Loving County TX \(G4803010\) SF1: expected 82, got 83"):
        nhgis.load_counties(tampered)


# ---------------------------------------------------------------- download()


def test_download_success_with_checksum(tmp_path, server):
    body = b"arbitrary bytes " * 5000
    server.routes["/blob"] = [(200, body)]
    dest = tmp_path / "d" / "blob.bin"
    nhgis.download(server.url("/blob"), dest, expected_sha256=hashlib.sha256(body).hexdigest(), **FAST)
    assert dest.read_bytes() == body
    assert list(dest.parent.iterdir()) == [dest]
    assert server.hits["/blob"] == 1


def test_download_checksum_mismatch_leaves_nothing(tmp_path, server):
    server.routes["/blob"] = [(200, b"tampered")]
    dest = tmp_path / "blob.bin"
    with pytest.raises(DownloadError, match=re.escape(server.url("/blob")) + ".*sha256 mismatch"):
        nhgis.download(server.url("/blob"), dest, expected_sha256="0" * 64, retries=2, **FAST)
    assert list(tmp_path.iterdir()) == []
    assert server.hits["/blob"] == 2


def test_download_404_is_final(tmp_path, server):
    dest = tmp_path / "x.zip"
    dest.write_bytes(b"old")
    with pytest.raises(DownloadError, match="404") as err:
        nhgis.download(server.url("/missing.zip"), dest, retries=3, **FAST)
    assert server.url("/missing.zip") in str(err.value)
    assert server.hits["/missing.zip"] == 1
    assert dest.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [dest]


def test_download_retries_transient_500(tmp_path, server, caplog):
    server.routes["/flaky"] = [(500, b"oops"), (200, b"payload")]
    dest = tmp_path / "flaky.bin"
    with caplog.at_level(logging.INFO, logger="isdp.experiments.nhgis"):
        nhgis.download(server.url("/flaky"), dest, retries=3, **FAST)
    assert dest.read_bytes() == b"payload"
    assert server.hits["/flaky"] == 2
    attempts = [r for r in caplog.records if "attempt" in r.getMessage() and r.name == "isdp.experiments.nhgis"]
    assert any("HTTP 500" in r.getMessage() and r.levelno == logging.WARNING for r in attempts)
    assert any("attempt 2/3" in r.getMessage() for r in attempts)


def test_download_gives_up_after_retries(tmp_path, server):
    server.routes["/down"] = [(503, b"")]
    with pytest.raises(DownloadError, match="503"):
        nhgis.download(server.url("/down"), tmp_path / "x", retries=3, **FAST)
    assert server.hits["/down"] == 3
    assert list(tmp_path.iterdir()) == []


def test_download_cut_connection_is_retried(tmp_path, server):
    server.routes["/cut"] = [(299, b"partial")]
    with pytest.raises(DownloadError):
        nhgis.download(server.url("/cut"), tmp_path / "x", retries=2, **FAST)
    assert server.hits["/cut"] == 2
    assert list(tmp_path.iterdir()) == []


def test_download_timeout(tmp_path, server):
    server.routes["/slow"] = [(200, b"late")]
    server.delay["/slow"] = 1.0
    # the socket timeout or the deadline, whichever comes first
    with pytest.raises(DownloadError, match="timed out|deadline"):
        nhgis.download(server.url("/slow"), tmp_path / "x", timeout=0.2, retries=1, backoff=0.01)
    assert list(tmp_path.iterdir()) == []


def test_download_connection_refused(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DownloadError, match=f"127.0.0.1:{port}"):
        nhgis.download(f"http://127.0.0.1:{port}/x.zip", tmp_path / "x", retries=2, **FAST)


# ---------------------------------------------------------------- fetch_or_fallback()


def _paths(tmp_path):
    return {"dest_zip": tmp_path / "cache" / "county.zip", "embedded_csv": EMBEDDED, "out_csv": tmp_path / "out.csv"}


def test_fetch_auto_falls_back_loudly(tmp_path, server, caplog):
    paths = _paths(tmp_path)
    with caplog.at_level(logging.WARNING, logger="isdp.experiments.nhgis"):
        info = nhgis.fetch_or_fallback("20201116", "auto", url=server.url("/gone.zip"), retries=2, **paths, **FAST)
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
        nhgis.fetch_or_fallback("20201116", "nhgis", url=server.url("/gone.zip"), **paths, **FAST)
    assert server.hits["/gone.zip"] == 1
    assert not paths["out_csv"].exists()


def test_fetch_embedded_never_contacts_server(tmp_path, server):
    paths = _paths(tmp_path)
    server.routes["/county.zip"] = [(200, b"should not be fetched")]
    info = nhgis.fetch_or_fallback("20201116", "embedded", url=server.url("/county.zip"), **paths, **FAST)
    assert server.hits == {}
    assert info["source_used"] == "embedded" and info["vintage_used"] == "20210608"
    assert info["sha256"] == hashlib.sha256(EMBEDDED.read_bytes()).hexdigest()
    assert paths["out_csv"].read_bytes() == EMBEDDED.read_bytes()


def test_fetch_rejects_unknown_source(tmp_path):
    with pytest.raises(ValueError, match="source must be one of"):
        nhgis.fetch_or_fallback("20201116", "web", **_paths(tmp_path))


@requires_zip
def test_fetch_auto_downloads_and_extracts(tmp_path, server):
    server.routes["/county.zip"] = [(200, SHARED_ZIP.read_bytes())]
    paths = _paths(tmp_path)
    info = nhgis.fetch_or_fallback(
        "20210608", "auto", url=server.url("/county.zip"), expected_sha256=ZIP_SHA256, **paths, **FAST
    )
    assert info["source_used"] == "download" and info["vintage_used"] == "20210608"
    assert info["sha256"] == ZIP_SHA256
    assert paths["out_csv"].read_bytes() == EMBEDDED.read_bytes()
    # a second call reuses the zip in place, without the network
    server.routes["/county.zip"] = [(404, b"")]
    info = nhgis.fetch_or_fallback("20210608", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    assert info["source_used"] == "download" and "already present" in info["reason"]
    assert server.hits["/county.zip"] == 1


@requires_zip
def test_fetch_corrupt_zip(tmp_path, server, caplog):
    data = SHARED_ZIP.read_bytes()
    server.routes["/county.zip"] = [(200, data[: len(data) // 3])]
    paths = _paths(tmp_path)
    with pytest.raises(DownloadError, match="sha256 mismatch"):  # a known vintage: its checksum is checked
        nhgis.fetch_or_fallback("20210608", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    with pytest.raises(DataValidationError, match="zip archive"):  # an unknown one: the content checks catch it
        nhgis.fetch_or_fallback("20990101", "nhgis", url=server.url("/county.zip"), **paths, **FAST)
    assert not paths["dest_zip"].exists() and not paths["out_csv"].exists()
    with caplog.at_level(logging.WARNING, logger="isdp.experiments.nhgis"):
        info = nhgis.fetch_or_fallback("20210608", "auto", url=server.url("/county.zip"), **paths, **FAST)
    assert info["source_used"] == "embedded"
    assert any("could not be fetched" in r.getMessage() for r in caplog.records)


@requires_zip
def test_fetch_auto_wrong_vintage_falls_back(tmp_path, server):
    """A server answering with another vintage's zip must not pass as the paper's vintage."""
    server.routes["/county.zip"] = [(200, SHARED_ZIP.read_bytes())]
    info = nhgis.fetch_or_fallback("20201116", "auto", url=server.url("/county.zip"), **_paths(tmp_path), **FAST)
    assert info["source_used"] == "embedded" and "vintage" in info["reason"]


def test_extract_rule_reproduces_the_committed_extract(tmp_path):
    """The workflow's `extract` rule, run on the real zip, remakes data/nhgis/'s CSV byte for byte."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    zip_path = repo.parent / "shared" / "data" / "nhgis" / "nhgis_ppdd_20210608_county.zip"
    if not zip_path.exists():
        pytest.skip(f"{zip_path} is absent (the shared data folder is not beside the repository)")
    (tmp_path / "results" / "data").mkdir(parents=True)
    (tmp_path / "results" / "data" / zip_path.name).symlink_to(zip_path)
    target = "results/data/counties_v20210608.csv"
    subprocess.run([sys.executable, "-m", "snakemake", target, "--snakefile", str(repo / "Snakefile"),
                    "--directory", str(tmp_path), "--configfile", str(repo / "config" / "ci.yaml"),
                    "--cores", "1", "--quiet", "all"], check=True, capture_output=True)
    committed = repo / "data" / "nhgis" / "county_population_v20210608.csv"
    assert (tmp_path / target).read_bytes() == committed.read_bytes()


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
        nhgis.download(server.url("/slow"), tmp_path / "x.zip", timeout=1.0, retries=1)
    assert time.monotonic() - tick < 5
    assert _no_partial_files(tmp_path) and not (tmp_path / "x.zip").exists()


def test_sigterm_during_download_leaves_no_partial_file(tmp_path, server):
    import signal
    import subprocess
    import sys

    server.routes["/trickle"] = [(200, b"x" * 400)]
    server.trickle["/trickle"] = 0.05
    code = (f"from isdp.experiments import nhgis; nhgis.download({server.url('/trickle')!r}, "
            f"{str(tmp_path / 'x.zip')!r}, timeout=30, retries=1)")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 20
    while server.hits.get("/trickle", 0) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) != 0
    assert _no_partial_files(tmp_path) and not (tmp_path / "x.zip").exists()


def test_dropped_in_zip_of_a_known_vintage_must_match_its_checksum(tmp_path):
    paths = _paths(tmp_path)
    paths["dest_zip"].parent.mkdir(parents=True, exist_ok=True)
    paths["dest_zip"].write_bytes(b"not the published zip")
    with pytest.raises(DataValidationError, match="sha256"):
        nhgis.fetch_or_fallback("20210608", "nhgis", url="http://127.0.0.1:9/unused", **paths, **FAST)
    info = nhgis.fetch_or_fallback("20210608", "auto", url="http://127.0.0.1:9/unused", **paths, **FAST)
    assert info["source_used"] == "embedded" and "sha256" in info["reason"]



# ---------------------------------------------------------------- the committed extracts beside the county file

COUNT_EXTRACTS = [(nhgis.extract_housing, nhgis.HOUSING_EXTRACT, nhgis.load_housing),
                  (nhgis.extract_group_quarters, nhgis.GROUP_QUARTERS_EXTRACT, nhgis.load_group_quarters),
                  (nhgis.extract_histogram_cells, nhgis.HISTOGRAM_CELLS_EXTRACT, nhgis.load_histogram_cells)]


@requires_zip
@pytest.mark.parametrize("extractor, path", [(e, p) for e, p, _ in COUNT_EXTRACTS]
                         + [(nhgis.extract_histogram_support, nhgis.HISTOGRAM_SUPPORT_EXTRACT),
                            (nhgis.extract_state_histograms, nhgis.STATE_HISTOGRAMS_EXTRACT)])
def test_committed_extract_is_rederived_byte_for_byte(tmp_path, extractor, path):
    out = tmp_path / "extract.csv"
    extractor(SHARED_ZIP, out)
    assert out.read_bytes() == (REPO / path).read_bytes()


@pytest.mark.parametrize("path, loader", [(p, load) for _, p, load in COUNT_EXTRACTS])
def test_count_extract_has_the_county_files_counties(path, loader):
    assert list(loader(REPO / path)["gisjoin"]) == list(nhgis.load_counties(EMBEDDED)["gisjoin"])


def test_state_histograms_are_illinois_and_add_up_to_its_population():
    cells = nhgis.load_state_histograms(REPO / nhgis.STATE_HISTOGRAMS_EXTRACT)
    counties = nhgis.load_counties(EMBEDDED)
    il = counties[counties["state_abbr"] == nhgis.STATE_HISTOGRAMS_STATE]
    assert list(cells["gisjoin"]) == list(il["gisjoin"])
    assert (cells[nhgis.STATE_HISTOGRAMS_SOURCE].sum(axis=1).to_numpy() == il["sf1_pop"].to_numpy()).all()


def test_state_histograms_loader_refuses_another_state(tmp_path):
    cells = pd.read_csv(REPO / nhgis.STATE_HISTOGRAMS_EXTRACT, dtype=str)
    bad = tmp_path / "bad.csv"
    cells.iloc[:-1].to_csv(bad, index=False)
    with pytest.raises(DataValidationError, match="102 counties of IL"):
        nhgis.load_state_histograms(bad)
