"""Notebook set-up: RNG seeding and the ``%%gpu_optional`` cell magic."""
import random

import numpy as np
import torch

from fplab.device import cuda_available
from fplab.rule_check import record_cell

GPU_SKIP_MESSAGE = "skipped: needs a CUDA GPU; nothing here is graded"


def seed_all(seed: int = 0) -> None:
    """Seed Python's, NumPy's and torch's global generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def gpu_optional(line: str, cell: str, shell) -> None:
    """Run ``cell`` in the user namespace when CUDA is available; otherwise print one skip line."""
    if not cuda_available():
        print(GPU_SKIP_MESSAGE)
        return
    shell.ex(shell.transform_cell(cell))


def setup_notebook(seed: int = 0, shell=None) -> None:
    """Register ``%%gpu_optional`` and the visible rule check's cell record
    (:func:`fplab.rule_check.record_cell`) on the running IPython shell (if any), and seed every RNG.

    Safe to call more than once.
    """
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is not None:
        shell.register_magic_function(
            lambda line, cell: gpu_optional(line, cell, shell),
            magic_kind="cell",
            magic_name="gpu_optional",
        )
        if record_cell not in shell.events.callbacks["pre_run_cell"]:
            shell.events.register("pre_run_cell", record_cell)
    seed_all(seed)
