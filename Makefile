# Two commands a new user needs: `make reproduce` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
CORES ?= all
CI_DIR ?= $(CURDIR)/.ci-run
SMK := snakemake --snakefile $(CURDIR)/Snakefile
# When make read this file: the start of a run's wall time, which the commands below record with the run's jobs
# and the machine's sampler speed in benchmarks/results/make_times.csv, and write into README.md and
# docs/performance.md (benchmarks/measurements_table.py; a run that finds its outputs up to date is not recorded).
MAKE_START := $(shell date +%s)
RECORD = python $(CURDIR)/benchmarks/measurements_table.py record --start $(MAKE_START) --stamp $(CURDIR)/$(VENV)/.installed

.PHONY: reproduce report readme-counts docs test lint unit workflow-ci benchmark stability national lock clean

# uv installs the same pinned set as pip (constraints.txt) in a fraction of the time; it is the
# installer only, not a dependency of isdp. --compile-bytecode writes the .pyc files pip would:
# without them (and with PYTHONDONTWRITEBYTECODE set, as on the project's machines) every workflow
# job recompiles pandas, SciPy and matplotlib from source, 2-3 s per job.
UV_VERSION := 0.13.9
$(VENV)/.installed: pyproject.toml constraints.txt
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(VENV)/bin/python -c constraints.txt \
	  -e '.[workflow,docs,dev,opendp]'
	$(VENV)/bin/python -m compileall -q src
	@touch $@

