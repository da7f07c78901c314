"""Hostile submissions against a real assignment (01), through `grade`: each gets what its honest
answers deserve, and no feedback page holds hidden-test or solution text in any encoding."""
import csv
import os
import shutil

import nbformat
import pytest

from autograder.cases import Case, build_submission
from autograder.course import Course, answer_cells, graded_tests, hidden_regions
from autograder.grading.disclosure import SecretFilter
from conftest import ROOT, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="bubblewrap is not installed (apt-get install bubblewrap); `make test` installs it",
)]

ID = "01_nonassociativity"
CASES = ROOT / "cases" / ID
# The honest answers every attack is added to: three right, kahan_sum and the quiz wrong.
HONEST = {"kahan_sum": (CASES / "kahan_sum--wrong--left_to_right.py").read_text(),
          "quiz": (CASES / "quiz--wrong--sums_hide_errors.py").read_text()}

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
    answers = {**HONEST}
    for grade_id, code in extra.items():
        answers[grade_id] = answers.get(grade_id, solutions[grade_id].source) + code if code.startswith("\n") else code
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


def test_honest_answers_get_what_they_deserve(graded):
    rows, _, _, _ = graded
    honest = rows["honest"]
    assert honest["test_ulp_distance"] == "3" and honest["test_compare_results"] == "2"
    assert honest["test_stable_variance"] == "3" and honest["test_kahan_sum"] == "0"
    assert float(honest["test_quiz"]) < 2


@pytest.mark.parametrize("attack", ["patcher", "checks", "rewriter", "equaliser", "leaker"])
def test_an_attack_gains_nothing(graded, attack):
    rows, _, _, _ = graded
    assert float(rows[attack]["score"]) <= float(rows["honest"]["score"]), rows[attack]


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
    assert "withheld" in pages["leaker"]


# ---------------------------------------------------------------- generic oracles, every assignment

# An answer that implements nothing and asks the kernel for the answer instead: the caller's
# locals, then the running test cell's own source (its asserts' expected sides, evaluated in a
# copy of the caller's namespace), with fplab's observe replaced by one that asks for an infinite
# tolerance. Against hidden tests that hold no answer it finds nothing.
ORACLE = '''
import ast as _ast, linecache as _lc, sys as _sys
import fplab.observe as _fo
_real_observe = _fo.observe
_fo.observe = lambda name, value, **kw: _real_observe(name, value, rtol=1e300, atol=1e300)

def _oracle():
    frame = _sys._getframe(2)
    while frame is not None:
        for key, value in list(frame.f_locals.items()):
            if any(word in key.lower() for word in ("expect", "want", "ref", "answer", "truth")):
                return value
        source = "".join(_lc.getlines(frame.f_code.co_filename))
        if "observe" in source:
            try:
                tree = _ast.parse(source)
            except SyntaxError:
                tree = None
            for node in _ast.walk(tree) if tree else ():
                if isinstance(node, _ast.Compare) and node.comparators:
                    try:
                        return eval(compile(_ast.Expression(node.comparators[0]), "<o>", "eval"),
                                    dict(frame.f_globals), dict(frame.f_locals))
                    except Exception:
                        continue
        frame = frame.f_back
    return None

def {name}(*args, **kwargs):
    return _oracle()
'''


def first_graded_function(source_nb):
    return next(c.metadata["nbgrader"]["grade_id"] for c in source_nb.cells
                if c.metadata.get("nbgrader", {}).get("solution") and c.metadata["nbgrader"]["grade_id"] != "quiz")


@pytest.mark.parametrize("assignment_id", Course(ROOT).assignment_ids())
def test_an_oracle_reading_the_running_test_and_forging_observe_gains_nothing(assignment_id, tmp_path):
    course = Course(ROOT)
    source_nb = course.source_notebook(assignment_id)
    target = first_graded_function(source_nb)
    release_nb = nbformat.read(course.release / assignment_id / f"{assignment_id}.ipynb", as_version=4)
    attack = build_submission(release_nb, answer_cells(source_nb),
                              Case("oracle", {target: ORACLE.replace("{name}", target)}))
    path = tmp_path / "submitted" / "oracle" / assignment_id / f"{assignment_id}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(attack, path)
    done = run_cli("grade", str(tmp_path / "submitted"), "--assignment", assignment_id, "--out",
                   str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 0, done.stderr
    row = next(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
    assert float(row[f"test_{target}"]) == 0, row
    assert float(row["score"]) <= float(row["max_score"]) - graded_tests(source_nb)[f"test_{target}"], row
    assert "review" in row and "_getframe" in row["review"], row
