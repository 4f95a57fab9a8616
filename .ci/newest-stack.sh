#!/usr/bin/env bash
# The newest-stack leg: the package on $PYTHON (3.13 in .ci/run) installed twice, from the lock of that Python
# (constraints/py3.X.txt) and with no constraints (the newest releases pyproject.toml admits); the method's
# tests, tests/core (unit and statistical: laws, samplers, certificates, the release and its audits), on the
# newest set, and on the locked set too where the two differ; then a CI-profile workflow run of every
# experiment, whose steps, measures and claim verdicts are what tests/experiments covers on the pinned leg,
# its report and the tests of its outputs. tests/experiments itself runs on the pinned leg only, to keep this
# leg's cost down on 2 cores (the pinned leg alone takes most of CI's time). Everything it writes is under
# .ci-newest/.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PYTHON:?set PYTHON to the interpreter of the leg, e.g. a Python 3.13}"
dir=.ci-newest
locked=$dir/venv-locked newest=$dir/venv-newest
leg_start=$SECONDS
make --no-print-directory install PYTHON="$PYTHON" VENV=$locked
make --no-print-directory install PYTHON="$PYTHON" VENV=$newest UNPINNED=1
echo "newest-stack: both installs in $((SECONDS - leg_start)) s"

freeze() { "$1/bin/uv" pip freeze --python "$1/bin/python" --exclude-editable 2>/dev/null | tr 'A-Z_' 'a-z-' | sort; }
echo "newest-stack: $("$newest/bin/python" -V), resolved with no constraints:"
freeze $newest | grep -E '^(numpy|scipy|pandas|numba|arviz-base|arviz-stats|arviz|xarray|h5netcdf|h5py|highspy|snakemake|opendp)==' \
    | tr '\n' ' '; echo
venvs=($newest)
if ! cmp -s <(freeze $locked) <(freeze $newest); then
    echo "newest-stack: the newest set differs from the lock (> newest, < lock):"
    diff <(freeze $locked) <(freeze $newest) | grep '^[<>]' || true
    venvs+=($locked)
else
    echo "newest-stack: the newest set is the lock's, package for package: the tests run once"
fi
for venv in "${venvs[@]}"; do
    start=$SECONDS
    make --no-print-directory unit PYTHON="$PYTHON" VENV="$venv" \
        PYTEST_ARGS="--basetemp=$PWD/$dir/tmp-unit -p no:cacheprovider --durations=10 tests/core"
    echo "newest-stack: tests/core on $venv: $((SECONDS - start)) s"
done
start=$SECONDS
make --no-print-directory workflow-run PYTHON="$PYTHON" VENV=$newest CI_DIR="$PWD/$dir/run" \
    PYTEST_ARGS="--basetemp=$PWD/$dir/tmp-workflow -p no:cacheprovider"
echo "newest-stack: the CI-profile workflow run and its tests: $((SECONDS - start)) s"
echo "newest-stack: $((SECONDS - leg_start)) s in all"
