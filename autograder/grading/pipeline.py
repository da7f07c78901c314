"""The grading steps as nbgrader preprocessors, so nbgrader itself grades through the sandbox and
the judge: ``nbgrader autograde``, the Formgrader's Autograde and Generate Feedback buttons, and
``python -m autograder grade`` (the parallel batch over the same functions) give the same scores
and the same safe pages. ``nbgrader_config.py`` puts them in place of nbgrader's own ``Execute``,
``SaveAutoGrades`` and feedback exporter.

Sanitize: :class:`NoteSubmission` (what the learner changed in locked cells, before nbgrader's
``OverwriteCells`` restores them), then nbgrader's own steps. Autograde: :class:`SandboxedExecute`
(the submission runs unprivileged and capped, in a sandbox), :class:`JudgeGrades` (observations
compared with the reference run's, outside the kernel; the judged scores go to the gradebook).
Feedback: :class:`FeedbackExporter` renders the page from the judged result alone.
"""
import fcntl
import os
from contextlib import contextmanager
from dataclasses import asdict, replace
from functools import lru_cache

import nbformat
from nbconvert.exporters import Exporter
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, default

from autograder.course import Course, CourseError
from autograder.grading import feedback
from autograder.grading.admit import tampering
from autograder.grading.assignment import (
    CACHE, fingerprint, load_assignment, reference_observations, reference_path, save_reference,
    solved_notebook, stored_reference,
)
from autograder.grading.gradebook import record
from autograder.grading.score import Result, conclude
from autograder.sandbox.bubblewrap import Limits
from autograder.sandbox.caps import missing_caps
from autograder.sandbox.execute import run_in_sandbox

KEY = "finite"  # notebook metadata the trusted side writes (a submission's own is dropped)


# ----------------------------------------------------------------------- steps shared by every path

def reference_limits(limits: Limits) -> Limits:
    """The reference run's limits: the students' caps, but never shorter time limits than the
    defaults (the solutions are trusted; a loaded machine must not fail them)."""
    default = Limits()
    return replace(limits, cell_timeout=max(limits.cell_timeout, default.cell_timeout),
                   notebook_timeout=max(limits.notebook_timeout, default.notebook_timeout))


def reference_run(course, assignment_id: str, limits: Limits):
    """Run the solved notebook in the sandbox (trusted code, on this machine)."""
    return run_in_sandbox(nbformat.writes(solved_notebook(course, assignment_id)), reference_limits(limits))


def ensure_reference(course, assignment, limits, run=None) -> None:
    """Fill ``assignment.reference`` from the course's cache, else from ``run`` (a SandboxRun of
    :func:`solved_notebook`) or a run made now, which is then checked and cached. CourseError
    (naming the assignment and cell) when the solutions fail their own tests."""
    path = reference_path(course, assignment.assignment_id, fingerprint(course, assignment.assignment_id, limits))
    stored = stored_reference(path)
    if stored is not None:
        assignment.reference = stored
        return
    if run is None:
        run = reference_run(course, assignment.assignment_id, limits)
    assignment.reference = reference_observations(assignment, run)
    save_reference(path, assignment.reference)


def judge(student: str, run, notes: list, assignment, limits, digest: str = "") -> tuple:
    """(Result, executed notebook carrying the trusted record under ``metadata.finite``)."""
    result, nb = conclude(student, run, notes + list(run.cut), assignment, limits, digest)
    nb.metadata[KEY] = {"result": asdict(result), "shown": {str(k): v for k, v in run.shown.items()}}
    return result, nb


def feedback_page(course, nb) -> str:
    """The feedback page of an autograded notebook, from the record :func:`judge` left in it."""
    record_ = nb.metadata.get(KEY, {})
    if "result" not in record_:
        raise CourseError("this notebook was not autograded by the course's judge (run nbgrader autograde "
                          "or python -m autograder grade first)")
    result = Result(**record_["result"])
    return feedback.render(result, nb, load_assignment(course, result.assignment), record_.get("shown", {}))


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


# ----------------------------------------------------------------------- nbgrader's side

def _course(configurable) -> Course:
    root = configurable.config.get("CourseDirectory", {}).get("root") or os.getcwd()
    return Course(root)


@lru_cache(maxsize=None)
def _prepared(root: str, assignment_id: str, limits: Limits):
    """The assignment with its reference, once per process (an autograde of a whole class builds
    or reads the reference once)."""
    course = Course(root)
    assignment = load_assignment(course, assignment_id)
    ensure_reference(course, assignment, limits)
    return assignment


class NoteSubmission(NbGraderPreprocessor):
    """Sanitize, first step: note locked cells the learner changed (nbgrader restores them next)
    and drop whatever the submission brought under ``metadata.finite``."""

    def preprocess(self, nb, resources):
        course = _course(self)
        assignment = load_assignment(course, resources["nbgrader"]["assignment"])
        nb.metadata[KEY] = {"notes": tampering(nb, assignment)}
        return nb, resources


class SandboxedExecute(NbGraderPreprocessor):
    """Run the notebook in the course's sandbox, unprivileged and capped (instead of nbgrader's
    ``Execute``, which runs it as the grader). The reference is built first if it is not cached."""

    allow_uncapped = Bool(False, help="Grade even where a cap cannot be enforced").tag(config=True)

    def preprocess(self, nb, resources):
        limits = Limits()
        check_caps(limits, self.allow_uncapped)
        course = _course(self)
        _prepared(str(course.root), resources["nbgrader"]["assignment"], limits)
        notes = nb.metadata.get(KEY, {}).get("notes", [])
        run = run_in_sandbox(nbformat.writes(nb), limits)
        resources[KEY] = (run, notes, limits)
        return nbformat.reads(run.executed, as_version=4), resources


class JudgeGrades(NbGraderPreprocessor):
    """Score the executed notebook against the reference outside the kernel and save the judged
    scores (instead of nbgrader's ``SaveAutoGrades``, which reads verdicts from the kernel).
    Manual scores set in the Formgrader are kept: only ``auto_score`` is written."""

    def preprocess(self, nb, resources):
        course, info = _course(self), resources["nbgrader"]
        run, notes, limits = resources.pop(KEY)
        assignment = _prepared(str(course.root), info["assignment"], limits)
        result, nb = judge(info["student"], run, notes, assignment, limits)
        with gradebook_lock(course), Gradebook(info["db_url"]) as gradebook:
            record(gradebook, result)
        self.log.info("%s: %s, %g / %g", info["student"], result.status, result.score, result.max_score)
        return nb, resources


class FeedbackExporter(Exporter):
    """nbgrader's Generate Feedback through the course's own page: verdicts, the learner's answer
    cells and what they printed before any hidden test ran; never the autograded notebook itself."""

    @default("file_extension")
    def _file_extension_default(self):
        return ".html"

    output_mimetype = "text/html"

    def from_notebook_node(self, nb, resources=None, **kw):
        nb, resources = super().from_notebook_node(nb, resources, **kw)
        return feedback_page(_course(self), nb), resources
