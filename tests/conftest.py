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


# Modules that start kernels, sandboxes, nbgrader or a browser. `make test-fast` skips them.
SLOW_MODULES = {"test_grading", "test_check", "test_browser", "test_browser_explorers", "test_notebooks",
                "test_release", "test_cli", "test_caps", "test_attacks", "test_instructor", "test_dask", "test_bench"}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.module.__name__ in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
