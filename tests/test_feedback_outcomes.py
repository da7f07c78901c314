"""Feedback a student can act on, and no kernel text after the first hidden test (issues #27.5, #30.3).

Unit tests on the trusted side's scoring of crafted executed notebooks (no kernel), then one
batch through ``grade`` with a crashing, a looping, a wrong, a right and a leaking student.
"""
import re
import csv
import html
import sys
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from conftest import ROOT, run_cli

from autograder.grading.assignment import Assignment
from autograder.grading.disclosure import SecretFilter, assertion_templates
from autograder.grading.verdict import outcome_notes, score_tests
from autograder.sandbox.limits import Limits
from autograder.sandbox.usage import Usage

LIMITS = Limits(cell_timeout=7, notebook_timeout=40)
VISIBLE_A = 'assert f(1) == 2, f"f(1) should be 2, got {f(1)}"'
VISIBLE_B = 'assert g(1) == 3, f"g(1) should be 3, got {g(1)}"\nassert g(0) == 0'
HIDDEN_B = "\n### BEGIN HIDDEN TESTS\nobserve('g(7)', g(7))\n### END HIDDEN TESTS"


def graded_cell(grade_id, source, *outputs):
    meta = {"nbgrader": {"grade": True, "grade_id": grade_id, "locked": True, "solution": False, "points": 1}}
    cell = new_code_cell(source, metadata=meta)
    cell.outputs = list(outputs)
    return cell


def error(evalue, line=1, ename="AssertionError"):
    return new_output("error", ename=ename, evalue=evalue,
                      traceback=[f"Cell In[9], line {line}", f"{ename}: {evalue}"])


def assignment(*cells, quiz=False):
    release = {c.metadata["nbgrader"]["grade_id"]: new_code_cell(c.source.split("\n### BEGIN HIDDEN")[0])
               for c in cells if c.metadata.get("nbgrader", {}).get("locked")}
    tests = {g: 1 for g in release}
    return Assignment("x", release, tests, SecretFilter(["observe('g(7)', g(7))"], []),
                      templates={g: assertion_templates(c.source) for g, c in release.items()},
                      rules={"test_quiz": ("quiz", None)} if quiz else {})


def run(nb, ran=None, **fields):
    """A SandboxRun of ``nb`` that ran the cells ``ran`` (all of them when None)."""
    return SimpleNamespace(**{"outcome": "ok", "usage": Usage(), "timed_out": (), "stopped_in": -1,
                              "ran": tuple(range(len(nb.cells))) if ran is None else tuple(ran), **fields})


def scored(nb, ran=None, **fields):
    return score_tests(nb, run(nb, ran, **fields), assignment(*nb.cells), LIMITS)


def test_before_the_first_hidden_test_a_visible_message_is_shown_with_its_values():
    nb = new_notebook(cells=[graded_cell("test_a", VISIBLE_A, error("f(1) should be 2, got 5"))])
    errors = scored(nb).errors
    assert errors["test_a"] == "AssertionError: f(1) should be 2, got 5"


def test_from_the_first_hidden_test_on_no_kernel_text_reaches_the_row():
    """An oracle: the learner's g raises, while the hidden test runs, a message that fits the
    visible template and carries the hidden input; the row shows the template, not the values."""
    leak = "g(1) should be 3, got hidden-input-7-and-its-source"
    nb = new_notebook(cells=[
        graded_cell("test_a", VISIBLE_A, error("f(1) should be 2, got 5")),
        graded_cell("test_b", VISIBLE_B + HIDDEN_B, error(leak, line=4)),
        graded_cell("test_c", VISIBLE_A, error("f(1) should be 2, got secret-7", ename="ZeroDivisionError")),
    ])
    errors = scored(nb).errors
    assert errors["test_a"] == "AssertionError: f(1) should be 2, got 5"  # before: as before
    assert errors["test_b"] == "a visible check failed: g(1) should be 3, got …"
    assert errors["test_c"] == "a visible check failed: f(1) should be 2, got …"
    assert "hidden-input" not in str(errors) and "secret-7" not in str(errors) and "ZeroDivision" not in str(errors)


def test_after_a_hidden_test_a_check_without_a_message_is_named_by_its_source_line():
    nb = new_notebook(cells=[
        graded_cell("test_b", VISIBLE_B + HIDDEN_B, error("anything the kernel says", line=2)),
        graded_cell("test_c", VISIBLE_B, error("g(7) was 14", line=4)),  # line 4 is no visible assert
    ])
    errors = scored(nb).errors
    assert errors["test_b"] == "a visible check failed: line 2: assert g(0) == 0"
    assert errors["test_c"] == "failed"


