#!/usr/bin/env bash
# The newest-stack leg: the package on $PYTHON (3.13 in .ci/run) from the lock of that Python (constraints/py3.X.txt)
# and with no constraints (the newest releases pyproject.toml admits). uv resolves the second set first: where it is
# the lock's, package for package, one venv is both and is installed once; where it differs, the newest set gets a
# venv of its own and the tests run on both. Then the method's tests, tests/core (unit and statistical: laws,
# samplers, certificates, the release and its audits), and beside them a CI-profile workflow run:
#  - WORKFLOW=all (the default; GitHub's runners): every experiment, its report and the tests of its outputs, whose
#    steps, measures and claim verdicts are what tests/experiments covers on the pinned leg;
#  - WORKFLOW=subset (.ci/run, on 2 cores and 20 minutes beside the pinned leg): the seeded sampler, coupling,
#    certificate, projection and simulation steps of tests/workflow/ci_subset.txt (make workflow-subset), without
#    the summaries, notebooks and report that read them.
# tests/experiments runs on the pinned leg only. Everything it writes is under .ci-newest/.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PYTHON:?set PYTHON to the interpreter of the leg, e.g. a Python 3.13}"
WORKFLOW=${WORKFLOW:-all}
case $WORKFLOW in all | subset) ;; *) echo "newest-stack: WORKFLOW is all or subset, not '$WORKFLOW'" >&2; exit 2 ;; esac
dir=.ci-newest
locked=$dir/venv-locked newest=$dir/venv-newest
minor=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
lock=constraints/py$minor.txt
extras=$(sed -n 's/^EXTRAS := //p' Makefile)
leg_start=$SECONDS
make --no-print-directory install PYTHON="$PYTHON" VENV=$locked

pins() { grep -E '^[A-Za-z0-9]' | tr 'A-Z_' 'a-z-' | sort; }
newest_set=$("$locked/bin/uv" pip compile pyproject.toml $(printf -- '--extra %s ' ${extras//,/ }) --quiet \
    --python "$locked/bin/python" --no-annotate --no-header | pins)
if [ "$newest_set" = "$(pins < "$lock")" ]; then
    echo "newest-stack: the newest releases pyproject.toml admits are $lock's, package for package: one venv is both"
    venvs=($locked)
else
    echo "newest-stack: the newest releases differ from $lock (> newest, < lock):"
    diff <(pins < "$lock") <(echo "$newest_set") | grep '^[<>]' || true
    make --no-print-directory install PYTHON="$PYTHON" VENV=$newest UNPINNED=1
    venvs=($newest $locked)
fi
echo "newest-stack: installs in $((SECONDS - leg_start)) s"
# the rest at the lowest CPU and I/O priority, beside the pinned leg (.ci/run); the children inherit it
renice -n 19 -p $$ > /dev/null
ionice -c 3 -p $$
echo "newest-stack: $("${venvs[0]}/bin/python" -V), resolved with no constraints:"
"${venvs[0]}/bin/uv" pip freeze --python "${venvs[0]}/bin/python" --exclude-editable 2>/dev/null | tr 'A-Z_' 'a-z-' \
    | grep -E '^(numpy|scipy|pandas|numba|arviz-base|arviz-stats|arviz|xarray|h5netcdf|h5py|highspy|snakemake|opendp)==' \
    | tr '\n' ' '; echo

# tests/core runs beside the workflow run, not after it: each leaves a core idle at times (the workflow's last,
# serial steps; the slowest tests), which the other fills. Its output goes to a file, printed once both are done.
start=$SECONDS
(
    for venv in "${venvs[@]}"; do
        unit_start=$SECONDS
        make --no-print-directory unit PYTHON="$PYTHON" VENV="$venv" \
            PYTEST_ARGS="--basetemp=$PWD/$dir/tmp-unit -p no:cacheprovider --durations=10 tests/core"
        echo "newest-stack: tests/core on $venv: $((SECONDS - unit_start)) s from $((unit_start - leg_start)) s"
    done
) > "$dir/unit.log" 2>&1 &
unit=$!
workflow=0
if [ "$WORKFLOW" = all ]; then
    make --no-print-directory workflow-run PYTHON="$PYTHON" VENV="${venvs[0]}" CI_DIR="$PWD/$dir/run" \
        PYTEST_ARGS="--basetemp=$PWD/$dir/tmp-workflow -p no:cacheprovider" || workflow=$?
    echo "newest-stack: the CI-profile workflow run and its tests: $((SECONDS - start)) s, status $workflow"
else
    make --no-print-directory workflow-subset PYTHON="$PYTHON" VENV="${venvs[0]}" CI_DIR="$PWD/$dir/run" || workflow=$?
    echo "newest-stack: the CI subset of the CI-profile workflow: $((SECONDS - start)) s, status $workflow"
fi
core=0
wait "$unit" || core=$?
cat "$dir/unit.log"
echo "newest-stack: tests/core status $core"
echo "newest-stack: $((SECONDS - leg_start)) s in all"
exit $(( workflow || core ))
