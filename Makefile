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

.PHONY: lab test env release check bench clean

env: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) $(ROOT_FLAG)

test: $(STAMP)
	$(BIN)/python -m pytest

# Instructor shortcuts (see README).
release: $(STAMP)
	$(BIN)/python -m autograder release

check: $(STAMP)
	$(BIN)/python -m autograder check

bench: $(STAMP)
	$(BIN)/python -m autograder bench

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
