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

.PHONY: lab lab-instructor test test-fast env sysdeps release check bench kit clean hub hub-users hub-grade hub-stop hub-status

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
	JUPYTER_CONFIG_PATH=$(CURDIR)/lab/instructor $(LAB) --LabApp.default_url=/formgrader

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

# A class on JupyterHub (README): as root on one Linux server. `make hub` installs what is missing
# (under HUB_PREFIX), sets up and starts the hub (configuration and state in HUB_BASE); run again, it
# says where it runs. HUB_PORT, HUB_IP, HUB_MEMORY_MB, HUB_MAX_PROCS, HUB_CPUS, HUB_FILE_MB, HUB_COURSE, HUB_GRADER,
# HUB_GRADERS: hub/setup.py --help.
HUB_BASE ?= /srv/finite-hub
HUB_PREFIX ?= /opt/finite-hub
HUB = $(BIN)/python hub/setup.py --base $(HUB_BASE)
hub: $(STAMP)
	@$(HUB) start --prefix $(HUB_PREFIX) $(if $(HUB_PORT),--port $(HUB_PORT)) $(if $(HUB_IP),--ip $(HUB_IP)) \
		$(if $(HUB_MEMORY_MB),--memory-mb $(HUB_MEMORY_MB)) $(if $(HUB_MAX_PROCS),--max-procs $(HUB_MAX_PROCS)) \
		$(if $(HUB_CPUS),--cpus $(HUB_CPUS)) $(if $(HUB_FILE_MB),--file-mb $(HUB_FILE_MB)) \
		$(if $(HUB_COURSE),--course $(HUB_COURSE)) $(if $(HUB_GRADER),--grader $(HUB_GRADER)) \
		$(if $(HUB_GRADERS),--graders $(HUB_GRADERS))

# Student accounts (homes 700, in nbgrader-ID) from a roster: `make hub-users FILE=roster.csv`
# (COURSE=ID where the hub has several courses, here and for hub-grade).
hub-users: $(STAMP)
	@test -n "$(FILE)" || { echo "give the roster: make hub-users FILE=roster.csv"; exit 2; }
	@$(HUB) users $(if $(COURSE),--course $(COURSE)) $(FILE)

# Grade as root, capped, in the hub's course: `make hub-grade ID=02_norm_overflow`.
hub-grade: $(STAMP)
	@test -n "$(ID)" || { echo "give the assignment: make hub-grade ID=02_norm_overflow"; exit 2; }
	@$(HUB) grade $(if $(COURSE),--course $(COURSE)) $(ID)

hub-stop hub-status: $(STAMP)
	@$(HUB) $(subst hub-,,$@)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
