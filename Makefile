# Two commands a new user needs: `make reproduce` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
# The interpreter's minor version picks its lock file: constraints/py3.11.txt … py3.14.txt (`make lock` writes each).
PY_MINOR := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
LOCK_MINORS := 3.11 3.12 3.13 3.14
LOCK := constraints/py$(PY_MINOR).txt
STAMP := $(VENV)/.installed-$(PY_MINOR)
EXTRAS := workflow,docs,dev,opendp,distributed
comma := ,
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
CORES ?= all
CI_DIR ?= $(CURDIR)/.ci-run
SMK := snakemake --snakefile $(CURDIR)/Snakefile
# When make read this file: the start of a run's wall time, which the commands below record with the run's jobs
# and the machine's sampler speed in the run's own results/make_times.csv (benchmarks/measurements_table.py; a run
# that finds its outputs up to date is not recorded). They write no tracked file: `make readme-numbers` copies
# the records and a run's claim counts into README.md and docs/performance.md.
MAKE_START := $(shell date +%s)
RECORD = python $(CURDIR)/benchmarks/measurements_table.py record --start $(MAKE_START) --stamp $(CURDIR)/$(STAMP)
# The sampler speed right before the workflow starts, which RECORD keeps beside its own reading right after
SPEED = python $(CURDIR)/benchmarks/measurements_table.py speed --run

.PHONY: install reproduce report readme-numbers docs test lint unit fuzz workflow-ci workflow-run workflow-subset benchmark \
  stability national lock clean

# uv installs the pinned set of the interpreter's lock in a fraction of pip's time; it is the
# installer only, not a dependency of isdp.
# Python writes a module's bytecode the first time it is imported, as by default, also where the machine sets
# PYTHONDONTWRITEBYTECODE (as the project's machines do): otherwise every workflow job would recompile pandas,
# SciPy and matplotlib from source, 2-3 s per job. Compiling on first import compiles only what runs; compiling
# the whole venv at install (uv's --compile-bytecode, 1.5 GB of packages) cost about 80 CPU-seconds per venv.
unexport PYTHONDONTWRITEBYTECODE
# A venv of another Python minor is made anew. UNPINNED=1 installs without the lock: the newest releases
# pyproject.toml admits (CI's newest-stack leg).
UV_VERSION := 0.13.9
$(STAMP): pyproject.toml papers/pyproject.toml $(LOCK)
	@if test -x $(VENV)/bin/python && ! $(VENV)/bin/python -c 'import sys; sys.exit("%d.%d" % sys.version_info[:2] != "$(PY_MINOR)")'; \
	  then echo "$(VENV) holds another Python: making it anew for $(PY_MINOR)"; rm -rf $(VENV); fi
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --python $(VENV)/bin/python $(if $(UNPINNED),,-c $(LOCK)) -e '.[$(EXTRAS)]' -e ./papers
	@touch $@

## install: the venv alone (PYTHON, VENV and UNPINNED as above)
install: $(STAMP)

constraints/py%.txt:
	@echo "No lock file for Python $* ($(PYTHON)): isdp supports Python $(LOCK_MINORS); pick one, e.g." \
	  "make reproduce PYTHON=python3.13" >&2; exit 1

