"""Execution benchmark: each solved (source) notebook against the floor of kernel start + import torch."""
import os
import statistics
import time

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder.sandbox.bubblewrap import QuietKernelManager


def execute_seconds(nb, cwd):
    """Wall time to start a kernel, run every cell of ``nb`` and shut the kernel down."""
    client = NotebookClient(
        nbformat.from_dict(nb), timeout=600, kernel_name="python3", kernel_manager_class=QuietKernelManager,
        resources={"metadata": {"path": str(cwd)}},
    )
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def floor_notebook():
    """The fixed cost every notebook of the course pays."""
    return new_notebook(cells=[new_code_cell("import torch")])


GOAL = 2.0  # a solved notebook, as graded, within this many times the floor


def bench(course, ids, repeats, out):
    """Print median execution time as graded (NBGRADER_EXECUTION set: widgets and slow demos skip
    themselves), the floor and their ratio for each assignment, with a verdict against GOAL."""
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    floor = statistics.median(execute_seconds(floor_notebook(), course.root) for _ in range(repeats))
    print(f"floor (kernel start + import torch): {floor:.2f} s median of {repeats}", file=out)
    print(f"{'assignment':<28} {'median s':>9} {'floor s':>8} {'ratio':>6}  goal <= {GOAL:g}x", file=out)
    for assignment_id in ids:
        nb = course.source_notebook(assignment_id)
        cwd = course.source_path(assignment_id).parent
        median = statistics.median(execute_seconds(nb, cwd) for _ in range(repeats))
        ratio = median / floor
        print(f"{assignment_id:<28} {median:>9.2f} {floor:>8.2f} {ratio:>6.2f}  {'met' if ratio <= GOAL else 'OVER'}",
              file=out)
