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
import os
from functools import lru_cache
from pathlib import Path

import nbformat
from nbconvert.exporters import Exporter
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, default

from autograder.course import Course, check_caps
from autograder.exchange.records import exchange_notes
from autograder.grading import feedback
from autograder.grading.admit import (
    ASSIGNMENT, EXCHANGE, holds_source_text, over_size, restore_roles, restore_unchanged, tampering,
)
from autograder.grading.assignment import fingerprint, load_assignment
from autograder.grading.autograded import KEY, flagged, not_run, review_flags, stored_record
from autograder.grading.files import sha256
from autograder.grading.gradebook import final, gradebook_lock, quiet_gradebook, record, submission_timestamp
from autograder.grading.reference import ensure_reference
from autograder.grading.verdict import Context, ReviewNote, conclude, ended_early
from autograder.sandbox.limits import Limits, SandboxLimits
from autograder.sandbox.run import run_in_sandbox
from autograder.statuses import Status

def _course(configurable) -> Course:
    root = configurable.config.get("CourseDirectory", {}).get("root") or os.getcwd()
    return Course(root)


@lru_cache(maxsize=None)
def _assignment(root: str, assignment_id: str):
    """The assignment, once per process (an autograde of a whole class reads it once)."""
    return load_assignment(Course(root), assignment_id)


@lru_cache(maxsize=None)
def _prepared(root: str, assignment_id: str, limits: Limits) -> tuple:
    """(the assignment with its reference, the fingerprint), built or read once per process."""
    course, assignment = Course(root), _assignment(root, assignment_id)
    stamp = fingerprint(course, assignment_id, limits)
    ensure_reference(course, assignment, limits, stamp)
    return assignment, stamp


class NoteSubmission(NbGraderPreprocessor):
    """Sanitize, first step: what collect said of the submission; a notebook holding the source's
    own text marked for review (it will not run); every cell given the role the release gave it
    (:func:`restore_roles`: a copied or retagged cell costs nothing but itself); locked cells the
    learner changed noted (nbgrader's ``OverwriteCells`` restores them next, and now warns only
    about those). Whatever the submission brought under ``metadata.finite`` is dropped."""

    def preprocess(self, nb, resources):
        info, course = resources["nbgrader"], _course(self)
        assignment = resources.get(ASSIGNMENT) or _assignment(str(course.root), info["assignment"])
        exchange = resources[EXCHANGE] if EXCHANGE in resources else self._exchange(course, info)
        too_big = over_size(nb)
        source_text = "" if too_big else holds_source_text(nb, assignment)
        stop = (Status.REFUSED, too_big) if too_big else (Status.REVIEW, source_text) if source_text else None
        notes = list(exchange.notes) + ([stop[1]] if stop else restore_roles(nb, assignment) + tampering(nb, assignment))
        nb.metadata[KEY] = {"notes": notes, "review": list(exchange.review), "not_run": stop[0].value if stop else ""}
        restore_unchanged(nb, assignment, info)
        return nb, resources

    def _exchange(self, course, info):
        """What collect said of the submission nbgrader is grading (in the course's submitted/)."""
        submission = submitted_notebook(self.config, info)
        return exchange_notes(course.root, info["assignment"], info["student"], sha256(submission) if submission else None)


class SandboxedExecute(NbGraderPreprocessor):
    """Run the notebook in the course's sandbox, unprivileged and capped (instead of nbgrader's
    ``Execute``, which runs it as the grader), within the configured ``SandboxLimits``. The reference
    is built first if it is not cached."""

    allow_uncapped = Bool(False, help="Grade even where a cap cannot be enforced").tag(config=True)

    def preprocess(self, nb, resources):
        limits = SandboxLimits(parent=self).limits()
        check_caps(limits, self.allow_uncapped)
        _prepared(str(_course(self).root), resources["nbgrader"]["assignment"], limits)
        noted = nb.metadata.get(KEY, {})
        run = None if noted.get("not_run") else run_in_sandbox(nbformat.writes(nb), limits)
        resources[KEY] = (run, noted.get("notes", []), limits, tuple(noted.get("review", [])), noted.get("not_run"))
        return (nb if run is None else run.notebook()), resources


class JudgeGrades(NbGraderPreprocessor):
    """Score the executed notebook against the reference outside the kernel and save the judged
    scores (instead of nbgrader's ``SaveAutoGrades``, which reads verdicts from the kernel).
    Manual scores set in the Formgrader are kept: only ``auto_score`` is written."""

    def preprocess(self, nb, resources):
        course, info = _course(self), resources["nbgrader"]
        run, notes, limits, review, stopped = resources.pop(KEY)
        assignment, stamp = _prepared(str(course.root), info["assignment"], limits)
        submission = submitted_notebook(self.config, info)
        context = Context(info["student"], sha256(submission), stamp, submission_timestamp(submission),
                          ReviewNote.about_submission(review))
        if run is None:  # too large, or it holds the source's own text: a person looks at it
            result = ended_early(context, assignment, Status(stopped), notes)
            nb = not_run(result, nb, assignment)
        else:
            result, nb = conclude(run, assignment, limits, context, notes)
            nb = flagged(nb, result, assignment, run.shown)
        flags = review_flags(result, assignment)
        with gradebook_lock(course), quiet_gradebook(info["db_url"]) as gradebook:
            grades = record(gradebook, result, info["notebook"], flags)
        self.log.info("%s: %s, %g / %g%s", info["student"], result.status, grades.score, grades.max_score,
                      f" ({len(grades.manual)} cell(s) graded by hand)" if grades.manual else "")
        for line in result.notes:
            self.log.info("%s: note: %s", info["student"], line)
        for line in result.review:
            self.log.warning("%s: review: %s", info["student"], line)
        if flags:
            self.log.warning("%s: %d cell(s) flagged for manual grading in the Formgrader", info["student"], len(flags))
        return nb, resources


def submitted_notebook(config, info) -> Path | None:
    """The submitted notebook nbgrader is grading (as ``grade`` knows it: by its digest), or None."""
    coursedir = CourseDirectory(config=config)
    path = Path(coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"]))
    path = path / f"{info['notebook']}.ipynb"
    return path if path.is_file() else None


class FeedbackExporter(Exporter):
    """nbgrader's Generate Feedback through the course's own page: verdicts (manual grades and the
    instructor's comments from the gradebook), the learner's answer cells and what they printed
    before any hidden test ran; never the autograded notebook itself."""

    @default("file_extension")
    def _file_extension_default(self):
        return ".html"

    output_mimetype = "text/html"

    def from_notebook_node(self, nb, resources=None, **kw):
        nb, resources = super().from_notebook_node(nb, resources, **kw)
        course, info = _course(self), (resources or {}).get("nbgrader", {})
        result, shown = stored_record(nb)
        assignment = _assignment(str(course.root), result.assignment)
        with quiet_gradebook(info.get("db_url") or course.gradebook_url) as gradebook:
            grades = final(gradebook, result, info.get("notebook") or result.assignment)
        return feedback.render(result, grades, nb, assignment, shown), resources
