"""The release's three files (isdp.release.write_release): all or none — a write that fails after some
of them landed leaves none behind."""

from __future__ import annotations

import os

import pytest
from release_support import only, run_release


@pytest.mark.parametrize("force", [False, True], ids=["exclusive", "--force"])
def test_a_failed_write_leaves_no_output(tmp_path, monkeypatch, capsys, force):
    """The audit record fails to land after the release and the statement have: both are removed again."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    name = "replace" if force else "link"
    real = getattr(os, name)

    def fail_on_audit(src, dst):
        if str(dst).endswith(".audit.json"):
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, name, fail_on_audit)
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1",
                           *(["--force"] if force else []))
    assert code == 2 and "No space left on device; nothing written" in capsys.readouterr().err
    only(tmp_path, "t.csv")
