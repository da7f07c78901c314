"""Timing a notebook in a plain kernel (no sandbox), and the floor: what nbgrader pays per notebook."""
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


def floor_seconds(repeats: int, cwd) -> float:
    """Median wall time of the fixed cost every notebook of the course pays in a plain kernel:
    its start and ``import torch``."""
    floor = new_notebook(cells=[new_code_cell("import torch")])
    return statistics.median(execute_seconds(floor, cwd) for _ in range(repeats))
