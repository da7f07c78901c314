"""Batch grading: every student of a submitted/ folder, in parallel, resumable, atomic.

A thin adapter over the grading steps (:mod:`autograder.grading`) that nbgrader's own autograde
also runs: the students are found (``discovery.py``), admitted here, run on a local process pool or
a Dask cluster (``scheduling.py``: only :func:`~autograder.sandbox.run.run_in_sandbox` runs on a
worker), concluded here against the reference (which a local process runs: never a Dask worker),
and published (``publishing.py``).
"""
import fcntl
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from autograder.course import Course, CourseError, read_notebook
from autograder.grading.admit import admit
from autograder.grading.assignment import load_assignment
from autograder.grading.autograded import NOT_RUN, flagged, not_run, stored_record
from autograder.grading.discovery import Submission, planned
from autograder.grading.gradebook import course_gradebook, final, gradebook_lock, register_assignment, unnamed_line
from autograder.grading.items import write_analysis
from autograder.grading.publishing import Publisher, finished, write_summary, write_table
from autograder.grading.reference import reference_beside
from autograder.grading.scheduling import drain, run_later, runners, sandbox_result
from autograder.grading.verdict import Context, Result, conclude, ended_early
from autograder.release import generate
from autograder.sandbox.limits import Limits
from autograder.sandbox.report import handoff
from autograder.statuses import Status


@dataclass
class Batch:
    """What one ``grade`` run did: every result, and why each student was (re)graded or kept."""

    results: list = field(default_factory=list)
    reasons: dict = field(default_factory=dict)  # student -> "kept" or why it was graded
    finals: dict = field(default_factory=dict)  # student -> Final (the gradebook's, manual grades included)
    largest: list = field(default_factory=list)  # the batch's three largest failure signatures (items.py)


def prepare_assignment(course, assignment_id, workdir, stamp: str):
    """Generate the assignment in ``workdir`` (nbgrader's gradebook there restores locked cells)
    and return its :class:`~autograder.grading.assignment.Assignment`, reference not yet filled.
    ``stamp``: the assignment's fingerprint, under which the course keeps the generation."""
    copy = Course(generated(course, assignment_id, Path(workdir), stamp))
    release_nb = read_notebook(copy.release_path(assignment_id))
    return load_assignment(course, assignment_id, release_nb, db_url=copy.gradebook_url)


def generated(course, assignment_id, workdir: Path, stamp: str) -> Path:
    """``workdir/course``: nbgrader's generation of the assignment (a course copy with release/
    and gradebook.db), copied from the course's cache when one was kept for ``stamp``, else made
    now and kept (complete or not at all: staged, then renamed into place)."""
    kept = course.cache / "generated" / f"{assignment_id}-{stamp[:16]}"
    if kept.is_dir():
        return Path(shutil.copytree(kept, workdir / "course"))
    made = generate(course, [assignment_id], workdir)
    kept.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".new-", dir=kept.parent))
    try:
        shutil.copytree(made, staging / "course")
        (staging / "course").rename(kept)
    except OSError:
        pass  # another grader kept the same generation first
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return made


