"""The grading steps, in order: admit, execute, judge, record, render.

Both front ends are thin adapters over these functions and nothing else: nbgrader's
preprocessors (``pipeline.py``: ``nbgrader autograde``, the Formgrader's buttons) and the
parallel batch (``batch.py``: ``python -m autograder grade``, ``check``). So every path gives the
same scores, the same review flags in nbgrader's Manual Grading and the same page, manual grades
and the instructor's comments included.

* admit (``admit.py``): read the submission and run the course's configured sanitizers (``nbgrader_config.py``'s
  ``Autograde.sanitize_preprocessors``: tampering noted, locked cells restored);
* execute: :func:`~autograder.sandbox.run.run_in_sandbox` (the only step that runs student code);
* judge: observations compared with the reference run's, outside the kernel (:class:`Result`);
* record: the judged scores into nbgrader's gradebook as ``auto_score``, cells that need a look
  flagged ``needs_manual_grade``; read back the :class:`Final` grades (a manual score overrides);
* render: the feedback page from the judged record and the final grades.
"""
import copy
import fcntl
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import nbformat

from autograder.course import CourseError
from autograder.exchange.records import COLLECT
from autograder.grading import feedback
from autograder.grading.assignment import (
    CACHE, reference_observations, reference_path, save_reference, solved_notebook, stored_reference,
)
from autograder.grading.gradebook import final_grades, record_scores
from autograder.grading.inert import inert
from autograder.grading.score import Result, conclude
from autograder.sandbox.limits import Limits
from autograder.sandbox.probe import missing_caps
from autograder.sandbox.report import handoff
from autograder.sandbox.run import SandboxRun, run_in_sandbox
from autograder.statuses import Status

KEY = "finite"  # notebook metadata the trusted side writes (a submission's own is dropped)
FLAG = "[finite grader] needs manual grading: "  # the reason shown on a flagged cell in the Formgrader
KEY_LINE = "[finite grader] the key (the source's answer, for graders only):\n"  # beside a flagged test's answer
NEEDS_A_LOOK = (Status.TIMEOUT, Status.KERNEL_DIED, Status.RESOURCE_LIMIT, Status.GRADER_ERROR, Status.REFUSED,
                Status.REVIEW)
NOT_RUN = (Status.REFUSED, Status.REVIEW)  # nothing ran, but the Formgrader shows a notebook with the reason
ASSIGNMENT = "finite_assignment"  # resources key: the batch hands its own Assignment to the sanitizers
EXCHANGE = "finite_exchange"  # resources key: and what collect said of the submission (records.ExchangeNotes)


# ----------------------------------------------------------------------- the reference

def reference_limits(limits: Limits) -> Limits:
    """The reference run's limits: the students' caps, but never shorter time limits than the
    defaults (the solutions are trusted; a loaded machine must not fail them)."""
    default = Limits()
    return replace(limits, cell_timeout=max(limits.cell_timeout, default.cell_timeout),
                   notebook_timeout=max(limits.notebook_timeout, default.notebook_timeout))


def reference_run(course, assignment_id: str, limits: Limits) -> SandboxRun:
    """Run the solved notebook in the sandbox (trusted code, on this machine)."""
    return run_in_sandbox(handoff(solved_notebook(course, assignment_id)), reference_limits(limits))


def ensure_reference(course, assignment, limits, stamp: str, run: SandboxRun | None = None) -> None:
    """Fill ``assignment.reference`` from the course's cache, else from ``run`` (a run of
    :func:`solved_notebook`) or a run made now, which is then checked and cached. CourseError
    (naming the assignment and cell) when the solutions fail their own tests."""
    path = reference_path(course, assignment.assignment_id, stamp)
    stored = stored_reference(path)
    if stored is not None:
        assignment.reference = stored
        return
    if run is None:
        run = reference_run(course, assignment.assignment_id, limits)
    assignment.reference = reference_observations(assignment, run)
    save_reference(path, assignment.reference)


@contextmanager
def gradebook_lock(course):
    """Held while this process writes the course gradebook, so `grade` and a Formgrader
    autograde of the same course take turns."""
    path = course.root / CACHE / "gradebook.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def check_caps(limits, allow_uncapped: bool) -> list:
    """The caps this machine cannot enforce; CourseError unless ``allow_uncapped``."""
    missing = missing_caps(limits)
    if missing and not allow_uncapped:
        raise CourseError(f"{len(missing)} cap(s) cannot be enforced on this machine: " + "; ".join(missing)
                          + " (see README, Caps per submission, or pass --allow-uncapped)")
    return missing


# ----------------------------------------------------------------------- judge

