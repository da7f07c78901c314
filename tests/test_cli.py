"""Bad input to the autograder CLI: one clear line, non-zero exit, nothing half-written."""
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