@contextmanager
def held(out: Path):
    """The output folder, this run's alone while it lasts (a second ``grade`` on it stops at once,
    saying which process holds it); the lock file is gone when the run ends."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / ".grade.lock"
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise CourseError(f"{out} is being graded by {holder}: wait for it to end, or grade into another "
                              "--out") from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"process {os.getpid()} (since {time.strftime('%Y-%m-%d %H:%M:%S')})")
        lock.flush()
        try:
            yield
        finally:
            path.unlink(missing_ok=True)


def dry_run(course, submitted, assignment_id: str, out, limits: Limits, regrade: bool = False) -> list:
    """What ``grade`` would do, nothing run or written: one line per student (their notebook, or why
    there is none; graded and why, or kept)."""
    submitted, out = Path(submitted).resolve(), Path(out).resolve()
    submissions, stamp = planned(course, submitted, assignment_id, out, limits)
    lines = []
    for submission in submissions:
        earlier, reason = finished(out, submission.student, submission.digest, assignment_id, stamp)
        what = (str(submission.path.relative_to(submitted)) if submission.path else
                "refused" if submission.refused else "no notebook (missing)")
        lines.append(f"{submission.student}: {what}: " + ("graded (forced)" if regrade else
                                                          "kept" if earlier else f"graded ({reason})"))
    return lines


def grader_error(context: Context, assignment, error) -> Result:
    """The result of a student whose grading failed in the grader itself (not in their code)."""
    why = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return ended_early(context, assignment, Status.GRADER_ERROR, [f"grader error: {type(error).__name__}: {why}"])


@dataclass
class _Running:
    """One batch while it runs: the students still to admit, the runs on the workers, what is done."""

    course: object
    assignment: object
    limits: Limits
    stamp: str
    pool: object  # where runs go: a local pool or a Dask executor
    publisher: Publisher
    release: Path  # the generated release: what the Formgrader shows for a refused submission
    waiting: object  # iterator of the Submissions still to admit
    batch: Batch
    bar: tqdm
    futures: dict = field(default_factory=dict)  # future -> (Submission, Context, notes, notebook JSON)

    def publish(self, result: Result, nb, shown: dict, submission: Submission) -> None:
        self.batch.results.append(result)
        self.batch.finals[result.student] = self.publisher.publish(result, nb, shown, submission)
        self.bar.set_postfix_str(f"{result.student}: {result.status}")
        self.bar.update()

    def feed(self, count: int) -> set:
        """Admit and submit the next ``count`` students who have a notebook to run (those who have
        none are published as they come); their futures."""
        fed = set()
        for submission in self.waiting:
            context = submission.context(self.stamp)
            admitted = admit(self.course, submission, self.assignment)
            if admitted.status != Status.GRADED:
                result = ended_early(context, self.assignment, admitted.status, admitted.notes)
                shown = None
                if result.status in NOT_RUN:  # what the Formgrader shows: the notebook, or the release
                    shown = not_run(result, admitted.nb or read_notebook(self.release), self.assignment)
                self.publish(result, shown, {}, submission)
                continue
            job = handoff(admitted.nb)
            future = run_later(self.pool, job, self.limits)
            self.futures[future] = (submission, context, admitted.notes, job)
            fed.add(future)
            if len(fed) == count:
                break
        return fed

    def finish(self, done) -> None:
        for future in done:
            submission, context, notes, job = self.futures[future]
            try:
                run = sandbox_result(future, job, self.limits)
                result, nb = conclude(run, self.assignment, self.limits, context, notes)
                nb, shown = flagged(nb, result, self.assignment, run.shown), run.shown
            except Exception as error:  # the grader's failure on one student, never the batch's
                result, nb, shown = grader_error(context, self.assignment, error), None, {}
            self.publish(result, nb, shown, submission)

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()


def grade_batch(course, submitted, assignment_id: str, out, workers: int, limits: Limits, progress: bool = True,
                regrade: bool = False, record_grades: bool = True, scheduler: str | None = None,
                pool: ProcessPoolExecutor | None = None) -> Batch:
    """Grade every student in ``submitted``.

    A student's earlier result is kept while the submission and the fingerprint (assignment,
    grader, limits, versions) are unchanged, unless ``regrade``. Student code runs in the sandbox
    on a local process pool (``pool``, kept by a caller grading several batches: its workers and
    their fork servers start once), or on the Dask cluster at ``scheduler``; everything else stays here.
    A failure of the grader on one student is that student's ``grader_error``; the batch goes on.
    """
    submitted, out = Path(submitted).resolve(), Path(out).resolve()
    submissions, stamp = planned(course, submitted, assignment_id, out, limits)
    batch = Batch()
    with held(out), tempfile.TemporaryDirectory(prefix="finite-grade-") as workdir, \
            runners(workers, scheduler, pool) as pool, \
            (course_gradebook(course) if record_grades else nullcontext()) as gradebook:
        assignment = prepare_assignment(course, assignment_id, workdir, stamp)
        if gradebook:
            with gradebook_lock(course):
                register_assignment(gradebook, assignment.db_url, assignment_id)
                unnamed = unnamed_line(gradebook, [s.student for s in submissions])
            if unnamed and progress:
                print(unnamed, file=sys.stderr)
        publisher = Publisher(course, assignment, out, gradebook)
        todo = []
        for submission in submissions:
            earlier, reason = finished(out, submission.student, submission.digest, assignment_id, stamp)
            if earlier and not regrade:
                batch.results.append(earlier)
                batch.finals[earlier.student] = publisher.kept(earlier, submission)
            else:
                todo.append(submission)
            batch.reasons[submission.student] = "forced" if regrade else reason
        if batch.results and progress:
            print(f"{len(batch.results)} already graded (submission, assignment and grader unchanged): kept",
                  file=sys.stderr)
        bar = tqdm(total=len(submissions), initial=len(batch.results), unit="student", disable=not progress,
                   desc=f"grading {assignment_id}", file=sys.stderr)
        running = _Running(course, assignment, limits, stamp, pool, publisher,
                           Course(Path(workdir) / "course").release_path(assignment_id), iter(todo), batch, bar)
        try:
            with reference_beside(course, assignment, limits, stamp, None if scheduler else pool):
                pending = running.feed(workers)
            drain(pending, running.feed, running.finish, workers)
        except KeyboardInterrupt:
            running.cancel()
            raise KeyboardInterrupt(f"{len(batch.results)} of {len(submissions)} students finished; their results "
                                    "are kept") from None
        except BaseException:
            running.cancel()
            raise
        finally:
            bar.close()
        write_table(batch.results, batch.finals, assignment, out)
        write_summary(batch.results, batch.finals, assignment, out)
        batch.largest = write_analysis(batch.results, batch.finals, assignment, out)
    return batch


def class_report(course, assignment_id: str, out) -> tuple:
    """grades.csv, summary.png and the item analysis of ``assignment_id`` from what the one pipeline
    left (the autograded notebooks' judged results, the gradebook's final grades): the same files as
    ``grade`` writes, after ``nbgrader autograde`` or the Formgrader. Returns (results, the three
    largest failure signatures); CourseError when nothing of it was autograded."""
    course.resolve_ids([assignment_id])
    assignment = load_assignment(course, assignment_id)
    results, finals = [], {}
    with course_gradebook(course) as gradebook:
        for path in course.autograded_notebooks(assignment_id):
            if path.is_symlink() or not path.is_file():
                continue
            try:
                result, _ = stored_record(read_notebook(path))
            except CourseError:
                continue  # autograded by nbgrader's stock steps, not the course's judge
            results.append(result)
            finals[result.student] = final(gradebook, result, assignment_id)
    if not results:
        raise CourseError(f"nothing of {assignment_id} was autograded by the course's judge (autograded/ holds none)")
    write_table(results, finals, assignment, out)
    write_summary(results, finals, assignment, out)
    return results, write_analysis(results, finals, assignment, out)
