"""Run a restored notebook in a fresh, capped sandbox: the only step that runs student code, and
the grading worker's side of it.

**The grading worker never holds what the kernel sent.** For each submission the worker's
executor server forks an executor process (:mod:`autograder.sandbox.executor`) that enters the
student's cgroup, runs the kernel, counts what arrives on every channel before decoding it
(:mod:`autograder.sandbox.traffic`), caps the outputs it keeps (:mod:`autograder.sandbox.outputs`)
and writes one bounded report (:class:`~autograder.sandbox.report.ExecutorReport`). This module
reads back only that report, and passes the notebook on as the executor wrote it (parsed once,
where it is judged).
"""
import os
import pickle
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.sandbox import ExecutorFailed, SandboxError, forkserver
from autograder.sandbox.enclosure import Enclosure
from autograder.sandbox.limits import MB
from autograder.sandbox.outputs import OBSERVATION_FACTOR, SHOWN_TOTAL
from autograder.sandbox.report import ExecutorReport
from autograder.sandbox.servers import executor_server, kernel_server_sockets
from autograder.sandbox.usage import Usage, limit_outcome

GRACE = 60  # seconds the executor gets past the notebook's time limit to stop the kernel and write
TAIL = 2000  # bytes of the executor's own log a grader error quotes


@dataclass(frozen=True)
class SandboxRun:
    """What one sandboxed execution hands back to the trusted side (plain data: it may come from
    a Dask worker)."""

    executed: str  # the executed notebook, JSON (outputs within the caps of Limits)
    ran: tuple  # indices of the cells that ran
    outcome: str  # "ok", "timeout" or "kernel_died"
    usage: Usage  # what the caps recorded
    cut: tuple = ()  # one line per cell and cap where output was cut, e.g. "quiz (cell 7): output cut at 1 MB per output"
    # {cell index: [{"kind": "out"|"err", "text": str}]}: the text outputs of the answer cells
    # before the first test cell started (outputs.text_snapshot); the only learner output feedback may show
    shown: dict = field(default_factory=dict)
    timed_out: tuple = ()  # indices of the cells the cell time limit interrupted
    stopped_in: int = -1  # index of the cell running when the kernel died or was stopped (-1: none)

    def notebook(self) -> NotebookNode:
        """The executed notebook, as the executor wrote it (nbformat's own schema check would
        only log: the executor is the grader's)."""
        return nbformat.v4.reads(self.executed)


def run_in_sandbox(notebook_json: str, limits) -> SandboxRun:
    """Execute a restored notebook in a fresh, capped sandbox (the only step that runs student
    code; it may run on another machine)."""
    with tempfile.TemporaryDirectory(prefix="fg-") as scratch:
        return sandboxed_run(notebook_json, Path(scratch), limits)


def sandboxed_run(notebook_json, scratch, limits) -> SandboxRun:
    """Run ``notebook_json`` with ``scratch`` as its folder, in an executor process inside the
    student's cgroup."""
    with Enclosure(limits, scratch) as enclosure:
        report = run_executor(notebook_json, scratch, limits, enclosure)
        enclosure.report(report.disk_peak, report.disk_full, report.traffic)
    check_stopped(report, enclosure.usage, limits)
    return SandboxRun(report.executed, tuple(sorted(report.ran)), report.outcome, enclosure.usage, tuple(report.cut),
                      report.shown, tuple(report.timed_out), report.stopped_in)


def result_bound(notebook_json, limits) -> int:
    """The most bytes a report may take: the notebook, its capped outputs (JSON escapes counted at
    worst), the snapshot and some room; a larger file is not read."""
    outputs = limits.notebook_output_mb * (1 + OBSERVATION_FACTOR) * MB
    return round(2 * len(notebook_json.encode()) + 6 * (outputs + SHOWN_TOTAL) + 4 * MB)


# One sandbox at a time per process: the fork servers' channels are this process's, and a thread
# could read the reply another waits for (a Dask worker started with more than one thread).
_one_sandbox_at_a_time = threading.Lock()


def run_executor(notebook_json, scratch, limits, enclosure) -> ExecutorReport:
    """Execute ``notebook_json`` in an executor process inside ``enclosure``'s cgroup; its report,
    or :meth:`ExecutorReport.stopped` when it was stopped before it reported. SandboxError when it
    failed for a reason of ours."""
    scratch = Path(scratch)
    job, result, log = scratch / "job.pickle", scratch / "result.json", scratch / "executor.log"
    job.write_bytes(pickle.dumps({"notebook": notebook_json, "scratch": str(scratch), "limits": limits,
                                  "enclosure": enclosure}))
    with _one_sandbox_at_a_time:
        kernels = kernel_server_sockets() if enclosure.identity is not None else []
        request = {"job": str(job), "result": str(result), "log": str(log), "cwd": str(scratch),
                   "procs": enclosure.cgroup.procs_files() if enclosure.cgroup else []}
        try:
            executor = executor_server().fork(request, kernels)
        except forkserver.ServerGone as error:
            raise SandboxError(str(error)) from None
        stopped, returncode = False, None
        try:
            returncode = executor.wait(timeout=limits.notebook_timeout + GRACE)
        except TimeoutError:
            stopped = True
            executor.kill()
            returncode = _ended(executor)
        except forkserver.ServerGone:
            pass
    size = result.stat().st_size if result.exists() else -1
    if size > result_bound(notebook_json, limits):
        raise SandboxError(f"the executor's result is {size / MB:.0f} MB, over its bound")
    if size >= 0 and not stopped:
        return ExecutorReport.from_json(result.read_text())
    return ExecutorReport.stopped(notebook_json, stopped, returncode, _tail(log))


def _ended(executor):
    try:
        return executor.wait(timeout=GRACE)
    except (TimeoutError, forkserver.ServerGone):
        return None


def check_stopped(report: ExecutorReport, usage, limits):
    """ExecutorFailed when the executor ended without a report and no cap explains it (its own
    failure, not the student's)."""
    if not report.reported and report.outcome != "timeout" and limit_outcome(usage, limits) is None:
        raise ExecutorFailed(report.returncode, report.why)


def _tail(path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - TAIL))
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return text.splitlines()[-1] if text else "no message"