def test_a_kernel_death_names_the_cell_on_its_row_and_in_the_notes():
    nb = new_notebook(cells=[graded_cell("test_a", VISIBLE_A), graded_cell("test_b", VISIBLE_B + HIDDEN_B),
                             graded_cell("test_c", VISIBLE_A)])
    errors = scored(nb, ran={0}, outcome="kernel_died", stopped_in=1).errors
    assert errors["test_b"] == "the kernel died in this cell (a crash, or a call that ends the process)"
    assert errors["test_c"] == "did not run (the kernel stopped in test_b (cell 2) before this cell)"
    status, notes = outcome_notes(nb, run(nb, outcome="kernel_died", stopped_in=1), LIMITS)
    assert status == "kernel_died" and notes == ["the kernel died in test_b (cell 2); test cells after that point score 0"]


def test_a_cell_timeout_says_so_on_its_row_and_in_the_notes():
    interrupted = [error("", ename="KeyboardInterrupt"), new_output("error", ename="CellTimeoutError", evalue="",
                                                                      traceback=[])]
    nb = new_notebook(cells=[graded_cell("test_a", VISIBLE_A), graded_cell("test_b", VISIBLE_B + HIDDEN_B, *interrupted)])
    got = scored(nb, timed_out=(1,))
    scores, errors = got.points, got.errors
    assert scores["test_b"] == 0 and errors["test_b"] == "timed out after 7 s in this cell"
    status, notes = outcome_notes(nb, run(nb, timed_out=(1,)), LIMITS)
    assert status == "timeout"
    assert notes == ["test_b (cell 2) timed out after 7 s and was interrupted; the cells after it still ran"]


def test_the_quiz_row_shows_the_learners_own_answers_read_from_the_source():
    quiz = new_code_cell('# one letter each\nq1 = "b"\nq2 = \'C \'\nq3 = 2**23 - 1\nhelper = "not an answer"',
                         metadata={"nbgrader": {"grade_id": "quiz", "solution": True}})
    nb = new_notebook(cells=[quiz, graded_cell("test_quiz", "assert q1", error("", ename="ValueError"))])
    errors = scored(nb).errors
    assert errors["test_quiz"].endswith("your answers: q1 = b, q2 = C , q3 = 2**23 - 1")


# ---------------------------------------------------------------- through `grade` (slow)

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

CRASH = "def triple(x):\n    import os\n    os._exit(3)"
LOOP = "def triple(x):\n    while True:\n        pass"
WRONG = "def triple(x):\n    return 4 * x"
LEAK = ("def double(x):\n    if x != 1:\n        raise AssertionError(f'the visible check found hidden-input-{x}')\n"
        "    return 2 * x")


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_crashing_a_looping_a_wrong_a_right_and_a_leaking_student_read_what_happened(tmp_path):
    from helpers import submit_fx as submit
    from make_fixture_course import ASSIGNMENT, make_course

    course = make_course(tmp_path / "course")
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = source.read_text().replace("assert double(1) == 2", "assert double(1) == 2, f'the visible check found {double(1)}'")
    source.write_text(text)
    assert run_cli("--course", str(course), "release").returncode == 0
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    for student, triple in (("crash", CRASH), ("loop", LOOP), ("wrong", WRONG), ("right", None)):
        submit(course, submitted, student, **({"triple": triple} if triple else {}))
    submit(course, submitted, "leak", double=LEAK)
    done = run_cli("--course", str(course), "grade", str(submitted), "--assignment", ASSIGNMENT, "--out", str(out),
                   "--workers", "2", "--cell-timeout", "30", timeout=900)  # room for a loaded machine
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}

    def page(student):
        return html.unescape((out / "feedback" / student / f"{ASSIGNMENT}.html").read_text())

    assert rows["right"]["status"] == "graded" and rows["right"]["score"] == "5"
    assert rows["wrong"]["status"] == "graded" and rows["wrong"]["score"] == "2"
    assert rows["crash"]["status"] == "kernel_died" and rows["crash"]["score"] == "2"
    assert "the kernel died in test_triple (cell" in rows["crash"]["notes"]
    assert "the kernel died in this cell" in page("crash")
    assert "did not run (the kernel stopped before this cell)" not in page("crash")
    assert rows["loop"]["status"] == "timeout" and "timed out after 30 s" in rows["loop"]["notes"]
    assert "timed out after 30 s in this cell" in page("loop") and "KeyboardInterrupt" not in page("loop")
    assert rows["leak"]["test_double"] == "0"
    # the learner's own source (shown on the page) spells `hidden-input-{x}`; a hidden input formatted into it may not appear
    assert not re.search(r"hidden-input-[-\d]", page("leak") + open(out / "grades.csv").read() + done.stdout + done.stderr)
    assert "a visible check failed: the visible check found …" in page("leak")
    for student in rows:
        print(student, rows[student]["status"], rows[student]["score"], rows[student]["notes"])
