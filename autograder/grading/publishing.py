"""What a batch leaves: per student, the gradebook entry, the autograded notebook, the feedback page
(and where ``nbgrader release_feedback`` finds it) and the result file a later run resumes from;
for the class, grades.csv and summary.png. Every file is written whole or not at all."""
import csv
import io
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.course import CourseError, read_notebook
from autograder.grading import feedback
from autograder.grading.autograded import review_flags, stored_record, write_autograded
from autograder.grading.files import write_atomic
from autograder.grading.gradebook import Final, copy_exchange_files, gradebook_lock, record, stage_feedback
from autograder.grading.inert import inert
from autograder.grading.verdict import Result
from autograder.statuses import Status


def result_path(out, student):
    return Path(out) / ".results" / f"{student}.json"


def finished(out, student, digest, assignment_id, stamp) -> tuple:
    """(the stored result of an earlier run, or None; why it cannot be kept, or "kept")."""
    try:
        stored = json.loads(result_path(out, student).read_text())
        earlier = Result(**stored)
    except (OSError, ValueError, TypeError):
        return None, "new"
    if earlier.assignment != assignment_id or earlier.submission_sha256 != digest:
        return None, "submission changed"
    if earlier.fingerprint != stamp:
        return None, "assignment or grader changed"
    if earlier.status == Status.GRADER_ERROR:
        return None, "grader error before"
    return earlier, "kept"


@dataclass(frozen=True)
class Publisher:
    """Where one run's results go: the feedback pages and results under ``out``, and (when
    ``gradebook``) what nbgrader's autograde leaves: the autograded notebook, the gradebook entry,
    the page where ``nbgrader release_feedback`` finds it."""

    course: object
    assignment: object
    out: Path
    gradebook: object = None

    def publish(self, result: Result, nb, shown: dict, submission, fresh: bool = True) -> Final:
        """Record, then write the page, then the result (last: a result file means done; a kept
        result, not ``fresh``, is left as it is)."""
        final = Final.of(result)
        if self.gradebook is not None:
            if nb is not None:  # what nbgrader's autograde leaves, its exchange's files too (generate_feedback copies them)
                autograded = write_autograded(self.course, result, nb)
                copy_exchange_files(submission.path.parent if submission.path else None, autograded.parent)
            final = self.record(result)
        page = self.out / "feedback" / result.student / f"{self.assignment.assignment_id}.html"
        write_atomic(page, feedback.render(result, final, nb, self.assignment, shown))
        if fresh:
            write_atomic(result_path(self.out, result.student), result.to_json())
        if self.gradebook is not None:
            stage_feedback(self.course, submission.path, result.student, self.assignment.assignment_id, page)
        return final

    def kept(self, result: Result, submission) -> Final:
        """An earlier result: recorded again, and its page rendered again from the autograded
        notebook with the gradebook's grades now (manual grades and comments), running nothing."""
        if self.gradebook is None:
            return Final.of(result)
        try:  # inert: an autograded notebook an older version wrote, too
            nb = inert(read_notebook(self.course.autograded_path(result.student, result.assignment)),
                       self.assignment.released_text)
            stored, shown = stored_record(nb)
        except (CourseError, OSError):
            stored = None
        if stored != result:  # no autograded notebook of this result: its page stays as written
            return self.record(result)
        return self.publish(result, nb, shown, submission, fresh=False)

    def record(self, result: Result) -> Final:
        """The judged scores and flags into the gradebook; the final grades read back."""
        with gradebook_lock(self.course):
            return record(self.gradebook, result, self.assignment.assignment_id, review_flags(result, self.assignment))


def write_table(results, finals: dict, assignment, out):
    """grades.csv: one row per student, the final grades (a manual score overrides the judged one;
    ``graded_by_hand`` names those cells); ``review`` lists code the instructor should read."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "assignment", "status", "score", "max_score", *assignment.tests, "graded_by_hand",
                     "notes", "review"])
    for r in sorted(results, key=lambda r: r.student):
        final = finals[r.student]
        writer.writerow([r.student, r.assignment, r.status, f"{final.score:g}", f"{r.max_score:g}",
                         *(f"{final.scores.get(t, 0):g}" for t in assignment.tests), " ".join(sorted(final.manual)),
                         "; ".join(r.notes), "; ".join(map(str, r.review))])
    write_atomic(Path(out) / "grades.csv", buffer.getvalue())


@dataclass(frozen=True)
class ClassSummary:
    """What summary.png plots, from the final grades (manual scores included)."""

    full_marks: dict  # test grade_id -> students with full marks on it
    totals: dict  # final score -> students, for those whose notebook ran
    statuses: dict  # status -> students
    students: int

    @classmethod
    def of(cls, results, finals: dict, assignment) -> "ClassSummary":
        # Students with no notebook to grade are in the status panel, not a score of 0.
        ran = [r for r in results if r.status not in (Status.MISSING, Status.UNREADABLE, Status.INVALID_ID,
                                                      Status.REFUSED, Status.REVIEW, Status.GRADER_ERROR)]
        return cls(full_marks={t: sum(finals[r.student].scores.get(t, 0) >= p for r in results)
                               for t, p in assignment.tests.items()},
                   totals=dict(sorted(Counter(round(finals[r.student].score, 2) for r in ran).items())),
                   statuses=dict(Counter(str(r.status) for r in results)), students=len(results))


def write_summary(results, finals: dict, assignment, out) -> None:
    """summary.png: full marks per test cell, how many students got each total, and the statuses."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    data = ClassSummary.of(results, finals, assignment)
    fig = Figure(figsize=(13, 4.4), layout="constrained")
    cells, totals, statuses = fig.subplots(1, 3, width_ratios=[2, 1.5, 1])
    tests, passed = list(data.full_marks), list(data.full_marks.values())
    cells.barh(tests, passed, color="#1a7f37", label="full marks")
    cells.barh(tests, [data.students - n for n in passed], left=passed, color="#cf222e", label="not")
    cells.set_xlabel(f"students, of {data.students}")
    cells.xaxis.set_major_locator(MaxNLocator(integer=True))
    cells.invert_yaxis()
    cells.set_title("per test cell")
    cells.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize="small")
    totals.bar([f"{score:g}" for score in data.totals], list(data.totals.values()), color="#0969da")
    totals.yaxis.set_major_locator(MaxNLocator(integer=True))
    totals.set_xlabel(f"score (max {assignment.max_score:g})")
    totals.set_ylabel("students")
    totals.set_title(f"totals of the {sum(data.totals.values())} whose notebook ran")
    statuses.barh(list(data.statuses), list(data.statuses.values()), color="#8250df")
    statuses.xaxis.set_major_locator(MaxNLocator(integer=True))
    statuses.invert_yaxis()
    statuses.set_xlabel("students")
    statuses.set_title("status")
    fig.suptitle(f"{assignment.assignment_id}: {data.students} students")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    write_atomic(Path(out) / "summary.png", buffer.getvalue())
