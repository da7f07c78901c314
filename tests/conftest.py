"""Shared fixtures: the course under test and a way to run the autograder CLI."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import Course

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = Course(ROOT).assignment_ids()


@pytest.fixture(scope="session")
def course():
    return Course(ROOT)


def run_cli(*args, cwd=ROOT, timeout=3600):
    """Run ``python -m autograder ARGS`` and return the CompletedProcess."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture(scope="session")
def kit_env(course, tmp_path_factory):
    """The learner kit set up as its README says, once per session: (kit folder, its venv's Python)."""
    from kit_setup import kit_venv

    kit = tmp_path_factory.mktemp("kit-env") / "finite-kit"
    return kit, kit_venv(course, kit)


# The test files that take longest, longest first: `make test` runs two files at a time in this
# order (pytest-xdist), so that none of them starts last and runs alone at the end.
LONGEST_FIRST = ("test_check", "test_grading", "test_release", "test_bench", "test_kit", "test_hub", "test_rerun",
                 "test_instructor", "test_term", "test_browser_explorers", "test_dask", "test_browser",
                 "test_feedback_outcomes", "test_flood", "test_sandbox_privileges", "test_notebooks")


def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))
