"""Grading benchmark: serial nbgrader autograde vs ``grade`` with 1 and N workers, and the sandbox's cost."""
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.grading.assignment import fingerprint
from autograder.grading.batch import grade_batch, prepare_assignment
from autograder.grading.reference import ensure_reference, reference_run
from autograder.cases import load_cases
from autograder.check import write_submissions
from autograder.course import answer_cells, nbgrader
from autograder.grading.admit import sanitize
from autograder.sandbox.bubblewrap import QuietKernelManager
from autograder.sandbox.recording import run_recorded
from autograder.sandbox.report import handoff
from autograder.sandbox.run import sandboxed_run
from autograder.sandbox.limits import Limits


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def sandbox_cost(course, assignment, path, repeats):
    """Median seconds to execute one prepared submission with and without the sandbox."""
    def run(sandboxed):
        with tempfile.TemporaryDirectory() as scratch:
            prepared, _ = sanitize(course, nbformat.read(path, as_version=4), assignment, "bench")
            if sandboxed:
                sandboxed_run(handoff(prepared), Path(scratch), Limits())
            else:
                run_recorded(prepared, Path(scratch), Limits(), QuietKernelManager)
    plain = statistics.median(timed(lambda: run(False)) for _ in range(repeats))
    boxed = statistics.median(timed(lambda: run(True)) for _ in range(repeats))
    return plain, boxed


def bench_grading(course, assignment_id: str, size: int, workers: int, out) -> None:
    """Print seconds and notebooks per minute for serial nbgrader, for ``grade`` on 1 and N local
    workers and on a 2-worker Dask LocalCluster, and the sandbox's cost. Each side works from its
    assignment as generated and cached once: nbgrader's generated course, the course's generation
    and reference observations (the solved notebook's run, timed apart)."""
    cases = load_cases(course, assignment_id, answer_cells(course.source_notebook(assignment_id)))
    with tempfile.TemporaryDirectory(prefix="finite-bench-") as workdir:
        workdir = Path(workdir)
        write_submissions(course, assignment_id, {f"student{i:03d}": cases[i % len(cases)] for i in range(size)},
                          workdir / "submitted")
        print(f"synthetic class: {size} submissions of {assignment_id} "
              "(cycling solution, blank release and every self-check case)", file=out)
        stamp = fingerprint(course, assignment_id, Limits())
        assignment = prepare_assignment(course, assignment_id, workdir / "prepared", stamp)
        reference = timed(lambda: ensure_reference(course, assignment, Limits(), stamp,
                                                   run=reference_run(course, assignment_id, Limits())))
        print(f"  the reference run (the solved notebook, once per assignment and grader version, then cached; "
              f"this process's first sandbox): {reference:.1f} s", file=out)
        generated = workdir / "prepared" / "course"
        serial_course = workdir / "serial"
        shutil.copytree(generated, serial_course)
        shutil.copytree(workdir / "submitted", serial_course / "submitted")
        serial = timed(lambda: nbgrader(["autograde", assignment_id, "--force"], cwd=serial_course))
        print(f"  serial nbgrader autograde   {serial:7.1f} s   {serial / size:5.2f} s/submission", file=out)
        def run(label, n, scheduler=None):
            seconds = timed(lambda: grade_batch(course, workdir / "submitted", assignment_id,
                                                workdir / f"out-{label}", n, Limits(), progress=False,
                                                record_grades=False, scheduler=scheduler))
            speedup, goal = serial / seconds, 1.3 if n == 1 else 1.25 * n
            print(f"  grade, {label:<17} {seconds:7.1f} s   {60 * size / seconds:5.1f} notebooks/min"
                  f"   {speedup:4.2f}x serial nbgrader (goal >= {goal:.1f}x: {'met' if speedup >= goal else 'NOT met'})",
                  file=out)
            return seconds

        for n in sorted({1, workers}):
            per_notebook = run(f"{n} local worker(s)", n) * n / size
        print(f"  a class of 300 on one 16-core machine (16 workers at {per_notebook:.1f} s per notebook each): "
              f"about {300 * per_notebook / 16 / 60:.1f} min per assignment", file=out)
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster):
            run("Dask, 2 workers", 2, cluster.scheduler_address)
        first = workdir / "submitted" / "student000" / assignment_id / f"{assignment_id}.ipynb"
        plain, boxed = sandbox_cost(course, assignment, first, 3)
        cost = 100 * (boxed / plain - 1)
        print(f"  one submission executed: plain kernel {plain:.2f} s, sandboxed {boxed:.2f} s"
              f"   sandbox cost {cost:+.1f} % (goal <= +10 %: {'met' if cost <= 10 else 'NOT met'})", file=out)
