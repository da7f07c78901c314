"""Grading on a Dask cluster (a LocalCluster here): the same results as the local pool, and a
worker killed mid-batch loses nothing."""
import os
import signal
import sys
import time

import pytest

from autograder.cases import with_answers
from conftest import ROOT, run_cli
from helpers import release_of, write_submission

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

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
    release = release_of(course)
    for i in range(8):
        student, answers = list(ANSWERS.items())[i % len(ANSWERS)]
        write_submission(base / "submitted", f"{student}{i}", with_answers(release, answers))
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
