"""Execution benchmark: each solved (source) notebook against the floor of kernel start + import torch."""
import os
import statistics

from autograder.bench.plain import execute_seconds, floor_seconds
from autograder.bench.profile import graded_runs
from autograder.sandbox.limits import Limits
from autograder.sandbox.probe import missing_caps

GOALS = {"09_compiled_numerics": 3.0}  # torch.compile's first compilation in every kernel
GOAL = 2.0  # any other solved notebook, as graded, within this many times the floor


def bench(course, ids, repeats, out):
    """Print, for each assignment's solved notebook, the median seconds of a plain kernel's run and
    of a grading (``grade``'s path: admit, sandbox, cells, judge, page; NBGRADER_EXECUTION set, so
    widgets and slow demos skip themselves), the floor (a plain kernel + ``import torch``, what
    nbgrader pays per notebook) and graded/floor with a verdict against the goal. Where this machine
    cannot sandbox, the plain run stands in and the line says so."""
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    floor = floor_seconds(repeats, course.root)
    missing = missing_caps(Limits())
    print(f"floor (kernel start + import torch): {floor:.2f} s median of {repeats}", file=out)
    if missing:
        print("this machine cannot sandbox (" + "; ".join(missing) + "): the plain run stands in for the graded one",
              file=out)
    print(f"{'assignment':<28} {'plain s':>8} {'graded s':>9} {'floor s':>8} {'ratio':>6}  goal", file=out)
    for assignment_id in ids:
        nb = course.source_notebook(assignment_id)
        cwd = course.source_path(assignment_id).parent
        plain = statistics.median(execute_seconds(nb, cwd) for _ in range(repeats))
        graded = plain if missing else statistics.median(
            sum(steps) for steps in graded_runs(course, assignment_id, repeats)[1])
        ratio, goal = graded / floor, GOALS.get(assignment_id, GOAL)
        print(f"{assignment_id:<28} {plain:>8.2f} {graded:>9.2f} {floor:>8.2f} {ratio:>6.2f}  <= {goal:g}x "
              f"{'met' if ratio <= goal else 'OVER'}", file=out)
