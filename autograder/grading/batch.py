"""Batch grading: every student of a submitted/ folder, in parallel, resumable, atomic.

A thin adapter over the grading steps (``autograder.grading.steps``) that nbgrader's own
autograde also runs, spread over a local process pool or a Dask cluster: only
:func:`~autograder.sandbox.run.run_in_sandbox` runs on a worker; admitting, the reference run
(the solutions), judging, the gradebook, feedback and the CSV stay in this process.
"""
import csv
import fcntl
import io
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

from tqdm import tqdm

from autograder.course import CourseError, read_notebook
from autograder.exchange.records import ExchangeNotes, exchange_notes, refused_students
from autograder.grading.admit import admit
from autograder.grading.assignment import (
    fingerprint, generated_path, load_assignment, reference_path, stored_reference,
)
from autograder.grading.files import sha256, write_atomic
from autograder.grading.inert import inert
from autograder.grading.items import write_analysis
from autograder.grading.gradebook import (
    copy_exchange_files, course_gradebook, register_assignment, stage_feedback, submission_timestamp,
    unnamed_line,
)
from autograder.grading import steps
from autograder.grading.score import Result
from autograder.grading.steps import (
    NOT_RUN, Final, ensure_reference, final, gradebook_lock, judge, not_run, record, reference_run, render,
    review_flags, stored_record, write_autograded,
)
from autograder.release import generate
from autograder.sandbox import SandboxError
from autograder.sandbox.bubblewrap import check_layout
from autograder.sandbox.servers import begin_servers, shared_servers, start_servers
from autograder.sandbox.limits import Limits
from autograder.sandbox.report import handoff
from autograder.sandbox.run import run_in_sandbox
from autograder.statuses import Status

# Students admitted and queued per worker, at most, ahead of the one it runs: enough that the
# admissions fill the 2 s a kernel server takes to import (8 left a core idle for 0.4 s of them).
AHEAD = 16


@dataclass(frozen=True)
class Submission:
    """One student folder of SUBMITTED, as found (trusted side; nothing in it has been read yet)."""

    student: str
    path: Path | None  # the notebook, or None when there is none (or it is refused)
    note: str = ""  # where it was found, or why it was refused
    refused: bool = False  # a link (never followed), or everything the student sent refused at collect
    exchange: ExchangeNotes = ExchangeNotes()  # what the course's collect said of it

    @property
    def digest(self) -> str:
        """What ``grade`` knows this submission by: the notebook's SHA-256, and what collect said of it."""
        return sha256(self.path) + (f"+{self.exchange.digest}" if self.exchange.digest else "")


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
    copy = generated(course, assignment_id, Path(workdir), stamp)
    release_nb = read_notebook(copy / "release" / assignment_id / f"{assignment_id}.ipynb")
    return load_assignment(course, assignment_id, release_nb, db_url=f"sqlite:///{copy / 'gradebook.db'}")


def generated(course, assignment_id, workdir: Path, stamp: str) -> Path:
    """``workdir/course``: nbgrader's generation of the assignment (a course copy with release/
    and gradebook.db), copied from the course's cache when one was kept for ``stamp``, else made
    now and kept (complete or not at all: staged, then renamed into place)."""
    kept = generated_path(course, assignment_id, stamp)
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
def reference(course, assignment, limits, stamp, pool=None):
    """Fill ``assignment.reference``: from the course's cache, else from a run of the solutions
    that starts now, beside the students' runs: first on ``pool`` (the local workers, so a batch
    never runs more sandboxes at once than it has workers), or, with no local pool, in a local
    process of its own (never on a Dask worker: it holds the solutions). The body submits the
    students; the run is checked and cached when it ends."""
    cached = stored_reference(reference_path(course, assignment.assignment_id, stamp))
    if cached is not None:
        assignment.reference = cached
        yield
        return
    with nullcontext(pool) if pool is not None else ProcessPoolExecutor(max_workers=1) as local:
        running = local.submit(reference_run, course, assignment.assignment_id, limits)
        try:
            yield
        except BaseException:
            running.cancel()
            raise
        ensure_reference(course, assignment, limits, stamp, run=running.result())


