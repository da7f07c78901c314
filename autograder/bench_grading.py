"""Grading benchmark: serial nbgrader autograde vs ``grade`` with 1 and N workers, and the sandbox's cost."""
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.batch import grade_batch, prepare_assignment
from autograder.cases import load_cases
from autograder.check import build_submission
from autograder.course import answer_cells, nbgrader
from autograder.grading import execute, sanitise
from autograder.sandbox import Limits


def synthetic_class(course, assignment_id, size, release_nb):
    """``size`` submissions cycling through the solution, the blank release and every case."""
    source_nb = course.source_notebook(assignment_id)
    solutions = answer_cells(source_nb)
    cases = load_cases(course, assignment_id, solutions)
    return {f"student{i:03d}": build_submission(release_nb, solutions, cases[i % len(cases)])
            for i in range(size)}


def write_class(submissions, assignment_id, folder):
    for student, nb in submissions.items():
        path = Path(folder) / student / assignment_id / f"{assignment_id}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def sandbox_cost(assignment, nb, repeats, scratch_root):
    """Median seconds to execute one prepared submission with and without the sandbox."""
    def run(sandboxed):
        with tempfile.TemporaryDirectory(dir=scratch_root) as scratch:
            prepared = sanitise(nbformat.from_dict(nb), assignment)
            execute(prepared, Path(scratch), Limits(), sandboxed=sandboxed)
    plain = statistics.median(timed(lambda: run(False)) for _ in range(repeats))
    boxed = statistics.median(timed(lambda: run(True)) for _ in range(repeats))
    return plain, boxed


def bench_grading(course, assignment_id, size, workers, out):
    with tempfile.TemporaryDirectory(prefix="finite-bench-") as workdir:
        workdir = Path(workdir)
        assignment = prepare_assignment(course, assignment_id, workdir / "prepared")
        generated = Path(assignment.db_url.removeprefix("sqlite:///")).parent
        release_nb = nbformat.read(generated / "release" / assignment_id / f"{assignment_id}.ipynb", 4)
        submissions = synthetic_class(course, assignment_id, size, release_nb)
        write_class(submissions, assignment_id, workdir / "submitted")
        print(f"synthetic class: {size} submissions of {assignment_id} "
              "(cycling solution, blank release and every self-check case)", file=out)

        serial_course = workdir / "serial"
        shutil.copytree(generated, serial_course)
        shutil.copytree(workdir / "submitted", serial_course / "submitted")
        serial = timed(lambda: nbgrader(["autograde", assignment_id, "--force"], cwd=serial_course))
        print(f"  serial nbgrader autograde   {serial:7.1f} s   {serial / size:5.2f} s/submission", file=out)

        rows = []
        for n in sorted({1, workers}):
            seconds = timed(lambda: grade_batch(course, workdir / "submitted", assignment_id,
                                                workdir / f"out{n}", n, Limits()))
            rows.append((n, seconds))
            print(f"  grade, {n} worker(s)         {seconds:7.1f} s   {seconds / size:5.2f} s/submission"
                  f"   speed-up vs serial nbgrader {serial / seconds:4.2f}x (goal {0.9 * n:.1f}x)", file=out)
        plain, boxed = sandbox_cost(assignment, submissions["student000"], 3, workdir)
        print(f"  one submission executed: plain kernel {plain:.2f} s, sandboxed {boxed:.2f} s"
              f"   sandbox cost {100 * (boxed / plain - 1):+.1f} % (goal <= +10 %)", file=out)
