"""The autograded notebook: what nbgrader's Formgrader shows the grader and ``generate_feedback``
reads. It is made inert (:func:`~autograder.grading.inert.inert`: the Formgrader renders it as the
grader), carries the trusted record under ``metadata.finite``, and on each test cell that needs a
look the reason, beside its answer cell the source's answer. Feedback is built from that record,
never from the notebook's outputs."""
import copy
from dataclasses import asdict
from pathlib import Path

import nbformat

from autograder.course import CourseError, answer_of
from autograder.grading.files import write_atomic
from autograder.grading.inert import inert
from autograder.grading.verdict import Result
from autograder.statuses import Status

KEY = "finite"  # notebook metadata the trusted side writes (a submission's own is dropped)
FLAG = "[finite grader] needs manual grading: "  # the reason shown on a flagged cell in the Formgrader
KEY_LINE = "[finite grader] the key (the source's answer, for graders only):\n"  # beside a flagged test's answer
NEEDS_A_LOOK = (Status.TIMEOUT, Status.KERNEL_DIED, Status.RESOURCE_LIMIT, Status.GRADER_ERROR, Status.REFUSED,
                Status.REVIEW)
NOT_RUN = (Status.REFUSED, Status.REVIEW)  # nothing ran, but the Formgrader shows a notebook with the reason


def not_run(result: Result, nb, assignment):
    """The notebook the Formgrader shows for a result of :data:`NOT_RUN`: ``nb`` as submitted (or the
    release, for a refused submission), never run, with the record and the reason on every test cell."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return flagged(nb, result, assignment, {})


def flagged(nb, result: Result, assignment, shown: dict):
    """``nb`` inert, with the trusted record (``result`` and the feedback snapshot ``shown``), the
    flags and the key."""
    nb = inert(nb, assignment.released_text)
    nb.metadata[KEY] = {"result": asdict(result), "shown": {str(k): v for k, v in shown.items()}}
    flags = review_flags(result, assignment)
    keyed = {answer_of(test) for test in flags}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code":
            continue
        if flags.get(grade_id):
            cell.outputs.insert(0, nbformat.v4.new_output("stream", name="stdout", text=FLAG + flags[grade_id] + "\n"))
        if grade_id in keyed and grade_id in assignment.key and cell.metadata["nbgrader"].get("solution"):
            cell.outputs.insert(0, nbformat.v4.new_output("stream", name="stdout", text=KEY_LINE + assignment.key[grade_id] + "\n"))
    return nb


def review_flags(result: Result, assignment) -> dict:
    """{test grade_id: why a person should look at it}: every cell of a run that timed out,
    crashed, hit a cap, or never ran (refused, review); the cells whose answer holds code to review
    (all of them when that code is in a cell of the learner's own); all of them for what collect
    found."""
    if result.status in NEEDS_A_LOOK:
        why = f"status {result.status}" + (f": {'; '.join(result.notes)}" if result.notes else "")
        return {test: why for test in assignment.tests}
    flags = {}
    for note in result.review:
        tests = [t for t in assignment.tests if answer_of(t) == note.label] or list(assignment.tests)
        what = "code to review" if note.label else "to review"
        for test in tests:
            flags[test] = f"{flags[test]}; {note}" if test in flags else f"{what}: {note}"
    return flags


def stored_record(nb) -> tuple:
    """(Result, shown) that :func:`flagged` left in an autograded notebook; CourseError if none."""
    stored = nb.metadata.get(KEY, {})
    if "result" not in stored:
        raise CourseError("this notebook was not autograded by the course's judge (run nbgrader autograde "
                          "or python -m autograder grade first)")
    return Result(**stored["result"]), stored.get("shown", {})


def write_autograded(course, result: Result, nb) -> Path:
    """The autograded notebook where nbgrader's Formgrader and ``generate_feedback`` read it."""
    path = course.autograded_path(result.student, result.assignment)
    write_atomic(path, nbformat.writes(nb))
    return path
