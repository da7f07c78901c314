"""Self-check cases: answer-cell replacements with the score they must get.

A case is ``cases/ID/<grade_id>--<wrong|right>--<slug>.py``; its text replaces the
answer cell ``<grade_id>`` while every other answer cell holds the source solution.
``wrong`` must score 0 on ``test_<grade_id>`` and full marks elsewhere; ``partial`` (for cells
graded in groups, such as a quiz) some but not all of that cell's points; ``right`` full marks.

``cases/every_assignment/<slug>.py`` are generic attacks, in every assignment: the text, with
``$function`` replaced by the name, answers the first answer cell that defines a function named
after itself, whose test must score 0 (the other cells are not checked: fail-closed method rules
may cost them too).
"""
import re
from dataclasses import dataclass, field
from string import Template

import nbformat

from autograder.course import CourseError, answer_cells
from autograder.source_text import MARKER

MARKER_LINE = re.compile(MARKER.pattern + r"[^\n]*\n?", re.M)

CASE_NAME = re.compile(r"^(?P<grade_id>[A-Za-z_][A-Za-z0-9_]*)--(?P<verdict>wrong|partial|right)--(?P<slug>[a-z0-9_]+)\.py$")


@dataclass
class Case:
    """One self-check submission and the scores it must get."""

    name: str
    answers: dict = field(default_factory=dict)  # grade_id -> replacement source
    blank: bool = False  # submit the untouched release
    failing: str = ""  # the test cell that must score 0 ("" when all must pass)
    partial: str = ""  # the test cell that must score some but not all of its points (groups)
    attack: bool = False  # a generic attack: only its failing cell is checked

    def expected(self, tests):
        """{test grade_id: expected points} given {test grade_id: max points}; None where not
        checked here: a ``partial`` cell (checked separately: strictly between 0 and its points),
        and a generic attack's other cells (fail-closed method rules may cost those too)."""
        if self.blank:
            return {name: 0 for name in tests}
        if self.attack:
            return {name: (0 if name == self.failing else None) for name in tests}
        return {name: (0 if name == self.failing else None if name == self.partial else points)
                for name, points in tests.items()}


EVERY_ASSIGNMENT = "every_assignment"


def load_cases(course, assignment_id, solutions):
    """The solution, the blank release, every case file of the assignment sorted by name, then
    the generic attacks. ``solutions``: {grade_id: the source's answer cell}."""
    cases = [Case("solution"), Case("blank", blank=True)]
    for path in case_files(course.cases / assignment_id):
        match = CASE_NAME.match(path.name)
        if not match:
            raise CourseError(
                f"{path}: case files are named <grade_id>--<wrong|right>--<slug>.py (slug in a-z0-9_)"
            )
        grade_id = match["grade_id"]
        if grade_id not in solutions:
            raise CourseError(f"{path}: {assignment_id} has no answer cell {grade_id!r}")
        test = f"test_{grade_id}"
        cases.append(Case(path.stem, {grade_id: path.read_text()}, failing=test if match["verdict"] == "wrong" else "",
                          partial=test if match["verdict"] == "partial" else ""))
    generic = case_files(course.cases / EVERY_ASSIGNMENT)
    target = next((grade_id for grade_id, cell in solutions.items()
                   if re.search(rf"^def {grade_id}\(", cell.source, re.M)), None)
    if generic and target is None:
        raise CourseError(f"{assignment_id}: no answer cell defines a function named after itself, "
                          f"which the cases in {EVERY_ASSIGNMENT}/ answer")
    for path in generic:
        if path.suffix != ".py":
            raise CourseError(f"{path}: the cases in {EVERY_ASSIGNMENT}/ are .py files")
        cases.append(Case(f"{EVERY_ASSIGNMENT}--{path.stem}",
                          {target: Template(path.read_text()).substitute(function=target)},
                          failing=f"test_{target}", attack=True))
    return cases


def case_files(folder):
    """The files of a cases folder but hidden ones and caches, sorted (none when there is no folder)."""
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "__"))) if folder.is_dir() else []


def student_id(case):
    """An nbgrader-safe student id for a case."""
    return re.sub(r"[^A-Za-z0-9_]", "_", case.name)


def solution_text(cell):
    """A source answer cell's text without nbgrader's solution markers, which no learner's notebook holds."""
    return MARKER_LINE.sub("", cell.source)


def with_answers(release_nb, answers):
    """A copy of the release notebook with ``answers`` ({grade_id: source}) in those answer cells; the
    other cells as released."""
    nb = nbformat.from_dict(release_nb)
    for grade_id, cell in answer_cells(nb).items():
        cell.source = answers.get(grade_id, cell.source)
    return nb


def build_submission(release_nb, solutions, case):
    """The release notebook with answer cells filled: case answers first, source solutions next
    (:func:`solution_text`); the release as it is for a blank case."""
    if case.blank:
        return nbformat.from_dict(release_nb)
    return with_answers(release_nb, {grade_id: case.answers.get(grade_id, solution_text(solutions[grade_id]))
                                     for grade_id in answer_cells(release_nb)})
