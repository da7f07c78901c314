# Two commands do everything on a fresh machine:
#   make lab    create the environment if needed, then open the course in JupyterLab
#   make test   create the environment if needed, then run every test
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader shells out to tools (alembic) that live in the venv.
export PATH := $(BIN):$(PATH)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab lab-instructor test test-fast env sysdeps release check bench kit clean

env: $(STAMP)

# System packages the tests use: bubblewrap (grading sandbox), chromium (browser tests).
SYSTEM_PACKAGES := bubblewrap chromium
sysdeps:
	@missing=""; command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
		echo "installing system packages:$$missing"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
		|| echo "could not install$$missing: the tests that need them will say so"; \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

LAB = $(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) $(ROOT_FLAG)

# The learner's lab: nbgrader's instructor tools switched off (lab/learner, see lab/README.md).
lab: $(STAMP)
	mkdir -p .exchange  # nbgrader's exchange (Assignments tab) lives in the course
	JUPYTER_CONFIG_DIR=$(CURDIR)/lab/learner $(LAB) --LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb

# The instructor's lab: the Formgrader, Create Assignment and the course list as nbgrader ships them.
lab-instructor: $(STAMP)
	mkdir -p .exchange
	$(LAB) --LabApp.default_url=/formgrader

# Two passes: every test but those marked `alone`, two test files at a time (pytest-xdist, the
# longest files first: tests/conftest.py); then those marked `alone`, with nothing beside them.
test: $(STAMP) sysdeps
	$(BIN)/python -m pytest -m "not alone" -n 2 --dist loadfile --no-loadscope-reorder
	$(BIN)/python -m pytest -m alone

# The authors' inner loop: unit tests only (no kernel, sandbox, nbgrader or browser), under a minute.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

# Instructor shortcuts (see README).
release: $(STAMP)
	$(BIN)/python -m autograder release

check: $(STAMP)
	$(BIN)/python -m autograder check

bench: $(STAMP)
	$(BIN)/python -m autograder bench

# What students get (README, Instructors): `make kit KIT=../finite-kit`, a new or empty folder.
KIT ?= ../finite-kit
kit: $(STAMP)
	$(BIN)/python -m autograder kit $(KIT)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
