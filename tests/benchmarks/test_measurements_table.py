"""The run times in README.md and docs/performance.md (benchmarks/measurements_table.py): the committed blocks are
what the script writes from the committed benchmarks/results/make_times.csv, and a run is recorded only when it
executed every job of its directory."""

from __future__ import annotations

import os
import shutil

import measurements_table as mt
import pandas as pd
import pytest


def test_committed_blocks_are_generated_from_the_committed_times(tmp_path):
    """A number in either block cannot drift from make_times.csv: rewriting them from it changes nothing."""
    performance, readme = tmp_path / "performance.md", tmp_path / "README.md"
    shutil.copy(mt.PERFORMANCE, performance)
    shutil.copy(mt.README, readme)
    mt.write(mt.TIMES, performance, readme)
    assert performance.read_text(encoding="utf-8") == mt.PERFORMANCE.read_text(encoding="utf-8")
    assert readme.read_text(encoding="utf-8") == mt.README.read_text(encoding="utf-8")


def test_every_command_has_one_row_with_its_sampler_speed():
    df = pd.read_csv(mt.TIMES)
    assert list(df.columns) == mt.COLUMNS
    assert sorted(df["command"]) == sorted(mt.COMMANDS)
    assert (df["wall_seconds"] > 0).all() and (df["sampler_mups"] > 0).all() and df["machine"].notna().all()


def test_durations_read_as_minutes_and_seconds():
    assert [mt.duration(s) for s in (42, 60, 325, 439.4)] == ["42 s", "1 min 0 s", "5 min 25 s", "7 min 19 s"]


def test_a_block_is_replaced_only_between_its_markers(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("intro\n<!-- t:start -->\nold\n<!-- t:end -->\noutro\n")
    mt.replace_block(doc, "t", "new\n")
    assert doc.read_text() == "intro\n<!-- t:start -->\nnew\n<!-- t:end -->\noutro\n"
    doc.write_text("no markers\n")
    with pytest.raises(ValueError, match="t:start"):
        mt.replace_block(doc, "t", "new\n")


def _job_log(run, name, wall, written):
    log = run / "results" / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"step output\nresources: wall_s={wall} cpu_s={wall} max_rss_mb=100.0\n")
    os.utime(log, (written, written))


def test_only_a_run_that_executed_every_job_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setattr(mt, "sampler_speed", lambda: 44.44)
    start = 1_000_000.0
    _job_log(tmp_path, "e1_problem", 2.0, start + 5)
    _job_log(tmp_path, "e3_states_IL", 30.0, start - 50)  # up to date from an earlier run
    assert mt.measure("make reproduce", start, tmp_path, stamp=None) is None
    _job_log(tmp_path, "e3_states_IL", 30.0, start + 40)
    stamp = tmp_path / ".installed"
    stamp.touch()
    os.utime(stamp, (start + 1, start + 1))
    row = mt.measure("make reproduce", start, tmp_path, stamp=stamp)
    assert (row["jobs"], row["job_seconds"], row["install"], row["sampler_mups"]) == (2, 32, True, 44.4)
    assert (row["sampler_before"], row["sampler_after"]) == (None, 44.4)  # no reading before: the one after
    assert row["wall_seconds"] > 0 and row["machine"]


def test_a_run_is_read_against_the_faster_of_the_readings_before_and_after_it(tmp_path, monkeypatch):
    """`speed` writes the reading before the workflow into the run's directory; `measure` keeps it beside its own and
    reads the run against the faster. A reading left by an earlier run is not this run's."""
    start = 1_000_000.0
    _job_log(tmp_path, "e1_problem", 2.0, start + 5)
    monkeypatch.setattr(mt, "sampler_speed", lambda: 41.23)
    assert mt.speed(tmp_path) == 41.2
    reading = tmp_path / mt.BEFORE
    os.utime(reading, (start + 1, start + 1))
    monkeypatch.setattr(mt, "sampler_speed", lambda: 35.94)
    row = mt.measure("make reproduce", start, tmp_path, stamp=None)
    assert (row["sampler_before"], row["sampler_after"], row["sampler_mups"]) == (41.2, 35.9, 41.2)
    monkeypatch.setattr(mt, "sampler_speed", lambda: 44.44)  # faster after: the reading after
    assert mt.measure("make reproduce", start, tmp_path, stamp=None)["sampler_mups"] == 44.4
    os.utime(reading, (start - 1, start - 1))  # an earlier run's reading
    row = mt.measure("make reproduce", start, tmp_path, stamp=None)
    assert (row["sampler_before"], row["sampler_after"], row["sampler_mups"]) == (None, 44.4, 44.4)


def test_a_reading_that_fails_before_the_run_does_not_stop_the_command(tmp_path, monkeypatch, capsys):
    def broken():
        raise RuntimeError("no numba here")

    monkeypatch.setattr(mt, "sampler_speed", broken)
    mt.main(["speed", "--run", str(tmp_path)])  # returns: make goes on to the workflow
    assert "not read (no numba here)" in capsys.readouterr().out
    assert not (tmp_path / mt.BEFORE).exists()


def test_the_table_shows_both_readings_and_marks_a_row_with_one(tmp_path):
    times = tmp_path / "make_times.csv"
    shutil.copy(mt.TIMES, times)
    row = {**mt.read_times(times).loc["make test"].to_dict(), "command": "make test"}
    mt.record({**row, "sampler_mups": 41.2, "sampler_before": 41.2, "sampler_after": 35.9}, times)
    assert "| 41.2 (41.2 before, 35.9 after) |" in mt.performance_block(mt.read_times(times))
    mt.record({**row, "sampler_mups": 35.9, "sampler_before": None, "sampler_after": None}, times)
    assert "| 35.9 (after only) |" in mt.performance_block(mt.read_times(times))


def test_a_recorded_row_replaces_the_commands_previous_one(tmp_path):
    times = tmp_path / "make_times.csv"
    shutil.copy(mt.TIMES, times)
    before = mt.read_times(times)
    row = {**before.loc["make test"].to_dict(), "command": "make test", "wall_seconds": 400, "note": ""}
    mt.record(row, times)
    after = mt.read_times(times)
    assert list(after.index) == list(before.index)
    assert after.loc["make test", "wall_seconds"] == 400 and after.loc["make test", "note"] == ""
    assert after.drop("make test").equals(before.drop("make test"))
    assert "| `make test` | 6 min 40 s, install included |" in mt.readme_block(after)


def test_a_run_records_in_its_own_directory_and_publish_copies_it(tmp_path):
    """`make reproduce` and `make test` write no tracked file: the row goes to the run's results/, and
    `make readme-numbers` (publish) is what moves it into the committed make_times.csv."""
    times, own = tmp_path / "make_times.csv", tmp_path / "run" / "results" / "make_times.csv"
    shutil.copy(mt.TIMES, times)
    own.parent.mkdir(parents=True)
    row = {**mt.read_times(times).loc["make reproduce"].to_dict(), "command": "make reproduce", "wall_seconds": 500}
    mt.record(row, own)
    assert list(mt.read_times(own).index) == ["make reproduce"]
    mt.publish([own], times)
    published = mt.read_times(times)
    assert published.loc["make reproduce", "wall_seconds"] == 500
    assert published.drop("make reproduce").equals(mt.read_times(mt.TIMES).drop("make reproduce"))