## lock: resolve pyproject.toml for each supported Python minor into constraints/py3.X.txt; the pins already
## there are kept where pyproject.toml still admits them (uv reads the output file as preferences)
lock:
	test -x $(VENV)/bin/uv || { $(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install --quiet uv==$(UV_VERSION) packaging; }
	for minor in $(LOCK_MINORS); do \
	  $(VENV)/bin/uv pip compile pyproject.toml $(foreach e,$(subst $(comma), ,$(EXTRAS)),--extra $(e)) --quiet \
	    --python-version $$minor --python-platform x86_64-unknown-linux-gnu --no-annotate --no-header \
	    -o constraints/py$$minor.txt || exit 1; \
	  { echo "# Every package version for Python $$minor (x86_64 Linux), resolved from pyproject.toml by \`make lock\`;"; \
	    echo "# the Makefile installs with it: uv pip install -c constraints/py$$minor.txt -e '.[$(EXTRAS)]'"; \
	    cat constraints/py$$minor.txt; } > constraints/py$$minor.txt.new && mv constraints/py$$minor.txt.new constraints/py$$minor.txt; \
	done
	$(VENV)/bin/python scripts/conda_envs.py --python 3.13

## reproduce: every experiment at paper fidelity, then results/report.html
# --report-after-run: the report from the same Snakemake process, which has parsed the workflow already
reproduce: $(STAMP)
	$(SPEED) $(CURDIR)
	$(SMK) --cores $(CORES) --report results/report.html --report-after-run
	$(RECORD) "make reproduce" --run $(CURDIR)

report: $(STAMP)
	$(SMK) --report results/report.html

## docs: the documentation site into docs/_build/html, warnings as errors; it renders the review notebooks
## and scorecard of the run in ISDP_RUN (a directory holding results/; default: this repository's run)
# -W makes Sphinx's warnings errors; `quiet` also fails on anything else printed (docutils messages from
# inside a directive, such as the CLI reference's, reach stderr without passing through Sphinx's logger)
SPHINX := sphinx-build -W --keep-going -q -b html
quiet = set -o pipefail; $(1) 2>&1 | tee $(2); test ! -s $(2) || { echo "the docs build printed the messages above"; exit 1; }
docs: $(STAMP)
	mkdir -p docs/_build
	$(call quiet,ISDP_RUN="$(ISDP_RUN)" $(SPHINX) docs docs/_build/html,docs/_build/messages.txt)
	@echo "The site: docs/_build/html/index.html"

## test: lint, a CI-profile workflow run in $(CI_DIR), then the unit, statistical and output tests
test: lint workflow-ci
	$(RECORD) "make test" --run $(CI_DIR)

## release-check: pyproject.toml's version, papers/pyproject.toml's, the changelog's first heading and CITATION.cff
## agree (docs/changelog.md: X.Y.Z.devN under "Unreleased" between releases); TAG=1 also wants the tag vX.Y.Z on HEAD
release-check:
	$(PYTHON) scripts/release_check.py $(if $(TAG),--tag)

## lint: every hook of .pre-commit-config.yaml on every tracked file (ruff check with the numpydoc rules, ruff format,
## mypy on the library, snakefmt, the CITATION.cff and GitHub workflow schemas, zizmor), then Snakemake's lint and a
## dry run of the SLURM profile
# The hooks are local (the venv's tools, found on PATH above): pre-commit downloads nothing, and keeps its state in
# the venv, so no file outside it is written.
lint: $(STAMP)
	PRE_COMMIT_HOME=$(CURDIR)/$(VENV)/pre-commit pre-commit run --all-files
	$(SMK) --lint --configfile $(CURDIR)/config/ci.yaml
	$(SMK) --profile $(CURDIR)/profiles/slurm --directory $(CI_DIR)-slurm-dry-run -n --quiet all > /dev/null

# pytest-xdist: one worker per core (the tests are independent; each seeds its own streams); worksteal:
# an idle worker takes queued tests from the other, so a slow test near the end does not leave a core idle
# PYTEST_ARGS: more arguments (CI's newest-stack leg names the folders and a --basetemp of its own)
# One BLAS thread per process in the commands that run tests, as Snakemake gives each job (OPENBLAS_NUM_THREADS =
# its threads, 1 in every rule): the workers already fill the cores, and the OpenBLAS that numpy and SciPy bundle
# otherwise starts a thread per core in each of them, which then waits for a core at every call. With both cores
# busy a 38 × 336 SVD took 0.44 s instead of 4 ms, and the E6 and E8 tests 74 s instead of 50 s. Set it to override.
unit fuzz workflow-ci workflow-run workflow-subset: export OPENBLAS_NUM_THREADS ?= 1
unit: $(STAMP)
	pytest -m "not workflow" -n auto --dist worksteal $(PYTEST_ARGS)

## fuzz: the property-based tests (every test file that uses Hypothesis) with the "fuzz" profile: 2,000 fresh
## examples per property instead of CI's fixed 25 (tests/conftest.py); what it finds is kept in .hypothesis/
HYPOTHESIS_TESTS = $(shell grep -rl --include='test_*.py' '^from hypothesis' tests)
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz pytest -m "not workflow" -n auto --dist worksteal $(HYPOTHESIS_TESTS)

# One run of the CI profile feeds every workflow test and the documentation site built from it ($(CI_DIR)/site); a second run of a small subset of it
# (tests/workflow/ci_subset.txt: the sampler, coupling, projection and simulation steps) into
# $(CI_DIR)-rerun, each job loading its own libraries (ISDP_STEP_SERVER=0) where the first run's were forked from the
# step server, must give identical tables (the SLURM test submits a shallower subset, slurm_subset.txt).
# Then every test at once: the SLURM test (five short jobs) spends most of its ~1.5 min waiting on the cluster's status
# checks, so it runs beside the two-worker session of all the others instead of after it.
CI_SUBSET := $(shell cat $(CURDIR)/tests/workflow/ci_subset.txt)
# The CI profile's subset run into the directory $(1): the rerun below, and workflow-subset
ci_subset_run = $(SMK) --directory $(1) --configfile $(CURDIR)/config/ci.yaml --cores 2 --quiet all -- $(CI_SUBSET)
CI_ENV := ISDP_CI_RESULTS=$(CI_DIR) ISDP_CI_RERUN=$(CI_DIR)-rerun
SLURM_TEST := tests/workflow/test_slurm.py
workflow-ci: $(STAMP)
	rm -rf $(CI_DIR) $(CI_DIR)-rerun $(CI_DIR)-slurm-dry-run && mkdir -p $(CI_DIR) $(CI_DIR)-rerun
	$(SPEED) $(CI_DIR)
	set -o pipefail; $(SMK) --directory $(CI_DIR) --configfile $(CURDIR)/config/ci.yaml --cores 2 \
	  --report $(CI_DIR)/results/report.html --report-after-run 2>&1 | tee $(CI_DIR)/snakemake.out
	# the site (one process) is built beside the rerun, whose jobs leave a core idle between them
	{ $(call quiet,ISDP_RUN=$(CI_DIR) $(SPHINX) -d $(CI_DIR)/site-doctrees docs $(CI_DIR)/site,$(CI_DIR)/site-messages.txt); } \
	  > $(CI_DIR)/site.out 2>&1 & site=$$!; \
	ISDP_STEP_SERVER=0 $(call ci_subset_run,$(CI_DIR)-rerun); \
	rerun=$$?; wait $$site; built=$$?; cat $(CI_DIR)/site.out; test $$rerun -eq 0 && test $$built -eq 0
	{ $(CI_ENV) pytest -m workflow $(SLURM_TEST) > $(CI_DIR)/slurm-test.out 2>&1; echo $$? > $(CI_DIR)/slurm-test.rc; } & \
	$(CI_ENV) pytest -n 2 --dist worksteal --deselect $(SLURM_TEST); status=$$?; wait; \
	echo "--- $(SLURM_TEST) (run beside the others):"; cat $(CI_DIR)/slurm-test.out; \
	exit $$(( status || $$(cat $(CI_DIR)/slurm-test.rc) ))

# The CI-profile workflow run alone and its report, then the tests of its outputs (CI's newest-stack leg; `make
# test` does more: the lint, the site, a rerun that must give identical tables, the SLURM test)
WORKFLOW_RUN_TESTS := tests/workflow/test_workflow.py tests/workflow/test_notebook_outputs.py
workflow-run: $(STAMP)
	rm -rf $(CI_DIR) && mkdir -p $(CI_DIR)
	$(SMK) --directory $(CI_DIR) --configfile $(CURDIR)/config/ci.yaml --cores 2 --quiet \
	  --report $(CI_DIR)/results/report.html --report-after-run all
	ISDP_CI_RESULTS=$(CI_DIR) pytest -m workflow -n 2 --dist worksteal $(PYTEST_ARGS) $(WORKFLOW_RUN_TESTS)

# The CI profile's subset alone (tests/workflow/ci_subset.txt, as make test's rerun): the seeded sampler, coupling,
# certificate, projection and simulation steps, without the summaries, notebooks and report that read them (the
# newest-stack leg of .ci/run, which says why)
workflow-subset: $(STAMP)
	rm -rf $(CI_DIR) && mkdir -p $(CI_DIR)
	$(call ci_subset_run,$(CI_DIR))

## national: E3 and E4 for every state, DC and Puerto Rico, into national/ (config/national.yaml)
national: $(STAMP)
	$(SPEED) $(CURDIR)/national
	$(SMK) --directory $(CURDIR)/national --configfile $(CURDIR)/config/national.yaml --cores $(CORES)
	$(RECORD) "make national" --run $(CURDIR)/national

## readme-numbers (maintainers): copy a run's claim counts (RUN, default the paper-fidelity run here) into
## README.md, and the times recorded by the last runs of the commands into benchmarks/results/make_times.csv,
## README.md and docs/performance.md; then commit them
RUN ?= $(CURDIR)
readme-numbers: $(STAMP)
	$(SMK) --directory $(RUN) --cores 1 results/claim_counts.md
	python -m isdp_papers.reporting README.md $(RUN)/results/claim_counts.md
	python benchmarks/measurements_table.py publish $(wildcard $(CURDIR)/results/make_times.csv \
	  $(CI_DIR)/results/make_times.csv $(CURDIR)/national/results/make_times.csv)

## stability: the workflow at paper fidelity under SEEDS (default: three other base seeds), status per claim
stability: $(STAMP)
	python scripts/verdict_stability.py $(if $(SEEDS),--seeds $(SEEDS))

## benchmark: sampler throughput, then cost growth with problem size (benchmarks/results/), single core
benchmark: $(STAMP)
	python benchmarks/sampler_throughput.py
	python benchmarks/cost_growth.py

clean:
	rm -rf $(CI_DIR) $(CI_DIR)-rerun $(CI_DIR)-slurm-dry-run .snakemake
