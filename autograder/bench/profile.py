"""Where one graded notebook's seconds go, step by step, on the path that grades students."""
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat

from autograder.bench.plain import floor_seconds
from autograder.cases import load_cases
from autograder.check import write_submissions
from autograder.course import answer_cells
from autograder.grading.admit import admit
from autograder.grading.assignment import fingerprint
from autograder.grading import feedback
from autograder.grading.autograded import flagged
from autograder.grading.batch import prepare_assignment
from autograder.grading.discovery import find_submissions
from autograder.grading.gradebook import Final
from autograder.grading.reference import ensure_reference
from autograder.grading.verdict import Context, conclude
from autograder.sandbox.report import handoff
from autograder.sandbox.run import run_in_sandbox
from autograder.sandbox.limits import Limits

STEPS = ("admit (read, sanitize, restore locked cells)",
         "sandbox up: cgroup, bwrap, executor and kernel forked, kernel ready",
         "the notebook's cells",
         "sandbox down: kernel stopped, cgroup and folders removed",
         "verdict (observations against the reference) and the autograded notebook",
         "feedback page")


def _cells_span(executed: str) -> tuple:
    """(first cell's start, last cell's end) as nbclient recorded them, in seconds since the epoch."""
    starts, ends = [], []
    for cell in nbformat.reads(executed, as_version=4).cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            starts.append(datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00")).timestamp())
            ends.append(datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00")).timestamp())
    return min(starts), max(ends)


def grade_once(course, submission, assignment, limits, stamp) -> list:
    """Seconds per step (STEPS) for one submission, graded as ``grade`` grades it."""
    marks = [time.time()]
    admitted = admit(course, submission, assignment)
    marks.append(time.time())
    run = run_in_sandbox(handoff(admitted.nb), limits)
    done = time.time()
    result, nb = conclude(run, assignment, limits, Context(submission.student, stamp=stamp), admitted.notes)
    flagged(nb, result, assignment, run.shown)
    judged = time.time()
    feedback.render(result, Final.of(result), nb, assignment, run.shown)
    rendered = time.time()
    marks += [*_cells_span(run.executed), done, judged, rendered]  # the span read after the timed steps
    return [b - a for a, b in zip(marks, marks[1:])]


def graded_runs(course, assignment_id: str, repeats: int) -> tuple:
    """(seconds of a warm-up grading, [seconds per step for each of ``repeats`` gradings]) of the
    solved notebook; the warm-up is the first grading in this process, which starts its fork servers."""
    limits = Limits()
    with tempfile.TemporaryDirectory(prefix="finite-profile-") as workdir:
        workdir = Path(workdir)
        solution = load_cases(course, assignment_id, answer_cells(course.source_notebook(assignment_id)))[0]
        write_submissions(course, assignment_id, {"solved": solution}, workdir / "submitted")
        submission = find_submissions(workdir / "submitted", assignment_id)[0]
        stamp = fingerprint(course, assignment_id, limits)
        assignment = prepare_assignment(course, assignment_id, workdir / "prepared", stamp)
        ensure_reference(course, assignment, limits, stamp)
        cold = sum(grade_once(course, submission, assignment, limits, stamp))
        return cold, [grade_once(course, submission, assignment, limits, stamp) for _ in range(repeats)]


def profile(course, assignment_id: str, repeats: int, out) -> None:
    """Print the median seconds of each step over ``repeats`` gradings of the solved notebook
    (after one warm-up), against the floor a plain nbgrader autograde pays per notebook: a fresh
    kernel and ``import torch``."""
    cold, runs = graded_runs(course, assignment_id, repeats)
    with tempfile.TemporaryDirectory(prefix="finite-floor-") as scratch:
        floor = floor_seconds(repeats, scratch)
    medians = [statistics.median(run[i] for run in runs) for i in range(len(STEPS))]
    print(f"{assignment_id}, solved, graded {repeats} times after a warm-up "
          f"(the first grading in a process, which starts its fork servers: {cold:.2f} s)", file=out)
    for step, seconds in zip(STEPS, medians):
        print(f"  {step:<68} {seconds:6.2f} s", file=out)
    total, overhead = sum(medians), sum(medians) - medians[2]
    print(f"  {'in all':<68} {total:6.2f} s", file=out)
    print(f"  the grader's own share (all but the cells): {overhead:.2f} s; a plain kernel's start and "
          f"import torch, which nbgrader pays per notebook: {floor:.2f} s", file=out)
