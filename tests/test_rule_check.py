"""The visible tests' rule check (fplab.rule_check) says what the grader says, from the learner's
notebook alone (kernel-free: the learner's kernel is played by calling it in this process)."""
from types import SimpleNamespace

import nbformat
import pytest

from autograder.cases import build_submission, load_cases
from autograder.course import Course, answer_cells, read_notebook
from autograder.grading.assignment import load_assignment
from autograder.grading.verdict import method_problems
from fplab import rule_check
from fplab.rules.cells import digest

COURSE = Course(".")
RULED = [a for a in COURSE.assignment_ids()
         if any("allow" in c.metadata.get("finite", {}) for c in COURSE.source_notebook(a).cells)]


def learner_folder(tmp_path, monkeypatch, assignment_id, nb):
    """Save ``nb`` where a learner's kernel finds it (``release/ID/ID.ipynb``, the kernel's folder)."""
    folder = tmp_path / assignment_id
    folder.mkdir()
    nbformat.write(nb, folder / f"{assignment_id}.ipynb")
    monkeypatch.chdir(folder)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setattr(rule_check, "_ran", {})


@pytest.mark.slow
@pytest.mark.parametrize("assignment_id", RULED)
def test_same_verdict_as_the_grader_on_every_case(assignment_id, tmp_path, monkeypatch):
    """For every self-check case, each rule-bearing exercise: the kernel's check fails exactly when
    the grader's rule costs the exercise, with the grader's own message."""
    release = read_notebook(COURSE.release / assignment_id / f"{assignment_id}.ipynb")
    assignment = load_assignment(COURSE, assignment_id, release)
    solutions = answer_cells(COURSE.source_notebook(assignment_id))
    ruled = [answer for answer, _ in assignment.rules.values()]
    breaches = 0
    for number, case in enumerate(load_cases(COURSE, assignment_id, solutions)):
        nb = build_submission(release, solutions, case)
        graded = method_problems(nb, assignment)
        (tmp_path / str(number)).mkdir()
        learner_folder(tmp_path / str(number), monkeypatch, assignment_id, nb)
        for answer in ruled:
            assert rule_check._problem(answer) == graded.get(f"test_{answer}", ""), (case.name, answer)
            breaches += bool(graded.get(f"test_{answer}"))
    assert breaches, f"{assignment_id}: no case breaks a rule, so this proves nothing"


def kahan_notebook(answer):
    release = read_notebook(COURSE.release / "01_nonassociativity" / "01_nonassociativity.ipynb")
    cells = answer_cells(release)
    cells["kahan_sum"].source = answer
    return release, cells["kahan_sum"]


def test_check_rule_fails_with_the_graders_message(tmp_path, monkeypatch):
    nb, _ = kahan_notebook("def kahan_sum(x):\n    return x.double().sum().float()\n")
    learner_folder(tmp_path, monkeypatch, "01_nonassociativity", nb)
    with pytest.raises(AssertionError, match=r"kahan_sum, line 2: .*`\.double`.*graded, kahan_sum scores 0"):
        rule_check.check_rule("kahan_sum")


def test_a_cell_as_it_last_ran_counts_over_the_saved_one(tmp_path, monkeypatch):
    """JupyterLab names the cell that ran: an edit run but not saved yet is what the check reads."""
    nb, answer = kahan_notebook("def kahan_sum(x):\n    return x.sum()\n")
    learner_folder(tmp_path, monkeypatch, "01_nonassociativity", nb)
    rule_check.check_rule("kahan_sum")
    rule_check.record_cell(SimpleNamespace(cell_id=answer.id, raw_cell="import math\ndef kahan_sum(x):\n"
                                           "    return math.fsum(x)\n"))
    with pytest.raises(AssertionError, match="math"):
        rule_check.check_rule("kahan_sum")


def test_no_check_while_graded_and_a_line_when_it_cannot_tell(tmp_path, monkeypatch, capsys):
    nb, _ = kahan_notebook("def kahan_sum(x):\n    return x.double().sum().float()\n")
    learner_folder(tmp_path, monkeypatch, "01_nonassociativity", nb)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    rule_check.check_rule("kahan_sum")  # the grader's own check is the one that counts
    monkeypatch.delenv("NBGRADER_EXECUTION")
    del nb.metadata["finite"]
    nbformat.write(nb, tmp_path / "01_nonassociativity" / "01_nonassociativity.ipynb")
    rule_check.check_rule("kahan_sum")
    monkeypatch.chdir(tmp_path)
    rule_check.check_rule("kahan_sum")
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["kahan_sum: the method rule was not checked here: this notebook does not list its released "
                     "cells; the grader checks it when your notebook is graded",
                     "kahan_sum: the method rule was not checked here: the notebook file was not found; the grader "
                     "checks it when your notebook is graded"]


def test_the_release_lists_its_code_cells():
    for assignment_id in COURSE.assignment_ids():
        release = read_notebook(COURSE.release / assignment_id / f"{assignment_id}.ipynb")
        assert release.metadata["finite"]["released_code"] == sorted(
            {digest(c.source) for c in release.cells if c.cell_type == "code"}), assignment_id