## lock: re-resolve pyproject.toml in a scratch venv and pin every version in constraints.txt
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet -e '.[workflow,docs,dev,opendp]'
	{ head -n 2 constraints.txt; echo "# Made on $$(.lock-venv/bin/python -V), $$(uname -sm), $$(date -u +%F)."; \
	  .lock-venv/bin/pip freeze --all --exclude-editable | grep -v -e '^isdp' -e '^pip=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt && rm -rf .lock-venv

## reproduce: every experiment at paper fidelity, then results/report.html
reproduce: $(VENV)/.installed
	$(SMK) --cores $(CORES)
	$(MAKE) report readme-counts
	$(RECORD) "make reproduce" --run $(CURDIR)

report: $(VENV)/.installed
	$(SMK) --report results/report.html

## docs: the documentation site into docs/_build/html, warnings as errors; it renders the review notebooks
## and scorecard of the run in ISDP_RUN (a directory holding results/; default: this repository's run)
# -W makes Sphinx's warnings errors; `quiet` also fails on anything else printed (docutils messages from
# inside a directive, such as the CLI reference's, reach stderr without passing through Sphinx's logger)
SPHINX := sphinx-build -W --keep-going -q -b html
quiet = set -o pipefail; $(1) 2>&1 | tee $(2); test ! -s $(2) || { echo "the docs build printed the messages above"; exit 1; }
docs: $(VENV)/.installed
	mkdir -p docs/_build
	$(call quiet,ISDP_RUN="$(ISDP_RUN)" $(SPHINX) docs docs/_build/html,docs/_build/messages.txt)
	@echo "The site: docs/_build/html/index.html"

## test: lint, a CI-profile workflow run in $(CI_DIR), then the unit, statistical and output tests
test: lint workflow-ci
	$(RECORD) "make test" --run $(CI_DIR)

lint: $(VENV)/.installed
	ruff check src tests workflow/scripts benchmarks notebooks scripts
	snakefmt --check Snakefile workflow/rules
	check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	zizmor --offline --quiet .github/workflows
	$(SMK) --lint --configfile $(CURDIR)/config/ci.yaml
	$(SMK) --profile $(CURDIR)/profiles/slurm --directory $(CI_DIR)-slurm-dry-run -n --quiet all > /dev/null

# pytest-xdist: one worker per core (the tests are independent; each seeds its own streams); worksteal:
# an idle worker takes queued tests from the other, so a slow test near the end does not leave a core idle
unit: $(VENV)/.installed
	pytest -m "not workflow" -n auto --dist worksteal

# One run of the CI profile feeds every workflow test and the documentation site built from it ($(CI_DIR)/site); a second run of a small subset of it
# (tests/workflow/ci_subset.txt: the sampler, coupling, projection and simulation steps) into
# $(CI_DIR)-rerun must give identical tables (the SLURM test submits a shallower subset, slurm_subset.txt).
# Then every test at once: the SLURM test (five short jobs) spends most of its ~1.5 min waiting on the cluster's status
# checks, so it runs beside the two-worker session of all the others instead of after it.
CI_SUBSET := $(shell cat $(CURDIR)/tests/workflow/ci_subset.txt)
CI_ENV := ISDP_CI_RESULTS=$(CI_DIR) ISDP_CI_RERUN=$(CI_DIR)-rerun
SLURM_TEST := tests/workflow/test_slurm.py
workflow-ci: $(VENV)/.installed
	rm -rf $(CI_DIR) $(CI_DIR)-rerun $(CI_DIR)-slurm-dry-run && mkdir -p $(CI_DIR) $(CI_DIR)-rerun
	set -o pipefail; $(SMK) --directory $(CI_DIR) --configfile $(CURDIR)/config/ci.yaml --cores 2 2>&1 \
	  | tee $(CI_DIR)/snakemake.out
	$(SMK) --directory $(CI_DIR) --configfile $(CURDIR)/config/ci.yaml --report $(CI_DIR)/results/report.html
	# the site (one process) is built beside the rerun, whose jobs leave a core idle between them
	{ $(call quiet,ISDP_RUN=$(CI_DIR) $(SPHINX) -d $(CI_DIR)/site-doctrees docs $(CI_DIR)/site,$(CI_DIR)/site-messages.txt); } \
	  > $(CI_DIR)/site.out 2>&1 & site=$$!; \
	$(SMK) --directory $(CI_DIR)-rerun --configfile $(CURDIR)/config/ci.yaml --cores 2 --quiet all -- $(CI_SUBSET); \
	rerun=$$?; wait $$site; built=$$?; cat $(CI_DIR)/site.out; test $$rerun -eq 0 && test $$built -eq 0
	{ $(CI_ENV) pytest -m workflow $(SLURM_TEST) > $(CI_DIR)/slurm-test.out 2>&1; echo $$? > $(CI_DIR)/slurm-test.rc; } & \
	$(CI_ENV) pytest -n 2 --dist worksteal --deselect $(SLURM_TEST); status=$$?; wait; \
	echo "--- $(SLURM_TEST) (run beside the others):"; cat $(CI_DIR)/slurm-test.out; \
	exit $$(( status || $$(cat $(CI_DIR)/slurm-test.rc) ))

## national: E3 and E4 for every state, DC and Puerto Rico, into national/ (config/national.yaml)
national: $(VENV)/.installed
	$(SMK) --directory $(CURDIR)/national --configfile $(CURDIR)/config/national.yaml --cores $(CORES)
	$(RECORD) "make national" --run $(CURDIR)/national

## readme-counts: copy a run's headline counts (RUN, default the paper-fidelity run here) into README.md
RUN ?= $(CURDIR)
readme-counts: $(VENV)/.installed
	$(SMK) --directory $(RUN) --cores 1 results/claim_counts.md
	python -m isdp.experiments.reporting README.md $(RUN)/results/claim_counts.md

## stability: the workflow at paper fidelity under SEEDS (default: three other base seeds), status per claim
stability: $(VENV)/.installed
	python scripts/verdict_stability.py $(if $(SEEDS),--seeds $(SEEDS))

## benchmark: sampler throughput, then cost growth with problem size (benchmarks/results/), single core
benchmark: $(VENV)/.installed
	python benchmarks/sampler_throughput.py
	python benchmarks/cost_growth.py

clean:
	rm -rf $(CI_DIR) $(CI_DIR)-rerun $(CI_DIR)-slurm-dry-run .snakemake
