"""The executor process: the only process that talks to a student's kernel.

The grading worker never holds a byte the kernel sent. For each submission its executor server
(:mod:`autograder.sandbox.forkserver`, which has imported all this module needs) forks an executor
that first enters the *student's cgroup*, so its memory, processes and CPU count against that
student's caps; the executor starts the kernel, counts what arrives on every channel before
decoding it (:mod:`autograder.sandbox.traffic`), caps the outputs it keeps
(:mod:`autograder.sandbox.execute`), and writes one bounded JSON file: the capped executed notebook
and what the run recorded. A kernel that floods the executor gets it stopped (a traffic cap) or
OOM-killed inside that cgroup: either way ``resource_limit`` for that student, and the worker's
memory does not move.
"""
import json
import os
import pickle
import socket
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import IPython  # noqa: F401  (each executor imported ipykernel.kernelspec and IPython as it looked
import ipykernel.kernelspec  # noqa: F401  up the python3 kernel spec: 0.1 s of CPU, now once per server)
import nbformat
from jupyter_client.provisioning.factory import KernelProvisionerFactory

from autograder.sandbox import forkserver
from autograder.sandbox import SandboxError
from autograder.sandbox.bubblewrap import kernel_env, kernel_manager_class
from autograder.sandbox.late_imports import late_imports
from autograder.sandbox.limits import MB
from autograder.sandbox.probe import runs_unprivileged
from autograder.sandbox.usage import limit_outcome
from autograder.sandbox.execute import (OBSERVATION_FACTOR, SHOWN_TOTAL, compile_output_checks, handoff,
                                        run_metered, where_it_stopped)

# Done once in the executor server rather than in every executor it forks: nbformat compiles its
# schema's validator at a process's first read (50 ms of CPU), jupyter_client reads every installed
# package's entry points for its kernel provisioners at the first kernel (20 ms).
nbformat.validate(nbformat.v4.new_notebook())
KernelProvisionerFactory.instance()
compile_output_checks()

SERVED = "autograder.sandbox.client"  # this module, as its executor server imports it
ZYGOTE = "autograder.sandbox.zygote"  # the kernel server's module
GRACE = 60  # seconds the executor gets past the notebook's time limit to stop the kernel and write
TAIL = 2000  # bytes of the executor's own stderr a grader error quotes


def result_bound(notebook_json, limits) -> int:
    """The most bytes a result file may take: the notebook, its capped outputs (JSON escapes
    counted at worst), the snapshot and some room; a larger file is not read."""
    outputs = limits.notebook_output_mb * (1 + OBSERVATION_FACTOR) * MB
    return round(2 * len(notebook_json.encode()) + 6 * (outputs + SHOWN_TOTAL) + 4 * MB)


def run_executor(notebook_json, scratch, limits, enclosure) -> dict:
    """Execute ``notebook_json`` in an executor process inside ``enclosure``'s cgroup. Returns
    the executor's report (see :func:`main`); when the executor was stopped before it reported,
    a report with no outputs that says so. SandboxError when it failed for a reason of ours."""
    scratch = Path(scratch)
    job, result, log = scratch / "job.pickle", scratch / "result.json", scratch / "executor.log"
    job.write_bytes(pickle.dumps({"notebook": notebook_json, "scratch": str(scratch), "limits": limits,
                                  "enclosure": enclosure}))
    with _one_sandbox_at_a_time:
        return _run_executor(notebook_json, job, result, log, scratch, limits, enclosure)


# One sandbox at a time per process: the fork servers' channels are this process's, and a thread
# could read the reply another waits for (a Dask worker started with more than one thread).
_one_sandbox_at_a_time = threading.Lock()


def _run_executor(notebook_json, job, result, log, scratch, limits, enclosure) -> dict:
    kernels = _kernel_server() if enclosure.identity is not None else []
    request = {"job": str(job), "result": str(result), "log": str(log), "cwd": str(scratch),
               "procs": enclosure.cgroup.procs_files() if enclosure.cgroup else []}
    try:
        executor = forkserver.server(SERVED, dict(os.environ)).fork(request, kernels)
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
        return json.loads(result.read_text())
    return {"executed": notebook_json, "ran": [], "outcome": "timeout" if stopped else "kernel_died", "cut": [],
            "shown": {}, "disk_peak": 0, "disk_full": False, "traffic": "", "returncode": returncode,
            "why": _tail(log)}