def released_notebook(course, assignment_id):
    """The student notebook of ``assignment_id`` as committed in release/."""
    return read_notebook(course.release / assignment_id / f"{assignment_id}.ipynb")


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
            with gradebook_lock(self.course):
                final = record(self.gradebook, result, self.assignment.assignment_id,
                               review_flags(result, self.assignment))
        page = self.out / "feedback" / result.student / f"{self.assignment.assignment_id}.html"
        write_atomic(page, render(result, final, nb, self.assignment, shown))
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
        path = self.course.root / "autograded" / result.student / result.assignment / f"{result.assignment}.ipynb"
        try:
            nb = inert(read_notebook(path), self.assignment.released_text)  # one an older version wrote, too
            stored, shown = stored_record(nb)
        except (CourseError, OSError):
            stored = None
        if stored != result:  # no autograded notebook of this result: its page stays as written
            with gradebook_lock(self.course):
                return record(self.gradebook, result, self.assignment.assignment_id,
                              review_flags(result, self.assignment))
        return self.publish(result, nb, shown, submission, fresh=False)


def ended_early(submission, assignment, status: Status, notes: list, digest: str = "", stamp: str = "") -> Result:
    """The result of a student graded without running anything: zero on every test."""
    return steps.ended_early(submission.student, assignment, status, notes, digest, stamp,
                             submission_timestamp(submission.path), submission.exchange.review)


def sandbox_result(future, notebook_json, limits):
    """The future's SandboxRun. When a pool process died (BrokenProcessPool fails every run the
    pool held), the run is made again alone in a fresh process, so only a run whose own process
    dies again fails (that student's grader_error); the batch goes on."""
    try:
        return future.result()
    except BrokenProcessPool:
        with ProcessPoolExecutor(max_workers=1) as alone:
            try:
                return alone.submit(run_in_sandbox, notebook_json, limits).result()
            except BrokenProcessPool:
                raise BrokenProcessPool("the grading process running this submission died "
                                        "(run alone, it died again); the other students were graded") from None


def grader_error(submission, assignment, digest, stamp, error) -> Result:
    """The result of a student whose grading failed in the grader itself (not in their code)."""
    why = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return ended_early(submission, assignment, Status.GRADER_ERROR, [f"grader error: {type(error).__name__}: {why}"],
                       digest, stamp)


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
                         "; ".join(r.notes), "; ".join(r.review)])
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
        from collections import Counter

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


@contextmanager
def worker_pool(workers: int):
    """A local pool of ``workers`` started now, each connecting to the fork servers this process
    shares for the pool's life, while it goes on (generating the assignment, admitting the first
    students)."""
    with shared_servers(), ProcessPoolExecutor(max_workers=workers, initializer=start_servers) as pool:
        for _ in range(workers):
            pool.submit(int)  # a task starts the workers (all of them, or one each while none is idle)
        yield pool


@contextmanager
def executor(workers, scheduler, pool=None):
    """Where submissions run: ``pool`` (a caller's local process pool), a new local pool of
    ``workers``, or the Dask cluster at ``scheduler``."""
    if pool is not None:
        yield pool
        return
    if not scheduler:
        with worker_pool(workers) as local:
            yield local
        return
    from distributed import Client

    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise CourseError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    with client:
        client.run(begin_servers)  # each worker's fork servers start now, while this process admits
        # A worker lost mid-batch: its tasks are rescheduled on the others (Dask's allowed_failures).
        yield client.get_executor(pure=False)


