"""Grading on a Dask cluster (a LocalCluster here): the same results as the local pool, and a
worker killed mid-batch loses nothing."""
import os
import shutil
import signal
import sys
import time

import nbformat
import pytest

from conftest import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="bubblewrap is not installed (apt-get install bubblewrap); `make test` installs it",
)]

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

ANSWERS = {
    "honest": {"double": "def double(x):\n    return x + x", "triple": "def triple(x):\n    return 3 * x"},
    "wrong": {"double": "def double(x):\n    return x + x", "triple": "def triple(x):\n    return 3 + x"},
    "silencer": {"double": "def double(x):\n    return x * 2\nget_ipython().showtraceback = lambda *a, **k: None",
                 "triple": "def triple(x):\n    return x"},
    "blank": {},
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    base = tmp_path_factory.mktemp("dask")
    course = make_course(base / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    release = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for i in range(8):
        student, answers = list(ANSWERS.items())[i % len(ANSWERS)]
        nb = nbformat.from_dict(release)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in answers:
                cell.source = answers[grade_id]
        path = base / "submitted" / f"{student}{i}" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    return course, base


def grade(course, base, out, *extra):
    return run_cli("--course", str(course), "grade", str(base / "submitted"), "--assignment", ASSIGNMENT,
                   "--out", str(base / out), *extra)


def test_dask_cluster_grades_like_the_local_pool_even_when_a_worker_dies(batch):
    from distributed import Client, LocalCluster

    course, base = batch
    local = grade(course, base, "local", "--workers", "2")
    assert local.returncode == 0, local.stderr
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        import subprocess

        command = [sys.executable, "-m", "autograder", "--course", str(course), "grade", str(base / "submitted"),
                   "--assignment", ASSIGNMENT, "--out", str(base / "dask"), "--scheduler", cluster.scheduler_address]
        running = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        results = base / "dask" / ".results"
        deadline = time.monotonic() + 300
        while len(list(results.glob("*.json"))) < 2 and time.monotonic() < deadline and running.poll() is None:
            time.sleep(0.1)
        victim = next(iter(client.run(os.getpid).values()))
        os.kill(victim, signal.SIGKILL)  # one worker dies while others' tasks are in flight
        out, err = running.communicate(timeout=600)
    assert running.returncode == 0, err
    assert (base / "dask" / "grades.csv").read_text() == (base / "local" / "grades.csv").read_text()
    rows = (base / "local" / "grades.csv").read_text()
    assert "honest0,fx,graded,5,5" in rows and "wrong1,fx,graded,2,5" in rows and "silencer2,fx,graded,2,5,2,0" in rows


def test_unreachable_scheduler_is_one_clear_error_before_anything_runs(batch):
    course, base = batch
    done = grade(course, base, "nowhere", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2 and done.stderr.startswith("error: cannot reach the Dask scheduler")
    assert not (base / "nowhere" / "grades.csv").exists()
