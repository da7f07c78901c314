"""nbgrader integration: record autograded scores in the course's gradebook (so the formgrader,
manual grading and ``nbgrader export`` see them), read back the :class:`Final` grades, and stage
feedback pages where nbgrader's ``release_feedback`` finds them. Only the trusted process writes,
one student at a time (:func:`gradebook_lock`)."""
import fcntl
import shutil
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc
from sqlalchemy.exc import SAWarning, SQLAlchemyError

from autograder.course import CourseError, answer_of
from autograder.statuses import Status


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
    def of(cls, result) -> "Final":
        """The judged scores alone (no gradebook: nothing was graded by hand)."""
        return cls(dict(result.scores), result.max_score)


@contextmanager
def quiet_gradebook(db_url: str, course_id: str | None = None):
    """nbgrader's Gradebook at ``db_url``, without the SQLAlchemy warnings its own session use
    raises (objects not in the session: noise); CourseError if unusable."""
    try:
        with warnings.catch_warnings(), Gradebook(db_url, **({"course_id": course_id} if course_id else {})) as gradebook:
            warnings.simplefilter("ignore", SAWarning)
            yield gradebook
    except SQLAlchemyError as error:
        raise CourseError(f"the gradebook {db_url} cannot be written: {str(error).splitlines()[0][:200]}") from None


def course_gradebook(course):
    """The course's gradebook (``gradebook.db`` at the course root)."""
    return quiet_gradebook(course.gradebook_url, course.course_id)


@contextmanager
def gradebook_lock(course):
    """Held while this process writes the course gradebook, so `grade` and a Formgrader
    autograde of the same course take turns."""
    path = course.cache / "gradebook.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def record(gradebook, result, notebook: str, flags: dict) -> Final:
    """Write the judged scores (``auto_score`` only) and the flags ({test: why}) to nbgrader's
    gradebook, then read back the final grades (the caller holds :func:`gradebook_lock`). A folder
    name that is no valid student id is not recorded."""
    if gradebook is None or result.status == Status.INVALID_ID:
        return Final.of(result)
    record_scores(gradebook, result, notebook, flags)
    return final(gradebook, result, notebook)


def register_assignment(gradebook, generated, assignment_id: str) -> None:
    """Copy the assignment's notebook and graded cells from the gradebook nbgrader generated."""
    with Gradebook(generated, course_id=gradebook.course_id) as source:
        master = source.find_assignment(assignment_id)
        gradebook.update_or_create_assignment(assignment_id)
        for notebook in master.notebooks:
            gradebook.update_or_create_notebook(notebook.name, assignment_id)
            for cell in notebook.grade_cells:
                gradebook.update_or_create_grade_cell(cell.name, notebook.name, assignment_id,
                                                      max_score=cell.max_score, cell_type=cell.cell_type)
            for cell in notebook.solution_cells:
                gradebook.update_or_create_solution_cell(cell.name, notebook.name, assignment_id)
            for cell in notebook.source_cells:
                gradebook.update_or_create_source_cell(cell.name, notebook.name, assignment_id, source=cell.source,
                                                       cell_type=cell.cell_type, locked=cell.locked,
                                                       checksum=cell.checksum)


def unnamed_line(gradebook, students: list) -> str:
    """One line naming the students the gradebook holds no name for (new ones included), which the
    Formgrader lists as "None, None", and how to name them; "" when every one has a name."""
    named = {s.id for s in gradebook.students if s.first_name or s.last_name}
    unnamed = sorted(set(students) - named)
    if not unnamed:
        return ""
    shown = ", ".join(unnamed[:5]) + (f" and {len(unnamed) - 5} more" if len(unnamed) > 5 else "")
    return (f"{len(unnamed)} student(s) without a name in the gradebook ({shown}): the Formgrader lists them as "
            "'None, None' until the roster is imported: nbgrader db student import roster.csv "
            "(columns id, first_name, last_name, email)")


def record_scores(gradebook, result, notebook: str, flags: dict) -> None:
    """Write one student's judged scores as nbgrader's ``SaveAutoGrades`` would: ``auto_score``
    only, so a score set by hand in the Formgrader survives; a cell is flagged
    ``needs_manual_grade`` when it has a manual score or a reason in ``flags`` ({test: why}).
    All of them, or (on any failure) none."""
    assignment_id, student = result.assignment, result.student
    gradebook.update_or_create_student(student)
    timestamp = parse_utc(result.submitted_at) if result.submitted_at else None
    try:
        submission = gradebook.find_submission(assignment_id, student)
        if timestamp:
            submission.timestamp = timestamp
        created = False
    except MissingEntry:
        gradebook.add_submission(assignment_id, student, timestamp=timestamp)
        created = True
    try:
        for test, points in result.scores.items():
            grade = gradebook.find_grade(test, notebook, assignment_id, student)
            grade.auto_score = points
            grade.needs_manual_grade = grade.manual_score is not None or test in flags
        gradebook.db.commit()
    except BaseException:
        gradebook.db.rollback()
        if created:
            gradebook.remove_submission(assignment_id, student)
        raise


def final(gradebook, result, notebook: str) -> Final:
    """The grades nbgrader holds for ``result``'s student now: the gradebook's own ``score`` (a
    manual score overrides the automatic one), the instructor's comment on each test's answer cell,
    the tests scored by hand; the judged scores alone when it holds none (or there is no gradebook)."""
    scores, comments, manual = {}, {}, set()
    try:
        for test in result.scores if gradebook is not None else ():
            grade = gradebook.find_grade(test, notebook, result.assignment, result.student)
            scores[test] = float(grade.score)
            if grade.manual_score is not None:
                manual.add(test)
    except MissingEntry:
        return Final.of(result)
    if not scores:
        return Final.of(result)
    for test in scores:
        try:
            text = gradebook.find_comment(answer_of(test), notebook, result.assignment, result.student).manual_comment
        except MissingEntry:
            continue
        if text and text.strip():
            comments[test] = text.strip()
    return Final(scores, result.max_score, comments, frozenset(manual))


def submission_timestamp(path) -> str:
    """The time nbgrader's exchange recorded at submit (``timestamp.txt`` beside the notebook), or ""
    when there is none, it is a link (never followed), or it is not a date."""
    stamp = Path(path).parent / "timestamp.txt" if path else None
    if not stamp or stamp.is_symlink() or not stamp.is_file():
        return ""
    text = stamp.read_text(errors="replace").strip()[:64]
    try:
        parse_utc(text)
    except (ValueError, OverflowError, TypeError):
        return ""
    return text


EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")  # what nbgrader's exchange leaves beside a submission


def copy_exchange_files(submitted_folder, folder) -> bool:
    """Copy what nbgrader's exchange left beside a submission (both files, plain files only) into
    ``folder``, where nbgrader's own steps look for them; False when they are not both there."""
    sources = [Path(submitted_folder) / name for name in EXCHANGE_FILES] if submitted_folder else []
    if not sources or not all(s.is_file() and not s.is_symlink() for s in sources):
        return False
    Path(folder).mkdir(parents=True, exist_ok=True)
    for source in sources:
        shutil.copyfile(source, Path(folder) / source.name)
    return True


def stage_feedback(course, path, student: str, assignment_id: str, page) -> None:
    """Put a student's feedback page where ``nbgrader release_feedback`` looks for it, when the
    submission came through nbgrader's exchange (it has the submission secret)."""
    folder = course.root / "feedback" / student / assignment_id
    if copy_exchange_files(Path(path).parent if path else None, folder):
        shutil.copyfile(page, folder / f"{assignment_id}.html")
