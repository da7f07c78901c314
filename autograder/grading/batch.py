"""Batch grading: every student of a submitted/ folder, in parallel, resumable, atomic."""
import csv
import hashlib
import io
import json
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager, nullcontext
from dataclasses import asdict
from pathlib import Path

import nbformat
import torch
from nbgrader import __version__ as nbgrader_version
from tqdm import tqdm

import autograder
from autograder.grading import feedback
from autograder.cases import Case, build_submission
from autograder.course import CourseError, answer_cells, graded_tests, hidden_regions, read_notebook
from autograder.grading.disclosure import SecretFilter, assertion_templates
from autograder.grading.gradebook import course_gradebook, record, register_assignment, stage_feedback, submission_timestamp
from autograder.grading.admit import admit, sanitise
from autograder.grading.judge import Observation
from autograder.grading.score import Assignment, Result, conclude, reference_observations
from autograder.release import generate
from autograder.sandbox.bubblewrap import Limits, SandboxError, check_layout, fplab_dir
from autograder.sandbox.execute import run_in_sandbox


def write_atomic(path, data):
    """Write bytes or text to ``path`` through a temp file in the same folder and os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def secret_filter(source_nb, release_nb, header_nb) -> SecretFilter:
    """Recognises the source's hidden tests and solutions, minus what the release shows anyway."""
    secrets = [region for cell in source_nb.cells for region in hidden_regions(cell.source)]
    public = [cell.source for nb in (release_nb, header_nb) for cell in nb.cells]
    return SecretFilter(secrets, public)


def fingerprint(course, assignment_id, limits) -> str:
    """A hash of everything a grade depends on besides the submission: the source notebook and
    header, the course config, the learner-side package the kernel imports, the grader's own code
    and templates, the limits and the versions."""
    digest = hashlib.sha256()
    code = [path for package in (fplab_dir(), Path(autograder.__file__).parent)
            for path in sorted(package.rglob("*")) if path.suffix in (".py", ".j2")]
    files = [course.source_path(assignment_id), course.source / "header.ipynb", course.root / "nbgrader_config.py",
             *code]
    for path in files:
        digest.update(str(path.name).encode() + b"\0" + path.read_bytes())
    digest.update(repr((limits, torch.__version__, nbgrader_version, sys.version)).encode())
    return digest.hexdigest()


def prepare_assignment(course, assignment_id, workdir) -> tuple:
    """Generate the assignment in ``workdir`` and collect what grading needs from it. Returns
    (Assignment without its reference observations, the solved notebook that makes them)."""
    copy = generate(course, [assignment_id], workdir)
    release_nb = nbformat.read(copy / "release" / assignment_id / f"{assignment_id}.ipynb", as_version=4)
    locked = {c.metadata["nbgrader"]["grade_id"]: c for c in release_nb.cells
              if c.metadata.get("nbgrader", {}).get("locked")}
    source_nb = course.source_notebook(assignment_id)
    tests = graded_tests(source_nb)
    if not tests:
        raise CourseError(f"{assignment_id}: the source notebook has no graded test cells")
    templates = {grade_id: assertion_templates(cell.source) for grade_id, cell in locked.items() if grade_id in tests}
    assignment = Assignment(assignment_id, f"sqlite:///{copy / 'gradebook.db'}", locked, tests,
                            secret_filter(source_nb, release_nb, read_notebook(course.source / "header.ipynb")),
                            templates)
    solved = build_submission(release_nb, answer_cells(source_nb), Case("solution"))
    return assignment, sanitise(solved, assignment)


@contextmanager
def reference(assignment, solved, pool, limits, stored):
    """Fill ``assignment.reference``: from ``stored`` (a cache file) when it exists, else from a
    run of the solved notebook on ``pool``, which starts now, beside the students' runs. The
    body submits the students; the run is read, checked and cached when the body ends."""
    if stored.is_file():
        assignment.reference = {k: [Observation(**o) for o in v] for k, v in json.loads(stored.read_text()).items()}
        yield
        return
    running = pool.submit(run_in_sandbox, nbformat.writes(solved), limits)
    try:
        yield
    except BaseException:
        running.cancel()
        raise
    run = running.result()
    assignment.reference = reference_observations(assignment, run.executed, run.ran, run.outcome)
    write_atomic(stored, json.dumps({k: [asdict(o) for o in v] for k, v in assignment.reference.items()}))


