"""The tutorials of docs/tutorials run exactly as written, in a fresh directory: their ```pycon blocks through
doctest (one namespace per tutorial), their ```console blocks through bash with this environment's ``isdp`` on
PATH, each command's output compared with the text shown. Blocks run in the order of the page."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
EXPECTED = ("county-total.md", "own-invariants.md", "release-your-table.md")
FENCE = re.compile(r"^```(pycon|console)\n(.*?)^```[ \t]*$", re.M | re.S)
HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*['\"]?(\w+)['\"]?")  # cat > file <<'EOF' (not a <<< here-string)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def console_steps(body: str) -> list[tuple[str, str]]:
    r"""Split a console block into its commands and the output shown under each.

    Parameters
    ----------
    body : str
        The block's text: ``$ command`` lines, each followed by its output. A command continues on the next
        line after a trailing backslash, and a here-document's lines up to its delimiter belong to it.

    Returns
    -------
    list of (str, str)
        Each command (without the prompt) and its expected output.

    Examples
    --------
    >>> console_steps("$ echo a \\\n  b\na b\n$ true\n")
    [('echo a \\\n  b', 'a b'), ('true', '')]
    """
    lines, steps, i = body.splitlines(), [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise ValueError(f"console block: output before any command: {lines[i]!r}")
        command = [lines[i][2:]]
        i += 1
        while command[-1].endswith("\\") and i < len(lines):
            command.append(lines[i])
            i += 1
        if heredoc := HEREDOC.search("\n".join(command)):
            while i < len(lines) and lines[i - 1] != heredoc.group(1):
                command.append(lines[i])
                i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        steps.append(("\n".join(command), "\n".join(output)))
    return steps


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def output_matches(expected: str, got: str) -> bool:
    r"""Whether a command's output is the one shown: equal after stripping trailing whitespace, ``...`` matching
    any text.

    Examples
    --------
    >>> output_matches("seconds: ...\ndone", "seconds: 0.25  \ndone\n"), output_matches("a", "b")
    (True, False)
    """
    expected, got = _normal(expected), _normal(got)
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got, re.S) is not None


def run_console(body: str, where: str) -> list[str]:
    """Run a console block's commands in one bash process in the current directory.

    Parameters
    ----------
    body : str
        The block's text (see :func:`console_steps`).
    where : str
        The block's place (``file:line``), for the messages.

    Returns
    -------
    list of str
        One message per command whose output (stdout and stderr together) differs from the text shown.
    """
    steps = console_steps(body)
    mark = f"--- {uuid.uuid4().hex} ---"
    # each command's status survives the marker, so a shown `echo $?` reads the command's own
    script = "exec 2>&1\n" + "".join(
        f"{cmd}\n__status=$?; printf '\\n{mark}\\n'; (exit $__status)\n" for cmd, _ in steps
    )
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
    }  # stdout and stderr interleave as on a terminal
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    finished = run.stdout.split(f"\n{mark}\n")[:-1]  # what follows the last marker belongs to no finished command
    failures = []
    for i, (command, expected) in enumerate(steps):
        got = _normal(finished[i]) if i < len(finished) else "(the shell stopped before this command finished)"
        if not output_matches(expected, got):
            failures.append(f"{where}: $ {command}\n--- shown:\n{_normal(expected)}\n--- got:\n{got}")
    return failures


def run_tutorial(text: str, name: str) -> list[str]:
    """Run every pycon and console block of a tutorial in order, in the current directory.

    Parameters
    ----------
    text : str
        The tutorial's Markdown.
    name : str
        Its name, for the messages.

    Returns
    -------
    list of str
        One message per failing example or command (empty: the tutorial runs as written).
    """
    blocks = list(FENCE.finditer(text))
    if not blocks:
        return [f"{name}: no pycon or console block"]
    failures, namespace = [], {"__name__": name}
    for block in blocks:
        kind, body = block.groups()
        line = text.count("\n", 0, block.start(2)) + 1
        if kind == "console":
            failures += run_console(body, f"{name}:{line}")
            continue
        test = doctest.DocTestParser().get_doctest(body, namespace, name, name, line - 1)
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        runner.run(test, out=report.append, clear_globs=False)
        namespace = test.globs  # the next block sees this one's names
        if runner.failures:
            failures.append("".join(report))
    return failures


@pytest.mark.parametrize("name", EXPECTED)
def test_tutorial_runs_as_written(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failures = run_tutorial((TUTORIALS / name).read_text(encoding="utf-8"), name)
    assert not failures, "\n\n".join(failures)


FAKE = """A tutorial of every kind of step.

```pycon
>>> total = 1 + 1
>>> total
{total}
```

```console
$ cat > note.txt <<'EOF'
kept
EOF
$ cat note.txt; false
{note}
$ echo $?
1
$ echo "one \\
two at ..."
one two at ...
```
"""


def test_the_runner_passes_a_right_tutorial_and_fails_a_wrong_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_tutorial(FAKE.format(total=2, note="kept"), "right.md") == []
    failures = run_tutorial(FAKE.format(total=3, note="lost"), "wrong.md")
    assert len(failures) == 2
    assert "Expected:\n    3\nGot:\n    2" in failures[0]
    assert "$ cat note.txt; false\n--- shown:\nlost\n--- got:\nkept" in failures[1]
    assert len(run_tutorial("```console\n$ exit 0\n$ echo never\nnever\n```\n", "stopped.md")) == 2


def test_every_runnable_tutorial_is_tested():
    """A page of docs/tutorials with a pycon or console block is one of the pages run above."""
    runnable = {p.name for p in TUTORIALS.glob("*.md") if FENCE.search(p.read_text(encoding="utf-8"))}
    assert runnable == set(EXPECTED)
