"""Day one through nbgrader's exchange: release, fetch, submit, collect, grade, export, feedback."""
import csv
import getpass
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.cases import with_answers
from conftest import ROOT, run_cli
from helpers import release_of, write_submission
from autograder.grading.autograded import KEY_LINE

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402


def nbgrader(*args, cwd):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_exchange_round_trip_with_our_grader(tmp_path):
    course = make_course(tmp_path / "course")
    with (course / "nbgrader_config.py").open("a") as config:  # one OS account plays both students
        config.write(f"\nc.Collect.accounts = {dict.fromkeys(('alice', 'bob'), getpass.getuser())!r}\n")
    exchange = [f"--Exchange.root={course / '.exchange'}", "--course", "finite"]
    nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course)
    nbgrader("release_assignment", ASSIGNMENT, cwd=course)
    for student, triple in (("alice", "return 3 * x"), ("bob", "return 3 + x")):
        home = tmp_path / student
        home.mkdir()
        nbgrader("fetch_assignment", ASSIGNMENT, *exchange, cwd=home)
        path = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        answers = {"double": "def double(x):\n    return 2 * x", "triple": f"def triple(x):\n    {triple}"}
        nbformat.write(with_answers(nbformat.read(path, as_version=4), answers), path)
        nbgrader("submit", ASSIGNMENT, *exchange, f"--CourseDirectory.student_id={student}", cwd=home)
    nbgrader("collect", ASSIGNMENT, cwd=course)
    assert (course / "submitted" / "alice" / ASSIGNMENT / "timestamp.txt").is_file()

    done = run_cli("--course", str(course), "grade", str(course / "submitted"), "--assignment", ASSIGNMENT,
                   "--out", str(course / "grading" / ASSIGNMENT), "--workers", "2")
    assert done.returncode == 0, done.stderr

    nbgrader("export", "--to", str(tmp_path / "grades.csv"), cwd=course)
    exported = {r["student_id"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert float(exported["alice"]["raw_score"]) == 5 and float(exported["bob"]["raw_score"]) == 2
    assert exported["alice"]["timestamp"] not in ("", "None")

    nbgrader("release_feedback", ASSIGNMENT, cwd=course)
    nbgrader("fetch_feedback", ASSIGNMENT, *exchange, "--CourseDirectory.student_id=alice", cwd=tmp_path / "alice")
    # One OS user plays both students here, so nbgrader hands both pages back; each is its student's.
    pages = {p.parent.name: p.read_text() for p in (tmp_path / "alice" / ASSIGNMENT / "feedback").rglob("*.html")}
    assert any("feedback for alice" in page and "5 / 5" in page for page in pages.values()), pages.keys()


# The cheat's cell also says where its kernel ran: the sandbox's working folder, not nbgrader's autograded/.
CHEAT = ("def triple(x):\n    get_ipython().showtraceback = lambda *a, **k: None\n"
         "    get_ipython().showsyntaxerror = lambda *a, **k: None\n    return 3 + x\n"
         "import os\nprint('the kernel ran in', os.getcwd())")


def exported(course, tmp_path, name):
    nbgrader("export", "--to", str(tmp_path / name), cwd=course)
    return {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader((tmp_path / name).open())}


def test_nbgrader_autograde_grade_and_feedback_are_one_judged_pipeline(tmp_path):
    """nbgrader autograde, generate_feedback and `grade` give the same judged scores and safe
    pages, whichever runs last; a score set by hand survives both."""
    from nbgrader.api import Gradebook

    course = make_course(tmp_path / "course")
    nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course)
    release = release_of(course)
    for student, triple in (("honest", "def triple(x):\n    return 3 * x"), ("cheat", CHEAT)):
        write_submission(course / "submitted", student,
                         with_answers(release, {"double": "def double(x):\n    return 2 * x", "triple": triple}))
    grade = ["--course", str(course), "grade", str(course / "submitted"), "--assignment", ASSIGNMENT,
             "--out", str(course / "grading" / ASSIGNMENT), "--workers", "2"]
    done = run_cli(*grade)
    assert done.returncode == 0, done.stderr
    table = {r["student"]: float(r["score"]) for r in csv.DictReader((course / "grading" / ASSIGNMENT / "grades.csv").open())}
    assert table == {"honest": 5.0, "cheat": 2.0}
    assert "review" in done.stdout and "get_ipython" in done.stdout
    assert exported(course, tmp_path, "after-grade.csv") == table
    assert (course / "autograded" / "cheat" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        # the cheat's review note put its cells in the Formgrader's Manual Grading queue
        assert gradebook.find_grade("test_triple", ASSIGNMENT, ASSIGNMENT, "cheat").needs_manual_grade
        assert not gradebook.find_grade("test_triple", ASSIGNMENT, ASSIGNMENT, "honest").needs_manual_grade
        grade_row = gradebook.find_grade("test_triple", ASSIGNMENT, ASSIGNMENT, "cheat")
        grade_row.manual_score = 1.0
        gradebook.find_comment("triple", ASSIGNMENT, ASSIGNMENT, "cheat").manual_comment = COMMENT
        gradebook.db.commit()
    flagged = nbformat.read(course / "autograded" / "cheat" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    assert any("needs manual grading: code to review" in "".join(o.get("text", "") for o in c.get("outputs", []))
               for c in flagged.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_triple")
    # beside the flagged test's answer, the grader sees the source's answer; the honest notebook needs none
    keys = {student: ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in nbformat.read(
        course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "triple"][0] for student in ("honest", "cheat")}
    assert KEY_LINE in keys["cheat"] and "return 3 * x" in keys["cheat"] and KEY_LINE not in keys["honest"]

    (course / "autograded" / "cheat" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").unlink()  # what is read below is autograde's
    auto = nbgrader("autograde", ASSIGNMENT, "--force", cwd=course)
    log = auto.stdout + auto.stderr
    # the kernel ran in the sandbox (SandboxedExecute), never in nbgrader's own Execute
    assert "Executing notebook with kernel" not in log, log
    autograded = nbformat.read(course / "autograded" / "cheat" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in autograded.cells for o in c.get("outputs", []))
    assert "the kernel ran in /tmp/work\n" in printed, printed
    assert "has changed" not in log and "DEBUG" not in log, log  # no checksum noise for untouched cells
    assert "cheat: graded, 3 / 5 (1 cell(s) graded by hand)" in log and "cheat: review:" in log, log
    assert exported(course, tmp_path, "after-autograde.csv") == {"honest": 5.0, "cheat": 3.0}  # manual kept
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_grade("test_triple", ASSIGNMENT, ASSIGNMENT, "cheat").auto_score == 0.0

    nbgrader("generate_feedback", ASSIGNMENT, "--force", cwd=course)
    for student in ("honest", "cheat"):
        page = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        assert f"feedback for {student}" in page
        assert KEY_LINE.strip() not in page and "the key" not in page
        assert "hidden check of" not in page and "observe(" not in page and "return 2 * x" not in page.replace(
            "def double(x):\n    return 2 * x", "")
    nbgrader_page = (course / "feedback" / "cheat" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()

    done = run_cli(*grade)  # grade after autograde: same judged scores, manual score still there
    assert done.returncode == 0, done.stderr
    assert "kept" in done.stdout and "mean score 4 / 5" in done.stdout
    assert exported(course, tmp_path, "after-regrade.csv") == {"honest": 5.0, "cheat": 3.0}
    rows = {r["student"]: r for r in csv.DictReader((course / "grading" / ASSIGNMENT / "grades.csv").open())}
    assert (rows["cheat"]["score"], rows["cheat"]["test_triple"], rows["cheat"]["graded_by_hand"]) == \
        ("3", "1", "test_triple")
    grade_page = (course / "grading" / ASSIGNMENT / "feedback" / "cheat" / f"{ASSIGNMENT}.html").read_text()
    for page in (nbgrader_page, grade_page):  # both pages: the manual score and the comment, beside the cell
        assert "3 / 5" in page and "1 / 3 (graded by hand)" in page and "Instructor:</strong> Good try" in page
    assert nbgrader_page == grade_page


COMMENT = "Good try, but patching IPython is not an answer: 1 point for the idea."