def released_notebook(course, assignment_id):
    """The student notebook of ``assignment_id`` as committed in release/."""
    return read_notebook(course.release / assignment_id / f"{assignment_id}.ipynb")


def find_submissions(submitted, assignment_id) -> dict:
    """{student: (notebook path or None, note)} for every student folder in ``submitted``.

    The notebook is ``<student>/<ID>/<ID>.ipynb``; failing that, the one notebook in the student's
    folder whose name starts with the assignment id (``ID (1).ipynb``, a flat ``<student>/ID.ipynb``)
    is graded with a note saying so.
    """
    students = {}
    for folder in sorted(Path(submitted).iterdir()):
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        path = folder / assignment_id / f"{assignment_id}.ipynb"
        if path.is_file():
            students[folder.name] = (path, "")
            continue
        found = [p for p in folder.rglob(f"{assignment_id}*.ipynb")
                 if ".ipynb_checkpoints" not in p.parts and p.is_file()]
        if len(found) == 1:
            where = found[0].relative_to(folder)
            students[folder.name] = (found[0], f"graded {where}: the expected place is {assignment_id}/{assignment_id}.ipynb")
        else:
            students[folder.name] = (None, "")
    return students


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""


def result_path(out, student):
    return Path(out) / ".results" / f"{student}.json"


def finished(out, student, digest, assignment_id, fingerprint):
    """The stored result of an earlier run, if it graded this same submission with this same
    assignment, limits and environment."""
    try:
        stored = json.loads(result_path(out, student).read_text())
    except (OSError, ValueError):
        return None
    if (stored.get("submission_sha256"), stored.get("assignment"), stored.get("fingerprint")) != \
            (digest, assignment_id, fingerprint):
        return None
    return Result(**stored)


def finish(result, nb, assignment, out, fingerprint, gradebook, course, path):
    """Write one student's feedback, then the result (last, so a result means done), then the
    gradebook entry and the page for ``nbgrader release_feedback``."""
    result.fingerprint, result.submitted_at = fingerprint, submission_timestamp(path)
    page = Path(out) / "feedback" / result.student / f"{assignment.assignment_id}.html"
    write_atomic(page, feedback.render(result, nb, assignment))
    write_atomic(result_path(out, result.student), result.to_json())
    if gradebook:
        record(gradebook, result)
        stage_feedback(course, path, result.student, assignment.assignment_id, page)
    return result


def write_table(results, assignment, out):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "assignment", "status", "score", "max_score", *assignment.tests, "notes"])
    for r in sorted(results, key=lambda r: r.student):
        writer.writerow([r.student, r.assignment, r.status, f"{r.score:g}", f"{r.max_score:g}",
                         *(f"{r.scores.get(t, 0):g}" for t in assignment.tests), "; ".join(r.notes)])
    write_atomic(Path(out) / "grades.csv", buffer.getvalue())


def write_summary(results, assignment, out) -> None:
    """summary.png: full marks per test cell, how many students got each total, and the statuses."""
    from collections import Counter

    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(13, 4))
    cells, totals, statuses = fig.subplots(1, 3, gridspec_kw={"width_ratios": [2, 1.5, 1]})
    tests = list(assignment.tests)
    passed = [sum(r.scores.get(t, 0) >= p for r in results) for t, p in assignment.tests.items()]
    cells.barh(tests, passed, color="#1a7f37", label="full marks")
    cells.barh(tests, [len(results) - n for n in passed], left=passed, color="#cf222e", label="not")
    cells.set_xlabel(f"students, of {len(results)}")
    cells.xaxis.set_major_locator(MaxNLocator(integer=True))
    cells.invert_yaxis()
    cells.legend(loc="lower right")
    cells.set_title("per test cell")
    counts = Counter(round(r.score, 2) for r in results)
    totals.bar([f"{score:g}" for score in sorted(counts)], [counts[score] for score in sorted(counts)], color="#0969da")
    totals.yaxis.set_major_locator(MaxNLocator(integer=True))
    totals.set_xlabel(f"score (max {assignment.max_score:g})")
    totals.set_ylabel("students")
    totals.set_title("total: one bar per score")
    by_status = Counter(r.status for r in results)
    statuses.barh(list(by_status), list(by_status.values()), color="#8250df")
    statuses.xaxis.set_major_locator(MaxNLocator(integer=True))
    statuses.invert_yaxis()
    statuses.set_title("status")
    fig.suptitle(f"{assignment.assignment_id}: {len(results)} students")
    fig.tight_layout()
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
def executor(workers, scheduler):
    """Where submissions run: a local process pool, or the Dask cluster at ``scheduler``."""
    if not scheduler:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield pool
        return
    from distributed import Client

    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise CourseError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    with client:
        # A worker lost mid-batch: its tasks are rescheduled on the others (Dask's allowed_failures).
        yield client.get_executor(pure=False)


