"""A bounded trusted side (issue #30.4): what a kernel sends cannot grow the grading process.

The kernel's client runs in an executor process inside the student's cgroup; the grading worker
only reads back the capped notebook. A 2 GB comm flood leaves the worker's memory where it was and
costs only the student who sent it (``resource_limit``, the note naming the cap); a grading process
that dies costs only the student it held.
"""
import csv
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli

from autograder.sandbox.limits import Limits

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402
from helpers import GOOD_TRIPLE, submit_fx as submit  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]  # starts kernels and sandboxes

FRAME_MB = 48  # each frame under zmq's per-frame limit (bubblewrap.MAX_MESSAGE, 64 MB)


def flood(messages, frames):
    """Answer code sending ``messages`` comm messages of ``frames`` frames of FRAME_MB each."""
    return (f"\nimport comm\nflood = comm.create_comm(target_name='flood')\nblock = b'x' * ({FRAME_MB} * 2**20)\n"
            f"for _ in range({messages}):\n    flood.send({{}}, buffers=[block] * {frames})\nprint('flood sent')\n")


MEASURE = """
import json, resource, sys
import nbformat
from nbformat.v4 import new_code_cell, new_notebook
from autograder.sandbox.limits import Limits
from autograder.sandbox.usage import limit_outcome
from autograder.sandbox.run import run_in_sandbox

limits = Limits(traffic_mb=int(sys.argv[2]))
nb = new_notebook(cells=[new_code_cell("print('before')"), new_code_cell(sys.argv[1]), new_code_cell("print('after')")])
job = nbformat.writes(nb)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
run = run_in_sandbox(job, limits)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rise_mb": (after - before) / 1024, "before_mb": before / 1024, "outcome": run.outcome,
                  "limit": limit_outcome(run.usage, limits), "cgroup_peak_mb": run.usage.memory_peak_mb,
                  "executed_mb": len(run.executed) / 2**20, "stopped_in": run.stopped_in, "ran": run.ran}))
"""


def measure(code, traffic_mb):
    """run_in_sandbox in a fresh grading process; its own peak memory before and after."""
    done = subprocess.run([sys.executable, "-c", MEASURE, code, str(traffic_mb)], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{code.count('range')} flood, traffic cap {traffic_mb} MB: {found}")
    return found


def test_a_2_gb_comm_flood_is_stopped_at_the_traffic_cap_and_the_grading_process_stays_flat():
    found = measure(flood(7, 6), Limits().traffic_mb)  # 7 messages of 6 x 48 MB: 2016 MB
    assert found["rise_mb"] < 256
    assert found["limit"][0] == "resource_limit"
    assert "more than 256 MB on the kernel's iopub channel" in found["limit"][1]
    assert found["stopped_in"] == 1 and found["ran"] == [0]
    assert found["executed_mb"] < 1


def test_a_2_gb_comm_flood_under_the_cap_lands_in_the_students_cgroup_not_the_grader():
    found = measure(flood(42, 1), 4096)  # 42 messages of 48 MB: all received, by the executor
    assert found["rise_mb"] < 256
    assert found["outcome"] == "ok" and found["limit"] is None and found["ran"] == [0, 1, 2]
    assert found["executed_mb"] < 1


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("flood") / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    return course


def test_a_flooder_in_a_batch_costs_only_the_flooder(course, tmp_path):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(course, submitted, "honest")
    submit(course, submitted, "flooder", triple=GOOD_TRIPLE + flood(7, 6))
    done = run_cli("--course", str(course), "grade", str(submitted), "--assignment", ASSIGNMENT, "--out", str(out),
                   "--workers", "2", timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}
    assert rows["honest"]["status"] == "graded" and rows["honest"]["score"] == "5"
    flooder = rows["flooder"]
    assert flooder["status"] == "resource_limit" and flooder["test_double"] == "2", flooder
    assert "sent the grader more than 256 MB on the kernel's iopub channel" in flooder["notes"]
    assert "stopped in triple (cell" in flooder["notes"]  # the answer cell that sent it
    page = (out / "feedback" / "flooder" / f"{ASSIGNMENT}.html").read_text()
    assert "did not run (the kernel stopped in triple (cell" in page


def dies_for_the_marked(notebook_json, limits):
    """run_in_sandbox, except that the process running a marked submission dies (as the OOM
    killer would end it)."""
    from autograder.sandbox.run import run_in_sandbox

    if "KILL-THIS-WORKER" in notebook_json:
        os._exit(9)
    return run_in_sandbox(notebook_json, limits)


def test_a_grading_process_that_dies_costs_only_the_student_it_held(course, tmp_path, monkeypatch):
    from autograder.course import Course
    from autograder.grading import batch, scheduling

    submitted, out = tmp_path / "submitted", tmp_path / "out"
    for student in ("ann", "bob"):
        submit(course, submitted, student)
    submit(course, submitted, "victim", triple=GOOD_TRIPLE + "\n# KILL-THIS-WORKER")
    monkeypatch.setattr(scheduling, "run_in_sandbox", dies_for_the_marked)
    done = batch.grade_batch(Course(course), submitted, ASSIGNMENT, out, 2, Limits(), progress=False,
                             record_grades=False)
    status = {r.student: r for r in done.results}
    assert status["ann"].status == status["bob"].status == "graded" and status["ann"].score == 5
    assert status["victim"].status == "grader_error"
    assert "the grading process running this submission died" in status["victim"].notes[0]
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}
    assert rows["victim"]["status"] == "grader_error" and rows["ann"]["score"] == "5"