def judge(student: str, run: SandboxRun, notes: list, assignment, limits, digest: str = "", stamp: str = "",
          submitted_at: str = "", review: tuple = ()) -> tuple:
    """(Result, executed notebook carrying the trusted record under ``metadata.finite``, the
    reasons flagged on its test cells for the Formgrader's Manual Grading queue). ``review``:
    reasons to look from outside the notebook (what collect said)."""
    result, nb = conclude(student, run, notes + list(run.cut), assignment, limits, digest, stamp, submitted_at,
                          review)
    return result, flagged(nb, result, assignment, run.shown)


def ended_early(student: str, assignment, status: Status, notes: list, digest: str = "", stamp: str = "",
                submitted_at: str = "", review: tuple = ()) -> Result:
    """The result of a student graded without running anything: zero on every test."""
    return Result(student=student, assignment=assignment.assignment_id, status=status,
                  scores={name: 0.0 for name in assignment.tests}, max_score=assignment.max_score,
                  submission_sha256=digest, fingerprint=stamp, submitted_at=submitted_at, notes=list(notes),
                  review=list(review))


def not_run(result: Result, nb, assignment):
    """The notebook the Formgrader shows for a result of :data:`NOT_RUN`: ``nb`` as submitted (or the
    release, for a refused submission), never run, with the record and the reason on every test cell."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return flagged(nb, result, assignment, {})


def flagged(nb, result: Result, assignment, shown: dict):
    """``nb`` made inert (:func:`inert.inert`: the Formgrader renders it as the grader) and carrying the
    trusted record under ``metadata.finite`` and, on each test cell that needs a look, the reason, and
    on its answer cell the source's answer, as the Formgrader shows them. (Feedback is built from the
    trusted record, never from this notebook's outputs.)"""
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
    found (``COLLECT`` lines)."""
    if Status(result.status) in NEEDS_A_LOOK:
        why = f"status {result.status}" + (f": {'; '.join(result.notes)}" if result.notes else "")
        return {test: why for test in assignment.tests}
    flags = {}
    for note in result.review:
        label = note.split(",", 1)[0]
        tests = [t for t in assignment.tests if answer_of(t) == label] or list(assignment.tests)
        what = "to review" if note.startswith(COLLECT) else "code to review"
        for test in tests:
            flags[test] = f"{flags[test]}; {note}" if test in flags else f"{what}: {note}"
    return flags


def answer_of(test: str) -> str:
    """The answer cell a test cell grades (the course's naming rule: ``test_<answer>``)."""
    return test.removeprefix("test_")


# ----------------------------------------------------------------------- record

@dataclass(frozen=True)
class Final:
    """What a student finally gets, nbgrader's rule: a manual score overrides the automatic one."""

    scores: dict  # test grade_id -> points
    max_score: float
    comments: dict = field(default_factory=dict)  # test grade_id -> the instructor's comment on its answer
    manual: frozenset = frozenset()  # tests whose score was set by hand

    @property
    def score(self) -> float:
        return sum(self.scores.values())

    @classmethod
    def of(cls, result: Result) -> "Final":
        """The judged scores alone (no gradebook: nothing was graded by hand)."""
        return cls(dict(result.scores), result.max_score)


def record(gradebook, result: Result, notebook: str, flags: dict) -> "Final":
    """Write the judged scores (``auto_score`` only) and the flags to nbgrader's gradebook, then
    read back the final grades. A folder name that is no valid student id is not recorded."""
    if gradebook is None or result.status == Status.INVALID_ID:
        return Final.of(result)
    record_scores(gradebook, result, notebook, flags)
    return final(gradebook, result, notebook)


def final(gradebook, result: Result, notebook: str) -> "Final":
    """The grades nbgrader holds for this student now (manual grades and comments included); the
    judged scores alone when it holds none."""
    held = final_grades(gradebook, result, notebook, answer_of) if gradebook is not None else None
    return Final(max_score=result.max_score, **held) if held else Final.of(result)


# ----------------------------------------------------------------------- render

def stored_record(nb) -> tuple:
    """(Result, shown) that :func:`judge` left in an autograded notebook; CourseError if none."""
    stored = nb.metadata.get(KEY, {})
    if "result" not in stored:
        raise CourseError("this notebook was not autograded by the course's judge (run nbgrader autograde "
                          "or python -m autograder grade first)")
    return Result(**stored["result"]), stored.get("shown", {})


def render(result: Result, final: Final, nb, assignment, shown: dict) -> str:
    """The feedback page (see :mod:`autograder.grading.feedback`); a notebook that never ran (a
    refused or review status) gives the page no answer cells."""
    return feedback.render(result, final, None if result.status in NOT_RUN else nb, assignment, shown)


def write_autograded(course, result: Result, nb) -> Path:
    """The autograded notebook where nbgrader's Formgrader and ``generate_feedback`` read it."""
    from autograder.grading.files import write_atomic

    path = course.root / "autograded" / result.student / result.assignment / f"{result.assignment}.ipynb"
    write_atomic(path, nbformat.writes(nb))
    return path

