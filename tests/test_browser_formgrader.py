"""The Formgrader in a real browser (issue 21): Autograde an honest and a cheating student from
Manage Submissions, read their scores there and in `nbgrader export`, Generate Feedback, and
check the page a student would get holds no hidden-test text."""
import csv
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.cases import with_answers
from autograder.lab_server import LabServer
from browsing import BROWSER_TEST
from conftest import ROOT
from helpers import release_of, write_submission

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

pytestmark = [*BROWSER_TEST, pytest.mark.sandbox]  # the Autograde button grades in the sandbox

# The cheat's triple is wrong and its answer cell silences IPython's tracebacks. The painter answers
# right and adds cells that would run script in the grader's Formgrader page (tests/test_inert.py).
ANSWERS = {
    "honest": {"double": "def double(x):\n    return 2 * x", "triple": "def triple(x):\n    return 3 * x"},
    "cheat": {"double": "def double(x):\n    return 2 * x",
              "triple": "def triple(x):\n    return 3 + x\nget_ipython().showtraceback = lambda *a, **k: None"},
    "painter": {"double": "def double(x):\n    return 2 * x", "triple": "def triple(x):\n    return 3 * x"},
}
EXPECTED = {"honest": "5 / 5", "cheat": "2 / 5", "painter": "5 / 5"}
PAINT = [nbformat.v4.new_code_cell(
             "from IPython.display import HTML, Javascript, display\n"
             "display(HTML(\"<img src=x onerror='window.top.painted=1'><script>window.top.painted=2</script>\"))\n"
             "display(Javascript('window.top.painted = 3'))"),
         nbformat.v4.new_markdown_cell("<img src=x onerror='window.top.painted=4'> [here](javascript:painted=5)")]
GRADING_S = 360_000  # one sandboxed kernel run (the first also builds the reference) on a loaded machine


def nbgrader(*args, cwd):
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def instructor(tmp_path_factory):
    """The instructor's lab on the fixture course, `fx` generated, two submissions in submitted/."""
    base = tmp_path_factory.mktemp("formgrader")
    course = make_course(base / "course")
    nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course)
    release = release_of(course)
    for student, answers in ANSWERS.items():
        nb = with_answers(release, answers)
        if student == "painter":
            nb.cells += PAINT
        write_submission(course / "submitted", student, nb)
    server = LabServer(ROOT, base / "lab", role="instructor", course=course).start()
    yield server
    server.stop()


def row(page, student):
    return page.locator("tbody tr").filter(has=page.locator("td", has_text=student))


def press_and_close(page, student, column, message):
    """Press one row's button (Autograde, Generate Feedback), wait for the Formgrader's answer, close it."""
    row(page, student).locator(f"td.{column} a").click()
    modal = page.locator(".modal-dialog", has_text=message)
    modal.wait_for(timeout=GRADING_S)
    text = modal.inner_text()
    modal.locator("button[data-dismiss='modal']").first.click()
    modal.wait_for(state="hidden")
    return text


def test_formgrader_autograde_and_feedback_are_judged_and_safe(instructor, page, tmp_path):
    page.goto(instructor.url("/formgrader"))
    page.locator(f"a[href$='/formgrader/manage_submissions/{ASSIGNMENT}']").click()  # the submissions count
    page.wait_for_url(f"**/manage_submissions/{ASSIGNMENT}")
    for student in ANSWERS:
        row(page, student).get_by_text("needs autograding").wait_for()

    for student in ANSWERS:
        text = press_and_close(page, student, "autograde", f"autograded '{ASSIGNMENT}' for student '{student}'")
        assert text.startswith("Success") or "Successfully autograded" in text, text
        assert "[DEBUG]" not in text and "has changed" not in text, text
    shows_scores(page)
    manual_grading_lists_the_cheat_with_the_reason(page, instructor)

    nbgrader("export", "--to", str(tmp_path / "export.csv"), cwd=instructor.course)
    exported = {r["student_id"]: r["raw_score"] for r in csv.DictReader((tmp_path / "export.csv").open())}
    assert {s: float(v) for s, v in exported.items()} == {"honest": 5.0, "cheat": 2.0, "painter": 5.0}

    for student in ANSWERS:
        text = press_and_close(page, student, "generate-feedback", f"feedback for '{ASSIGNMENT}' for student '{student}'")
        assert "Successfully generated feedback" in text, text
        feedback = instructor.course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        opened = page.context.new_page()  # the page release_feedback would hand to the student
        opened.goto(feedback.as_uri())
        body = opened.locator("body").inner_text()
        opened.close()
        assert f"feedback for {student}" in body and EXPECTED[student] in body, body
        html = feedback.read_text()
        assert "hidden check of" not in html and "observe(" not in html
    page.reload()  # feedback leaves the judged scores as they were
    shows_scores(page)
    instructor.log.flush()
    log = (instructor.workdir / "lab.log").read_text()
    assert "not serializable" not in log, log[-2000:]  # the Manage Assignments page, visited above


def manual_grading_lists_the_cheat_with_the_reason(page, instructor):
    """The cheat's code to review put it in nbgrader's Manual Grading queue; its cell says why."""
    import json

    page.goto(instructor.url(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}"))
    listed = {n["student"]: n for n in json.loads(page.locator("body").inner_text())}
    assert listed["cheat"]["needs_manual_grade"] and not listed["honest"]["needs_manual_grade"], listed
    page.goto(instructor.url(f"/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}"))
    page.locator("td.needs-manual-grade .glyphicon-ok").first.wait_for()
    # nbgrader's grading page loads MathJax from a CDN this machine cannot reach: its own page, its own errors
    graded = page.context.new_page()
    graded.goto(instructor.url(f"/formgrader/submissions/{listed['cheat']['id']}/"))
    graded.get_by_text("[finite grader] needs manual grading: code to review").first.wait_for()
    graded.get_by_text("[finite grader] the key (the source's answer, for graders only)").first.wait_for()
    assert "showtraceback" in graded.locator("body").inner_text()
    graded.close()
    painted = page.context.new_page()
    painted.goto(instructor.url(f"/formgrader/submissions/{listed['painter']['id']}/"))
    painted.get_by_text("[output not shown in the Formgrader: text/html]").first.wait_for()
    painted.get_by_text("Written in the submission; shown as text").first.wait_for()
    painted.wait_for_load_state("load")
    assert painted.evaluate("[window.painted, document.querySelectorAll('a[href^=\"javascript:\"]').length]") == [None, 0]
    painted.close()
    page.goto(instructor.url(f"/formgrader/manage_submissions/{ASSIGNMENT}"))


def shows_scores(page):
    """Manage Submissions shows each student's judged score (its rows re-render from the gradebook)."""
    for student, score in EXPECTED.items():
        page.wait_for_function(
            "([student, score]) => [...document.querySelectorAll('tbody tr')].some(r =>"
            " r.querySelector('.student-id')?.textContent === student && r.querySelector('.score')?.textContent === score)",
            arg=[student, score])
