"""Self-check cases: answer-cell replacements with the score they must get.

A case is ``cases/ID/<grade_id>--<wrong|right>--<slug>.py``; its text replaces the
answer cell ``<grade_id>`` while every other answer cell holds the source solution.
``wrong`` must score 0 on ``test_<grade_id>`` and full marks elsewhere; ``partial`` (for cells
graded in groups, such as a quiz) some but not all of that cell's points; ``right`` full marks.
"""
import re
from dataclasses import dataclass, field

import nbformat

from autograder.course import CourseError, answer_cells

CASE_NAME = re.compile(r"^(?P<grade_id>[A-Za-z_][A-Za-z0-9_]*)--(?P<verdict>wrong|partial|right)--(?P<slug>[a-z0-9_]+)\.py$")


@dataclass
class Case:
    """One self-check submission and the scores it must get."""

    name: str
    answers: dict = field(default_factory=dict)  # grade_id -> replacement source
    blank: bool = False  # submit the untouched release
    failing: str = ""  # the test cell that must score 0 ("" when all must pass)
    partial: str = ""  # the test cell that must score some but not all of its points (groups)

    def expected(self, tests):
        """{test grade_id: expected points} given {test grade_id: max points}; a ``partial`` cell's
        entry is None (checked separately: strictly between 0 and its points)."""
        if self.blank:
            return {name: 0 for name in tests}
        return {name: (0 if name == self.failing else None if name == self.partial else points)
                for name, points in tests.items()}


def load_cases(course, assignment_id, answer_ids):
    """The solution, the blank release, then every case file of the assignment, sorted by name."""
    cases = [Case("solution"), Case("blank", blank=True)]
    folder = course.cases / assignment_id
    if not folder.is_dir():
        return cases
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "__")):
            continue
        match = CASE_NAME.match(path.name)
        if not match:
            raise CourseError(
                f"{path}: case files are named <grade_id>--<wrong|right>--<slug>.py (slug in a-z0-9_)"
            )
        grade_id = match["grade_id"]
        if grade_id not in answer_ids:
            raise CourseError(f"{path}: {assignment_id} has no answer cell {grade_id!r}")
        test = f"test_{grade_id}"
        cases.append(Case(path.stem, {grade_id: path.read_text()}, failing=test if match["verdict"] == "wrong" else "",
                          partial=test if match["verdict"] == "partial" else ""))
    return cases


def student_id(case):
    """An nbgrader-safe student id for a case."""
    return re.sub(r"[^A-Za-z0-9_]", "_", case.name)


def build_submission(release_nb, solutions, case):
    """The release notebook with answer cells filled: case answers first, source solutions next."""
    nb = nbformat.from_dict(release_nb)
    if case.blank:
        return nb
    for grade_id, cell in answer_cells(nb).items():
        cell.source = case.answers.get(grade_id, solutions[grade_id].source)
    return nb