@contextmanager
def shared_servers():
    """For the body, the fork servers that this process's forked workers (a local pool's) connect
    to, in place of two of their own each: they start while the pool does."""
    forkserver.share(SERVED, dict(os.environ))
    if runs_unprivileged():
        forkserver.share(ZYGOTE, kernel_env())
    try:
        yield
    finally:
        forkserver.unshare()


def begin_servers() -> bool:
    """Connect to the fork servers the grading process shares, or start this process's own, side
    by side, without waiting for them (a Dask worker's, as a batch begins: they import while the
    grading process admits the first students). Whether kernels come from a kernel server (they
    drop to a uid of their own)."""
    kernels = runs_unprivileged()
    forkserver.start(SERVED, dict(os.environ))
    if kernels:
        forkserver.start(ZYGOTE, kernel_env())
    return kernels


def start_servers() -> None:
    """:func:`begin_servers`, then wait for them (a local pool's worker initializer: while the
    grading process generates the assignment). An executor server that cannot start is left to the
    first submission, which says why; so is a kernel server (:func:`_kernel_server`)."""
    kernels = begin_servers()
    try:
        forkserver.server(SERVED, dict(os.environ))
    except forkserver.ServerGone:
        return
    if kernels:
        _kernel_server()


_no_kernel_server = []  # why this process's kernel server could not start, once it could not


def _kernel_server() -> list:
    """[the kernel server's socket], or [] (each kernel a fresh process, as capped as ever) when it
    cannot start here: said once, on stderr."""
    if _no_kernel_server:
        return []
    try:
        return [forkserver.server(ZYGOTE, kernel_env()).fileno()]
    except forkserver.ServerGone as error:
        _no_kernel_server.append(str(error))
        print(f"{error}: each notebook starts a fresh kernel instead (slower, as safe)", file=sys.stderr)
        return []


def _ended(executor):
    try:
        return executor.wait(timeout=GRACE)
    except (TimeoutError, forkserver.ServerGone):
        return None


def check_stopped(report, usage, limits):
    """SandboxError when the executor ended without a report and no cap explains it (its own
    failure, not the student's)."""
    if "returncode" in report and report["outcome"] != "timeout" and limit_outcome(usage, limits) is None:
        raise SandboxError(f"the executor ended without a result (exit {report['returncode']}): {report['why']}")


def _tail(path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - TAIL))
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return text.splitlines()[-1] if text else "no message"


def child(request, fds):
    """In a process the executor server forked: enter the student's cgroup, then run the job
    (``fds``: the kernel server's socket, where kernels run unprivileged)."""
    forkserver.die_with_parent()
    os.setsid()
    for path in request["procs"]:
        with open(path, "w") as procs:
            procs.write(f"{os.getpid()}\n")
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd in (1, 2):
        os.dup2(log, fd)
    os.chdir(request["cwd"])
    kernels = forkserver.Channel(socket.socket(fileno=fds[0])) if fds else None
    main(request["job"], request["result"], kernels)


def main(job_path, result_path, kernels=None):
    """Run the job the worker wrote; write the report to ``result_path`` (atomically).
    ``kernels``: the kernel server's channel (None: each kernel is a fresh process)."""
    job = pickle.loads(Path(job_path).read_bytes())
    Path(job_path).unlink()
    scratch, limits, enclosure = Path(job["scratch"]), job["limits"], job["enclosure"]
    nb = nbformat.reads(job["notebook"], as_version=4)
    ran, outcome, executor, meter = run_metered(
        nb, scratch, limits,
        lambda meter: kernel_manager_class(scratch, limits, enclosure, meter, kernels, late_imports(nb)))
    disk_peak, disk_full = enclosure.stop_sampling()
    timed_out, stopped_in = where_it_stopped(outcome, executor, meter)
    report = {"timed_out": list(timed_out), "stopped_in": stopped_in, "executed": handoff(nb), "ran": sorted(ran), "outcome": outcome,
              "cut": list(executor.caps.notes.values()), "shown": executor.shown,
              "disk_peak": disk_peak, "disk_full": disk_full, "traffic": meter.over, "meter": meter.summary()}
    partial = Path(f"{result_path}.part")
    partial.write_text(json.dumps(report))
    partial.rename(result_path)
