"""Hostile submissions against a real assignment (01), through `grade`: each gets what its honest
answers deserve, and no feedback page holds hidden-test or solution text in any encoding."""
import csv

import nbformat
import pytest

from autograder.cases import EVERY_ASSIGNMENT, Case, build_submission, load_cases, solution_text
from autograder.course import Course, answer_cells, hidden_regions
from autograder.grading.disclosure import SecretFilter
from conftest import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

ID = "01_nonassociativity"
CASES = ROOT / "cases" / ID
# The honest answers every attack is added to: three right, kahan_sum and the quiz wrong.
HONEST = {"kahan_sum": (CASES / "kahan_sum--wrong--left_to_right.py").read_text(),
          "quiz": (CASES / "quiz--wrong--sums_hide_errors.py").read_text()}
# The generic oracle (cases/every_assignment/), as the self-check adds it to every assignment.
(ORACLE,) = [c for c in load_cases(Course(ROOT), ID, answer_cells(Course(ROOT).source_notebook(ID)))
             if c.name.startswith(EVERY_ASSIGNMENT)]

PATCH_RUN_CELL = """
_shell = get_ipython()
_run, _run_async = _shell.run_cell, _shell.run_cell_async
def _lie(result):
    result.error_in_exec = result.error_before_exec = None
    return result
_shell.run_cell = lambda *a, **k: _lie(_run(*a, **k))
async def _lying_async(*a, **k):
    return _lie(await _run_async(*a, **k))
_shell.run_cell_async = _lying_async
_shell.showtraceback = lambda *a, **k: None
"""
REWRITE_LATER_CELLS = "\nget_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"
PATCH_CHECKS = """
import builtins, math, numpy, torch
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
numpy.allclose = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
math.isclose = lambda *a, **k: True
builtins.AssertionError = type("AssertionError", (Exception,), {})
"""
ALWAYS_EQUAL = '''
class _Yes(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __le__ = __ge__ = __lt__ = __gt__ = __eq__
    def __bool__(self): return True
    def item(self): return self
    def __abs__(self): return _Yes(0.0)
    def __sub__(self, other): return _Yes(0.0)
    __rsub__ = __add__ = __radd__ = __sub__
import torch
def kahan_sum(x):
    return _Yes(0.0)
'''
LEAK_QUIZ = '''
class _Leaky(str):
    def strip(self, *args):
        raise ValueError(get_ipython().user_ns["In"][-1][::-1])
q1 = q2 = q4 = _Leaky("a")
q3 = 1
import base64
print(base64.b64encode("\\n".join(get_ipython().user_ns["In"]).encode()).decode())
print("\\n".join(get_ipython().user_ns["In"])[::-1])
'''


def submission(release_nb, solutions, extra):
    """The honest answers with ``extra``'s: code starting with a newline is added to the cell's answer
    (the source's solution, without nbgrader's markers), other code replaces it."""
    answers = {**HONEST}
    for grade_id, code in extra.items():
        answers[grade_id] = answers.get(grade_id, solution_text(solutions[grade_id])) + code if code.startswith("\n") else code
    return build_submission(release_nb, solutions, Case("attack", answers))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("attacks")
    course = Course(ROOT)
    release_nb = nbformat.read(course.release / ID / f"{ID}.ipynb", as_version=4)
    solutions = answer_cells(course.source_notebook(ID))
    attacks = {
        "honest": {},
        "patcher": {"ulp_distance": "\n" + PATCH_RUN_CELL},
        "rewriter": {"ulp_distance": REWRITE_LATER_CELLS},
        "checks": {"ulp_distance": "\n" + PATCH_CHECKS},
        "equaliser": {"kahan_sum": ALWAYS_EQUAL},
        "leaker": {"quiz": LEAK_QUIZ},
        "oracle": ORACLE.answers,  # the generic attack every assignment's self-check grades
    }
    for student, extra in attacks.items():
        path = base / "submitted" / student / ID / f"{ID}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(submission(release_nb, solutions, extra), path)
    done = run_cli("grade", str(base / "submitted"), "--assignment", ID, "--out", str(base / "out"),
                   "--workers", "2")
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader((base / "out" / "grades.csv").open())}
    pages = {s: (base / "out" / "feedback" / s / f"{ID}.html").read_text() for s in attacks}
    return rows, pages, course, release_nb


def test_the_oracle_scores_nothing_and_is_flagged_for_review(graded):
    rows, _, _, _ = graded
    (target,) = ORACLE.answers
    assert rows["oracle"][f"test_{target}"] == "0", rows["oracle"]
    assert float(rows["oracle"]["score"]) == float(rows["honest"]["score"]) - float(rows["honest"][f"test_{target}"])
    assert "_getframe" in rows["oracle"]["review"], rows["oracle"]


def test_honest_answers_get_what_they_deserve(graded):
    rows, _, _, _ = graded
    honest = rows["honest"]
    assert honest["test_ulp_distance"] == "3" and honest["test_compare_results"] == "2"
    assert honest["test_stable_variance"] == "3" and honest["test_kahan_sum"] == "0"
    assert float(honest["test_quiz"]) < 2


# attack -> the tests that score as the honest student's: all but the attacked cell's, less what the
# attack breaks of its own (checks' patched torch.equal breaks its compare_results; the rewriter's
# transformer blanks every later cell, its own answers too).
KEPT = {"patcher": ["test_kahan_sum", "test_compare_results", "test_stable_variance", "test_quiz"],
        "checks": ["test_kahan_sum", "test_stable_variance", "test_quiz"],
        "rewriter": [],
        "equaliser": ["test_ulp_distance", "test_compare_results", "test_stable_variance", "test_quiz"],
        "leaker": ["test_ulp_distance", "test_kahan_sum", "test_compare_results", "test_stable_variance"]}


@pytest.mark.parametrize("attack", KEPT)
def test_an_attack_gains_nothing_and_the_answers_it_leaves_score_as_the_honest_ones(graded, attack):
    rows, _, _, _ = graded
    honest = rows["honest"]
    assert honest["status"] == "graded" and float(honest["score"]) >= 8, honest  # the control: 3 + 2 + 3 right
    assert float(rows[attack]["score"]) <= float(honest["score"]), rows[attack]
    assert {test: rows[attack][test] for test in KEPT[attack]} == {test: honest[test] for test in KEPT[attack]}, \
        rows[attack]


def test_no_feedback_page_holds_hidden_text_in_any_encoding(graded):
    _, pages, course, release_nb = graded
    # Hidden tests only: a page rightly shows the student's own answers, which may equal the solutions.
    tests = [region for cell in course.source_notebook(ID).cells if cell.metadata.get("nbgrader", {}).get("grade")
             for region in hidden_regions(cell.source)]
    secrets = SecretFilter(tests, [cell.source for cell in release_nb.cells])
    hidden = [line.strip() for region in tests for line in region.splitlines() if len(line.strip()) > 30]
    assert hidden
    for student, page in pages.items():
        assert "BEGIN HIDDEN" not in page and "SNEDDIH" not in page, student
        assert not any(line in page or line[::-1] in page for line in hidden), student
        assert not secrets.leaks(page), student
    assert "ran after the first test cell" in pages["leaker"]  # its output is not shown at all