def drain(pending: set, feed, finish, workers: int) -> None:
    """Run a batch to its end: ``pending``, the futures of the students submitted so far;
    ``feed(n)``, the futures of up to ``n`` more (fewer only when none are left); ``finish(done)``
    takes those that ended. This process admits the next student whenever it would otherwise
    wait (most while the fork servers start, when a core idles, rather than beside the runs),
    with at most AHEAD students per worker queued."""
    admitting = True
    while True:
        ahead = admitting and len(pending) < workers * (AHEAD + 1)
        if not pending and not ahead:
            return
        done, pending = wait(pending, timeout=0 if ahead else None, return_when=FIRST_COMPLETED)
        if not done:
            fed = feed(1)
            admitting, pending = bool(fed), pending | fed
            continue
        finish(done)
        if len(pending) < workers and not admitting:  # a worker idles: the summary's imports take its core
            import matplotlib.figure  # noqa: F401


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
            executor(workers, scheduler, pool) as pool, \
            (course_gradebook(course) if record_grades else nullcontext()) as gradebook:
        assignment = prepare_assignment(course, assignment_id, workdir, stamp)
        generated_release = Path(workdir) / "course" / "release" / assignment_id / f"{assignment_id}.ipynb"
        if gradebook:
            with gradebook_lock(course):
                register_assignment(gradebook, assignment.db_url, assignment_id)
                unnamed = unnamed_line(gradebook, [s.student for s in submissions])
            if unnamed and progress:
                print(unnamed, file=sys.stderr)
        publisher = Publisher(course, assignment, out, gradebook)
        todo = []
        for submission in submissions:
            digest = submission.digest
            earlier, reason = finished(out, submission.student, digest, assignment_id, stamp)
            if earlier and not regrade:
                batch.results.append(earlier)
                batch.finals[earlier.student] = publisher.kept(earlier, submission)
            else:
                todo.append((submission, digest))
            batch.reasons[submission.student] = "forced" if regrade else reason
        if batch.results and progress:
            print(f"{len(batch.results)} already graded (submission, assignment and grader unchanged): kept",
                  file=sys.stderr)
        bar = tqdm(total=len(submissions), initial=len(batch.results), unit="student", disable=not progress,
                   desc=f"grading {assignment_id}", file=sys.stderr)

        def publish(result, nb, shown, submission):
            batch.results.append(result)
            batch.finals[result.student] = publisher.publish(result, nb, shown, submission)
            bar.set_postfix_str(f"{result.student}: {result.status}")
            bar.update()

        futures, waiting = {}, iter(todo)

        def feed(count) -> set:
            """Admit and submit the next ``count`` students who have a notebook to run (those who have
            none are published as they come); return their futures."""
            fed = set()
            for submission, digest in waiting:
                admitted = admit(course, submission, assignment)
                if admitted.status != Status.GRADED:
                    result = ended_early(submission, assignment, admitted.status, admitted.notes, digest, stamp)
                    shown = None
                    if result.status in NOT_RUN:  # what the Formgrader shows: the notebook, or the release
                        shown = not_run(result, admitted.nb or read_notebook(generated_release), assignment)
                    publish(result, shown, {}, submission)
                    continue
                job = handoff(admitted.nb)
                future = pool.submit(run_in_sandbox, job, limits)
                futures[future] = (submission, digest, admitted.notes, job)
                fed.add(future)
                if len(fed) == count:
                    break
            return fed

        def finish(done):
            for future in done:
                submission, digest, notes, job = futures[future]
                try:
                    run = sandbox_result(future, job, limits)
                    result, nb = judge(submission.student, run, notes, assignment, limits, digest, stamp,
                                       submission_timestamp(submission.path), submission.exchange.review)
                except Exception as error:  # the grader's failure on one student, never the batch's
                    result, nb, run = grader_error(submission, assignment, digest, stamp, error), None, None
                publish(result, nb, run.shown if run else {}, submission)

        try:
            with reference(course, assignment, limits, stamp, None if scheduler else pool):
                pending = feed(workers)
            drain(pending, feed, finish, workers)
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            raise KeyboardInterrupt(f"{len(batch.results)} of {len(submissions)} students finished; their results "
                                    "are kept") from None
        except BaseException:
            for f in futures:
                f.cancel()
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
        for path in sorted((course.root / "autograded").glob(f"*/{assignment_id}/{assignment_id}.ipynb")):
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

