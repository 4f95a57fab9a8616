# E3's (and E4's) per-state jobs (docs/performance.md): the states the DAS audit selects (its
# checkpoint in e3.smk), spread over e3.state_jobs batch jobs. Functions and constants only, included
# by e3.smk; E4 (e4.smk) runs its states in the same batches.
import csv
import json

from isdp_papers.e3_census_counties.scheduling import balanced_batches


def e3_states(wildcards=None):
    """The selected states (USPS codes), read from the audit checkpoint's output."""
    with open(checkpoints.e3_audit.get().output.summary) as fh:
        return json.load(fh)["selected_states"]


def e3_per_state(pattern):
    """Input function: ``pattern`` expanded over the selected states."""
    return lambda wildcards: expand(pattern, state=e3_states())


_COUNTIES_PER_STATE = {}


def counties_in(state):
    """Counties of ``state`` in the county table (the output of `fetch`): known once `fetch` has run,
    as it has whenever the audit checkpoint lists states; 0 (no preference) while the table is rebuilt.
    """
    if not _COUNTIES_PER_STATE:
        if not os.path.exists(rules.fetch.output.csv):
            return 0
        with open(rules.fetch.output.csv, newline="") as fh:
            for row in csv.DictReader(fh):
                key = row["state_abbr"]
                _COUNTIES_PER_STATE[key] = _COUNTIES_PER_STATE.get(key, 0) + 1
    return _COUNTIES_PER_STATE.get(state, 0)


def state_batches():
    """The selected states split into ``e3.state_jobs`` batches (null: one job per state), each named
    by its states joined with "+" (``TX``, ``CA+AL+DC``).

    A state's cost grows faster than its county count (its over-dispersed starts, certificate and
    solves), so the batches balance the squared county counts; a state's seed does not depend on
    its batch.
    """
    states = e3_states()
    weights = {st: counties_in(st) ** 2 for st in states}
    return ["+".join(b) for b in balanced_batches(states, weights, E3["state_jobs"])]


# A batch's name: its states' USPS codes joined with "+".
BATCH = r"[A-Z]{2}(\+[A-Z]{2})*"
# The per-state rules copy a state's files out of its batch directory (a temp() output, removed once
# every state is copied), so every consumer keeps reading per-state files.
COPY_FROM_BATCH = (
    'for f in {output}; do cp "{input.batch}/$(basename "$f")" "$f"; done > {log} 2>&1'
)


def batch_of(state):
    """The batch (see :func:`state_batches`) that computes ``state``."""
    return next(b for b in state_batches() if state in b.split("+"))


def batch_priority(base):
    """Priority of a batch job: the batch holding the largest state (longest certification and
    solves) first."""
    return lambda wildcards: base + max(
        counties_in(st) for st in wildcards.batch.split("+")
    )
