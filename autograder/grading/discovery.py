"""Finding a batch's students: one :class:`Submission` per student folder of SUBMITTED (trusted side;
nothing in a submission is read here but its place, and links are never followed), with what the
course's collect said of each, checked before anything is written."""
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from autograder.course import CourseError
from autograder.exchange.records import ExchangeNotes, exchange_notes, refused_students
from autograder.grading.assignment import fingerprint
from autograder.grading.files import sha256
from autograder.grading.gradebook import submission_timestamp
from autograder.grading.verdict import Context, ReviewNote
from autograder.sandbox import SandboxError
from autograder.sandbox.bubblewrap import check_layout
from autograder.sandbox.limits import Limits


@dataclass(frozen=True)
class Submission:
    """One student folder of SUBMITTED, as found (trusted side; nothing in it has been read yet)."""

    student: str
    path: Path | None  # the notebook, or None when there is none (or it is refused)
    note: str = ""  # where it was found, or why it was refused
    refused: bool = False  # a link (never followed), or everything the student sent refused at collect
    exchange: ExchangeNotes = ExchangeNotes()  # what the course's collect said of it

    @cached_property
    def digest(self) -> str:
        """What ``grade`` knows this submission by: the notebook's SHA-256, and what collect said of it."""
        return sha256(self.path) + (f"+{self.exchange.digest}" if self.exchange.digest else "")

    def context(self, stamp: str) -> Context:
        """What its result records besides the notebook, graded with fingerprint ``stamp``."""
        return Context(self.student, self.digest, stamp, submission_timestamp(self.path),
                       ReviewNote.about_submission(self.exchange.review))


def find_submissions(submitted, assignment_id, course=None) -> list:
    """A :class:`Submission` for every student folder in ``submitted``.

    The notebook is ``<student>/<ID>/<ID>.ipynb``; failing that, the one notebook in the student's
    folder whose name starts with the assignment id (``ID (1).ipynb``, a flat ``<student>/ID.ipynb``)
    is graded with a note saying so. A student folder or notebook that is a symbolic link (an
    unpacked archive can hold them) is refused, never followed. When ``submitted`` is ``course``'s
    own (where ``nbgrader collect`` puts submissions), what collect said of each student comes
    along, and a student whose every folder collect refused is there, refused.
    """
    found_all = [_submission(folder, assignment_id) for folder in sorted(Path(submitted).iterdir())
                 if not folder.name.startswith(".") and (folder.is_dir() or folder.is_symlink())]
    if course is None or Path(submitted).resolve() != (course.root / "submitted").resolve():
        return found_all
    with_notes = []
    for submission in found_all:
        notes = exchange_notes(course.root, assignment_id, submission.student,
                               sha256(submission.path) if submission.path else None)
        with_notes.append(replace(submission, exchange=notes, refused=submission.refused or notes.refused))
    seen = {s.student for s in found_all}
    for student in refused_students(course.root, assignment_id):
        notes = exchange_notes(course.root, assignment_id, student, None)
        if student not in seen and notes.refused:
            with_notes.append(Submission(student, None, refused=True, exchange=notes))
    return sorted(with_notes, key=lambda s: s.student)


def _submission(folder: Path, assignment_id: str) -> Submission:
    expected = f"{assignment_id}/{assignment_id}.ipynb"
    if folder.is_symlink():
        return Submission(folder.name, None, "the student folder is a link; links are not followed", True)
    path = folder / assignment_id / f"{assignment_id}.ipynb"
    if path.is_symlink() or (folder / assignment_id).is_symlink():
        return Submission(folder.name, None, f"{expected} is a link; links are not followed", True)
    if path.is_file():
        return Submission(folder.name, path)
    found = [p for p in folder.rglob(f"{assignment_id}*.ipynb")
             if ".ipynb_checkpoints" not in p.parts and p.is_file() and not p.is_symlink()]
    if len(found) == 1:
        where = found[0].relative_to(folder)
        return Submission(folder.name, found[0], f"graded {where}: the expected place is {expected}")
    return Submission(folder.name, None)


def check_folders(course, submitted, out):
    """Refuse folders the sandbox would expose, or an output folder inside the submissions."""
    if not submitted.is_dir():
        raise CourseError(f"{submitted} is not a folder of submissions")
    try:
        check_layout([course.root, submitted, out])
    except SandboxError as error:
        raise CourseError(str(error)) from None
    if out == submitted or submitted in out.parents:
        raise CourseError("--out must not be inside the submissions folder (submissions are never modified)")


def planned(course, submitted: Path, assignment_id: str, out: Path, limits: Limits) -> tuple:
    """(every student's :class:`Submission`, the fingerprint they are graded with), checked before
    anything is written: CourseError, naming the folder, when no student has a notebook of the
    assignment (a wrong --assignment or folder), so nothing reaches the gradebook."""
    check_folders(course, submitted, out)
    course.resolve_ids([assignment_id])
    submissions = find_submissions(submitted, assignment_id, course)
    if not submissions:
        raise CourseError(f"{submitted} holds no student folders")
    if not any(s.path or s.refused for s in submissions):
        raise CourseError(f"none of the {len(submissions)} student folders in {submitted} holds a notebook of "
                          f"{assignment_id} (<student>/{assignment_id}/{assignment_id}.ipynb): is --assignment right? "
                          "Nothing was graded or written")
    return submissions, fingerprint(course, assignment_id, limits)
