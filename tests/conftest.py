"""Shared fixtures: the course under test, a way to run the autograder CLI, the `sandbox` mark and
the browser tests' lab, browser and page."""
import os
import shutil
import subprocess
import sys
from functools import cache
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


@cache
def sandbox_missing(caps=True, as_root=False) -> str:
    """Why this machine cannot run the sandbox, in one line ("" when it can): bubblewrap, then (``caps``)
    every cap of :func:`~autograder.sandbox.probe.missing_caps`, then (``as_root``) kernels on uids of their own."""
    from autograder.sandbox.limits import Limits
    from autograder.sandbox.probe import missing_caps, runs_unprivileged

    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap); `make test` installs it"
    if caps and missing_caps(Limits()):
        return "this machine cannot cap: " + "; ".join(missing_caps(Limits()))
    if as_root and not runs_unprivileged():
        return "the kernel server needs the grader to be root, to run kernels on uids of their own"
    return ""


def pytest_configure(config):
    config.addinivalue_line("markers", "sandbox(caps=True, as_root=False): runs the sandbox; skipped where this "
                                       "machine cannot (conftest.sandbox_missing), failed under CI without bubblewrap")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """The `sandbox` mark: skip (before any fixture) where this machine cannot sandbox; under CI, which
    installs bubblewrap (`make test`), its absence fails the test instead."""
    mark = item.get_closest_marker("sandbox")
    why = mark and sandbox_missing(**mark.kwargs)
    if why:
        (pytest.fail if os.environ.get("CI") and shutil.which("bwrap") is None else pytest.skip)(why)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The learner's lab, as `make lab` starts it (lab/learner: no instructor tools)."""
    from autograder.lab_server import LabServer

    server = LabServer(ROOT, tmp_path_factory.mktemp("lab"), role="learner").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (tests/browsing.py: CHROMIUM), once per module."""
    from playwright.sync_api import sync_playwright

    from browsing import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh page; fails the test on any JavaScript error; screenshots at the end."""
    from browsing import ARTIFACTS

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=False)
    context.close()
    assert errors == [], f"JavaScript errors: {errors}"


# The test files that take longest, longest first: `make test` runs two files at a time in this
# order (pytest-xdist), so that none of them starts last and runs alone at the end.
LONGEST_FIRST = ("test_check", "test_grading", "test_release", "test_bench", "test_kit", "test_hub", "test_rerun",
                 "test_instructor", "test_term", "test_browser_explorers", "test_dask", "test_browser",
                 "test_feedback_outcomes", "test_flood", "test_sandbox_privileges", "test_notebooks")


def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))
