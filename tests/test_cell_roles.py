"""Which cells are answers, tests and locked comes from the release, never from the submission:
graded through `python -m autograder grade` on 06, whose exercises carry method rules. The
forbidden answer is the op-registry route (`torch.ops.aten.special_logsumexp`), which the visible
checks do not stop: only the rule does, so a role the submission's metadata turned off would show."""
import copy
import csv

import nbformat
import pytest

from autograder.cases import Case, build_submission
from autograder.course import Course, answer_cells
from conftest import ROOT, run_cli

ID = "06_stable_cross_entropy"
FORBIDDEN = (ROOT / "cases" / ID / "logsumexp--wrong--op_registry.py").read_text()
pytestmark = pytest.mark.slow


def answer_index(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def locked(nb):
    nb.cells[answer_index(nb, "logsumexp")].metadata.nbgrader["locked"] = True  # nbgrader ignores it on an answer


def not_an_answer(nb):
    nb.cells[answer_index(nb, "logsumexp")].metadata.nbgrader["solution"] = False


def stripped(nb):
    del nb.cells[answer_index(nb, "logsumexp")].metadata["nbgrader"]


def renamed(nb):
    nb.cells[answer_index(nb, "logsumexp")]["id"] = "mine"  # a notebook rebuilt: the grade id still says


def copied(nb, source=None):
    """JupyterLab's Duplicate: the copy keeps the metadata and gets a new cell id, below the original."""
    index = answer_index(nb, "logsumexp")
    twin = copy.deepcopy(nb.cells[index])
    twin["id"] = "a-copy"
    if source is not None:
        twin.source = source
    nb.cells.insert(index + 1, twin)


def quiz_test_made_an_answer(nb):
    """A test cell's "solution" flag switched on in JupyterLab's cell metadata editor."""
    nb.cells[answer_index(nb, "test_quiz")].metadata.nbgrader["solution"] = True


def answer_made_graded(nb):
    """An answer cell switched to "Autograded answer" (graded, with points)."""
    nb.cells[answer_index(nb, "logsumexp")].metadata.nbgrader.update(grade=True, points=3)


def pasted(nb):
    """An answer cell pasted from another assignment's notebook: its metadata and id come along."""
    other = nbformat.v4.new_code_cell("def stable_variance(x):\n    return x.var()", metadata={"nbgrader": {
        "grade": False, "grade_id": "stable_variance", "locked": False, "schema_version": 3, "solution": True,
        "task": False}})
    other["id"] = "from-01"
    nb.cells.insert(answer_index(nb, "logsumexp") + 1, other)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("roles")
    course = Course(ROOT).copy_to(base / "course", [ID])
    release = nbformat.read(ROOT / "release" / ID / f"{ID}.ipynb", as_version=4)
    solutions = answer_cells(Course(ROOT).source_notebook(ID))
    students = {
        "honest": (None, None), "locked": (FORBIDDEN, locked), "not_an_answer": (FORBIDDEN, not_an_answer),
        "stripped": (FORBIDDEN, stripped), "renamed": (FORBIDDEN, renamed),
        "copied": (None, copied), "copy_rebinds": (None, lambda nb: copied(nb, FORBIDDEN)),
        "quiz_test_made_an_answer": (None, quiz_test_made_an_answer), "answer_made_graded": (None, answer_made_graded),
        "pasted": (None, pasted),
    }
    for student, (answer, edit) in students.items():
        nb = build_submission(release, solutions, Case(student, {"logsumexp": answer} if answer else {}))
        if edit:
            edit(nb)
        path = base / "submitted" / student / ID / f"{ID}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    done = run_cli("--course", str(course), "grade", str(base / "submitted"), "--assignment", ID,
                   "--out", str(base / "out"), "--workers", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    with (base / "out" / "grades.csv").open() as file:
        return {row["student"]: row for row in csv.DictReader(file)}


@pytest.mark.parametrize("student", ["locked", "not_an_answer", "stripped", "renamed"])
def test_an_answer_cell_whose_metadata_changed_is_judged_as_the_release_says(graded, student):
    row, honest = graded[student], graded["honest"]
    assert row["status"] == "graded" and row["test_logsumexp"] == "0", row
    assert {k: v for k, v in row.items() if k.startswith("test_") and k != "test_logsumexp"} == \
        {k: v for k, v in honest.items() if k.startswith("test_") and k != "test_logsumexp"}
    assert "restored" in row["notes"] or "graded as logsumexp" in row["notes"], row["notes"]


def test_a_copied_answer_cell_costs_nothing_but_the_copy(graded):
    assert graded["copied"]["score"] == graded["honest"]["score"] == graded["honest"]["max_score"]
    assert "cell 23 copies logsumexp: it is graded as your own code" in graded["copied"]["notes"]


def test_a_copy_that_rebinds_the_graded_name_is_judged(graded):
    assert graded["copy_rebinds"]["test_logsumexp"] == "0"
    assert graded["copy_rebinds"]["score"] == str(int(float(graded["honest"]["score"])) - int(
        float(graded["honest"]["test_logsumexp"])))


@pytest.mark.parametrize("student, note", [("quiz_test_made_an_answer", "test_quiz"), ("answer_made_graded", "logsumexp"),
                                           ("pasted", "copies stable_variance")])
def test_metadata_damage_costs_nothing_and_says_what_was_restored(graded, student, note):
    """Issue 45's edits in JupyterLab's metadata editor, and a cell pasted from another notebook: the
    release's roles are restored, the notebook is graded as the honest one, and the note says so."""
    row = graded[student]
    assert row["status"] == "graded" and row["score"] == graded["honest"]["score"], row
    assert note in row["notes"], row["notes"]