def grade_batch(course, submitted, assignment_id: str, out, workers: int, limits: Limits, progress: bool = True,
                regrade: bool = False, record_grades: bool = True, scheduler: str | None = None) -> list:
    """Grade every student in ``submitted``; returns the list of results (kept and new).

    A student's earlier result is kept while the submission, the assignment (source, header,
    fplab), the limits and the versions are unchanged, unless ``regrade``. Student code runs in
    the sandbox on a local process pool, or on the Dask cluster at ``scheduler``; everything
    else (the reference run, judging, feedback, the gradebook with ``record_grades``) stays here.
    """
    submitted, out = Path(submitted).resolve(), Path(out).resolve()
    check_folders(course, submitted, out)
    course.resolve_ids([assignment_id])
    students = find_submissions(submitted, assignment_id)
    if not students:
        raise CourseError(f"{submitted} holds no student folders")
    out.mkdir(parents=True, exist_ok=True)
    stamp = fingerprint(course, assignment_id, limits)
    with tempfile.TemporaryDirectory(prefix="finite-grade-") as workdir, executor(workers, scheduler) as pool, \
            (course_gradebook(course) if record_grades else nullcontext()) as gradebook:
        assignment, solved = prepare_assignment(course, assignment_id, workdir)
        if gradebook:
            register_assignment(gradebook, assignment.db_url, assignment_id)
        results, todo = [], []
        for student, (path, _) in students.items():
            digest = sha256(path)
            earlier = None if regrade else finished(out, student, digest, assignment_id, stamp)
            if earlier:
                results.append(earlier)
                if gradebook:
                    record(gradebook, earlier)
            else:
                todo.append((student, path, digest))
        if results and progress:
            print(f"{len(results)} already graded (submission and assignment unchanged): kept", file=sys.stderr)
        bar = tqdm(total=len(students), initial=len(results), unit="student", disable=not progress,
                   desc=f"grading {assignment_id}", file=sys.stderr)
        futures, ended = {}, []
        try:
            with reference(assignment, solved, pool, limits, out / ".reference" / f"reference-{stamp}.json"):
                for student, path, digest in todo:
                    early, admitted = admit(student, path, assignment, digest, students[student][1])
                    if early:
                        ended.append((early, path))
                    else:
                        nb, notes = admitted
                        futures[pool.submit(run_in_sandbox, nbformat.writes(nb), limits)] = (student, path, digest,
                                                                                              notes)
            for early, path in ended:
                results.append(finish(early, None, assignment, out, stamp, gradebook, course, path))
                bar.update()
            for future in as_completed(futures):
                student, path, digest, notes = futures[future]
                try:
                    run = future.result()
                except Exception as error:
                    raise CourseError(f"grading {student} failed: {error}") from error
                result, nb = conclude(student, run.executed, run.ran, run.outcome, run.usage, notes, assignment, limits, digest)
                results.append(finish(result, nb, assignment, out, stamp, gradebook, course, path))
                bar.set_postfix_str(f"{student}: {result.status}")
                bar.update()
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        finally:
            bar.close()
        write_table(results, assignment, out)
        write_summary(results, assignment, out)
    return results
