"""Execute a restored notebook in a fresh, capped sandbox: the only step that runs student code."""
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader.preprocessors import Execute, LimitOutput

from autograder.sandbox.bubblewrap import QuietKernelManager, kernel_manager_class
from autograder.sandbox.caps import Enclosure, Usage


class RecordingExecute(Execute):
    """nbgrader's executor, remembering which cells really ran."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.ran = set()

    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        self.ran.add(kwargs["cell_index"])


def execute(nb, scratch, limits, sandboxed=True):
    """Run ``nb`` in a sandboxed kernel. Returns (indices of cells that ran, outcome, usage).

    ``usage`` is what the caps recorded (:class:`autograder.sandbox.caps.Usage`), for ``limit_outcome``.
    ``sandboxed=False`` exists only so the benchmark can measure what the sandbox costs.
    """
    if not sandboxed:
        return _execute(nb, scratch, limits, QuietKernelManager) + (Usage(),)
    with Enclosure(limits, scratch) as enclosure:
        ran, outcome = _execute(nb, scratch, limits, kernel_manager_class(scratch, limits, enclosure))
    return ran, outcome, enclosure.usage


def _execute(nb, scratch, limits, manager):
    executor = RecordingExecute(
        timeout=limits.cell_timeout, interrupt_on_timeout=True, allow_errors=True,
        raise_on_iopub_timeout=False, kernel_manager_class=manager,
        extra_arguments=["--HistoryManager.hist_file=:memory:"],
    )
    expired = threading.Event()

    def kill():
        expired.set()
        if executor.km is not None and executor.km.has_kernel:
            executor.km.provisioner.process.kill()  # bwrap; --die-with-parent takes the rest

    watchdog = threading.Timer(limits.notebook_timeout, kill)
    watchdog.start()
    try:
        executor.preprocess(nb, {"metadata": {"path": str(scratch)}})
        outcome = "ok"
    except (DeadKernelError, CellTimeoutError) as error:
        killed = expired.is_set() or isinstance(error, CellTimeoutError)
        outcome = "timeout" if killed else "kernel_died"
    except Exception:
        if not expired.is_set():  # a kill mid-cell surfaces in several ways; anything else is ours
            raise
        outcome = "timeout"
    finally:
        watchdog.cancel()
    LimitOutput().preprocess(nb, {})
    return executor.ran, outcome


@dataclass(frozen=True)
class SandboxRun:
    """What one sandboxed execution hands back to the trusted side (plain data: it may come from
    a Dask worker)."""

    executed: str  # the executed notebook, JSON
    ran: tuple  # indices of the cells that ran
    outcome: str  # "ok", "timeout" or "kernel_died"
    usage: Usage  # what the caps recorded
    shown: dict = field(default_factory=dict)  # {answer cell index: [{"kind", "text"}]} printed before the first test cell
    output_notes: tuple = ()  # where outputs were cut at a cap


def run_in_sandbox(notebook_json: str, limits) -> SandboxRun:
    """Execute a restored notebook in a fresh, capped sandbox (the only step that runs student
    code; it may run on another machine)."""
    nb = nbformat.reads(notebook_json, as_version=4)
    with tempfile.TemporaryDirectory(prefix="fg-") as scratch:
        ran, outcome, usage = execute(nb, Path(scratch), limits)
    return SandboxRun(nbformat.writes(nb), tuple(sorted(ran)), outcome, usage)
