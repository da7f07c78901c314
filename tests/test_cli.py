"""Bad input to the autograder CLI: one clear line, non-zero exit, nothing half-written."""
import os
import shutil

import pytest

from conftest import ASSIGNMENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


@pytest.fixture
def course_copy(tmp_path):
    """A throwaway course with the first assignment and its release."""
    first = ASSIGNMENTS[0]
    shutil.copy2(ROOT / "nbgrader_config.py", tmp_path)
    (tmp_path / "source").mkdir()
    shutil.copy2(ROOT / "source" / "header.ipynb", tmp_path / "source")
    shutil.copytree(ROOT / "source" / first, tmp_path / "source" / first)
    shutil.copytree(ROOT / "release" / first, tmp_path / "release" / first)
    return tmp_path


def snapshot(folder):
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_one_line_error(done, *words):
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("command", ["release", "check", "bench"])
def test_unknown_assignment_id(course_copy, command):
    before = snapshot(course_copy / "release")
    done = run_cli("--course", str(course_copy), command, "99_no_such_topic")
    assert_one_line_error(done, "99_no_such_topic", "does not exist")
    assert snapshot(course_copy / "release") == before


def test_folder_without_its_notebook(course_copy):
    (course_copy / "source" / "09_empty").mkdir()
    done = run_cli("--course", str(course_copy), "release", "09_empty")
    assert_one_line_error(done, "09_empty", "no notebook")


def test_notebook_that_is_not_json_changes_nothing(course_copy):
    first = ASSIGNMENTS[0]
    (course_copy / "source" / first / f"{first}.ipynb").write_text('{"cells": [')
    before = snapshot(course_copy / "release")
    for command in ("release", "check", "bench"):
        done = run_cli("--course", str(course_copy), command, first)
        assert_one_line_error(done, f"{first}.ipynb", "not a valid notebook")
    assert snapshot(course_copy / "release") == before
    assert [p.name for p in (course_copy / "release").iterdir()] == [first]


def test_not_a_course_root(tmp_path):
    done = run_cli("--course", str(tmp_path), "release")
    assert_one_line_error(done, "nbgrader_config.py")


def test_release_twice_changes_nothing(course_copy):
    first = run_cli("--course", str(course_copy), "release")
    assert first.returncode == 0, first.stderr
    before = snapshot(course_copy / "release")
    second = run_cli("--course", str(course_copy), "release")
    assert second.returncode == 0 and "0 of 1 assignments changed" in second.stdout
    assert snapshot(course_copy / "release") == before


def class_of(course_copy, notebooks: dict):
    """submitted/<student>/<ID>/<ID>.ipynb from {student: assignment id}, each the committed release."""
    for student, assignment_id in notebooks.items():
        folder = course_copy / "submitted" / student / assignment_id
        folder.mkdir(parents=True)
        shutil.copy2(ROOT / "release" / assignment_id / f"{assignment_id}.ipynb", folder)
    return course_copy / "submitted"


def grade(course_copy, *flags, assignment=None):
    return run_cli("--course", str(course_copy), "grade", str(course_copy / "submitted"), "--assignment",
                   assignment or ASSIGNMENTS[0], "--out", str(course_copy / "out"), *flags)


def test_grading_the_wrong_assignment_stops_and_writes_nothing(course_copy):
    class_of(course_copy, {"alice": ASSIGNMENTS[1], "bob": ASSIGNMENTS[1]})
    done = grade(course_copy)
    assert_one_line_error(done, "none of the 2 student folders", f"a notebook of {ASSIGNMENTS[0]}",
                          "is --assignment right?")
    assert not (course_copy / "gradebook.db").exists() and not (course_copy / "out").exists()


def test_a_dry_run_says_who_would_be_graded_and_runs_nothing(course_copy):
    class_of(course_copy, {"alice": ASSIGNMENTS[0], "bob": ASSIGNMENTS[1]})
    done = grade(course_copy, "--dry-run")
    assert done.returncode == 0, done.stderr
    first = ASSIGNMENTS[0]
    assert done.stdout.splitlines() == [f"alice: alice/{first}/{first}.ipynb: graded (new)",
                                        "bob: no notebook (missing): graded (new)",
                                        "2 students; nothing was run or written (--dry-run)"]
    assert not (course_copy / "gradebook.db").exists() and not (course_copy / "out").exists()


def test_a_second_grade_on_the_same_output_folder_stops_at_once(course_copy):
    import fcntl

    class_of(course_copy, {"alice": ASSIGNMENTS[0]})
    (course_copy / "out").mkdir()
    with open(course_copy / "out" / ".grade.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("process 4242 (since 2026-12-07 09:00:00)")
        lock.flush()
        done = grade(course_copy)
    assert_one_line_error(done, "is being graded by process 4242 (since 2026-12-07 09:00:00)", "another --out")
    assert not (course_copy / "gradebook.db").exists()


def test_the_term_needs_a_learners_environment_and_says_so(tmp_path):
    done = run_cli("term", "--learner-env", str(tmp_path / "nothing"))
    assert done.returncode == 2 and done.stdout == ""
    assert ("not a learners' environment" if os.geteuid() == 0 else "run as root") in done.stderr, done.stderr
