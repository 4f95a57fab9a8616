"""Calls that must end: the exact samplers' tests run a call that once hung under a deadline, so that a
regression fails its test instead of hanging the suite."""

from __future__ import annotations

import os
import threading

#: seconds any one call of these tests may take (each takes well under one; ISDP_TEST_DEADLINE sets another)
DEADLINE = float(os.environ.get("ISDP_TEST_DEADLINE", "30"))


def finishes(call, seconds: float = DEADLINE):
    """``call()``'s result, or its exception re-raised; an AssertionError when it has not ended after ``seconds``.

    The call runs in a daemon thread: one that never ends is left behind (it ends with the process), and the
    test fails instead of waiting.
    """
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as err:  # re-raised in the test's thread
            outcome["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the call did not end within {seconds:g} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
